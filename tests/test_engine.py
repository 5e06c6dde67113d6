"""The core flow: planning tiers, containment of faulty plugins, one deadline."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

from orchestrator.core import plugin_host
from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.core.hookspecs import hookimpl
from orchestrator.decisions.coverage import coverage_of, missing_required
from orchestrator.model.checker import Batch, CheckerPlan, FileOutcome
from orchestrator.vocab import ScopeStatus, Tier


class _FakeChecker:
    """A fault-injection checker for *.fake files; `mode` picks the fault."""

    tier = Tier.NATIVE

    def __init__(self, mode: str) -> None:
        self.name = f"fake_{mode}"
        self.mode = mode

    def claims(self, target):  # type: ignore[no-untyped-def]
        return target.path.endswith(".fake")

    def plan(self, targets, ctx):  # type: ignore[no-untyped-def]
        if self.mode == "plan_raises":
            raise RuntimeError("boom in plan")
        return CheckerPlan(batches=(Batch(tuple(targets)),))

    def run(self, batch, ctx):  # type: ignore[no-untyped-def]
        if self.mode == "raises":
            raise ValueError("boom")
        if self.mode == "hangs":
            time.sleep(60)
        if self.mode == "malformed":
            return [{"path": "x"}, "nonsense"]
        return [
            FileOutcome(path=t.path, checker=self.name, status=ScopeStatus.CHECKED)
            for t in batch.targets
        ]


def _plugin(mode: str) -> object:
    checker = _FakeChecker(mode)

    @hookimpl
    def orchestrate_checkers():  # type: ignore[no-untyped-def]
        return [checker]

    return SimpleNamespace(orchestrate_checkers=orchestrate_checkers)


def _project(tmp_path: Path) -> Path:
    (tmp_path / "a.fake").write_text("x\n")
    (tmp_path / "ok.py").write_text("x = 1\n")
    return tmp_path


def _scope(report, path, checker):  # type: ignore[no-untyped-def]
    return next(s for s in report.scopes if s.path == path and s.checker == checker)


def test_raising_checker_is_contained(tmp_path: Path) -> None:
    root = _project(tmp_path)
    report = run_lint(LintRequest(project_root=root, extra_plugins=[("fake", _plugin("raises"))]))
    s = _scope(report, "a.fake", "fake_raises")
    assert s.status == ScopeStatus.TOOL_ERROR
    assert "boom" in (s.reason or "")
    assert _scope(report, "ok.py", "ruff").status == ScopeStatus.CHECKED


def test_plan_that_raises_is_contained(tmp_path: Path) -> None:
    root = _project(tmp_path)
    report = run_lint(
        LintRequest(project_root=root, extra_plugins=[("fake", _plugin("plan_raises"))])
    )
    assert _scope(report, "a.fake", "fake_plan_raises").status == ScopeStatus.TOOL_ERROR


def test_malformed_results_become_tool_error(tmp_path: Path) -> None:
    root = _project(tmp_path)
    report = run_lint(
        LintRequest(project_root=root, extra_plugins=[("fake", _plugin("malformed"))])
    )
    s = _scope(report, "a.fake", "fake_malformed")
    assert s.status == ScopeStatus.TOOL_ERROR
    assert "no well-formed outcome" in (s.reason or "")


def test_hanging_checker_times_out_and_the_rest_survives(tmp_path: Path) -> None:
    root = _project(tmp_path)
    start = time.monotonic()
    report = run_lint(
        LintRequest(project_root=root, timeout=1.5, extra_plugins=[("fake", _plugin("hangs"))])
    )
    assert time.monotonic() - start < 4
    assert _scope(report, "a.fake", "fake_hangs").status == ScopeStatus.TIMED_OUT
    assert _scope(report, "ok.py", "ruff").status == ScopeStatus.CHECKED
    assert not report.coverage.complete


def test_unclaimed_file_is_unsupported(tmp_path: Path) -> None:
    (tmp_path / "notes.xyz").write_text("hello\n")
    report = run_lint(LintRequest(project_root=tmp_path))
    s = next(s for s in report.scopes if s.path == "notes.xyz")
    assert s.status == ScopeStatus.UNSUPPORTED
    assert report.gate.decision == "not_evaluated"


def test_missing_native_tool_falls_back_to_grammar(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f(:\n    pass\n")
    report = run_lint(LintRequest(project_root=tmp_path, tools={"ruff": "/nonexistent/ruff"}))
    ruff = _scope(report, "m.py", "ruff")
    assert ruff.status == ScopeStatus.MISSING
    assert ruff.hint and "install" in ruff.hint
    ts = _scope(report, "m.py", "treesitter")
    assert ts.syntax == "suspected_issue"
    assert any(f.checker == "treesitter" and f.line == 1 for f in report.findings)
    native = plugin_host.load().native_languages()
    assert missing_required(report, ["native"], native) == ["m.py: no native (ruff) evidence"]


def test_native_coherent_parse_is_not_parsed_again(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f(:\n    pass\n")
    report = run_lint(LintRequest(project_root=tmp_path))
    assert [s.checker for s in report.scopes if s.path == "m.py"] == ["ruff"]
    assert any(f.rule == "invalid-syntax" and f.line == 1 for f in report.findings)


def test_coverage_counts_native_and_syntax_only(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.json").write_text('{"a": 1}\n')
    report = run_lint(LintRequest(project_root=tmp_path))
    assert report.coverage.native_files == 1
    assert report.coverage.syntax_only_files == 1
    assert report.coverage == coverage_of(report.scopes)


class _LateDecliner:
    """A fake native checker for *.go that only finds out at run time it cannot judge."""

    name = "fake_late"
    tier = Tier.NATIVE

    def claims(self, target):  # type: ignore[no-untyped-def]
        return target.path.endswith(".go")

    def plan(self, targets, ctx):  # type: ignore[no-untyped-def]
        return CheckerPlan(batches=(Batch(tuple(targets)),))

    def run(self, batch, ctx):  # type: ignore[no-untyped-def]
        return [
            FileOutcome(
                path=t.path,
                checker=self.name,
                status=ScopeStatus.CONFIGURATION_REQUIRED,
                falls_back=True,
            )
            for t in batch.targets
        ]


def test_run_time_decline_still_gets_syntax_fallback(tmp_path: Path) -> None:
    (tmp_path / "m.go").write_text("package main\nfunc main() {\n\tprintln(\n}\n")
    checker = _LateDecliner()

    @hookimpl
    def orchestrate_checkers():  # type: ignore[no-untyped-def]
        return [checker]

    report = run_lint(
        LintRequest(
            project_root=tmp_path,
            extra_plugins=[("late", SimpleNamespace(orchestrate_checkers=orchestrate_checkers))],
        )
    )
    assert _scope(report, "m.go", "fake_late").status == ScopeStatus.CONFIGURATION_REQUIRED
    assert _scope(report, "m.go", "treesitter").syntax == "suspected_issue"
