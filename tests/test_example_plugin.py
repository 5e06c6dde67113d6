"""The example third-party plugin (examples/orchestrate-yamllint) and plugin containment.

The example is installed into the test environment through its entry point by the
set-up (`pip install -e examples/orchestrate-yamllint`); these tests fail with that
hint when it is not. In-process fake plugins (fault injection) show that a plugin
that raises, returns malformed results or hangs is contained and the run goes on.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli

from orchestrator.core import plugin_host
from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.core.hookspecs import hookimpl
from orchestrator.model.checker import Batch, CheckerPlan, FileOutcome, FileTarget, RunContext
from orchestrator.vocab import ScopeStatus, Tier

INSTALL_HINT = "install the example plugin: .venv/bin/pip install -e examples/orchestrate-yamllint"


def _require_example() -> None:
    if not list(metadata.entry_points(group="orchestrate", name="yamllint")):
        pytest.fail(f"entry point orchestrate:yamllint not found; {INSTALL_HINT}")


def _yaml_project(root: Path, configured: bool = True) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.yml").write_text("---\nname: a\nname: b\n")
    if configured:
        (root / ".yamllint.yaml").write_text("extends: default\n")
    return root


def test_example_plugin_loads_through_its_entry_point() -> None:
    _require_example()
    ps = plugin_host.load()
    loaded = {p.name: p for p in ps.loaded}
    assert "yamllint" in loaded, [f.reason for f in ps.failed]
    example = loaded["yamllint"]
    assert example.dist == "orchestrate-yamllint"
    assert example.display == "orchestrate-yamllint[yamllint]"
    assert example.checkers == ("yamllint",)


@pytest.mark.e2e
def test_orchestrate_plugins_lists_the_example(tmp_path: Path) -> None:
    _require_example()
    res = run_cli(["plugins"], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    # The built-in recipes' plugin lists its `yamllint-recipe` checker too (its own name).
    lines = [line for line in res.stdout.splitlines() if "checkers=yamllint" in line]
    assert len(lines) == 1 and "orchestrate-yamllint" in lines[0]
    assert "yamllint-recipe" not in lines[0]


def test_example_plugin_reports_in_a_lint_run(tmp_path: Path) -> None:
    _require_example()
    root = _yaml_project(tmp_path / "ws")
    report = run_lint(LintRequest(project_root=root, timeout=60))
    scope = next(s for s in report.scopes if s.checker == "yamllint")
    assert scope.status == ScopeStatus.CHECKED and scope.tier == Tier.NATIVE
    assert scope.tool and scope.tool.version
    rules = {f.rule for f in report.findings if f.checker == "yamllint"}
    assert "key-duplicates" in rules


def test_example_plugin_without_project_config_is_configuration_required(tmp_path: Path) -> None:
    # yamllint's built-in defaults are not the project's rules: a generated YAML file
    # would get hundreds of blocking line-length errors from rules nobody chose.
    _require_example()
    root = _yaml_project(tmp_path / "ws", configured=False)
    (root / "long.yml").write_text("---\nkey: " + "x" * 300 + "\n")
    report = run_lint(LintRequest(project_root=root, timeout=60))
    scopes = [s for s in report.scopes if s.checker == "yamllint"]
    assert {s.path for s in scopes} == {"config.yml", "long.yml"}
    assert all(s.status == ScopeStatus.CONFIGURATION_REQUIRED for s in scopes)
    assert all(s.hint and ".yamllint" in s.hint for s in scopes)
    assert not [f for f in report.findings if f.checker == "yamllint"]
    # The syntax fallback still covers the files.
    assert {s.path for s in report.scopes if s.tier == Tier.FALLBACK} >= {"config.yml"}


@pytest.mark.parametrize("name", [".yamllint", ".yamllint.yaml", ".yamllint.yml"])
def test_example_plugin_runs_under_the_project_config(tmp_path: Path, name: str) -> None:
    _require_example()
    root = _yaml_project(tmp_path / "ws", configured=False)
    (root / name).write_text("extends: default\nrules:\n  document-start: disable\n")
    report = run_lint(LintRequest(project_root=root, timeout=60))
    scope = next(s for s in report.scopes if s.checker == "yamllint")
    assert scope.status == ScopeStatus.CHECKED
    assert {f.rule for f in report.findings if f.checker == "yamllint"} == {"key-duplicates"}


def test_example_plugin_judges_staged_content(tmp_path: Path) -> None:
    _require_example()
    root = _yaml_project(tmp_path / "ws")
    staged = FileTarget(
        path="config.yml", abs_path=root / "config.yml", content=b"---\nok: 1\n", language="yaml"
    )
    report = run_lint(LintRequest(project_root=root, targets=[staged], timeout=60))
    assert not [f for f in report.findings if f.checker == "yamllint"]


# --- containment: fake plugins that misbehave ---------------------------------------


class _FakeChecker:
    """A checker claiming one extension, misbehaving in the way `mode` says."""

    tier = Tier.NATIVE

    def __init__(self, mode: str, release: threading.Event) -> None:
        self.name = f"fake_{mode}"
        self.mode = mode
        self.release = release

    def claims(self, target: FileTarget) -> bool:
        return target.path.endswith(f".{self.mode}")

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        if self.mode == "plan_raises":
            raise RuntimeError("plan exploded")
        return CheckerPlan(batches=(Batch(tuple(targets)),))

    def run(self, batch: Batch, ctx: RunContext) -> Any:
        if self.mode == "raises":
            raise ValueError("run exploded")
        if self.mode == "hangs":
            self.release.wait(30)
            return []
        if self.mode == "malformed":
            return [{"path": t.path, "status": "checked"} for t in batch.targets]
        if self.mode == "wrong_status":
            return [
                FileOutcome(path=t.path, checker=self.name, status="great")  # type: ignore[arg-type]
                for t in batch.targets
            ]
        return None


class _FakePlugin:
    def __init__(self, checker: _FakeChecker) -> None:
        self.checker = checker

    @hookimpl
    def orchestrate_checkers(self) -> list[Any]:
        return [self.checker]


class _BrokenPlugin:
    @hookimpl
    def orchestrate_checkers(self) -> list[Any]:
        raise RuntimeError("cannot provide checkers")


EXPECTED = {
    "plan_raises": ScopeStatus.TOOL_ERROR,
    "raises": ScopeStatus.TOOL_ERROR,
    "malformed": ScopeStatus.TOOL_ERROR,
    "wrong_status": ScopeStatus.TOOL_ERROR,
    "none": ScopeStatus.TOOL_ERROR,
    "hangs": ScopeStatus.TIMED_OUT,
}


def test_misbehaving_plugins_are_contained(tmp_path: Path) -> None:
    _require_example()
    root = _yaml_project(tmp_path / "ws")
    for mode in EXPECTED:
        (root / f"file.{mode}").write_text("x\n")
    release = threading.Event()
    extra: list[tuple[str, object]] = [
        (f"fake_{m}", _FakePlugin(_FakeChecker(m, release))) for m in EXPECTED
    ]
    extra.append(("fake_broken", _BrokenPlugin()))
    try:
        report = run_lint(LintRequest(project_root=root, timeout=4, extra_plugins=extra))
    finally:
        release.set()
    scopes = {(s.path, s.checker): s for s in report.scopes}
    for mode, status in EXPECTED.items():
        scope = scopes[(f"file.{mode}", f"fake_{mode}")]
        assert scope.status == status, (mode, scope.reason)
        assert scope.reason and "\n" not in scope.reason
    # The run went on: the well-behaved plugin still produced its evidence.
    assert scopes[("config.yml", "yamllint")].status == ScopeStatus.CHECKED
    assert any(f.checker == "yamllint" for f in report.findings)
    assert [p.name for p in report.plugin_failures] == ["fake_broken"]
    assert not report.coverage.complete
