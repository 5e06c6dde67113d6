"""ESLint's positions and fixes in the judged text: UTF-16 ranges, lines, exact edits."""

from __future__ import annotations

import re
from typing import Any

from orchestrator.api import Anchor, ReplaceText, derive_safety_tier

_LINE_BREAK = re.compile(r"\r\n|[\r\n\u2028\u2029]")


def _utf16_index(text: str) -> list[int] | None:
    """Map UTF-16 offsets (ESLint's ranges) to str indexes; None when they coincide."""
    if all(ord(c) < 0x10000 for c in text):
        return None
    table: list[int] = []
    for i, c in enumerate(text):
        table.append(i)
        if ord(c) >= 0x10000:
            table.append(i)
    table.append(len(text))
    return table


class Text:
    """The judged text as ESLint sees it (BOM stripped), with line/column lookups."""

    def __init__(self, raw: bytes) -> None:
        self.text = raw.decode("utf-8", "replace").removeprefix("\ufeff")
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(self.text)]
        self._u16 = _utf16_index(self.text)

    def index(self, utf16: int) -> int:
        """The str index of a UTF-16 offset, clamped to the text."""
        if self._u16 is None:
            return max(0, min(utf16, len(self.text)))
        return self._u16[max(0, min(utf16, len(self._u16) - 1))]

    def line_col(self, index: int) -> tuple[int, int]:
        """1-based line and column (characters) of a str index."""
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= index:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, index - self.starts[lo] + 1

    def line(self, number: int) -> str:
        """The stripped text of a 1-based line (empty when out of range)."""
        if not 1 <= number <= len(self.starts):
            return ""
        end = self.starts[number] if number < len(self.starts) else len(self.text)
        return self.text[self.starts[number - 1] : end].strip()


def edit(fix: object, text: Text, suggestion: bool) -> dict[str, Any]:
    """One ESLint fix {range, text} as a replace-text exact_edit with its derived tier.

    A rule's `fix` is deterministic and reversible, so it derives to auto. A
    `suggestion` may change behaviour (that is why ESLint does not apply it), so it is
    marked destructive and derives to confirm. A finding carries one edit: only the
    first suggestion is kept.
    """
    if not isinstance(fix, dict):
        return {}
    rng, new = fix.get("range"), fix.get("text")
    if not (isinstance(rng, list) and len(rng) == 2 and isinstance(new, str)):
        return {}
    if not all(isinstance(v, int) for v in rng) or rng[0] > rng[1]:
        return {}
    start, end = text.index(rng[0]), text.index(rng[1])
    (sl, sc), (el, ec) = text.line_col(start), text.line_col(end)
    destructive = suggestion
    return {
        "exact_edit": ReplaceText(
            kind="replace-text",
            anchor=Anchor(start_line=sl, end_line=el),
            match=text.text[start:end],
            replacement=new,
            start_column=sc,
            end_column=ec,
        ),
        "op_type": "deterministic",
        "is_destructive": destructive,
        "is_reversible": True,
        "safety_tier": derive_safety_tier("deterministic", destructive, True),
        "fix_applicability": "suggestion" if suggestion else "fix",
    }


def pos(value: object) -> int | None:
    """A 1-based ESLint position, or None when absent or malformed."""
    return value if isinstance(value, int) and value >= 1 else None
