"""`orchestrate next` and the Stop summary: a bounded, read-only next-step summary.

Reads ONLY local task facts (`.orchestrate/tasks/*.json`): it runs no checker,
writes nothing (an unparsable record is counted, not quarantined; `task list` does
that), and never echoes task text: only well-formed task ids and fixed wording
leave this module. With no open task it recommends a fresh full check; it never
says "all good". Over the entry or byte budget it says so and stops, pointing to
`orchestrate next` / `orchestrate task list` instead of summarizing a part as if it
were the whole.

The legacy-v1 skip count (seed 004: the old counting and a Stop summary that shows it)
is read by the use case (usecases/tasks.next_summary, from the skip audit) and carried
here as a number only: `legacy_skip_line` is the one wording of it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from orchestrator.tasks import store as tasks
from orchestrator.tasks.facts import (
    BYTES_OVER,
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_ENTRIES,
    ENTRIES_OVER,
    UNREADABLE,
    TaskFacts,
    read_task_facts,
)

FULL_CHECK = "orchestrate lint"

UNINITIALIZED = "uninitialized"
NO_OPEN_TASKS = "no_open_tasks"
OPEN_TASKS = "open_tasks"
OVER_BUDGET = "over_budget"

__all__ = [
    "BYTES_OVER",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_ENTRIES",
    "ENTRIES_OVER",
    "FULL_CHECK",
    "NO_OPEN_TASKS",
    "OPEN_TASKS",
    "OVER_BUDGET",
    "UNINITIALIZED",
    "UNREADABLE",
    "NextSummary",
    "legacy_skip_line",
    "next_summary",
    "render_text",
]


@dataclass(frozen=True)
class NextSummary:
    """What `next` knows from local task facts, and what it did not evaluate."""

    state: str
    open_task_ids: tuple[str, ...] = ()
    verification_required_ids: tuple[str, ...] = ()
    closed_count: int = 0
    unreadable_count: int = 0
    entries_read: int = 0
    bytes_read: int = 0
    complete: bool = True
    #: A snake_case code when the summary is not complete (over budget, unreadable).
    reason: str | None = None
    detail: str | None = None
    recommendation: str = ""
    native_checks: str = "not_run"
    delivery: str = "not_evaluated"
    commands: tuple[tuple[str, ...], ...] = field(default_factory=tuple)
    #: The legacy-v1 skip audit: "none" (no record), "recorded" (`legacy_skip_count`
    #: holds the running count) or "unreadable" (records, but no count to show).
    legacy_skip_audit: str = "none"
    legacy_skip_count: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["commands"] = [list(c) for c in self.commands]
        return data


def _pending_commands(ids: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(tasks.verify_command_for(t)) for t in ids)


def _over_budget(reason: str, detail: str) -> NextSummary:
    return NextSummary(
        state=OVER_BUDGET,
        entries_read=0,
        bytes_read=0,
        complete=False,
        reason=reason,
        detail=detail,
        recommendation=(
            "local task facts exceed the summary budget and were not read; "
            "run `orchestrate task list` (or `orchestrate next` outside the hook), "
            f"then a fresh full check with `{FULL_CHECK}`"
        ),
        commands=(("orchestrate", "task", "list"), ("orchestrate", "next")),
    )


def _uninitialized() -> NextSummary:
    return NextSummary(
        state=UNINITIALIZED,
        recommendation=f"no local task facts; run a fresh full check: `{FULL_CHECK}`",
        commands=((*FULL_CHECK.split(),),),
    )


def _recommendation(pending: bool, unreadable: int) -> str:
    if pending:
        text = (
            "re-verify each task with its original checker, then close it explicitly "
            "(`orchestrate task close ID --resolution KIND`); a fresh full check "
            f"(`{FULL_CHECK}`) is still needed before delivery"
        )
    else:
        text = (
            "no open task in local facts; that is not a pass: "
            f"run a fresh full check with `{FULL_CHECK}`"
        )
    if unreadable:
        text += f"; {unreadable} record(s) unreadable: run `orchestrate task list`"
    return text


def _summarize(facts: TaskFacts) -> NextSummary:
    """The summary of a complete bounded read: pending ids first, a recommendation."""
    open_ids = tuple(r.id for r in facts.records if r.status == "open")
    verify_ids = tuple(r.id for r in facts.records if r.status == "verification_required")
    closed = sum(1 for r in facts.records if r.status not in ("open", "verification_required"))
    pending = open_ids + verify_ids
    return NextSummary(
        state=OPEN_TASKS if pending else NO_OPEN_TASKS,
        open_task_ids=open_ids,
        verification_required_ids=verify_ids,
        closed_count=closed,
        unreadable_count=facts.unreadable,
        entries_read=facts.entries,
        bytes_read=facts.bytes_read,
        complete=True,
        recommendation=_recommendation(bool(pending), facts.unreadable),
        commands=_pending_commands(pending) if pending else ((*FULL_CHECK.split(),),),
    )


def next_summary(
    project_root: Path,
    max_entries: int = DEFAULT_MAX_ENTRIES,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> NextSummary:
    """Summarize open tasks from `.orchestrate/tasks/` within the entry and byte budgets.

    Never raises for a bad record; never creates the workspace.
    """
    facts = read_task_facts(project_root, max_entries, max_bytes)
    if facts is None:
        return _uninitialized()
    if facts.over is not None:
        return _over_budget(*facts.over)
    return _summarize(facts)


#: Where the skip audit lives, for the summary's fixed wording.
SKIP_AUDIT_PATH = ".orchestrate/audit/skips.jsonl"


def legacy_skip_line(summary: NextSummary) -> str | None:
    """The summary's line about legacy-v1 skips, or None when none is recorded: the
    running count (a number) and fixed words, never text from the audit records."""
    if summary.legacy_skip_audit == "recorded" and summary.legacy_skip_count is not None:
        return (
            f"legacy-v1 skips recorded: {int(summary.legacy_skip_count)} (language gate "
            f"skipped, not certified; {SKIP_AUDIT_PATH})"
        )
    if summary.legacy_skip_audit == "unreadable":
        return f"legacy-v1 skip audit present, count unreadable ({SKIP_AUDIT_PATH})"
    return None


def render_text(summary: NextSummary, limit_chars: int = 1200) -> str:
    """Plain text of the summary, at most `limit_chars` characters.

    Ids that do not fit are counted, not silently dropped: the text says how many
    more there are and names `orchestrate task list`.
    """
    head = [
        "orchestrate next (local task facts only)",
        f"native checks: {summary.native_checks}; delivery: {summary.delivery}",
    ]
    if summary.state == OVER_BUDGET:
        head.append(f"summary not produced: scope over budget ({summary.detail})")
    skips = legacy_skip_line(summary)
    if skips:
        head.append(skips)
    tail = [f"next: {summary.recommendation}"]
    body: list[str] = []
    pending = [(t, "open") for t in summary.open_task_ids] + [
        (t, "verification_required") for t in summary.verification_required_ids
    ]
    if pending:
        body.append(f"pending tasks: {len(pending)}")
    base = len("\n".join(head + tail)) + 1
    used = base
    shown = 0
    for tid, status in pending:
        line = f"  {tid} [{status}] -> orchestrate task verify {tid}"
        more_note = 80  # room kept for the "N more" line
        if used + len(line) + 1 + more_note > limit_chars:
            break
        body.append(line)
        used += len(line) + 1
        shown += 1
    if shown < len(pending):
        body.append(f"  ... {len(pending) - shown} more: run `orchestrate task list`")
    text = "\n".join(head + body + tail)
    if len(text) > limit_chars:
        text = text[: max(0, limit_chars - 1)] + "…"
    return text
