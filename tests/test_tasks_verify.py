"""`task verify` / repair_ready: the original checker re-runs under one deadline and a
closed output budget; a child that hangs, floods or lies gives `recheck_incomplete`.

Fault injection: `verify.recheck_argv` is monkeypatched in-process to run a fake_*
script the test writes; the real path runs the real CLI with real Ruff.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import run_cli

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.deadline import Deadline
from orchestrator.tasks import events, verify
from orchestrator.tasks import store as tasks

BAD = "import os\n\nx = 1\n"
FIXED = "x = 1\n"


def _task(root: Path) -> str:
    (root / "a.py").write_text(BAD)
    report = run_lint(LintRequest(project_root=root, paths=["a.py"], cwd=root))
    (tid,) = tasks.sync_tasks(report, root).created
    return tid


def _fake(root: Path, name: str, body: str) -> Callable[..., list[str]]:
    script = root / f"fake_{name}.py"
    script.write_text(body)

    def argv(project_root: Path, checker: str, path: str, timeout_s: float) -> list[str]:
        return [sys.executable, str(script)]

    return argv


@pytest.mark.e2e
def test_fixed_file_is_absent_unverified_and_task_stays_open_until_close(tmp_path: Path) -> None:
    tid = _task(tmp_path)
    present = verify.verify_task(tmp_path, tid, timeout=60)
    assert present.outcome == verify.STILL_PRESENT and present.status == "open"
    (tmp_path / "a.py").write_text(FIXED)
    out = run_cli(["task", "verify", tid, "--root", str(tmp_path)], cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "absent_unverified" in out.stdout
    rec = tasks.load_task(tmp_path, tid)
    assert rec is not None and rec.status == "verification_required"
    assert [a.outcome for a in rec.attempts if a.kind == "verify"] == [
        "still_present",
        "absent_unverified",
    ]
    out = run_cli(
        ["task", "close", tid, "--resolution", "fixed", "--root", str(tmp_path)], tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert tasks.load_task(tmp_path, tid).status == "closed"  # type: ignore[union-attr]
    kinds = [(e["kind"], e["outcome"]) for e in events.recent_events(tmp_path)]
    assert kinds == [("recheck", "still_present"), ("recheck", "absent_unverified")]


@pytest.mark.e2e
def test_unknown_and_malformed_ids(tmp_path: Path) -> None:
    r = verify.verify_task(tmp_path, "T-0123456789ab", timeout=5)
    assert (r.outcome, r.reason) == (verify.RECHECK_INCOMPLETE, "task_not_found")
    r = verify.verify_task(tmp_path, "T-x; rm -rf /", timeout=5)
    assert (r.outcome, r.reason, r.task_id) == (
        verify.RECHECK_INCOMPLETE,
        "malformed_task_id",
        None,
    )
    out = run_cli(["task", "verify", "$(touch pwned)", "--root", str(tmp_path)], tmp_path)
    assert out.returncode == 2 and "touch" not in out.stdout + out.stderr
    assert not (tmp_path / "pwned").exists()


def _assert_incomplete_kept(root: Path, tid: str, r: verify.VerifyResult, reason: str) -> None:
    assert (r.outcome, r.reason) == (verify.RECHECK_INCOMPLETE, reason)
    assert r.status == "open"  # state kept
    rec = tasks.load_task(root, tid)
    assert rec is not None and rec.attempts[-1].reason == reason


def test_hanging_checker_is_killed_at_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tid = _task(tmp_path)
    monkeypatch.setattr(
        verify, "recheck_argv", _fake(tmp_path, "hang", "import time\ntime.sleep(60)\n")
    )
    start = time.monotonic()
    r = verify.verify_task(tmp_path, tid, timeout=1.5)
    assert time.monotonic() - start < 10
    _assert_incomplete_kept(tmp_path, tid, r, "timed_out")


def test_flooding_checker_is_cut_at_the_output_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tid = _task(tmp_path)
    body = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
    monkeypatch.setattr(verify, "recheck_argv", _fake(tmp_path, "flood", body))
    r = verify.verify_task(tmp_path, tid, timeout=30, output_budget=128 * 1024)
    _assert_incomplete_kept(tmp_path, tid, r, "over_output_budget")


def _report_of(root: Path, path: str, fixed: bool = False) -> dict:  # type: ignore[type-arg]
    (root / path).write_text(FIXED if fixed else BAD)
    report = run_lint(LintRequest(project_root=root, paths=[path], cwd=root))
    return report.model_dump(mode="json")


def _printer(root: Path, name: str, data: object) -> Callable[..., list[str]]:
    (root / f"{name}.json").write_text(json.dumps(data) if not isinstance(data, str) else data)
    body = f"import sys\nsys.stdout.write(open({str(root / f'{name}.json')!r}).read())\n"
    return _fake(root, name, body)


def test_report_for_another_task_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tid = _task(tmp_path)
    other = _report_of(tmp_path, "b.py")
    monkeypatch.setattr(verify, "recheck_argv", _printer(tmp_path, "other", other))
    r = verify.verify_task(tmp_path, tid, timeout=30)
    _assert_incomplete_kept(tmp_path, tid, r, "report_for_another_task")


def test_changed_identity_and_garbage_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tid = _task(tmp_path)
    same = _report_of(tmp_path, "a.py", fixed=True)
    same["scopes"][0]["tool"]["version"] = "ruff 99.0.0"
    monkeypatch.setattr(verify, "recheck_argv", _printer(tmp_path, "liar", same))
    _assert_incomplete_kept(
        tmp_path, tid, verify.verify_task(tmp_path, tid, timeout=30), "identity_changed"
    )
    monkeypatch.setattr(verify, "recheck_argv", _printer(tmp_path, "garbage", "not json {"))
    _assert_incomplete_kept(
        tmp_path, tid, verify.verify_task(tmp_path, tid, timeout=30), "unparsable_report"
    )


def test_tampered_record_is_not_rechecked(tmp_path: Path) -> None:
    tid = _task(tmp_path)
    path = tmp_path / ".orchestrate/tasks" / f"{tid}.json"
    data = json.loads(path.read_text())
    data["basis"]["checker"] = "eslint"
    data["identity"]["checker"] = "eslint"
    path.write_text(json.dumps(data))
    r = verify.verify_task(tmp_path, tid, timeout=30)
    assert r.reason == "task_record_inconsistent"


def test_repair_ready_over_folder_budget_asks_for_explicit_verify(tmp_path: Path) -> None:
    tid = _task(tmp_path)
    for i in range(130):
        (tmp_path / ".orchestrate/tasks" / f"junk{i}").write_text("x")
    r = verify.repair_ready(tmp_path, tid, Deadline.after(10))
    assert (r.outcome, r.reason) == (verify.RECHECK_INCOMPLETE, "task_folder_over_budget")
    assert r.projection()["task_id"] == tid


@pytest.mark.e2e
def test_repair_ready_rechecks_and_projects_safe_fields(tmp_path: Path) -> None:
    tid = _task(tmp_path)
    (tmp_path / "a.py").write_text(FIXED)
    r = verify.repair_ready(tmp_path, tid, Deadline.after(60))
    assert r.outcome == verify.ABSENT_UNVERIFIED
    proj = r.projection()
    assert proj == {
        "task_id": tid,
        "checker": "ruff",
        "observation": "absent_unverified",
        "task_status": "verification_required",
        "event_persisted": True,
        "reason": None,
    }
    kinds = [e["kind"] for e in events.recent_events(tmp_path)]
    assert kinds == ["repair_ready", "recheck"]


@pytest.mark.e2e
def test_recheck_is_fresh_even_with_a_warm_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tid = _task(tmp_path)
    warm = run_lint(LintRequest(project_root=tmp_path, paths=["a.py"], cwd=tmp_path))
    assert [s.reused for s in warm.scopes if s.checker == "ruff"] == ["identity equal"]
    assert verify.verify_task(tmp_path, tid, timeout=60).outcome == verify.STILL_PRESENT
    stale = warm.model_dump(mode="json")
    monkeypatch.setattr(verify, "recheck_argv", _printer(tmp_path, "cached", stale))
    _assert_incomplete_kept(
        tmp_path, tid, verify.verify_task(tmp_path, tid, timeout=30), "not_fresh"
    )
