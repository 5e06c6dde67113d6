"""Suppressions a change adds: the comments that silence a linter instead of fixing code.

Users of every peer report agents adding `# noqa` or `eslint-disable` where a finding
was (issue 26). A change is compared with the version it replaces, marker by marker;
each marker counted more often after than before is named (the file, the marker, how
many more) in the gate's notes and the edit feedback. Counting is plain text, so a
marker inside a string counts too: the note says what the change holds, never that the
code is wrong. Edits to the checkers' own configuration are named by the gate's config
check (gates/strict_policy.config_changes) and by the feedback's config names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

#: The suppression markers counted, by the label a note uses.
MARKERS: dict[str, re.Pattern[bytes]] = {
    "# noqa": re.compile(rb"#\s*noqa\b", re.IGNORECASE),
    "# type: ignore": re.compile(rb"#\s*type:\s*ignore\b"),
    "# pyright: ignore": re.compile(rb"#\s*pyright:\s*ignore\b"),
    "# ruff: noqa": re.compile(rb"#\s*ruff\s*:\s*noqa\b", re.IGNORECASE),
    "eslint-disable": re.compile(rb"\beslint-disable(?:-next-line|-line)?\b"),
    "@ts-ignore": re.compile(rb"@ts-(?:ignore|nocheck|expect-error)\b"),
    "rubocop:disable": re.compile(rb"\brubocop\s*:\s*disable\b"),
    "shellcheck disable": re.compile(rb"#\s*shellcheck\s+disable\b"),
    "//nolint": re.compile(rb"//\s*nolint\b"),
}
#: Files a note names one by one; past it, how many more.
NAMED_FILES = 5


def added(before: bytes | None, after: bytes) -> dict[str, int]:
    """How many more of each marker `after` holds than `before` (None: a new file)."""
    out = {}
    for label, pattern in MARKERS.items():
        more = len(pattern.findall(after)) - (len(pattern.findall(before)) if before else 0)
        if more > 0:
            out[label] = more
    # A file-wide ruff directive also matches the plain marker: name it once, as itself.
    if "# ruff: noqa" in out and "# noqa" in out:
        out["# noqa"] -= out["# ruff: noqa"]
        if out["# noqa"] <= 0:
            del out["# noqa"]
    return out


def note(per_path: Mapping[str, Mapping[str, int]], label: Callable[[str], str]) -> str | None:
    """The one note naming the suppressions a change adds, paths through `label` (each
    medium escapes its own way); None when it adds none."""
    rows = [(p, m) for p, m in sorted(per_path.items()) if m]
    if not rows:
        return None
    parts = [
        f"{label(p)} ({', '.join(f'+{n} {k}' for k, n in sorted(m.items()))})"
        for p, m in rows[:NAMED_FILES]
    ]
    more = len(rows) - NAMED_FILES
    tail = f", and {more} more file(s)" if more > 0 else ""
    return "the change adds linter suppressions: " + "; ".join(parts) + tail


__all__ = ["MARKERS", "NAMED_FILES", "added", "note"]
