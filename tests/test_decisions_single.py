"""Each decision has one implementation: every surface gives the same answer.

Generated reports go through the CLI exit, the gate, the human verdict line, the
three host adapters and the MCP summary; they must agree on "is coverage complete?",
"does this finding block?" and the exit. An AST scan keeps completeness tests out of
modules that are not decisions.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import parsed
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestrator.decisions.coverage import coverage_of, is_complete, missing_required
from orchestrator.decisions.exits import LintExitPolicy, gate_blocks, gate_exit, lint_exit_code
from orchestrator.decisions.findings import FailOn, blocking_findings, fails_exit, has_blocking
from orchestrator.decisions.gate import evaluate_gate
from orchestrator.hosts import claude_code, codex, gemini
from orchestrator.hosts.mcp_server import report_summary
from orchestrator.hosts.router import Services
from orchestrator.model.report import Finding, PluginFailure, Report, ScanInfo, Scope
from orchestrator.render.human import verdict
from orchestrator.tasks.store import assign_ids
from orchestrator.usecases.lint import LintResult
from orchestrator.vocab import ExitCode, GateDecision, ScopeStatus, Severity, Tier

REPO = Path(__file__).resolve().parents[1]
FILES = {"a.py": ("python", "ruff"), "b.py": ("python", "ruff"), "c.rb": ("ruby", "ruby")}
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@st.composite
def reports(draw: st.DrawFn) -> Report:
    """A report shaped like the engine's: per file one native scope and one secret scan."""
    # Empty runs included: an empty report is never complete, on every surface.
    paths = draw(st.lists(st.sampled_from(sorted(FILES)), min_size=0, max_size=3, unique=True))
    scopes: list[Scope] = []
    for p in paths:
        lang, checker = FILES[p]
        for name, tier in ((checker, Tier.NATIVE), ("secrets", Tier.POLICY)):
            status = draw(st.sampled_from(list(ScopeStatus)))
            scopes.append(Scope(path=p, checker=name, tier=tier, language=lang, status=status))
    findings = [
        Finding(
            checker=FILES[p][1],
            rule=draw(st.sampled_from(["F401", "E999", "W1"])),
            severity=draw(st.sampled_from(list(Severity))),
            path=p,
            line=draw(st.integers(1, 5)),
            candidate=draw(st.booleans()),
            blocking=draw(st.booleans()),
        )
        for p in (draw(st.lists(st.sampled_from(paths), max_size=4)) if paths else [])
    ]
    # Rarely a plugin fails to load, so the other answers are exercised too.
    broken = draw(st.integers(0, 4)) == 0
    failures = [PluginFailure(name="broken", reason="x")] if broken else []
    report = Report(
        scan=ScanInfo(project_root="/p"),
        scopes=scopes,
        findings=findings,
        plugin_failures=failures,
    )
    report.coverage = coverage_of(report.scopes, len(report.plugin_failures))
    return report


@pytest.fixture(scope="module")
def project() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        for p in FILES:
            (root / p).write_text("x = 1\n")
        yield root


def _services(report: Report) -> Services:
    return Services(
        lint=lambda root, paths, timeout: LintResult(report),
        gate=lambda kind, root, timeout: report,
    )


def _edit_event(host: str, root: Path) -> bytes:
    path = str(root / "a.py")
    if host == "gemini":
        obj = {"hook_event_name": "AfterTool", "tool_name": "write_file"}
    else:
        obj = {"hook_event_name": "PostToolUse", "tool_name": "Write"}
    obj |= {"cwd": str(root), "tool_input": {"file_path": path}}
    return json.dumps(obj).encode()


def _commit_event(host: str, root: Path) -> bytes:
    if host == "gemini":
        obj = {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command"}
    else:
        obj = {"hook_event_name": "PreToolUse", "tool_name": "Bash"}
    obj |= {"cwd": str(root), "tool_input": {"command": "git commit -m x"}}
    return json.dumps(obj).encode()


#: The statuses of a planned check that failed (DESIGN.md "What counts").
FAILED = {ScopeStatus.TOOL_ERROR, ScopeStatus.TIMED_OUT, ScopeStatus.PARTIAL}

HOSTS = {"claude-code": claude_code.run, "codex": codex.run, "gemini": gemini.run}


def _host_answers(report: Report, root: Path) -> list[tuple[bool, int]]:
    """(coverage incomplete?, blocking count) as each host adapter renders an edit."""
    answers = []
    for host, run in HOSTS.items():
        code, out = run(_edit_event(host, root), {}, _services(report))
        assert code == 0
        obj = json.loads(out)
        context = obj["hookSpecificOutput"]["additionalContext"]
        blocking = int(re.search(r"blocking (\d+)", context).group(1))  # type: ignore[union-attr]
        answers.append(("coverage incomplete" in obj["systemMessage"], blocking))
    return answers


def _host_refuses(report: Report, root: Path) -> list[bool]:
    refused = []
    for host, run in HOSTS.items():
        _code, out = run(_commit_event(host, root), {}, _services(report))
        obj = json.loads(out)
        hso = obj.get("hookSpecificOutput", {})
        refused.append(hso.get("permissionDecision") == "deny" or obj.get("decision") == "deny")
    return refused


@SETTINGS
@given(report=reports())
def test_every_surface_agrees_on_completeness(report: Report, project: Path) -> None:
    complete = is_complete(report)
    assert report.coverage.complete is complete
    # CLI: `lint --require complete` exits 3 exactly when coverage is incomplete.
    gaps = missing_required(report, ["complete"], {})
    assert (lint_exit_code(report, gaps) == ExitCode.INCOMPLETE) is (not complete)
    line = verdict(report)
    assert ("NOT checked" in line or "failed to load" in line) is (not complete)
    assert ("coverage incomplete" in report_summary(report, "x")) is (not complete)
    for host_incomplete, _ in _host_answers(report, project):
        assert host_incomplete is (not complete)
    # Gate: for this shape (a native check and a secret scan per file) required
    # coverage is exactly complete coverage. An empty surface is the gate's own
    # answer: nothing to deliver is not_applicable (unless a plugin failed to load).
    gate = evaluate_gate(report, {})
    if not report.scopes and not report.plugin_failures:
        assert gate.decision == GateDecision.NOT_APPLICABLE
    else:
        assert (gate.decision == GateDecision.INCOMPLETE) is (not complete)


@SETTINGS
@given(report=reports())
def test_every_surface_agrees_on_blocking_and_exit(report: Report, project: Path) -> None:
    blocking = blocking_findings(report)
    for _, host_blocking in _host_answers(report, project):
        assert host_blocking == len(blocking)
    assert f"(blocking {len(blocking)})" in report_summary(report, "x")
    assert len(assign_ids(report.findings, project)) == len(blocking)  # tasks = blocking
    report.gate = evaluate_gate(report, {})
    decision = report.gate.decision
    if is_complete(report):
        assert (decision == GateDecision.DENY) is has_blocking(report)
    assert (gate_exit(decision) != ExitCode.PASS) is gate_blocks(decision)
    assert _host_refuses(report, project) == [gate_blocks(decision)] * len(HOSTS)
    # The lint exit: a failed planned check (or a plugin that failed to load) is
    # incomplete whatever was required; then only blocking findings fail by default.
    assert all(fails_exit(f) is (f in blocking) for f in report.findings)
    failed = report.plugin_failures or any(s.status in FAILED for s in report.scopes)
    want = ExitCode.INCOMPLETE if failed else ExitCode.FINDINGS if blocking else ExitCode.PASS
    assert lint_exit_code(report, []) == want


@SETTINGS
@given(report=reports())
def test_fail_on_only_widens_and_exit_zero_always_passes(report: Report) -> None:
    """Each --fail-on level fails at least where the one before it does; --exit-zero
    exits 0 whatever the report holds."""
    codes = [lint_exit_code(report, [], LintExitPolicy(level)) for level in FailOn]
    # Incomplete does not depend on --fail-on; findings, once failing, keep failing.
    assert len({c == ExitCode.INCOMPLETE for c in codes}) == 1
    fails = [c == ExitCode.FINDINGS for c in codes]
    assert fails == sorted(fails)
    assert lint_exit_code(report, ["gap"], LintExitPolicy(FailOn.CANDIDATE, exit_zero=True)) == 0


# --- no second definition in the code -------------------------------------------------

#: Where a scope status may be compared: the decisions, the core that produces
#: statuses, the plugins, and renderers that print one row per scope.
ALLOWED = ("orchestrator/decisions/", "orchestrator/core/", "orchestrator/render/sarif.py")
DECISION_NAMES = {
    "is_blocking",
    "is_task_worthy",
    "fails_exit",
    "is_complete",
    "coverage_of",
    "missing_required",
    "lint_exit_code",
    "gate_exit",
    "gate_fault_exit",
    "verify_exit",
    "hygiene_exit",
    "tools_exit",
    "baseline_exit",
    "diff_exit",
    "unknown_base_exit",
}


def _modules() -> list[tuple[str, ast.Module]]:
    out = []
    for path in sorted((REPO / "orchestrator").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        out.append((rel, parsed(path)))
    return out


def _is_checked_attr(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "CHECKED"


def test_no_completeness_test_outside_decisions() -> None:
    offenders = []
    for rel, tree in _modules():
        if rel.startswith(ALLOWED):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and any(
                _is_checked_attr(n) for n in [node.left, *node.comparators]
            ):
                offenders.append(f"{rel}:{node.lineno} compares a status with CHECKED")
            # A set of three or more statuses is a copy of a completeness definition.
            if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
                members = [
                    e
                    for e in node.elts
                    if isinstance(e, ast.Attribute)
                    and isinstance(e.value, ast.Name)
                    and e.value.id == "ScopeStatus"
                ]
                if len(members) >= 3:
                    offenders.append(f"{rel}:{node.lineno} lists scope statuses")
    assert offenders == []


def test_decision_functions_are_defined_once() -> None:
    seen: dict[str, list[str]] = {}
    for rel, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in DECISION_NAMES:
                seen.setdefault(node.name, []).append(rel)
    # A name listed here that nothing defines is stale: the guard would pass for it.
    assert sorted(DECISION_NAMES - seen.keys()) == []
    for name, where in seen.items():
        assert len(where) == 1, f"{name} defined in {where}"
        assert where[0].startswith("orchestrator/decisions/"), f"{name} in {where[0]}"
