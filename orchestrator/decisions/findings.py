"""Finding predicates: which findings block, which become tasks, which fail the exit.

Every surface that counts findings (gate, lint exit, task store, host and MCP
summaries) asks these functions; none keeps its own copy of the test.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from orchestrator.vocab import BaselineState, Severity

if TYPE_CHECKING:  # annotations only: the CLI must start without pydantic
    from orchestrator.model.report import Finding, Report


class FailOn(StrEnum):
    """Which findings make `orchestrate lint` exit 1 (`--fail-on`); each level widens the
    one before it: blocking findings, then warnings too, then syntax candidates too."""

    ERROR = "error"
    WARNING = "warning"
    CANDIDATE = "candidate"


def is_blocking(f: Finding) -> bool:
    """A finding blocks delivery when its checker says so or it is a native error.

    Syntax-fallback candidates never block by themselves: they are unconfirmed. A syntax
    error the language's own parser confirmed (rule `syntax/confirmed`) is no candidate:
    it is an error and blocks like a native one.
    """
    if f.candidate or f.baseline_state == BaselineState.UNCHANGED:
        return False  # a suspicion; or there before the change (`--new-from-rev`)
    return f.blocking or f.severity == Severity.ERROR


def is_confirmed_syntax(f: Finding) -> bool:
    """A syntax error the language's own parser confirmed (the exact parser tier): a
    verdict, where a candidate is a suspicion. It blocks (`is_blocking`)."""
    return not f.candidate and f.rule == "syntax/confirmed"


def is_task_worthy(f: Finding) -> bool:
    """A finding becomes a task exactly when it blocks (README: "blocking findings");
    an unconfirmed syntax candidate is not a task."""
    return is_blocking(f)


def fails_exit(f: Finding, fail_on: FailOn = FailOn.ERROR) -> bool:
    """Whether this finding alone makes `orchestrate lint` exit 1 under `fail_on`.

    By default only a blocking finding does (`is_blocking`: a confirmed error, or what
    its checker marks blocking); `warning` adds confirmed warnings, `candidate` adds the
    syntax fallback's unconfirmed candidates as well. An `info` finding never does, nor
    one `--new-from-rev` found unchanged.
    """
    if is_blocking(f):
        return True
    if f.baseline_state == BaselineState.UNCHANGED:
        return False  # only what the change introduces fails (`--new-from-rev`)
    if f.candidate:
        return fail_on == FailOn.CANDIDATE
    return fail_on != FailOn.ERROR and f.severity in (Severity.ERROR, Severity.WARNING)


def blocking_findings(report: Report) -> list[Finding]:
    """The findings of `report` that block delivery, in report order."""
    return [f for f in report.findings if is_blocking(f)]


def has_blocking(report: Report) -> bool:
    """Whether any finding of `report` blocks delivery."""
    return any(is_blocking(f) for f in report.findings)


__all__ = [
    "FailOn",
    "blocking_findings",
    "fails_exit",
    "has_blocking",
    "is_blocking",
    "is_confirmed_syntax",
    "is_task_worthy",
]
