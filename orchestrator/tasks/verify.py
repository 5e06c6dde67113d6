"""Re-verification of one task by its ORIGINAL checker (`task verify`, `repair_ready`).

The recheck runs in a child process (`recheck_argv`: this interpreter running
`orchestrator.cli.main lint --root ROOT --only CHECKER --format json --timeout N -- PATH`) under one
deadline and a closed output budget; a child that hangs or floods is killed. The
arguments come from the task record's validated basis, never from free text and
never through a shell. What comes back must be a report for the same task: same
path, same checker, same tool identity and config; the task id is recomputed from
its findings.

Outcomes:
- `still_present`: the task's finding is in the fresh report.
- `absent_unverified`: the checker ran completely and the finding is gone. This is
  an observation; the task is never closed by it (closing is `task close`).
- `recheck_incomplete`: no claim either way; `reason` says why (a code from
  `REASONS`), the task's state is kept.

Tests inject faults by monkeypatching `recheck_argv` in-process to point at a fake
checker script; there is deliberately no environment variable for that.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from orchestrator.core import reuse
from orchestrator.deadline import Deadline
from orchestrator.decisions.coverage import is_checked
from orchestrator.model.paths import form_problem
from orchestrator.model.report import Report, utc_now
from orchestrator.procs import run_bounded, scrubbed_env
from orchestrator.tasks import events
from orchestrator.tasks import store as tasks
from orchestrator.vocab import ScopeStatus
from orchestrator.workspace import workspace_dir

STILL_PRESENT = "still_present"
ABSENT_UNVERIFIED = "absent_unverified"
RECHECK_INCOMPLETE = "recheck_incomplete"

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_OUTPUT_BUDGET = 4 * 1024 * 1024
#: repair_ready pre-check of the task folder (seed 004: 128 entries, 1 MiB).
HOOK_MAX_ENTRIES = 128
HOOK_MAX_BYTES = 1 << 20

#: The closed set of reasons a recheck can be incomplete (safe to show an agent).
REASONS = frozenset(
    {
        "malformed_task_id",
        "task_not_found",
        "task_record_inconsistent",
        "task_folder_over_budget",
        "deadline_expired",
        "recheck_spawn_failed",
        "timed_out",
        "over_output_budget",
        "recheck_exit_code",
        "unparsable_report",
        "report_for_another_task",
        "scope_not_checked",
        "tool_missing",
        "identity_changed",
        "file_missing",
        "not_fresh",
        "config_changed",
    }
)


#: Reasons for which the task record itself is not touched (absent, or not to be read).
_NO_RECORD = frozenset({"malformed_task_id", "task_not_found", "task_folder_over_budget"})


@dataclass(frozen=True)
class VerifyResult:
    """What one recheck observed. `reason` is a code from REASONS (None unless incomplete)."""

    task_id: str | None
    outcome: str
    reason: str | None = None
    detail: str | None = None
    checker: str | None = None
    status: str | None = None  # the task's status after recording
    recorded: bool = False  # attempt written to the task record
    event_persisted: bool = False
    duration_ms: int = 0

    def projection(self) -> dict[str, Any]:
        """The bounded, safe view for host feedback: ids, observation, persistence, reason."""
        return {
            "task_id": self.task_id if tasks.is_safe_task_id(self.task_id) else None,
            "checker": self.checker
            if self.checker and tasks.CHECKER_RE.match(self.checker)
            else None,
            "observation": self.outcome,
            "task_status": self.status,
            "event_persisted": self.event_persisted,
            "reason": self.reason,
        }


def recheck_argv(project_root: Path, checker: str, path: str, timeout_s: float) -> list[str]:
    """The child argv of a recheck: the CLI's lint restricted to the original checker.

    Tests monkeypatch this function to run a fake checker; see the module docstring.
    """
    return [
        sys.executable,
        "-m",
        "orchestrator.cli.main",
        "lint",
        "--root",
        str(project_root),
        "--only",
        checker,
        "--no-baseline",  # the re-check judges the code: a baseline hides nothing here
        "--format",
        "json",
        "--timeout",
        f"{max(1.0, timeout_s):.1f}",
        "--",
        path,
    ]


def _incomplete(
    task_id: str | None, reason: str, detail: str | None = None, **kw: Any
) -> VerifyResult:
    assert reason in REASONS
    return VerifyResult(
        task_id=task_id, outcome=RECHECK_INCOMPLETE, reason=reason, detail=detail, **kw
    )


def folder_over_budget(
    project_root: Path, max_entries: int = HOOK_MAX_ENTRIES, max_bytes: int = HOOK_MAX_BYTES
) -> bool:
    """True when the task folder holds more entries or bytes than a hook may pre-check."""
    folder = tasks.tasks_dir(project_root, create=False)
    if not folder.is_dir():
        return False
    count = 0
    total = 0
    with os.scandir(folder) as it:
        for e in it:
            count += 1
            if count > max_entries:
                return True
            try:
                total += e.stat(follow_symlinks=False).st_size
            except OSError:
                continue
            if total > max_bytes:
                return True
    return False


def _judge(
    rec: tasks.TaskRecord, project_root: Path, stdout: bytes, returncode: int | None
) -> VerifyResult:
    """Decide the outcome from the child's report (untrusted data)."""
    tid, b = rec.id, rec.basis
    common = {"checker": b.checker}
    try:
        report = Report.model_validate_json(stdout)
    except (ValidationError, ValueError):
        return _incomplete(tid, "unparsable_report", **common)
    if returncode not in (0, 1, 3):
        return _incomplete(tid, "recheck_exit_code", f"exit {returncode}", **common)
    foreign = [s for s in report.scopes if (s.path, s.checker) != (b.path, b.checker)]
    foreign_f = [f for f in report.findings if (f.path, f.checker) != (b.path, b.checker)]
    scope = next((s for s in report.scopes if (s.path, s.checker) == (b.path, b.checker)), None)
    if foreign or foreign_f or scope is None:
        return _incomplete(tid, "report_for_another_task", **common)
    if scope.status == ScopeStatus.MISSING:
        return _incomplete(tid, "tool_missing", **common)
    if not is_checked(scope):
        return _incomplete(tid, "scope_not_checked", f"scope {scope.status}", **common)
    if scope.reused:
        # A recheck is a fresh run of the original checker; a cached result never stands in.
        return _incomplete(tid, "not_fresh", **common)
    want = rec.identity
    if want.tool is not None:
        got = scope.tool
        if got is None or (want.tool.path, want.tool.version) != (got.path, got.version):
            return _incomplete(tid, "identity_changed", **common)
    if want.config_digest is not None and scope.config_digest != want.config_digest:
        return _incomplete(tid, "config_changed", **common)
    ids = {t for _, _, t in tasks.assign_ids(report.findings, project_root)}
    if tid in ids:
        return VerifyResult(task_id=tid, outcome=STILL_PRESENT, **common)
    return VerifyResult(task_id=tid, outcome=ABSENT_UNVERIFIED, **common)


def _record(project_root: Path, result: VerifyResult, kind: str) -> VerifyResult:
    """Write the observation into the task and the event log; status rules in docs/tasks.md."""
    status: str | None = None
    recorded = False
    if result.task_id and result.reason not in _NO_RECORD:

        def change(rec: tasks.TaskRecord) -> tasks.TaskRecord:
            tasks.add_attempt(
                rec,
                tasks.Attempt(
                    at=utc_now(), kind="verify", outcome=result.outcome, reason=result.reason
                ),
            )
            if result.outcome == STILL_PRESENT:
                if rec.status == "closed" and rec.resolution == "fixed":
                    rec.status, rec.resolution = "open", None
                elif rec.status == "verification_required":
                    rec.status = "open"
            elif result.outcome == ABSENT_UNVERIFIED and rec.status == "open":
                rec.status = "verification_required"
            return rec

        try:
            rec = tasks.update_task(project_root, result.task_id, change)
        except (OSError, TimeoutError):
            rec = None
        if rec is not None:
            status, recorded = rec.status, True
    ev = events.record_event(
        project_root,
        kind,
        task_id=result.task_id if tasks.is_safe_task_id(result.task_id) else None,
        outcome=result.outcome,
        data={"reason": result.reason, "checker": result.checker},
    )
    return VerifyResult(
        task_id=result.task_id,
        outcome=result.outcome,
        reason=result.reason,
        detail=result.detail,
        checker=result.checker,
        status=status,
        recorded=recorded,
        event_persisted=ev.persisted,
        duration_ms=result.duration_ms,
    )


def verify_task(
    project_root: Path,
    task_id: str,
    timeout: float = DEFAULT_TIMEOUT_S,
    output_budget: int = DEFAULT_OUTPUT_BUDGET,
    *,
    deadline: Deadline | None = None,
    event_kind: str = "recheck",
) -> VerifyResult:
    """Re-run the task's original checker on its file and record the observation.

    Never raises for a checker fault and never closes the task. `deadline` (if given)
    is the caller's overall deadline; otherwise one starts now with `timeout`.
    """
    deadline = deadline or Deadline.after(timeout)
    root = project_root.resolve()
    if not tasks.is_safe_task_id(task_id):
        return _incomplete(None, "malformed_task_id")
    rec = tasks.load_task(root, task_id)
    if rec is None:
        return _record(root, _incomplete(task_id, "task_not_found"), event_kind)
    b = rec.basis
    if (
        not tasks.basis_matches_id(rec)
        or not tasks.CHECKER_RE.match(b.checker)
        or rec.identity.checker != b.checker
        or form_problem(b.path) is not None
    ):
        return _record(root, _incomplete(task_id, "task_record_inconsistent"), event_kind)
    # Leave the child a margin inside our deadline to print its report.
    remaining = deadline.remaining()
    if remaining < 0.5:
        return _record(
            root, _incomplete(task_id, "deadline_expired", checker=b.checker), event_kind
        )
    child_timeout = max(0.5, remaining - min(2.0, remaining * 0.2))
    if not (root / b.path).is_file():
        return _record(root, _incomplete(task_id, "file_missing", checker=b.checker), event_kind)
    argv = recheck_argv(root, b.checker, b.path, child_timeout)
    # A re-verification is a fresh run of the original checker, never a cache hit.
    env = scrubbed_env(extra={reuse.ENV_SWITCH: "0"})
    res = run_bounded(argv, deadline=deadline, cwd=root, env=env, output_budget=output_budget)
    if res.spawn_error:
        result = _incomplete(task_id, "recheck_spawn_failed", checker=b.checker)
    elif res.timed_out:
        result = _incomplete(task_id, "timed_out", checker=b.checker)
    elif res.over_budget:
        result = _incomplete(task_id, "over_output_budget", checker=b.checker)
    else:
        result = _judge(rec, root, res.stdout, res.returncode)
    result = VerifyResult(**{**result.__dict__, "duration_ms": res.duration_ms})
    return _record(root, result, event_kind)


def repair_ready(
    project_root: Path,
    task_id: str,
    deadline: Deadline,
    output_budget: int = 256 * 1024,
    max_entries: int = HOOK_MAX_ENTRIES,
    max_bytes: int = HOOK_MAX_BYTES,
) -> VerifyResult:
    """The host adapters' `repair_ready` route: local task facts first, then `verify_task`.

    Over the hook's task-folder budget it does not read on and asks for an explicit
    `orchestrate task verify ID`. The caller's event deadline is inherited.
    """
    root = project_root.resolve()
    if not tasks.is_safe_task_id(task_id):
        return _incomplete(None, "malformed_task_id")
    if not workspace_dir(root, create=False).is_dir():
        return _incomplete(task_id, "task_not_found")
    if folder_over_budget(root, max_entries, max_bytes):
        return _record(root, _incomplete(task_id, "task_folder_over_budget"), "repair_ready")
    events.record_event(root, "repair_ready", task_id=task_id)
    return verify_task(
        root, task_id, output_budget=output_budget, deadline=deadline, event_kind="recheck"
    )


def result_json(result: VerifyResult) -> str:
    """The result as one JSON object (for `task verify --format json`)."""
    return json.dumps({**result.projection(), "detail": result.detail}, sort_keys=True)
