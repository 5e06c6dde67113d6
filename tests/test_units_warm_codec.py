"""The warm engine's hook-lint answer through the one codec (orchestrator/server/codec.py),
served as the use case orchestrator/server/services.py calls; and what a warm engine's
process keeps loaded (orchestrator/usecases/warm.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import new_repo

from orchestrator import statmemo
from orchestrator.core import plugin_host, run_memo
from orchestrator.server import codec, services
from orchestrator.usecases.agent import lint_here
from orchestrator.usecases.warm import warm_up


def test_a_hook_lint_round_trips_to_the_in_process_result(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"m.py": "import os\n"})
    data = json.loads(services.hook_lint(root, ["m.py"], 20.0))
    assert set(data) == codec.LINT_RESULT_KEYS
    back = codec.decode_lint_result(data)
    here = lint_here(root, ["m.py"], 20.0)
    assert back is not None
    assert [f.rule for f in back.report.findings] == [f.rule for f in here.report.findings]
    assert [f.rule for f in back.report.findings] == ["F401"]
    assert back.required_gaps == here.required_gaps
    assert back.task_error == here.task_error and len(back.task_ids) == len(here.task_ids)


@pytest.mark.parametrize(
    "change",
    [
        {"extra": 1},
        {"required_gaps": "syntax"},
        {"task_ids": [1]},
        {"task_error": None},
        {"report": {"scan": 3}},
    ],
)
def test_a_malformed_lint_answer_is_refused(tmp_path: Path, change: dict[str, object]) -> None:
    root = new_repo(tmp_path / "r", {"m.py": "x = 1\n"})
    data = json.loads(services.hook_lint(root, ["m.py"], 20.0))
    assert codec.decode_lint_result(data) is not None
    assert codec.decode_lint_result({**data, **change}) is None
    assert codec.decode_lint_result([data]) is None


@pytest.fixture
def cold_process() -> Iterator[None]:
    """Restore what warm_up turns on, so the other tests run as a cold process."""
    yield
    statmemo.enable(False)
    run_memo.hold(False)


def test_warm_up_keeps_answers_and_runs_and_loads_the_plugins(
    cold_process: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[int] = []
    real = plugin_host.load
    monkeypatch.setattr(plugin_host, "load", lambda: loads.append(1) or real())
    assert not statmemo.enabled() and not run_memo._HELD
    warm_up()
    assert statmemo.enabled() and run_memo._HELD and loads == [1]
