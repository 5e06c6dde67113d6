"""Coverage gaps grouped for reading: one row per checker, status, reason and hint.

A project with sixty JavaScript files and no ESLint config has sixty
`configuration_required` scopes; people (and CI annotations) read that as one line,
"eslint configuration_required: 60 files — ...", with the paths available in JSON.
The grouping is presentation only: which scopes are gaps comes from
`decisions.coverage.is_checked`, read scope by scope.
"""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.decisions.coverage import is_checked
from orchestrator.model.report import Report, Scope


@dataclass(frozen=True)
class GapGroup:
    """Scopes not checked for one reason: the checker, status, reason and hint they share."""

    checker: str
    status: str
    reason: str | None
    hint: str | None
    paths: tuple[str, ...]

    @property
    def count(self) -> int:
        """How many scopes (files) the group holds."""
        return len(self.paths)

    def headline(self) -> str:
        """`checker status: N file(s)`, raw (callers escape it for their medium)."""
        return f"{self.checker} {self.status}: {self.count} file{'s' if self.count != 1 else ''}"

    def advice(self) -> str:
        """The reason and the hint, joined; empty when the checker gave neither."""
        return "; ".join(x for x in (self.reason, f"hint: {self.hint}" if self.hint else "") if x)

    def examples(self, shown: int = 3) -> str:
        """`(a.js, b.js, c.js, and 57 more)`: the first `shown` paths and how many are left."""
        more = self.count - shown
        return f"({', '.join(self.paths[:shown])}{f', and {more} more' if more > 0 else ''})"

    def text(self) -> str:
        """The group as one raw line: headline, example paths, then reason and hint."""
        advice = self.advice()
        return f"{self.headline()} {self.examples()}" + (f" — {advice}" if advice else "")


def _key(s: Scope) -> tuple[str, str, str, str]:
    return (s.checker, str(s.status), s.reason or "", s.hint or "")


def gap_groups(report: Report) -> list[GapGroup]:
    """The report's unchecked scopes grouped by (checker, status, reason, hint), largest
    group first, then by checker and status; paths keep report order within a group."""
    groups: dict[tuple[str, str, str, str], list[str]] = {}
    for s in report.scopes:
        if is_checked(s):
            continue
        groups.setdefault(_key(s), []).append(s.path)
    rows = [
        GapGroup(checker, status, reason or None, hint or None, tuple(paths))
        for (checker, status, reason, hint), paths in groups.items()
    ]
    rows.sort(key=lambda g: (-g.count, g.checker, g.status, g.reason or "", g.hint or ""))
    return rows


__all__ = ["GapGroup", "gap_groups"]
