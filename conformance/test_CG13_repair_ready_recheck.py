"""CG-13: repair_ready on a stable task re-runs the ORIGINAL checker within budget.

The observation is recorded locally (task attempt + event), the summary handed back is
bounded and safe (ids, checker id, observation, persistence, reason code), and neither
closing the task nor a delivery decision follows from it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import VENV_BIN, require_tool, run_cli

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.deadline import Deadline
from orchestrator.tasks import events, verify
from orchestrator.tasks import store as tasks

pytestmark = [pytest.mark.e2e, pytest.mark.scenario("CG-13")]


def _stable_task(root: Path) -> str:
    require_tool("ruff", "pip install ruff", path=str(VENV_BIN / "ruff"))
    (root / "app.py").write_text("import os\n\n\ndef main():\n    return 1\n")
    report = run_lint(LintRequest(project_root=root, paths=["app.py"], cwd=root))
    (tid,) = tasks.sync_tasks(report, root).created
    return tid


def test_CG13_repair_ready_rechecks_original_checker_and_records_observation(
    tmp_path: Path,
) -> None:
    tid = _stable_task(tmp_path)
    # The repair: the unused import goes, ten lines land above the old spot.
    (tmp_path / "app.py").write_text(
        "".join(f"# {i}\n" for i in range(10)) + "def main():\n    return 1\n"
    )
    result = verify.repair_ready(tmp_path, tid, Deadline.after(60))
    assert result.outcome == verify.ABSENT_UNVERIFIED
    summary = result.projection()
    assert summary == {
        "task_id": tid,
        "checker": "ruff",
        "observation": "absent_unverified",
        "task_status": "verification_required",
        "event_persisted": True,
        "reason": None,
    }
    assert len(json.dumps(summary)) < 1200
    rec = tasks.load_task(tmp_path, tid)
    assert rec is not None
    assert rec.status != "closed"  # closing is a separate act
    assert rec.attempts[-1].kind == "verify" and rec.attempts[-1].outcome == "absent_unverified"
    assert [e["kind"] for e in events.recent_events(tmp_path)] == ["repair_ready", "recheck"]


def test_CG13_still_present_and_close_is_separate(tmp_path: Path) -> None:
    tid = _stable_task(tmp_path)
    out = run_cli(["task", "verify", tid, "--root", str(tmp_path), "--format", "json"], tmp_path)
    assert out.returncode == 1, out.stderr  # finding still present
    data = json.loads(out.stdout)
    assert data["observation"] == "still_present" and data["checker"] == "ruff"
    assert "gate" not in out.stdout and "allow" not in out.stdout
    out = run_cli(
        ["task", "close", tid, "--resolution", "wont_fix", "--root", str(tmp_path)], tmp_path
    )
    assert out.returncode == 0
    assert tasks.load_task(tmp_path, tid).status == "closed"  # type: ignore[union-attr]


def test_CG13_host_edit_of_a_task_file_is_a_repair_ready_recheck(tmp_path: Path) -> None:
    """Through a host: a confirmed edit of a file with a stable task re-checks that task
    by its original checker (the task verify path), says so in bounded words, and
    neither closes the task nor claims delivery."""
    from orchestrator.hosts import claude_code

    tid = _stable_task(tmp_path)
    (tmp_path / "app.py").write_text("def main():\n    return 1\n")
    event = {
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "cwd": str(tmp_path),
        "tool_input": {"file_path": str(tmp_path / "app.py")},
    }
    code, out = claude_code.run(json.dumps(event).encode(), {})
    assert code == 0
    obj = json.loads(out)
    text = obj["hookSpecificOutput"]["additionalContext"]
    assert f"task verify {tid} absent_unverified" in text and len(text) <= 1200
    assert "no task is closed" in text and "delivery not_evaluated" in text
    rec = tasks.load_task(tmp_path, tid)
    assert rec is not None and rec.status == "verification_required"
    kinds = [e["kind"] for e in events.recent_events(tmp_path)]
    assert kinds[:2] == ["repair_ready", "recheck"]
