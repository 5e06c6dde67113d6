"""Finding columns in UTF-16 code units, the unit SARIF logs declare (`columnKind`).

The report keeps each tool's own column and says its unit (`Finding.column_unit`, from
the checker's declared `column_unit`): Ruff (and RuboCop, yamllint, the exact parsers,
and any plugin that counts Python `str` indices) counts code points, ESLint counts
UTF-16 code units (JavaScript string indices), and the tree-sitter fallback's candidates
count UTF-8 bytes. They differ only on a line with characters outside ASCII; SARIF's
default unit, and what GitHub code scanning reads, is UTF-16 code units.

`Utf16Columns` converts a finding's columns by reading the flagged line from the
project: a file is read once, only when one of its findings has a column, only inside
the project root (no symlink out of it, regular files up to MAX_BYTES), and never for a
notebook (Ruff's columns there are cell-relative). When the line cannot be read, the
tool's column is kept as is.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Literal

from orchestrator.model.report import Finding

Unit = Literal["utf16", "codepoint", "utf8"]
#: Largest file read to convert columns (larger ones keep the tool's columns).
MAX_BYTES = 8 * 1024 * 1024


def column_unit(f: Finding) -> Unit:
    """The unit `f`'s columns count in: the finding's own `column_unit`, which the engine
    sets from its checker's declaration (ESLint: UTF-16 units; a tree-sitter candidate:
    UTF-8 bytes), else code points. No checker is known here by name."""
    return f.column_unit or "codepoint"


def _units(text: str) -> int:
    """`text`'s length in UTF-16 code units (a lone surrogate escape counts one)."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def utf16_column(line: bytes, column: int, unit: Unit) -> int:
    """The 1-based `column` (counted in `unit` on the raw `line`) as a 1-based UTF-16
    column. A column past the line's end keeps its distance past the end."""
    if unit == "utf16" or line.isascii():
        return column
    if unit == "utf8":
        head, past = line[: column - 1], max(0, column - 1 - len(line))
        return _units(head.decode("utf-8", "surrogateescape")) + past + 1
    text = line.decode("utf-8", "surrogateescape")
    head, past = text[: column - 1], max(0, column - 1 - len(text))
    return _units(head) + past + 1


def utf8_column(line: bytes, column: int, unit: Unit) -> int:
    """The 1-based `column` (counted in `unit` on the raw `line`) as a 1-based UTF-8 byte
    column (reviewdog's unit). A column past the line's end keeps its distance past it."""
    if unit == "utf8" or line.isascii():
        return column
    text = line.decode("utf-8", "surrogateescape")
    want = codepoint_column(text, column, unit) - 1
    head, past = text[:want], max(0, want - len(text))
    return len(head.encode("utf-8", "surrogateescape")) + past + 1


def codepoint_column(line: str, column: int, unit: Unit) -> int:
    """The 1-based `column` (counted in `unit` on `line`) as a 1-based code point
    column, the index unit of a Python `str` (what an editor buffer's text is held in).
    A column past the line's end keeps its distance past the end; one inside a
    character's units lands on that character."""
    if unit == "codepoint" or line.isascii():
        return column
    want = column - 1
    if unit == "utf8":
        raw = line.encode("utf-8", "surrogatepass")
        head, past = raw[:want], max(0, want - len(raw))
        return len(head.decode("utf-8", "ignore")) + past + 1
    seen = 0
    for index, ch in enumerate(line):
        if seen >= want:
            return index + 1
        seen += 2 if ord(ch) > 0xFFFF else 1
        if seen > want:
            return index + 1
    return len(line) + max(0, want - seen) + 1


class Utf16Columns:
    """Converts findings' columns for one project root. Findings come grouped by file,
    so only the last few files read are kept (a report of 100,000 files must not hold
    them all)."""

    #: How many files' lines are kept at once.
    KEEP = 8

    def __init__(self, root: str) -> None:
        self._root = Path(root)
        self._real_root: Path | None = None
        self._lines: dict[str, list[bytes] | None] = {}

    def _read(self, path: str) -> list[bytes] | None:
        if path.endswith(".ipynb"):
            return None
        try:
            if self._real_root is None:
                self._real_root = self._root.resolve(strict=True)
            full = (self._root / path).resolve(strict=True)
            if not full.is_relative_to(self._real_root):
                return None
            fd = os.open(full, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(fd, "rb") as fh:
                info = os.fstat(fh.fileno())
                if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
                    return None
                return fh.read(MAX_BYTES + 1).split(b"\n")
        except (OSError, ValueError, RuntimeError):
            return None

    def _line(self, path: str, number: int | None) -> bytes | None:
        if path not in self._lines:
            if len(self._lines) >= self.KEEP:
                del self._lines[next(iter(self._lines))]  # the oldest read
            self._lines[path] = self._read(path)
        lines = self._lines[path]
        if lines is None or not number or number > len(lines):
            return None
        return lines[number - 1].rstrip(b"\r")

    def region(self, f: Finding) -> tuple[int | None, int | None]:
        """`f`'s (column, end_column) in UTF-16 code units; each as the tool gave it
        when the line cannot be read."""
        unit = column_unit(f)
        col, end = f.column, f.end_column
        if unit == "utf16" or not (col or end):
            return col, end
        if col and (line := self._line(f.path, f.line)) is not None:
            col = utf16_column(line, col, unit)
        if end and (line := self._line(f.path, f.end_line or f.line)) is not None:
            end = utf16_column(line, end, unit)
        return col, end


__all__ = [
    "MAX_BYTES",
    "Unit",
    "Utf16Columns",
    "codepoint_column",
    "column_unit",
    "utf8_column",
    "utf16_column",
]
