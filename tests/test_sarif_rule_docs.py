"""SARIF rule descriptors for Ruff come from `ruff rule --all` (issue 32).

The rule's name, one-line summary and documentation page are Ruff's own, the Ruff
component's `informationUri` is Ruff's home page, and the driver's is orchestrate's
own page on the package index. The rule table is read only while SARIF is rendered and
kept per Ruff version in the user's cache folder.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import jsonschema
import pytest
from helpers import VENV_BIN, new_repo, run_cli, sarif_schema

from orchestrator.api import hookimpl
from orchestrator.model.report import Finding, Report, ScanInfo, Scope, ToolIdentity
from orchestrator.render.sarif import to_sarif
from orchestrator.vocab import ScopeStatus, Severity

RUFF = str(VENV_BIN / "ruff")


def _ruff_version() -> str:
    return subprocess.run(
        [RUFF, "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()


def _summary(code: str) -> dict:
    out = subprocess.run(
        [RUFF, "rule", code, "--output-format", "json"], capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out)


def _report(root: Path, tool: str) -> Report:
    f = Finding(
        checker="ruff",
        rule="F401",
        severity=Severity.ERROR,
        path="bad.py",
        line=1,
        message="`os` imported but unused",
    )
    scope = Scope(
        path="bad.py",
        checker="ruff",
        status=ScopeStatus.CHECKED,
        tool=ToolIdentity(path=tool, version=_ruff_version()),
    )
    return Report(scan=ScanInfo(project_root=str(root)), findings=[f], scopes=[scope])


def _valid(log: dict) -> dict:
    schema = sarif_schema()
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    return log


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    from orchestrator.core import plugin_host

    plugin_host.load()  # SARIF asks the plugins the last run loaded: the installed ones
    return folder


def test_ruff_rules_carry_ruffs_names_summaries_and_home_page(tmp_path: Path, cache: Path) -> None:
    """Failed before: "ruff rule F401" as the description, the code as the name, no
    informationUri for Ruff, and the driver's page was another project's."""
    (run,) = _valid(to_sarif(_report(tmp_path, RUFF)))["runs"]
    driver = run["tool"]["driver"]
    # No link to a package-index page: orchestrate-lint is unpublished, so anyone could
    # claim it (issue 31); `orchestrate` there is another project.
    assert "informationUri" not in driver
    (ruff,) = run["tool"]["extensions"]
    assert ruff["informationUri"] == "https://docs.astral.sh/ruff/"
    (rule,) = ruff["rules"]
    want = _summary("F401")
    assert rule["name"] == want["name"] == "unused-import"
    assert rule["shortDescription"]["text"] == " ".join(want["summary"].split())
    assert "ruff rule F401" not in json.dumps(rule)
    assert rule["helpUri"] == "https://docs.astral.sh/ruff/rules/unused-import/"
    # Kept per Ruff version in the user's cache folder, as one JSON file.
    version = _ruff_version().removeprefix("ruff ")
    kept = cache / "orchestrate" / "ruff-rules" / f"{version}.json"
    assert json.loads(kept.read_text())["F401"]["name"] == "unused-import"


def test_the_cached_rule_table_spares_ruff_the_next_time(tmp_path: Path, cache: Path) -> None:
    (fresh,) = to_sarif(_report(tmp_path, RUFF))["runs"][0]["tool"]["extensions"][0]["rules"]
    # The same version at a path that cannot run: the table comes from the cache, and
    # gives the same rule text as the fresh answer (the summary was lost on the way back).
    broken = tmp_path / "no-ruff"
    (rule,) = to_sarif(_report(tmp_path, str(broken)))["runs"][0]["tool"]["extensions"][0]["rules"]
    assert rule["name"] == "unused-import"
    assert rule == fresh


def test_a_ruff_that_cannot_list_its_rules_keeps_the_findings_words(
    tmp_path: Path, cache: Path
) -> None:
    (run,) = _valid(to_sarif(_report(tmp_path, str(tmp_path / "no-ruff"))))["runs"]
    (rule,) = run["tool"]["extensions"][0]["rules"]
    assert rule["name"] == "F401" and rule["shortDescription"]["text"]
    assert not (cache / "orchestrate" / "ruff-rules").exists()


@pytest.mark.e2e
def test_the_rule_table_is_read_only_when_sarif_is_rendered(tmp_path: Path) -> None:
    cache = tmp_path / "xdg-cache"
    root = new_repo(tmp_path / "r", {"bad.py": "import os\n"}, initial_commit=False)
    env = {"XDG_CACHE_HOME": str(cache)}
    res = run_cli(["lint", "--no-tasks", "--format", "json"], cwd=root, env=env)
    assert res.returncode == 1, res.stderr
    assert not (cache / "orchestrate" / "ruff-rules").exists()
    res = run_cli(["lint", "--no-tasks", "--format", "sarif"], cwd=root, env=env)
    assert res.returncode == 1, res.stderr
    (run,) = _valid(json.loads(res.stdout))["runs"]
    (ruff,) = [c for c in run["tool"]["extensions"] if c["name"] == "ruff"]
    assert ruff["informationUri"] == "https://docs.astral.sh/ruff/"
    assert ruff["rules"][0]["name"] == "unused-import"
    assert list((cache / "orchestrate" / "ruff-rules").glob("*.json"))


class _DocsPlugin:
    """A plugin answering `orchestrate_rule_docs` for its own checker only."""

    @hookimpl
    def orchestrate_rule_docs(
        self, checker: str, tool_path: str | None, tool_version: str | None
    ) -> dict | None:
        if checker != "acme":
            return None
        return {
            "information_uri": "https://acme.example/",
            "rules": {"A1": {"name": "no-acme", "short_description": "Acme says no"}},
        }


def test_sarif_asks_the_plugins_the_run_loaded(tmp_path: Path) -> None:
    """The hook is asked of the plugin set this process's run loaded (so a plugin the
    run's policy blocked is never loaded for SARIF)."""
    from orchestrator.core import plugin_host

    plugin_host.load(extra_modules=[("acme-docs", _DocsPlugin())])
    f = Finding(checker="acme", rule="A1", severity=Severity.ERROR, path="a.txt", line=1)
    report = Report(scan=ScanInfo(project_root=str(tmp_path)), findings=[f])
    (run,) = _valid(to_sarif(report))["runs"]
    (comp,) = run["tool"]["extensions"]
    assert comp["informationUri"] == "https://acme.example/"
    assert comp["rules"][0]["name"] == "no-acme"
    assert comp["rules"][0]["shortDescription"]["text"] == "Acme says no"
    plugin_host.load()  # the next test's process state: the installed plugins only
