"""Find duplicated Markdown sections: a section whose exact text exists earlier.

A section is a heading line and the lines up to the next heading (trailing blank
lines left out). The first occurrence in (path, line) order is canonical; every later
identical section becomes a dedupe edit pointing at it (`path#Lstart-Lend`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from orchestrator.model.edits import Anchor

_HEADING = re.compile(rb"^#{1,6}\s+\S")
_FENCE = re.compile(rb"^\s*(```|~~~)")
MIN_BODY_LINES = 2


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


def duplicates(
    docs: dict[str, bytes], protected: frozenset[str] = frozenset()
) -> list[tuple[Section, Section]]:
    """(duplicate, canonical) pairs over the given documents, in a fixed order.

    A protected document (frozen) can hold a canonical section but never loses one.
    """
    seen: dict[bytes, Section] = {}
    pairs: list[tuple[Section, Section]] = []
    for path in sorted(docs):
        for sec in sections(path, docs[path]):
            first = seen.get(sec.text)
            if first is None:
                seen[sec.text] = sec
            elif path not in protected:
                pairs.append((sec, first))
    return pairs
