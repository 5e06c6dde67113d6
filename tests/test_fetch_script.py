"""scripts/fetch: pinned, verified, atomic, idempotent, and safe with hostile archives.

The archive tests build their tar files here. The fetch tests run the real script
(pip and npm against the real registries) into a cache folder of the test's own; the
offline tests point the clients at a closed port on the loopback address.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from helpers import REPO, corpus, load_module, require_tool

FETCH = REPO / "scripts" / "fetch"
NPM_HINT = "install Node.js with npm (Debian: apt-get install npm)"
CLOSED = "http://127.0.0.1:9/"  # the discard port: nothing listens, the connection is refused


corpora = load_module(REPO / "scripts/corpora.py", "corpora_under_test")


def _tar(path: Path, members: list[tarfile.TarInfo], bodies: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for m in members:
            body = bodies.get(m.name)
            if body is not None:
                m.size = len(body)
            tar.addfile(m, io.BytesIO(body) if body is not None else None)
    return path


def _info(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    m = tarfile.TarInfo(name)
    m.type = kind
    m.linkname = link
    m.mode = 0o644
    return m


HOSTILE = {
    "dot-dot": [_info("pkg/ok.txt"), _info("pkg/../../evil.txt")],
    "leading-dot-dot": [_info("../evil.txt")],
    "absolute": [_info("/tmp/orchestrate-evil.txt")],
    "symlink": [_info("pkg/ok.txt"), _info("pkg/link", tarfile.SYMTYPE, "/etc")],
    "symlink-then-through-it": [
        _info("pkg/link", tarfile.SYMTYPE, ".."),
        _info("pkg/link/evil.txt"),
    ],
    "hardlink": [_info("pkg/hard", tarfile.LNKTYPE, "/etc/passwd")],
    "char-device": [_info("pkg/tty", tarfile.CHRTYPE)],
    "block-device": [_info("pkg/disk", tarfile.BLKTYPE)],
    "fifo": [_info("pkg/pipe", tarfile.FIFOTYPE)],
    "two-top-folders": [_info("pkg/a.txt"), _info("other/b.txt")],
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_archive_is_refused_whole(tmp_path: Path, case: str) -> None:
    """An archive with any member that escapes the target, links, or is special is
    refused before anything is written: no target folder, nothing beside it."""
    members = HOSTILE[case]
    bodies = {m.name: b"x\n" for m in members if m.isfile()}
    archive = _tar(tmp_path / "a.tar.gz", members, bodies)
    dest = tmp_path / "out" / "src"
    with pytest.raises(corpora.UnsafeArchive, match=r"refused|top-level"):
        corpora.safe_extract(archive, dest)
    assert not dest.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.tar.gz"]
    assert not Path("/tmp/orchestrate-evil.txt").exists()


def test_archive_over_the_size_bound_is_refused(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """More bytes than the bound (declared sizes, summed before writing): refused."""
    monkeypatch.setattr(corpora, "MAX_BYTES", 10)
    archive = _tar(tmp_path / "a.tgz", [_info("pkg/big.txt")], {"pkg/big.txt": b"y" * 11})
    with pytest.raises(corpora.UnsafeArchive, match="bytes"):
        corpora.safe_extract(archive, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_archive_unpacks_without_its_top_folder(tmp_path: Path) -> None:
    """Files, folders and the executable bit land under the target, the top folder
    stripped; owners and other mode bits from the archive are not carried over."""
    run = _info("pkg/bin/run")
    run.mode = 0o4755  # setuid in the archive: not carried over
    members = [_info("pkg", tarfile.DIRTYPE), _info("pkg/a.txt"), run]
    archive = _tar(tmp_path / "a.tgz", members, {"pkg/a.txt": b"a\n", "pkg/bin/run": b"#!\n"})
    dest = tmp_path / "out"
    corpora.safe_extract(archive, dest)
    assert (dest / "a.txt").read_bytes() == b"a\n"
    assert (dest / "bin" / "run").stat().st_mode & 0o7777 == 0o755
    assert not (dest / "pkg").exists()


def _zip(path: Path, members: dict[str, tuple[int, bytes]]) -> Path:
    """A zip of `members`: name -> (unix file type and mode, body)."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, (mode, body) in members.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = mode << 16
            zf.writestr(info, body)
    return path


REG, LINK, CHR = 0o100644, 0o120777, 0o020644


def test_zip_members_matching_the_globs_are_unpacked_and_links_skipped(tmp_path: Path) -> None:
    """Only the chosen members land under the target, with their paths; a symbolic link
    member is skipped, never created."""
    archive = _zip(
        tmp_path / "src.zip",
        {
            "java.base/java/util/List.java": (REG, b"interface List {}\n"),
            "java.base/java/util/Link.java": (LINK, b"/etc/passwd"),
            "java.desktop/java/awt/Frame.java": (REG, b"class Frame {}\n"),
        },
    )
    dest = tmp_path / "out"
    assert corpora.unzip_members(archive, ("java.base/java/*.java",), dest) == 1
    assert (dest / "java.base/java/util/List.java").read_bytes() == b"interface List {}\n"
    assert not (dest / "java.base/java/util/Link.java").exists()
    assert not (dest / "java.base/java/util/Link.java").is_symlink()
    assert not (dest / "java.desktop").exists()


@pytest.mark.parametrize(
    "name,mode",
    [("pkg/../../evil.java", REG), ("/tmp/orchestrate-evil.java", REG), ("pkg/tty.java", CHR)],
)
def test_hostile_zip_member_is_refused_leaving_nothing(
    tmp_path: Path, name: str, mode: int
) -> None:
    """A chosen member that is absolute, leaves the target or is a special file refuses
    the whole archive before anything is written."""
    archive = _zip(tmp_path / "src.zip", {"pkg/ok.java": (REG, b"x\n"), name: (mode, b"x\n")})
    with pytest.raises(corpora.UnsafeArchive):
        corpora.unzip_members(archive, ("*",), tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not Path("/tmp/orchestrate-evil.java").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src.zip"]


def test_zip_over_the_size_bound_is_refused_leaving_nothing(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Bytes are counted as they are written: more than the bound refuses the archive and
    removes what was written."""
    monkeypatch.setattr(corpora, "MAX_BYTES", 10)
    archive = _zip(tmp_path / "src.zip", {"a.java": (REG, b"x" * 6), "b.java": (REG, b"y" * 6)})
    with pytest.raises(corpora.UnsafeArchive, match="bytes"):
        corpora.unzip_members(archive, ("*.java",), tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_package_tree_members_choose_the_files_unpacked_and_the_bounds_count_them(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """With `members`, only the matching files of a package's tree are unpacked, and the
    member bound counts those (a large package gives a small chosen part)."""
    monkeypatch.setattr(corpora, "MAX_MEMBERS", 2)
    names = ["./usr/", "./usr/lib/a.rs", "./usr/lib/sub/b.rs", "./usr/share/c.txt", "./d.rs"]
    members = [_info(n, tarfile.DIRTYPE) if n.endswith("/") else _info(n) for n in names]
    bodies = {n: b"x\n" for n in names if not n.endswith("/")}
    archive = _tar(tmp_path / "data.tar.gz", members, bodies)
    with tarfile.open(archive) as tar:
        corpora._extract(tar, "fake.deb", tmp_path / "root", tree=True, select=("usr/lib/*.rs",))
    found = sorted(
        p.relative_to(tmp_path / "root").as_posix() for p in (tmp_path / "root").rglob("*")
    )
    assert found == ["usr", "usr/lib", "usr/lib/a.rs", "usr/lib/sub", "usr/lib/sub/b.rs"]
    with tarfile.open(archive) as tar, pytest.raises(corpora.UnsafeArchive, match="members"):
        corpora._extract(tar, "fake.deb", tmp_path / "all", tree=True)


def test_an_unzip_item_needs_members_and_its_stamp_names_them(tmp_path: Path) -> None:
    """`unzip` without `members`, or pointing outside the package, is a manifest error;
    with them, the stamp carries both (a changed choice is fetched again), and an item
    without `unzip` keeps the stamp it always had."""
    pins = 'kind = "debian-deb"\nname = "p"\nversion = "1"\nsha256 = "' + "0" * 64 + '"\n'
    bad = _manifest(tmp_path, 'id = "a"\n' + pins + 'unzip = "usr/src.zip"\n')
    with pytest.raises(corpora.FetchError, match="members"):
        corpora.load_manifest(bad)
    bad.write_text(bad.read_text() + 'members = ["*"]\n')
    outside = tmp_path / "outside.toml"
    outside.write_text(
        'format = 1\n\n[[item]]\nid = "a"\n' + pins + 'unzip = "../x.zip"\nmembers = ["*"]\n'
    )
    with pytest.raises(corpora.FetchError, match="inside the package"):
        corpora.load_manifest(outside)
    item = corpora.load_manifest(bad)["a"]
    assert item.members == ("*",)
    stamp = json.loads(corpora.stamp_of(item))
    assert stamp["unzip"] == "usr/src.zip" and stamp["members"] == ["*"]
    plain = _manifest(tmp_path, 'id = "b"\n' + pins)
    assert "unzip" not in json.loads(corpora.stamp_of(corpora.load_manifest(plain)["b"]))


def _script(
    root: Path, *args: str, manifest: Path | None = None, drop: tuple[str, ...] = (), **env: str
) -> tuple[int, str]:
    """Run scripts/fetch into `root` with `env` laid over ours, less the names in `drop`."""
    full = {k: v for k, v in os.environ.items() if k not in drop}
    full.update(env, ORCHESTRATE_CORPORA=str(root))
    argv = [sys.executable, str(FETCH), *args]
    if manifest:
        argv += ["--manifest", str(manifest)]
    proc = subprocess.run(argv, env=full, capture_output=True, text=True, timeout=600)
    return proc.returncode, proc.stderr


def _manifest(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "corpora.toml"
    path.write_text("format = 1\n\n[[item]]\n" + body)
    return path


def _leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith((".staging-", ".old-")))


def test_fetch_is_idempotent_and_refreshes_a_stale_item(tmp_path: Path) -> None:
    """A fetched item is left alone on the next run; one whose stamp no longer matches
    the manifest is fetched again and swapped in whole, leaving no staging folder."""
    require_tool("npm", NPM_HINT)
    root = tmp_path / "cache"
    lock = REPO / "scripts" / "locks" / "eslint-plugin-no-only-tests"
    manifest = _manifest(tmp_path, f'id = "plugin"\nkind = "npm-lock"\nlock = "{lock}"\n')
    rc, err = _script(root, manifest=manifest)
    assert rc == 0, err
    assert "plugin: fetched in" in err
    plugin = root / "plugin" / "node_modules" / "eslint-plugin-no-only-tests" / "package.json"
    assert '"version": "3.4.0"' in plugin.read_text()
    stamp = root / "plugin" / ".stamp"
    mtime = stamp.stat().st_mtime_ns
    rc, err = _script(root, manifest=manifest)
    assert (rc, "plugin: present") == (0, err.strip().split(" (")[0].removeprefix("[fetch] "))
    assert stamp.stat().st_mtime_ns == mtime
    stamp.write_text("an older pin\n")
    (root / "plugin" / "marker").write_text("from the stale copy\n")
    rc, err = _script(root, manifest=manifest)
    assert rc == 0 and "plugin: fetched in" in err, err
    assert not (root / "plugin" / "marker").exists() and plugin.is_file()
    assert _leftovers(root) == []


def test_npm_offline_says_so_and_leaves_nothing(tmp_path: Path) -> None:
    """The npm registry unreachable: exit 1, a message saying so and what to do, no
    item folder and no staging folder."""
    require_tool("npm", NPM_HINT)
    root = tmp_path / "cache"
    body = (
        'id = "qs"\nkind = "npm-package"\nname = "qs"\nversion = "6.16.0"\nintegrity = "sha512-x"\n'
    )
    env = {"npm_config_registry": CLOSED, "npm_config_fetch_retries": "0"}
    rc, err = _script(root, manifest=_manifest(tmp_path, body), **env)
    assert rc == 1
    assert "could not reach the package registry (offline?)" in err
    assert "run scripts/fetch again" in err
    assert not (root / "qs").exists() and _leftovers(root) == []


def test_pypi_offline_says_so_and_leaves_nothing(tmp_path: Path) -> None:
    """The PyPI index unreachable (and no other index or local wheel folder): exit 1,
    the offline message, nothing left behind."""
    root = tmp_path / "cache"
    body = 'id = "p"\nkind = "pypi-sdist"\nname = "packaging"\nversion = "26.4"\nsha256 = "00"\n'
    env = {
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_INDEX_URL": CLOSED + "simple",
        "PIP_RETRIES": "1",
        "PIP_TIMEOUT": "2",
    }
    rc, err = _script(root, manifest=_manifest(tmp_path, body), drop=("PIP_FIND_LINKS",), **env)
    assert rc == 1
    assert "could not reach the package registry (offline?)" in err
    assert not (root / "p").exists() and _leftovers(root) == []


def test_tarball_not_matching_its_pin_is_refused(tmp_path: Path) -> None:
    """npm serves qs 6.16.0, but the manifest pins other bytes: refused, nothing kept."""
    require_tool("npm", NPM_HINT)
    root = tmp_path / "cache"
    other = "sha512-" + "A" * 86 + "=="
    body = (
        f'id = "qs"\nkind = "npm-package"\nname = "qs"\nversion = "6.16.0"\nintegrity = "{other}"\n'
    )
    rc, err = _script(root, manifest=_manifest(tmp_path, body))
    assert rc == 1
    assert "does not match the pinned integrity" in err
    assert not (root / "qs").exists() and _leftovers(root) == []


def test_sdist_not_matching_its_pin_is_refused(tmp_path: Path) -> None:
    """pip checks the pinned sha256 before it builds anything: refused, nothing kept."""
    root = tmp_path / "cache"
    body = 'id = "p"\nkind = "pypi-sdist"\nname = "packaging"\nversion = "26.4"\n'
    rc, err = _script(root, manifest=_manifest(tmp_path, body + f'sha256 = "{"0" * 64}"\n'))
    assert rc == 1
    assert "does not match the pinned sha256" in err
    assert not (root / "p").exists() and _leftovers(root) == []


def test_missing_corpus_fails_under_ci_naming_the_script(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Under CI=true a test whose corpus was not fetched fails, saying to run the script."""
    import helpers

    monkeypatch.setenv("ORCHESTRATE_CORPORA", str(tmp_path / "empty"))
    monkeypatch.setattr(helpers, "IN_CI", True)
    with pytest.raises(pytest.fail.Exception, match="run scripts/fetch"):
        corpus("attrs")


def test_manifest_pins_every_item() -> None:
    """Every item of the shipped manifest is pinned: a version with its hash, or a lock
    file whose every package carries an integrity hash."""
    import json

    for item in corpora.load_manifest().values():
        if item.kind == "pypi-sdist":
            assert len(item.sha256) == 64, item.id
        if item.kind == "npm-package":
            assert item.integrity.startswith("sha512-"), item.id
        lock = item.lock_dir()
        if lock:
            packages = json.loads((lock / "package-lock.json").read_text())["packages"]
            deps = {k: v for k, v in packages.items() if k}
            assert deps and all(v.get("integrity") for v in deps.values()), item.id


@pytest.mark.skipif(os.geteuid() != 0, reason="the package lists are read only as root")
def test_a_debian_download_reads_the_package_lists_once_then_asks_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh machine has no package lists: `apt-get download` fails, the fetch runs
    `apt-get update` once and asks again (a FAKE apt-get records the calls and never
    has the package, so the fetch still fails, saying why)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    fake = bin_dir / "apt-get"
    fake.write_text(f'#!/bin/sh\necho "$1" >> {log}\n[ "$1" = update ] && exit 0\nexit 100\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    item = corpora.Item(id="x", kind="debian-deb", name="x", version="1", sha256="0" * 64)
    staging = tmp_path / "staging"
    staging.mkdir()
    monkeypatch.setattr(corpora, "_LISTS_READ", [])
    with pytest.raises(corpora.FetchError):
        corpora._debian_deb(item, staging)
    assert log.read_text().split() == ["download", "update", "download"]


@pytest.mark.skipif(os.geteuid() != 0, reason="the package lists are read only as root")
def test_the_package_lists_are_read_once_per_fetch_and_a_held_lock_is_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three threads whose downloads fail share one `apt-get update`, which a FAKE
    apt-get refuses twice (another apt run holds the lists' lock) before it reads them."""
    from concurrent.futures import ThreadPoolExecutor

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log, tries = tmp_path / "calls.log", tmp_path / "tries"
    fake = bin_dir / "apt-get"
    fake.write_text(
        f'#!/bin/sh\necho "$1" >> {log}\n[ "$1" = update ] || exit 100\n'
        f'echo x >> {tries}\n[ "$(wc -l < {tries})" -ge 3 ] && exit 0\n'
        'echo "E: Could not get lock /var/lib/apt/lists/lock" >&2\nexit 100\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(corpora, "_LISTS_READ", [])
    monkeypatch.setattr(corpora, "LISTS_WAIT", 0.0)

    def one(n: int) -> str:
        item = corpora.Item(id=f"x{n}", kind="debian-deb", name="x", version="1", sha256="0" * 64)
        staging = tmp_path / f"staging{n}"
        staging.mkdir()
        with pytest.raises(corpora.FetchError) as err:
            corpora._debian_deb(item, staging)
        return str(err.value)

    with ThreadPoolExecutor(max_workers=3) as pool:
        errors = list(pool.map(one, range(3)))
    calls = log.read_text().split()
    assert calls.count("update") == 3 and calls.count("download") == 6, calls
    assert all("apt-get failed" in e for e in errors), errors


class _Index:
    """A package index on the loopback address serving one project's JSON page (PEP
    691) and its files: each test sets what the page says and what the files hold."""

    def __init__(self) -> None:
        import http.server
        import threading

        self.page: bytes = b"{}"
        self.content_type = "application/vnd.pypi.simple.v1+json"
        self.files: dict[str, bytes] = {}
        self.asked: list[str] = []
        #: Send only this many bytes of a file (its Content-Length still whole).
        self.short: int | None = None
        index = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                index.asked.append(self.path)
                if self.path == "/simple/demo-pkg/":
                    body, kind = index.page, index.content_type
                elif self.path in index.files:
                    body, kind = index.files[self.path], "application/octet-stream"
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                short = index.short if kind == "application/octet-stream" else None
                self.wfile.write(body if short is None else body[:short])

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/simple"
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    def list(self, *entries: tuple[str, str, str]) -> None:
        """The page lists (filename, url, sha256) entries."""
        files = [{"filename": n, "url": u, "hashes": {"sha256": h}} for n, u, h in entries]
        self.page = json.dumps({"meta": {"api-version": "1.0"}, "files": files}).encode()


@pytest.fixture
def index(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    served = _Index()
    monkeypatch.setattr(corpora, "pip_index", lambda: (served.url, None))
    monkeypatch.setattr(corpora, "_INDEX_DOWN", [])
    yield served
    served.server.shutdown()
    served.server.server_close()


def _sdist_bytes() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        data = b"print('hello')\n"
        info = tarfile.TarInfo("demo_pkg-1.0/demo.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _sdist_item(sha: str) -> object:
    return corpora.Item(id="demo", kind="pypi-sdist", name="Demo_Pkg", version="1.0", sha256=sha)


def test_an_sdist_comes_straight_from_the_index_json_page(tmp_path: Path, index: _Index) -> None:
    """The index's JSON page names the file with the pinned hash: it is read from there
    (a relative address, the normalised project name), checked and unpacked, and pip
    is never asked (no build environment)."""
    import hashlib

    data = _sdist_bytes()
    sha = hashlib.sha256(data).hexdigest()
    index.files["/files/demo_pkg-1.0.tar.gz"] = data
    index.list(
        ("demo_pkg-1.0-py3-none-any.whl", "/files/other.whl", "1" * 64),
        ("demo_pkg-1.0.tar.gz", "../../files/demo_pkg-1.0.tar.gz", sha),
    )
    staging = tmp_path / "staging"
    staging.mkdir()
    corpora._pypi_sdist(_sdist_item(sha), staging)
    assert (staging / "src" / "demo.py").read_text() == "print('hello')\n"
    assert index.asked == ["/simple/demo-pkg/", "/files/demo_pkg-1.0.tar.gz"]
    assert sorted(p.name for p in staging.iterdir()) == ["src"]


def test_an_index_file_whose_bytes_differ_from_its_pin_is_never_kept(
    tmp_path: Path, index: _Index
) -> None:
    """The page claims the pinned hash, the file holds other bytes: nothing is kept and
    pip is asked (None), which refuses bytes that do not match the pin."""
    sha = "a" * 64
    index.files["/files/demo_pkg-1.0.tar.gz"] = _sdist_bytes()
    index.list(("demo_pkg-1.0.tar.gz", "/files/demo_pkg-1.0.tar.gz", sha))
    assert corpora._sdist_from_index(_sdist_item(sha), tmp_path) is None
    assert list(tmp_path.iterdir()) == []


def test_an_unreachable_index_is_asked_once_then_left_to_pip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing listens at the index: None at once, and the next sdist of the run does
    not wait on it again."""
    monkeypatch.setattr(corpora, "pip_index", lambda: (CLOSED + "simple", None))
    monkeypatch.setattr(corpora, "_INDEX_DOWN", [])
    assert corpora._sdist_from_index(_sdist_item("d" * 64), tmp_path) is None
    assert corpora._INDEX_DOWN == [True]
    assert corpora._sdist_from_index(_sdist_item("d" * 64), tmp_path) is None


@pytest.mark.parametrize(
    "case",
    [
        "html page", "not listed", "unsafe file name", "file address", "listed twice",
        "no file", "files not a list", "page not an object", "fewer bytes",
    ],
)  # fmt: skip
def test_an_index_that_cannot_be_read_this_way_leaves_it_to_pip(
    tmp_path: Path, index: _Index, case: str
) -> None:
    """No JSON page, no file with the pinned hash, a file name or address that is not a
    plain download, or a file the index fails to serve: nothing is kept and pip is
    asked instead (None), which then says why it fails."""
    sha = "b" * 64
    entry = ("demo_pkg-1.0.tar.gz", "/files/demo_pkg-1.0.tar.gz", sha)
    index.files["/files/demo_pkg-1.0.tar.gz"] = _sdist_bytes()
    if case == "html page":
        index.list(entry)
        index.content_type = "text/html"
    elif case == "not listed":
        index.list((entry[0], entry[1], "c" * 64))
    elif case == "unsafe file name":
        index.list(("../demo_pkg-1.0.tar.gz", entry[1], sha))
    elif case == "file address":
        index.list((entry[0], "file:///etc/passwd", sha))
    elif case == "listed twice":
        index.list(entry, ("demo_pkg-1.0.zip", "/files/demo_pkg-1.0.zip", sha))
    elif case == "files not a list":
        index.page = json.dumps({"files": 5}).encode()
    elif case == "page not an object":
        index.page = b"[1, 2]"
    elif case == "fewer bytes":
        data = _sdist_bytes()
        index.files["/files/demo_pkg-1.0.tar.gz"] = data
        index.list((entry[0], entry[1], hashlib.sha256(data).hexdigest()))
        index.short = 10  # the server promises the whole file and sends 10 bytes
        sha = hashlib.sha256(data).hexdigest()
    else:
        index.list((entry[0], "/files/missing.tar.gz", sha))
    assert corpora._sdist_from_index(_sdist_item(sha), tmp_path) is None
    assert list(tmp_path.iterdir()) == []


@pytest.mark.e2e
def test_the_index_is_the_one_pip_is_configured_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index is the one pip certainly uses: PIP_INDEX_URL's, PyPI where nothing
    names one, none (pip is asked) where a configuration file names one or pip is told
    to use no index; the CA bundle is PIP_CERT's."""
    conf = tmp_path / "pip.conf"
    conf.write_text(
        "[global]\nindex-url = https://mirror.invalid/simple\ncert = /etc/ca.pem\n"
        "[download]\nindex-url = https://download.invalid/simple\n"
    )
    for name in [n for n in os.environ if n.startswith("PIP_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
    read = corpora.pip_index.__wrapped__
    # A file names an index: which one pip takes is pip's own order of its files.
    assert read() == (None, None)
    monkeypatch.setenv("PIP_INDEX_URL", "https://env.invalid/simple")
    monkeypatch.setenv("PIP_CERT", "/etc/env-ca.pem")
    assert read() == ("https://env.invalid/simple", "/etc/env-ca.pem")
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    assert read() == (None, "/etc/env-ca.pem")
    monkeypatch.delenv("PIP_NO_INDEX")
    monkeypatch.delenv("PIP_INDEX_URL")
    monkeypatch.delenv("PIP_CERT")
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)  # no configuration at all
    assert read() == (corpora.PYPI_SIMPLE, None)
