"""CG-14: repair_ready for a task that is not there, or a recheck child that times out,
floods its output budget or returns another task's report: the task's state and the
reason are kept, and no recheck is claimed.

Fault injection: `verify.recheck_argv` is pointed at fake_* scripts written here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import VENV_BIN, deadline_passes_at, hang_marker, require_tool

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.deadline import Deadline
from orchestrator.tasks import store as tasks
from orchestrator.tasks import verify

pytestmark = pytest.mark.scenario("CG-14")


def _stable_task(root: Path) -> str:
    require_tool("ruff", "pip install ruff", path=str(VENV_BIN / "ruff"))
    (root / "app.py").write_text("import os\n")
    report = run_lint(LintRequest(project_root=root, paths=["app.py"], cwd=root))
    (tid,) = tasks.sync_tasks(report, root).created
    return tid


def test_CG14_no_such_task(tmp_path: Path) -> None:
    _stable_task(tmp_path)
    r = verify.repair_ready(tmp_path, "T-0123456789ab", Deadline.after(10))
    assert (r.outcome, r.reason) == ("recheck_incomplete", "task_not_found")
    r = verify.repair_ready(tmp_path, "../../etc/passwd", Deadline.after(10))
    assert (r.outcome, r.reason, r.task_id) == ("recheck_incomplete", "malformed_task_id", None)


def _other_report(root: Path) -> str:
    (root / "other.py").write_text("import sys\n")
    return run_lint(LintRequest(project_root=root, paths=["other.py"], cwd=root)).model_dump_json()


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        ("hang", "timed_out"),
        ("flood", "over_output_budget"),
        ("other_task", "report_for_another_task"),
    ],
)
def test_CG14_untrusted_child_keeps_state_and_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str, reason: str
) -> None:
    tid = _stable_task(tmp_path)
    before = tasks.load_task(tmp_path, tid)
    assert before is not None
    marker = hang_marker(tmp_path)
    bodies = {
        "hang": f"import time\nopen({str(marker)!r}, 'w').close()\ntime.sleep(60)\n",
        "flood": "import sys\nwhile True:\n    sys.stdout.write('{' * 65536)\n",
        "other_task": f"import sys\nsys.stdout.write({_other_report(tmp_path)!r})\n",
    }
    script = tmp_path / f"fake_{fault}.py"
    script.write_text(bodies[fault])
    monkeypatch.setattr(verify, "recheck_argv", lambda *a: [sys.executable, str(script)])
    with deadline_passes_at(marker):
        r = verify.repair_ready(tmp_path, tid, Deadline.after(3), output_budget=64 * 1024)
    assert (r.outcome, r.reason) == ("recheck_incomplete", reason)
    assert r.projection()["observation"] == "recheck_incomplete"
    after = tasks.load_task(tmp_path, tid)
    assert after is not None and after.status == before.status == "open"
    assert after.attempts[-1].reason == reason
