"""Find duplicated Markdown text: sections, and paragraphs repeated in one document.

A section is a heading line and the lines up to the next heading (trailing blank
lines left out). A paragraph is a run of non-blank lines outside code (fenced or
indented) with no heading, at least two lines and MIN_PARAGRAPH_CHARS long. A later copy in the same
document pairs with the first copy in that document; a section's first copy in a
document pairs with the first copy in an earlier document (path order). Each pair
becomes a dedupe edit pointing at the kept copy (`path#Lstart-Lend`); whether it is
proposed and how sure it is, the scope rule says (placement.py, docs/hygiene.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from orchestrator.model.edits import Anchor

_HEADING = re.compile(rb"^#{1,6}\s+\S")
_FENCE = re.compile(rb"^\s*(```|~~~)")
MIN_BODY_LINES = 2
MIN_PARAGRAPH_CHARS = 120


@dataclass(frozen=True)
class Section:
    path: str
    start: int  # 1-based inclusive
    end: int
    text: bytes


def sections(path: str, data: bytes) -> list[Section]:
    """The sections of one Markdown document (headings inside code fences ignored)."""
    lines = data.splitlines(keepends=True)
    starts: list[int] = []
    fenced = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and _HEADING.match(line):
            starts.append(i)
    out: list[Section] = []
    for k, s in enumerate(starts):
        e = starts[k + 1] if k + 1 < len(starts) else len(lines)
        while e > s + 1 and not lines[e - 1].strip():
            e -= 1
        body = [ln for ln in lines[s + 1 : e] if ln.strip()]
        if len(body) >= MIN_BODY_LINES:
            out.append(Section(path, s + 1, e, b"".join(lines[s:e])))
    return out


def canonical_ref(sec: Section) -> str:
    return f"{sec.path}#L{sec.start}-L{sec.end}"


def parse_ref(ref: str) -> tuple[str, Anchor] | None:
    """`path#Lstart-Lend` -> (path, anchor); None when malformed."""
    m = re.fullmatch(r"(.+)#L(\d+)-L(\d+)", ref)
    if not m or int(m.group(2)) < 1 or int(m.group(3)) < int(m.group(2)):
        return None
    return m.group(1), Anchor(start_line=int(m.group(2)), end_line=int(m.group(3)))


def self_overlap(path: str, edit: Any) -> bool:
    """Whether a dedupe's kept copy lies in the very lines it removes (then no copy
    would be left: such an op is invalid)."""
    ref = parse_ref(edit.canonical_ref)
    if ref is None or ref[0] != path:
        return False
    kept, cut = ref[1], edit.anchor
    return not (kept.end_line < cut.start_line or cut.end_line < kept.start_line)


def paragraphs(path: str, data: bytes) -> list[Section]:
    """The paragraphs of one Markdown document long enough to count as duplicates."""
    lines = data.splitlines(keepends=True)
    out: list[Section] = []
    fenced = False
    start: int | None = None

    def close(end: int) -> None:
        if start is None:
            return
        block = lines[start:end]
        text = b"".join(block)
        code = all(ln.startswith((b"    ", b"\t")) for ln in block)  # an indented code block
        if len(block) >= 2 and len(text.strip()) >= MIN_PARAGRAPH_CHARS and not code:
            out.append(Section(path, start + 1, end, text))

    for i, line in enumerate(lines):
        if _FENCE.match(line):
            close(i)
            start = None
            fenced = not fenced
        elif fenced:
            continue
        elif not line.strip() or _HEADING.match(line):
            close(i)
            start = None
        elif start is None:
            start = i
    if not fenced:
        close(len(lines))
    return out


def _overlaps(a: Section, taken: list[Section]) -> bool:
    return any(a.path == t.path and not (a.end < t.start or t.end < a.start) for t in taken)


def duplicates(
    docs: dict[str, bytes],
    protected: frozenset[str] = frozenset(),
    managed: Callable[[str], bool] = lambda _path: False,
) -> list[tuple[Section, Section]]:
    """(duplicate, kept copy) pairs over the given documents, in a fixed order.

    A later copy in the same document is kept-in-the-same-file; a section's first copy
    in a document pairs with its first copy in an earlier document - in an earlier
    `managed` document when the document itself is managed and one exists. A protected
    document (frozen) can hold a kept copy but never loses one.
    """
    first_anywhere: dict[bytes, Section] = {}
    first_managed: dict[bytes, Section] = {}
    pairs: list[tuple[Section, Section]] = []
    for path in sorted(docs):
        first_here: dict[bytes, Section] = {}
        removed: list[Section] = []
        for sec in sections(path, docs[path]):
            if sec.text in first_here:
                if path not in protected:
                    pairs.append((sec, first_here[sec.text]))
                    removed.append(sec)
                continue
            first_here[sec.text] = sec
            other = first_anywhere.setdefault(sec.text, sec)
            if managed(path):
                kept_managed = first_managed.setdefault(sec.text, sec)
                if kept_managed is not sec:
                    other = kept_managed
            if other is not sec and path not in protected:
                pairs.append((sec, other))
        para_first: dict[bytes, Section] = {}
        for par in paragraphs(path, docs[path]):
            if par.text in para_first:
                if path not in protected and not _overlaps(par, removed):
                    pairs.append((par, para_first[par.text]))
                    removed.append(par)
            elif not _overlaps(par, removed):
                para_first[par.text] = par
    return pairs
