"""CG-16: Stop over the record-count or byte budget says so, does not scan on, and
does not present a truncated summary as complete; it points to the explicit commands.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.core.report import Finding, Report, ScanInfo
from orchestrator.tasks import nextstep
from orchestrator.tasks import store as tasks
from orchestrator.vocab import Severity

pytestmark = pytest.mark.scenario("CG-16")


def _backlog(root: Path, n: int) -> None:
    (root / "a.py").write_text("".join(f"import m{i}\n" for i in range(n)))
    findings = [
        Finding(
            checker="ruff",
            rule="F401",
            severity=Severity.ERROR,
            path="a.py",
            line=i + 1,
            blocking=True,
        )
        for i in range(n)
    ]
    tasks.sync_tasks(Report(scan=ScanInfo(project_root=str(root)), findings=findings), root)


def test_CG16_entry_budget(tmp_path: Path) -> None:
    _backlog(tmp_path, 130)
    s = nextstep.next_summary(tmp_path)  # defaults: 128 entries, 1 MiB
    assert s.state == nextstep.OVER_BUDGET and s.reason == nextstep.ENTRIES_OVER
    assert not s.complete and s.open_task_ids == () and s.bytes_read == 0
    text = nextstep.render_text(s)
    assert "over budget" in text and "orchestrate task list" in text and "orchestrate next" in text
    assert "T-" not in text


def test_CG16_byte_budget(tmp_path: Path) -> None:
    _backlog(tmp_path, 10)
    s = nextstep.next_summary(tmp_path, max_bytes=4096)
    assert s.state == nextstep.OVER_BUDGET and s.reason == nextstep.BYTES_OVER
    assert not s.complete and s.open_task_ids == ()
