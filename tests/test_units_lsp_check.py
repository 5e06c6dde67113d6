"""The editor's buffer check (orchestrator/usecases/editor.py, asked by
orchestrator/lsp/check.py), in process, and its answer through the warm engine's codec
(orchestrator/server/codec.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from helpers import new_repo

from orchestrator.lsp import check
from orchestrator.server import codec, services
from orchestrator.usecases import editor


def test_the_buffer_is_judged_not_the_disk_and_nothing_is_written(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"m.py": "x = 1\n"})
    before = sorted(p.name for p in root.iterdir())
    result = editor.check_content(root, "m.py", b"import os\n")
    assert result.report is not None and result.fault == ""
    assert [f.rule for f in result.report.findings] == ["F401"]
    assert editor.check_content(root, "m.py", None).report.findings == []  # type: ignore[union-attr]
    assert sorted(p.name for p in root.iterdir()) == before


def test_a_fault_of_the_run_is_a_bounded_value_never_a_raise(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"m.py": "x = 1\n", "orchestrate.toml": "jobz = 2\n"})
    result = editor.check_content(root, "m.py", b"x = 2\n")
    assert result.report is None
    assert "jobz" in result.fault and len(result.fault) <= editor.MAX_FAULT


def test_the_engines_answer_round_trips_and_a_malformed_one_is_refused(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"m.py": "x = 1\n"})
    data = json.loads(services.buffer_lint(root, "m.py", b"import os\n", 20))
    assert set(data) == codec.BUFFER_CHECK_KEYS
    back = codec.decode_buffer_check(data)
    assert back is not None and back.warm
    assert [f.rule for f in back.report.findings] == ["F401"]  # type: ignore[union-attr]
    assert codec.decode_buffer_check({**data, "extra": 1}) is None
    assert codec.decode_buffer_check({"report": None, "fault": ""}) is None
    assert codec.decode_buffer_check({"report": {"scan": 3}, "fault": ""}) is None
    too_long = "x" * (editor.MAX_FAULT + 1)
    assert codec.decode_buffer_check({"report": None, "fault": too_long}) is None
    fault = codec.decode_buffer_check({"report": None, "fault": "bad\x1b[2J"})
    assert fault is not None and fault.report is None and "\x1b" not in fault.fault


def test_a_fault_travels_the_codec_as_a_fault(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"m.py": "x = 1\n", "orchestrate.toml": "jobz = 2\n"})
    back = codec.decode_buffer_check(json.loads(services.buffer_lint(root, "m.py", b"x\n", 20)))
    assert back is not None and back.report is None and "jobz" in back.fault


def test_without_an_engine_the_buffer_is_checked_here_and_says_why(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"m.py": "x = 1\n"})
    result = check.check_buffer(root, "m.py", "import os\n")
    assert not result.warm and result.cold_reason
    assert [f.rule for f in result.report.findings] == ["F401"]  # type: ignore[union-attr]
    lone = check.check_buffer(root, "m.py", "x = '\ud800'\n")
    assert lone.report is None and "UnicodeEncodeError" in lone.fault


def test_preload_imports_the_lint_use_case_and_never_raises(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from orchestrator.core import plugin_host

    def broken() -> None:
        raise RuntimeError("fake plugin fault")

    monkeypatch.setattr(plugin_host, "load", broken)
    editor.preload()  # a fault is left to the first check to report
    assert "orchestrator.usecases.lint" in sys.modules
