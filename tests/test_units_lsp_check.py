"""The editor's buffer check (orchestrator/lsp/check.py), in process."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import new_repo

from orchestrator.lsp import check


def test_the_buffer_is_judged_not_the_disk_and_nothing_is_written(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"m.py": "x = 1\n"})
    before = sorted(p.name for p in root.iterdir())
    result = check.check_content(root, "m.py", b"import os\n")
    assert result.report is not None and result.fault == ""
    assert [f.rule for f in result.report.findings] == ["F401"]
    assert check.check_content(root, "m.py", None).report.findings == []  # type: ignore[union-attr]
    assert sorted(p.name for p in root.iterdir()) == before


def test_a_fault_of_the_run_is_a_bounded_value_never_a_raise(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"m.py": "x = 1\n", "orchestrate.toml": "jobz = 2\n"})
    result = check.check_content(root, "m.py", b"x = 2\n")
    assert result.report is None
    assert "jobz" in result.fault and len(result.fault) <= check.MAX_FAULT


def test_the_engines_answer_round_trips_and_a_malformed_one_is_refused(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"m.py": "x = 1\n"})
    data = json.loads(check.check_json(root, "m.py", b"import os\n", 20))
    back = check._from_engine(data)
    assert back is not None and back.warm
    assert [f.rule for f in back.report.findings] == ["F401"]  # type: ignore[union-attr]
    assert check._from_engine({**data, "extra": 1}) is None
    assert check._from_engine({"report": None, "fault": ""}) is None
    assert check._from_engine({"report": {"scan": 3}, "fault": ""}) is None
    assert check._from_engine({"report": None, "fault": "x" * (check.MAX_FAULT + 1)}) is None
