"""CG-16: Stop over the record-count or byte budget says so, does not scan on, and
does not present a truncated summary as complete; it points to the explicit commands.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import task_backlog

from orchestrator.tasks import nextstep

pytestmark = pytest.mark.scenario("CG-16")


def test_CG16_entry_budget(tmp_path: Path) -> None:
    task_backlog(tmp_path, 130, message="")
    s = nextstep.next_summary(tmp_path)  # defaults: 128 entries, 1 MiB
    assert s.state == nextstep.OVER_BUDGET and s.reason == nextstep.ENTRIES_OVER
    assert not s.complete and s.open_task_ids == () and s.bytes_read == 0
    text = nextstep.render_text(s)
    assert "over budget" in text and "orchestrate task list" in text and "orchestrate next" in text
    assert "T-" not in text


def test_CG16_byte_budget(tmp_path: Path) -> None:
    task_backlog(tmp_path, 10, message="")
    s = nextstep.next_summary(tmp_path, max_bytes=4096)
    assert s.state == nextstep.OVER_BUDGET and s.reason == nextstep.BYTES_OVER
    assert not s.complete and s.open_task_ids == ()
