"""The task use cases: re-verify one task, the hosts' repair-ready recheck, the next step,
and the edit log the host edit routes write.

The CLI (`task verify`, `next`), the host router and the MCP server call these;
the task store, the recheck child and the summary budgets stay in tasks/.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.tasks import events, nextstep
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
    (`max_entries`, `max_bytes`)."""
    return nextstep.next_summary(root, **budgets)


#: Bytes of one edited file hashed for the edit snapshot (a larger file: its first 8 MiB).
SNAPSHOT_READ_MAX = 8 * 1024 * 1024


def _digest(root: Path, rel: str) -> str:
    try:
        with open(root / rel, "rb") as fh:
            return hashlib.sha256(fh.read(SNAPSHOT_READ_MAX)).hexdigest()
    except OSError as exc:
        return f"unreadable:{type(exc).__name__}"


def record_edit(root: Path, paths: Sequence[str], outcome: str) -> events.Recorded:
    """Log one confirmed edit's fast check; a repeat of the same snapshot with the same
    outcome merges into the earlier event (tasks/events.py de-duplication). Never raises
    for I/O trouble."""
    snapshot = events.snapshot_key((p, _digest(root, p)) for p in paths)
    return events.record_event(
        root, "edit", snapshot=snapshot, outcome=outcome, data={"files": len(paths)}
    )


__all__ = ["next_summary", "record_edit", "repair_ready", "verify"]
