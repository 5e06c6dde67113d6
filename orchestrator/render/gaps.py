"""Coverage gaps grouped for reading: one row per checker, status, reason and hint.

A project with sixty JavaScript files and no ESLint config has sixty
`configuration_required` scopes; people (and CI annotations) read that as one line,
"eslint configuration_required: 60 files — ...", with the paths available in JSON.
The grouping is presentation only: which scopes are gaps comes from
`decisions.coverage.is_checked`, read scope by scope.

The readable formats (human, concise, github) collapse two things the machine formats
keep whole (issue 27, "a report a maintainer reads"):

- files nobody lints (`decisions.coverage.nothing_to_check`: binary, or no checker,
  grammar or parser knows the language) are one count, not a gap row each;
- the syntax candidates of an unqualified grammar are one gap line per language (files,
  candidates, the command that confirms them), not a finding line each (`collapsed`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from orchestrator.decisions.coverage import is_checked, nothing_to_check
from orchestrator.model.languages import grammar_info
from orchestrator.model.report import Finding, Report, Scope
from orchestrator.vocab import ScopeStatus


@dataclass(frozen=True)
class GapGroup:
    """Scopes not checked for one reason: the checker, status, reason and hint they share
    (and, for an unqualified grammar's scopes, their language and candidate count)."""

    checker: str
    status: str
    reason: str | None
    hint: str | None
    paths: tuple[str, ...]
    language: str | None = None
    #: Syntax candidates on these files, shown here instead of one line each.
    candidates: int = 0
    #: The command that confirms them (the grammar manifest's `confirm`).
    confirm: str | None = None

    @property
    def count(self) -> int:
        """How many scopes (files) the group holds."""
        return len(self.paths)

    def headline(self) -> str:
        """`checker status: N file(s)` (with `(language)` and the candidate count for an
        unqualified grammar), raw (callers escape it for their medium)."""
        lang = f" ({self.language})" if self.language else ""
        files = f"{self.count} file{'s' if self.count != 1 else ''}"
        more = ""
        if self.language:
            more = f", {self.candidates} syntax candidate{'s' if self.candidates != 1 else ''}"
        return f"{self.checker} {self.status}{lang}: {files}{more}"

    def advice(self) -> str:
        """The reason, the hint and the confirm command, joined; empty when none is known."""
        parts = (
            self.reason,
            f"hint: {self.hint}" if self.hint else "",
            f"confirm: {self.confirm}" if self.confirm and self.candidates else "",
        )
        return "; ".join(x for x in parts if x)

    def examples(self, shown: int = 3) -> str:
        """`(a.js, b.js, c.js, and 57 more)`: the first `shown` paths and how many are left."""
        more = self.count - shown
        return f"({', '.join(self.paths[:shown])}{f', and {more} more' if more > 0 else ''})"

    def text(self) -> str:
        """The group as one raw line: headline, example paths, then reason and hint."""
        advice = self.advice()
        return f"{self.headline()} {self.examples()}" + (f" — {advice}" if advice else "")


def _collapses(s: Scope) -> bool:
    """An unqualified grammar's scope: its candidates are counted in its gap line."""
    return s.status == ScopeStatus.UNQUALIFIED


def collapsed(report: Report) -> set[tuple[str, str]]:
    """The (path, checker) pairs whose syntax candidates the readable formats count in a
    gap line instead of listing (`listed` leaves them out)."""
    return {(s.path, s.checker) for s in report.scopes if _collapses(s)}


def listed(findings: Iterable[Finding], hidden: set[tuple[str, str]]) -> Iterator[Finding]:
    """`findings` without the syntax candidates of the scopes in `hidden` (`collapsed`):
    every other finding, a confirmed syntax error included, is listed one per line."""
    for f in findings:
        if f.candidate and (f.path, f.checker) in hidden:
            continue
        yield f


def nothing_count(report: Report) -> int:
    """How many files nobody lints (`decisions.coverage.nothing_to_check`)."""
    return sum(1 for s in report.scopes if nothing_to_check(s))


def nothing_text(count: int) -> str:
    """The one line the readable formats give the files nobody lints."""
    return (
        f"{count} file{'s' if count != 1 else ''} with nothing to check (binary, or no "
        "checker, grammar or parser knows the language; --format json lists them)"
    )


def _key(s: Scope) -> tuple[str, str, str, str, str]:
    lang = (s.language or "?") if _collapses(s) else ""
    return (s.checker, str(s.status), s.reason or "", s.hint or "", lang)


def gap_groups(report: Report) -> list[GapGroup]:
    """The report's unchecked scopes grouped by (checker, status, reason, hint), and by
    language for an unqualified grammar's, largest group first, then by checker and
    status; paths keep report order within a group. Files nobody lints are not here
    (`nothing_count` counts them)."""
    groups: dict[tuple[str, str, str, str, str], list[str]] = {}
    for s in report.scopes:
        if is_checked(s) or nothing_to_check(s):
            continue
        groups.setdefault(_key(s), []).append(s.path)
    per_file: dict[tuple[str, str], int] = {}
    if any(k[4] for k in groups):
        hidden = collapsed(report)
        for f in report.findings:
            if f.candidate and (f.path, f.checker) in hidden:
                per_file[(f.path, f.checker)] = per_file.get((f.path, f.checker), 0) + 1
    rows = []
    for (checker, status, reason, hint, lang), paths in groups.items():
        info = grammar_info(lang) if lang and lang != "?" else None
        rows.append(
            GapGroup(
                checker,
                status,
                reason or None,
                hint or None,
                tuple(paths),
                language=lang or None,
                candidates=sum(per_file.get((p, checker), 0) for p in paths) if lang else 0,
                confirm=info.confirm if info is not None else None,
            )
        )
    rows.sort(key=lambda g: (-g.count, g.checker, g.status, g.reason or "", g.language or ""))
    return rows


__all__ = ["GapGroup", "collapsed", "gap_groups", "listed", "nothing_count", "nothing_text"]
