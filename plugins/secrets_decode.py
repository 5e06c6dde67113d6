"""What the secret scan reads of a file: the views of its bytes that can hold a token.

A token is ASCII, but the file around it may not be: a UTF-16 or UTF-32 text (told by
its byte order mark, or for BOM-less UTF-16 by the pattern of its NUL bytes), or a
binary with the token in a printable ASCII or UTF-16 run. `views` returns every such
view, each as UTF-8/ASCII bytes the byte rules can match, and names what could not be
read (a BOM-declared text that does not decode), so the scope says `partial` rather
than `checked`. Nothing here keeps or returns a matched value.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

#: Leading bytes sniffed for NULs (binary or BOM-less UTF-16).
PROBE = 8192

#: UTF-32 marks first: the UTF-32LE mark starts with the UTF-16LE one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@dataclass(frozen=True)
class View:
    """Bytes to scan; `lines` says whether newline counts in them are the file's lines."""

    data: bytes
    lines: bool


@dataclass(frozen=True)
class Views:
    """The views of a file, how it was read, and what could not be read (None: all)."""

    views: tuple[View, ...]
    kind: str  # text | utf-16-le | ... | binary
    unreadable: str | None = None


def _label(codec: str) -> str:
    return codec.upper().replace("-LE", "LE").replace("-BE", "BE")


def _bomless_utf16(probe: bytes) -> str | None:
    """utf-16-le/-be when NULs sit on one byte of each pair only (ASCII-range text)."""
    pairs = len(probe) // 2
    if pairs < 4:
        return None
    even = probe[0 : pairs * 2 : 2].count(0)
    odd = probe[1 : pairs * 2 : 2].count(0)
    if odd >= pairs * 0.3 and even <= pairs * 0.02:
        return "utf-16-le"
    if even >= pairs * 0.3 and odd <= pairs * 0.02:
        return "utf-16-be"
    return None


def _decoded(body: bytes, codec: str) -> bytes | None:
    try:
        return body.decode(codec).encode("utf-8")
    except UnicodeDecodeError:
        return None


def binary_runs(data: bytes) -> tuple[View, ...]:
    """A binary's views: its raw bytes (ASCII runs match there as they are) and the
    same bytes with every NUL taken out, which turns UTF-16LE and UTF-16BE runs of
    ASCII-range text into plain runs (one C-speed pass, where a run regex would step
    through every byte)."""
    stripped = data.translate(None, b"\0")
    return (View(data, lines=False), View(stripped, lines=False))


def views(data: bytes) -> Views:
    """Every view of `data` the rules should see, and what could not be read."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            text = _decoded(data[len(bom) :], codec)
            if text is not None:
                return Views((View(text, lines=True),), codec)
            if codec.startswith("utf-32"):
                continue  # an FF FE 00 00 start may be UTF-16LE text with a NUL first
            # Declared but not valid: scan what does decode, and the raw runs too.
            lossy = data[len(bom) :].decode(codec, errors="replace").encode("utf-8")
            reason = (
                f"declared {_label(codec)} by its byte order mark but not valid "
                f"{_label(codec)}: undecodable parts were scanned only as raw bytes"
            )
            return Views((View(lossy, lines=True), *binary_runs(data)), codec, reason)
    probe = data[:PROBE]
    if b"\0" not in probe:
        return Views((View(data, lines=True),), "text")
    codec = _bomless_utf16(probe)
    if codec is not None and len(data) % 2 == 0:
        text = _decoded(data, codec)
        if text is not None:
            # A guess from the NUL pattern: the raw runs are scanned too, so a wrong
            # guess loses nothing (the scanner drops a value seen twice).
            return Views((View(text, lines=True), *binary_runs(data)), codec)
    return Views(binary_runs(data), "binary")
