"""What a compressed file holds, for the secret scan: a key gzipped or zipped is a key.

`expand` unpacks gzip, bzip2, xz/lzma and zip data (told by their magic bytes, never by
the name), nested up to `MAX_DEPTH` levels (a `.tar.gz`'s tar is then read as bytes,
where its members lie uncompressed), and returns each unpacked blob with a label, and
the names of zip members (a name is a carrier too; a reason names a member by its
number, never its name). Everything is bounded: at most
`budget` bytes unpacked in all (a zip bomb stops there) and `MAX_MEMBERS` zip members;
what was not read (the rest past the bound, an encrypted or unsupported member, a
damaged stream) is named, so the file's scope says `partial`, never `checked`.
"""

from __future__ import annotations

import bz2
import io
import lzma
import zipfile
import zlib
from dataclasses import dataclass, field

#: Archives inside archives unpacked (a zip of a gzip of a key).
MAX_DEPTH = 3
#: Zip members read of one archive.
MAX_MEMBERS = 1000
_GZIP = b"\x1f\x8b"
_BZIP2 = b"BZh"
_XZ = b"\xfd7zXZ\x00"
_LZMA_ALONE = b"\x5d\x00\x00"
_ZIP = (b"PK\x03\x04", b"PK\x05\x06")


@dataclass
class Expanded:
    """The unpacked blobs (label, bytes), zip member names, and what was not read."""

    blobs: list[tuple[str, bytes]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)
    used: int = 0


def is_compressed(data: bytes) -> bool:
    """Whether `data` starts like one of the formats `expand` unpacks."""
    return data.startswith((_GZIP, _BZIP2, _XZ, _LZMA_ALONE, *_ZIP))


def _stream(data: bytes, limit: int, kind: str) -> tuple[bytes, bool]:
    """(the unpacked bytes, up to `limit`; whether more was left) of one stream kind.
    Raises on a damaged stream (zlib.error, OSError, lzma.LZMAError, EOFError)."""
    out = bytearray()
    rest = data
    while rest and len(out) < limit:
        if kind == "gzip":
            d: object = zlib.decompressobj(wbits=31)
        elif kind == "bzip2":
            d = bz2.BZ2Decompressor()
        else:
            d = lzma.LZMADecompressor()
        if kind == "gzip":
            out += d.decompress(rest, limit - len(out))  # type: ignore[attr-defined]
            more = bool(d.unconsumed_tail)  # type: ignore[attr-defined]
            rest = d.unused_data  # type: ignore[attr-defined]
        else:
            out += d.decompress(rest, max_length=limit - len(out))  # type: ignore[attr-defined]
            more = not d.needs_input and not d.eof  # type: ignore[attr-defined]
            rest = d.unused_data if d.eof else b""  # type: ignore[attr-defined]
        if more:
            return bytes(out), True
        if not rest.startswith(_GZIP if kind == "gzip" else _BZIP2 if kind == "bzip2" else _XZ):
            break  # trailing bytes that are no further member: ignored, as gzip does
    return bytes(out), False


def _kind(data: bytes) -> str | None:
    if data.startswith(_GZIP):
        return "gzip"
    if data.startswith(_BZIP2):
        return "bzip2"
    if data.startswith((_XZ, _LZMA_ALONE)):
        return "xz"
    if data.startswith(_ZIP):
        return "zip"
    return None


def _zip(data: bytes, label: str, out: Expanded, budget: int, depth: int) -> None:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        out.unread.append(f"{label}: a damaged zip archive")
        return
    if len(infos) > MAX_MEMBERS:
        out.unread.append(f"{label}: only the first {MAX_MEMBERS} of {len(infos)} members")
    for n, info in enumerate(infos[:MAX_MEMBERS], 1):
        out.names.append(info.filename)
        if info.is_dir():
            continue
        # By number: a member's name may itself be the secret, and reasons are shown.
        where = f"{label}!member{n}"
        if info.flag_bits & 0x1:
            out.unread.append(f"{where}: encrypted")
            continue
        room = budget - out.used
        if room <= 0:
            out.unread.append(f"{where}: past the {budget}-byte bound")
            continue
        try:
            with archive.open(info) as fh:
                body = fh.read(room + 1)
        except (zipfile.BadZipFile, NotImplementedError, OSError, ValueError, EOFError) as exc:
            out.unread.append(f"{where}: cannot be unpacked ({type(exc).__name__})")
            continue
        if len(body) > room:
            body = body[:room]
            out.unread.append(f"{where}: unpacked only to the {budget}-byte bound")
        _add(body, where, out, budget, depth + 1)


def _add(body: bytes, label: str, out: Expanded, budget: int, depth: int) -> None:
    out.used += len(body)
    out.blobs.append((label, body))
    if depth < MAX_DEPTH and is_compressed(body):
        _expand(body, label, out, budget, depth)


def _expand(data: bytes, label: str, out: Expanded, budget: int, depth: int) -> None:
    kind = _kind(data)
    if kind is None:
        return
    if kind == "zip":
        _zip(data, label, out, budget, depth)
        return
    room = budget - out.used
    if room <= 0:
        out.unread.append(f"{label}: past the {budget}-byte bound")
        return
    try:
        body, more = _stream(data, room, kind)
    except (zlib.error, OSError, lzma.LZMAError, EOFError, ValueError):
        if kind == "xz" and not data.startswith(_XZ):
            return  # `5D 00 00` opens many files that are no lzma stream at all
        out.unread.append(f"{label}: a damaged {kind} stream")
        return
    if more:
        out.unread.append(f"{label}: {kind} content unpacked only to the {budget}-byte bound")
    _add(body, f"{label}({kind})", out, budget, depth + 1)


def expand(data: bytes, budget: int) -> Expanded:
    """Every blob `data` unpacks to (nested up to MAX_DEPTH, `budget` bytes in all), the
    zip member names, and what was not read; empty when `data` is not compressed."""
    out = Expanded()
    _expand(data, "", out, budget, 0)
    return out


__all__ = ["MAX_DEPTH", "MAX_MEMBERS", "Expanded", "expand", "is_compressed"]
