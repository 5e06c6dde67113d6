"""The use cases presenters call instead of the core: the plugin listing
(orchestrator/usecases/plugins.py), the project's own settings
(orchestrator/usecases/settings.py), and the CLI lint's spool and run wrapper
(usecases/requests.spooled, usecases/lint.lint's `around`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from helpers import new_repo

from orchestrator.core import plugin_host
from orchestrator.core.engine import SPOOL_OVER, LintRequest
from orchestrator.errors import UsageError
from orchestrator.usecases.lint import NO_TASKS, lint
from orchestrator.usecases.plugins import plugin_rows
from orchestrator.usecases.requests import spooled
from orchestrator.usecases.settings import project_settings


def test_the_plugin_rows_name_every_builtin_loaded_and_sorted() -> None:
    rows = plugin_rows()
    names = [str(r["name"]) for r in rows]
    assert names == sorted(names)
    loaded = {r["name"]: r for r in rows if r["status"] == "loaded"}
    assert {"ruff", "treesitter", "secrets"} <= set(loaded)
    assert "ruff" in loaded["ruff"]["checkers"]


def test_a_blocked_plugin_is_listed_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(plugin_host.DISABLE_ENV, "secrets,ruff")
    rows = {r["name"]: r for r in plugin_rows()}
    assert rows["ruff"] == {"name": "ruff", "status": "blocked"}
    assert rows["secrets"]["status"] == "loaded"  # essential: never blocked


def test_the_settings_are_the_projects_validated_configuration(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"orchestrate.toml": "progress = false\n"})
    assert project_settings(root)["progress"] is False
    assert project_settings(new_repo(tmp_path / "plain")) == {}
    bad = new_repo(tmp_path / "bad", {"orchestrate.toml": "progrss = 1\n"})
    with pytest.raises(UsageError):
        project_settings(bad)


def test_spooled_sets_only_the_spool_threshold(tmp_path: Path) -> None:
    req = LintRequest(project_root=tmp_path, paths=("a.py",), cwd=tmp_path)
    assert req.spool_over != SPOOL_OVER
    out = spooled(req)
    assert out.spool_over == SPOOL_OVER and out.paths == req.paths


def test_around_wraps_the_core_run_and_its_report_is_the_one_judged(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"m.py": "import os\n"})
    seen: list[Any] = []

    def around(req: LintRequest, run: Any) -> Any:
        seen.append(req)
        return run(req)

    req = LintRequest(project_root=root, paths=("m.py",), cwd=root)
    result = lint(req, NO_TASKS, around=around)
    # The use case hands the core the work tree's trusted project recipes, else `req`.
    assert [dataclasses.replace(r, project_recipes=None) for r in seen] == [req]
    assert seen[0].project_recipes is not None
    assert [f.rule for f in result.report.findings] == ["F401"]
    assert lint(req, NO_TASKS).report.findings == result.report.findings
