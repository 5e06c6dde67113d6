"""Secret carriers the scan once passed over (issue 24, class 10).

Written as an adversary: a token in a file or folder name, and a key gzipped or
zipped, were `checked` and allowed. Every token rule is carried every way generated
here: as a file name, a folder name at each depth, in gzip (one member, two members,
concatenated), bzip2, xz, lzma-alone, zip (stored and deflated, as a member's content
and as a member's name), a zip in a gzip, a gzip in a zip; and what cannot be unpacked
(an encrypted member, a stream past the bound, a damaged stream) is `partial` with the
reason, never `checked`. In process, through the checker's own plan and run.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zipfile
from collections.abc import Callable

import pytest
from secrets_support import AWS_KEY, GH_TOKEN, GITLAB, PEM, SLACK, STRIPE, run_scan

from orchestrator.vocab import ScopeStatus

#: A name-safe token of each kind (no `/`), and the rule it trips.
TOKENS = {
    "aws": (AWS_KEY, "secret-aws-access-key-id"),
    "github": (GH_TOKEN, "secret-known-token"),
    "slack": (SLACK, "secret-known-token"),
    "stripe": (STRIPE, "secret-known-token"),
    "gitlab": (GITLAB, "secret-known-token"),
}


def _zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


#: Every way to carry `data` in one file.
CARRIERS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "gzip-two-members": lambda d: gzip.compress(b"harmless\n") + gzip.compress(d),
    "gzip-level-1": lambda d: gzip.compress(d, compresslevel=1),
    "bzip2": bz2.compress,
    "xz": lzma.compress,
    "lzma-alone": lambda d: lzma.compress(d, format=lzma.FORMAT_ALONE),
    "zip-deflated": lambda d: _zip({"notes.txt": d}),
    "zip-stored": lambda d: _zip({"notes.txt": d}, zipfile.ZIP_STORED),
    "zip-bzip2": lambda d: _zip({"a/b/notes.txt": d}, zipfile.ZIP_BZIP2),
    "zip-in-gzip": lambda d: gzip.compress(_zip({"k": d})),
    "gzip-in-zip": lambda d: _zip({"k.gz": gzip.compress(d)}),
    "xz-in-zip-in-gzip": lambda d: gzip.compress(_zip({"k.xz": lzma.compress(d)})),
    "padded-gzip": lambda d: gzip.compress(b"x" * 100_000 + d + b"y" * 100_000),
}
#: Names a compressed file goes by (the scan goes by content, never the name).
NAMES = ["key.gz", "backup.bin", "data", "image.png"]


def _outcome(path: str, data: bytes):  # type: ignore[no-untyped-def]
    (outcome,) = run_scan({path: data})
    return outcome


@pytest.mark.parametrize("carrier", sorted(CARRIERS))
@pytest.mark.parametrize("token", sorted(TOKENS))
def test_a_compressed_token_is_found(carrier: str, token: str) -> None:
    value, rule = TOKENS[token]
    packed = CARRIERS[carrier](f"token = {value}\n".encode())
    outcome = _outcome(NAMES[len(carrier) % len(NAMES)], packed)
    assert rule in {f.rule for f in outcome.findings}, (carrier, outcome)


@pytest.mark.parametrize("carrier", sorted(CARRIERS))
def test_a_compressed_private_key_is_found(carrier: str) -> None:
    outcome = _outcome("id.bak", CARRIERS[carrier](PEM.encode()))
    assert "secret-private-key-block" in {f.rule for f in outcome.findings}, outcome


@pytest.mark.parametrize("member", ["id_rsa", "home/.ssh/id_ed25519", "keys/store.p12"])
def test_a_key_file_name_inside_a_zip_is_found(member: str) -> None:
    outcome = _outcome("bundle.zip", _zip({member: b"harmless bytes"}))
    rules = {f.rule for f in outcome.findings}
    assert rules & {"secret-private-key-file", "secret-key-store-file"}, outcome


@pytest.mark.parametrize("token", sorted(TOKENS))
def test_a_token_as_a_zip_member_name_is_found(token: str) -> None:
    value, rule = TOKENS[token]
    outcome = _outcome("bundle.zip", _zip({f"{value}.txt": b"harmless"}))
    assert rule in {f.rule for f in outcome.findings}, outcome
    assert value not in (outcome.reason or "")


#: Ways to wrap a zip so that its member names are compressed too: they are not in
#: the file's bytes as written, only in what unpacking gives.
ZIP_WRAPPERS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "bzip2": bz2.compress,
    "xz": lzma.compress,
    "zip": lambda z: _zip({"inner.zip": z}),
}


@pytest.mark.parametrize("wrapper", sorted(ZIP_WRAPPERS))
@pytest.mark.parametrize("token", sorted(TOKENS))
def test_a_token_as_a_member_name_of_a_wrapped_zip_is_found(wrapper: str, token: str) -> None:
    value, rule = TOKENS[token]
    packed = ZIP_WRAPPERS[wrapper](_zip({f"{value}.txt": b"harmless"}))
    assert value.encode() not in packed  # the name is not in the bytes as written
    outcome = _outcome("bundle.bin", packed)
    assert rule in {f.rule for f in outcome.findings}, (wrapper, outcome)
    assert value not in (outcome.reason or "")


def _paths(value: str) -> list[str]:
    """The token as a file name and as a folder name at several depths."""
    return [
        value,
        f"{value}.txt",
        f"config/{value}",
        f"{value}/README.md",
        f"a/{value}/b/c.py",
        f"a/b/c/d/{value}-backup/x",
        f"prefix.{value}.json",
        f"backup {value} (copy).txt",
    ]


@pytest.mark.parametrize("token", sorted(TOKENS))
def test_a_token_in_a_file_or_folder_name_is_found(token: str) -> None:
    value, rule = TOKENS[token]
    for path in _paths(value):
        outcome = _outcome(path, b"nothing secret here\n")
        assert rule in {f.rule for f in outcome.findings}, path
        assert all(value not in f.message for f in outcome.findings)


def test_clean_names_and_archives_stay_clean() -> None:
    """No benign file is flagged: plain names, a clean gzip and zip, a PNG header."""
    for path, data in [
        ("src/app/main.py", b"x = 1\n"),
        ("docs/AKIA-is-a-prefix.md", b"text\n"),
        ("data.gz", gzip.compress(b"plain text\n" * 100)),
        ("data.zip", _zip({"a.txt": b"plain", "b/c.txt": b"more"})),
        ("image.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 64),
        ("random.bin", b"\x5d\x00\x00" + bytes(range(256)) * 4),
    ]:
        outcome = _outcome(path, data)
        assert outcome.findings == (), (path, outcome.findings)
        assert outcome.status == ScopeStatus.CHECKED, (path, outcome.reason)


def test_what_cannot_be_unpacked_is_partial_never_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An encrypted member (zip's traditional encryption bit, set by hand).
    raw = bytearray(_zip({"k.txt": b"anything"}, zipfile.ZIP_STORED))
    raw[6] |= 0x1  # local header flags
    central = raw.rfind(b"PK\x01\x02")
    raw[central + 8] |= 0x1  # central directory flags
    encrypted = _outcome("k.zip", bytes(raw))
    assert encrypted.status == ScopeStatus.PARTIAL and "encrypted" in (encrypted.reason or "")
    # A damaged stream.
    damaged = _outcome("k.gz", gzip.compress(b"x" * 1000)[:20] + b"\xff" * 40)
    assert damaged.status == ScopeStatus.PARTIAL, damaged
    # Past the bound: a small bound stands in for the 16 MiB one.
    from orchestrate_plugins import secrets_checker

    monkeypatch.setattr(secrets_checker, "SCAN_LIMIT", 4096)
    bomb = _outcome("bomb.gz", gzip.compress(b"\0" * 100_000 + f"k={AWS_KEY}".encode()))
    assert bomb.status == ScopeStatus.PARTIAL
    assert "not fully scanned" in (bomb.reason or "")


def test_expand_bounds_the_bytes_it_unpacks() -> None:
    from orchestrate_plugins import secrets_archive

    bomb = gzip.compress(b"\0" * 10_000_000)
    out = secrets_archive.expand(bomb, 65536)
    assert sum(len(b) for _, b in out.blobs) <= 65536
    assert out.unread
