"""The task use cases: re-verify one task, the hosts' repair-ready recheck, the next step,
and the edit log the host edit routes write.

The CLI (`task verify`, `next`), the host router and the MCP server call these;
the task store, the recheck child and the summary budgets stay in tasks/.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.gates.legacy import recorded_skip_count
from orchestrator.tasks import events, facts, nextstep
from orchestrator.tasks import verify as _verify
from orchestrator.tasks.nextstep import NextSummary
from orchestrator.tasks.verify import VerifyResult


def verify(root: Path, task_id: str, timeout: float = _verify.DEFAULT_TIMEOUT_S) -> VerifyResult:
    """Re-run the task's original checker on its file and record the observation.

    Never closes the task; a checker fault is an observation, not an exception.
    """
    return _verify.verify_task(root, task_id, timeout=timeout)


def repair_ready(root: Path, task_id: str, timeout: float) -> VerifyResult:
    """A host says a repair is ready: local task facts first, then the bounded recheck."""
    return _verify.repair_ready(root, task_id, Deadline.after(timeout))


def next_summary(root: Path, **budgets: int) -> NextSummary:
    """Open tasks and the next step from local task facts only, within the budgets
    (`max_entries`, `max_bytes`), with the legacy-v1 skip count of the skip audit (a
    bounded tail read; a number only, never record text)."""
    summary = nextstep.next_summary(root, **budgets)
    skips = recorded_skip_count(root)
    return dataclasses.replace(
        summary, legacy_skip_audit=skips.audit, legacy_skip_count=skips.count
    )


@dataclass(frozen=True)
class RepairTargets:
    """Which tasks a confirmed edit re-checks: at most one per (file, checker)."""

    #: Tasks to re-check now, by their original checker, in path then id order.
    task_ids: tuple[str, ...] = ()
    #: Files at least one of whose tasks is re-checked (their repair check stands in
    #: for the plain fast check, so no checker runs twice on a file in one event).
    paths: frozenset[str] = frozenset()
    #: Further tasks of those files not re-checked in this event.
    deferred: tuple[str, ...] = ()
    #: A reason code when the task facts could not be looked at within the hook budget.
    over_budget: str | None = None


def repair_targets(root: Path, paths: Sequence[str], limit: int) -> RepairTargets:
    """The not-closed tasks of `paths` a confirmed edit re-checks (a repair attempt).

    Reads local task facts only, within the hook pre-check budget (128 entries, 1 MiB);
    over it, nothing is chosen and `over_budget` says why. One task per (path, checker)
    and at most `limit` in all: the recheck of one task re-runs its checker on the
    whole file, so a second task of the same pair would run the same checker again.
    """
    found = facts.read_task_facts(root, _verify.HOOK_MAX_ENTRIES, _verify.HOOK_MAX_BYTES)
    if found is None:
        return RepairTargets()
    if found.over is not None:
        return RepairTargets(over_budget=found.over[0])
    wanted = set(paths)
    pending = sorted(
        (r.basis.path, r.id, r.basis.checker)
        for r in found.records
        if r.is_open() and r.basis.path in wanted
    )
    chosen: list[tuple[str, str]] = []
    pairs: set[tuple[str, str]] = set()
    deferred: list[str] = []
    for path, tid, checker in pending:
        if (path, checker) in pairs or len(chosen) >= limit:
            deferred.append(tid)
            continue
        pairs.add((path, checker))
        chosen.append((path, tid))
    chosen_paths = frozenset(p for p, _ in chosen)
    return RepairTargets(
        task_ids=tuple(t for _, t in chosen),
        paths=chosen_paths,
        deferred=tuple(t for p, t, _ in pending if t in deferred and p in chosen_paths),
    )


#: Bytes of one edited file hashed for the edit snapshot (a larger file: its first 8 MiB).
SNAPSHOT_READ_MAX = 8 * 1024 * 1024


def _digest(root: Path, rel: str) -> str:
    """The content digest of one edited file, or a fixed marker for a path no checker
    may read: an edit's paths may be ones lint refused (a re-determined scope keeps
    every path git reports), and opening a FIFO would hang the hook, a device read
    forever and a symlink leaving the root read a file outside the project."""
    try:
        real = os.path.realpath(root / rel)
        if not real.startswith(os.path.realpath(root).rstrip(os.sep) + os.sep):
            return "unsafe:outside_root"
        if not stat.S_ISREG(os.stat(real).st_mode):
            return "unsafe:not_a_regular_file"
        # No follow, no wait: the path may have been swapped since the look above.
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return "unsafe:not_a_regular_file"
            return hashlib.sha256(fh.read(SNAPSHOT_READ_MAX)).hexdigest()
    except (OSError, ValueError) as exc:
        return f"unreadable:{type(exc).__name__}"


def record_edit(root: Path, paths: Sequence[str], outcome: str) -> events.Recorded:
    """Log one confirmed edit's fast check; a repeat of the same snapshot with the same
    outcome merges into the earlier event (tasks/events.py de-duplication). Never raises
    for I/O trouble."""
    snapshot = events.snapshot_key((p, _digest(root, p)) for p in paths)
    return events.record_event(
        root, "edit", snapshot=snapshot, outcome=outcome, data={"files": len(paths)}
    )


__all__ = [
    "RepairTargets",
    "next_summary",
    "record_edit",
    "repair_ready",
    "repair_targets",
    "verify",
]
