"""`orchestrate next` and the Stop summary: a bounded, read-only next-step summary.

Reads ONLY local task facts (`.orchestrate/tasks/*.json`): it runs no checker,
writes nothing (an unparsable record is counted, not quarantined; `task list` does
that), and never echoes task text: only well-formed task ids and fixed wording
leave this module. With no open task it recommends a fresh full check; it never
says "all good". Over the entry or byte budget it says so and stops, pointing to
`orchestrate next` / `orchestrate task list` instead of summarizing a part as if it
were the whole.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from orchestrator.tasks import store as tasks
from orchestrator.workspace import DIRNAME

DEFAULT_MAX_ENTRIES = 128
DEFAULT_MAX_BYTES = 1 << 20
FULL_CHECK = "orchestrate lint"

UNINITIALIZED = "uninitialized"
NO_OPEN_TASKS = "no_open_tasks"
OPEN_TASKS = "open_tasks"
OVER_BUDGET = "over_budget"

ENTRIES_OVER = "task_entries_over_budget"
BYTES_OVER = "task_bytes_over_budget"
UNREADABLE = "task_folder_unreadable"


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


def next_summary(
    project_root: Path,
    max_entries: int = DEFAULT_MAX_ENTRIES,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> NextSummary:
    """Summarize open tasks from `.orchestrate/tasks/` within the entry and byte budgets.

    Never raises for a bad record; never creates the workspace.
    """
    folder = project_root / DIRNAME / tasks.TASKS_DIR
    if not folder.is_dir():
        return NextSummary(
            state=UNINITIALIZED,
            recommendation=f"no local task facts; run a fresh full check: `{FULL_CHECK}`",
            commands=((*FULL_CHECK.split(),),),
        )
    # Budget first, from directory entries and sizes only: nothing is read past it.
    names: list[tuple[str, int]] = []
    total = 0
    try:
        with os.scandir(folder) as it:
            for e in it:
                if len(names) >= max_entries:
                    return _over_budget(ENTRIES_OVER, f"more than {max_entries} task entries")
                try:
                    size = e.stat(follow_symlinks=False).st_size
                except OSError:
                    size = 0
                total += size
                if total > max_bytes:
                    return _over_budget(BYTES_OVER, f"task records exceed {max_bytes} bytes")
                names.append((e.name, size))
    except OSError:
        return _over_budget(UNREADABLE, "task folder unreadable")

    open_ids: list[str] = []
    verify_ids: list[str] = []
    closed = 0
    unreadable = 0
    bytes_read = 0
    entries = 0
    for name, _size in sorted(names):
        if name.startswith(".") or not name.endswith(".json"):
            continue
        entries += 1
        stem = name[: -len(".json")]
        path = folder / name
        try:
            if not tasks.is_safe_task_id(stem) or path.is_symlink():
                raise ValueError("not a task record")
            with open(path, "rb") as fh:
                data = fh.read(max_bytes - bytes_read + 1)
            bytes_read += len(data)
            if bytes_read > max_bytes:
                return _over_budget(BYTES_OVER, f"task records exceed {max_bytes} bytes")
            rec = tasks.parse_record(data, expected_id=stem)
        except (OSError, ValueError):
            unreadable += 1
            continue
        if rec.status == "open":
            open_ids.append(rec.id)
        elif rec.status == "verification_required":
            verify_ids.append(rec.id)
        else:
            closed += 1

    pending = tuple(open_ids) + tuple(verify_ids)
    if pending:
        state = OPEN_TASKS
        rec_text = (
            "re-verify each task with its original checker, then close it explicitly "
            "(`orchestrate task close ID --resolution KIND`); a fresh full check "
            f"(`{FULL_CHECK}`) is still needed before delivery"
        )
    else:
        state = NO_OPEN_TASKS
        rec_text = (
            "no open task in local facts; that is not a pass: "
            f"run a fresh full check with `{FULL_CHECK}`"
        )
    if unreadable:
        rec_text += f"; {unreadable} record(s) unreadable: run `orchestrate task list`"
    return NextSummary(
        state=state,
        open_task_ids=tuple(open_ids),
        verification_required_ids=tuple(verify_ids),
        closed_count=closed,
        unreadable_count=unreadable,
        entries_read=entries,
        bytes_read=bytes_read,
        complete=True,
        recommendation=rec_text,
        commands=_pending_commands(pending) if pending else ((*FULL_CHECK.split(),),),
    )


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
