"""CG-17: the same edit checked twice reuses the complete fast-feedback result and says
why (identity equal: source, config, tool, rules, scope, completeness); the commit gate
still checks the real git index and never takes the cached feedback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import VENV_BIN, git, require_tool, run_cli

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.model.report import Report

pytestmark = [pytest.mark.e2e, pytest.mark.scenario("CG-17")]

CLEAN = "def f():\n    return 1\n"
BAD = "import os\n\n\ndef f():\n    return 1\n"


def _ruff_scope(report: Report):  # type: ignore[no-untyped-def]
    (scope,) = [s for s in report.scopes if s.checker == "ruff"]
    return scope


def test_CG17_same_edit_twice_then_commit_checks_the_index(git_repo: Path) -> None:
    require_tool("ruff", "pip install ruff", path=str(VENV_BIN / "ruff"))
    (git_repo / "app.py").write_text(CLEAN)
    req = LintRequest(project_root=git_repo, paths=["app.py"], cwd=git_repo, entry="feedback")
    first = run_lint(req)
    assert _ruff_scope(first).reused is None
    second = run_lint(req)
    scope = _ruff_scope(second)
    assert scope.status == "checked" and scope.reused == "identity equal"

    # Stage a different version; the worktree keeps the reused-clean bytes.
    (git_repo / "app.py").write_text(BAD)
    git(git_repo, "add", "app.py")
    (git_repo / "app.py").write_text(CLEAN)
    assert _ruff_scope(run_lint(req)).reused == "identity equal"
    out = run_cli(["gate", "commit", "--format", "json"], git_repo)
    report = json.loads(out.stdout)
    assert report["gate"]["decision"] == "deny", out.stderr
    ruff = [s for s in report["scopes"] if s["checker"] == "ruff"]
    assert ruff and all(s["reused"] is None for s in ruff)
    assert [f["rule"] for f in report["findings"] if f["checker"] == "ruff"] == ["F401"]
