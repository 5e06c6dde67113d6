"""CG-08: a required tool cannot run at a strict gate: block, say how to restore the
toolchain, never claim the code has errors."""

import json
from pathlib import Path

import pytest
from gate_support import GOOD_PY, orchestrate, ruff_unavailable, run, stage

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


@pytest.mark.scenario("CG-08")
def test_strict_missing_tool_blocks_with_recovery(git_repo: Path) -> None:
    ruff_unavailable(git_repo)
    assert orchestrate(git_repo, "install-hooks").returncode == 0
    stage(git_repo, {"a.py": GOOD_PY})
    res = run(git_repo, "git", "commit", "-q", "-m", "x")
    out = res.stdout + res.stderr
    assert res.returncode != 0
    assert "incomplete" in out and "install Ruff" in out
    assert "does not mean the code has errors" in out and "finding:" not in out
    res = orchestrate(git_repo, "gate", "commit", "--format", "json")
    assert res.returncode == 3
    report = json.loads(res.stdout)
    assert report["gate"]["decision"] == "incomplete" and report["findings"] == []
    assert any("install Ruff" in r for r in report["gate"]["recovery"])
