"""Suppressions a change adds: the comments that silence a linter instead of fixing code.

Users of every peer report agents adding `# noqa` or `eslint-disable` where a finding
was (issue 26). A change is compared with the version it replaces, marker by marker;
each marker counted more often after than before is named (the file, the marker, how
many more) in the gate's notes and the edit feedback. Counting is plain text, so a
marker inside a string counts too: the note says what the change holds, never that the
code is wrong. Edits to the checkers' own configuration are named by the gate's config
check (gates/strict_policy.config_changes) and, in edit feedback, by `config_edited`: a
Ruff, ESLint or RuboCop config file the edit changes (a pyproject.toml only when its
[tool.ruff] table changes).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterable, Mapping

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
#: How a note naming the suppressions a change adds begins.
NOTE_PREFIX = "the change adds linter suppressions: "
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
    return NOTE_PREFIX + "; ".join(parts) + tail


#: The lint checkers' own config files, by file name: an edit of one silences a linter
#: as surely as a marker does (pyproject.toml: only its [tool.ruff] table).
CHECKER_CONFIGS: dict[str, re.Pattern[str]] = {
    "ruff": re.compile(r"\.?ruff\.toml|pyproject\.toml"),
    "eslint": re.compile(r"eslint\.config\.[cm]?[jt]s|\.eslintrc(\.(c?js|json|ya?ml))?"),
    "rubocop": re.compile(r"\.rubocop(_todo)?\.yml"),
}


def _ruff_table(data: bytes | None) -> object:
    """The [tool.ruff] table of a pyproject.toml (None when absent), or the bytes when
    they are not TOML (so a change of unreadable text still counts)."""
    if data is None:
        return None
    try:
        return tomllib.loads(data.decode("utf-8")).get("tool", {}).get("ruff")
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, AttributeError):
        return data if b"ruff" in data else None


def config_checker(path: str) -> str | None:
    """The lint checker whose config file `path` is named like, or None."""
    name = path.rsplit("/", 1)[-1]
    return next((c for c, pat in CHECKER_CONFIGS.items() if pat.fullmatch(name)), None)


def config_edited(path: str, before: bytes | None, after: bytes | None) -> str | None:
    """The checker whose configuration an edit of `path` changes (`before`: the
    committed bytes, None for a new file; `after`: the bytes now, None when removed),
    or None: another file, or nothing changed."""
    checker = config_checker(path)
    if checker is None or before == after:
        return None
    if path.rsplit("/", 1)[-1] == "pyproject.toml" and _ruff_table(before) == _ruff_table(after):
        return None
    return checker


def config_note(paths: Iterable[str], label: Callable[[str], str]) -> str | None:
    """The note naming the checker config files an edit changed (`config_edited`),
    paths through `label`; None for none."""
    shown = sorted(set(paths))
    if not shown:
        return None
    more = len(shown) - NAMED_FILES
    tail = f", and {more} more file(s)" if more > 0 else ""
    return (
        "checker configuration edited: " + ", ".join(label(p) for p in shown[:NAMED_FILES]) + tail
    )


__all__ = [
    "CHECKER_CONFIGS",
    "MARKERS",
    "NAMED_FILES",
    "NOTE_PREFIX",
    "added",
    "config_checker",
    "config_edited",
    "config_note",
    "note",
]
