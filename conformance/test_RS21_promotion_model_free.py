"""RS-21: promotion_candidates come from the deterministic finalize pass, no hook, no model."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from hygiene_helpers import commit_all

from orchestrator.core import plugin_host
from orchestrator.core.hookspecs import hookimpl
from orchestrator.hygiene import finalize, scan, service
from orchestrator.hygiene.rulebook import load_config

pytestmark = pytest.mark.scenario("RS-21")


class _CountingClassifier:
    calls = 0

    @hookimpl
    def orchestrate_classify(self, entry: dict[str, Any], project_root: str) -> None:
        _CountingClassifier.calls += 1
        return None

    @hookimpl
    def orchestrate_generate(self, entry: dict[str, Any], project_root: str) -> None:
        raise AssertionError("finalize must not generate")


def test_RS21_finalize_uses_only_conventions_and_entries(git_repo: Path) -> None:
    (git_repo / "sessions").mkdir()
    (git_repo / "sessions" / "s1.md").write_text("log\n")
    conv = [{"name": "c", "pitch": "p", "applies_to": ["session-logs"], "adopted": False}]
    (git_repo / "conventions.json").write_text(json.dumps(conv))
    commit_all(git_repo)
    plugins = plugin_host.load(extra_modules=[("fake_counter", _CountingClassifier())])
    raw = scan.scan(git_repo, load_config(git_repo), classifier=plugins.classify)
    assert _CountingClassifier.calls == 1  # the scan asked once, for the judged entry
    assert raw.promotion_candidates == []
    conventions, problem = finalize.load_conventions(git_repo / "conventions.json")
    assert problem is None
    first = finalize.finalize(raw, conventions)
    second = finalize.finalize(raw, conventions)
    assert _CountingClassifier.calls == 1  # finalize called no hook
    assert first == second
    assert [c.model_dump() for c in first.promotion_candidates] == [
        {"path": "sessions/s1.md", "convention": "c", "pitch": "p"}
    ]
    # Its inputs are the report and the conventions, nothing that could reach a model.
    assert list(inspect.signature(finalize.finalize).parameters) == ["report", "conventions"]
    full = service.check(git_repo, plugins).report
    assert full.promotion_candidates == first.promotion_candidates
