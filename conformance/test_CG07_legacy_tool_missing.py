"""CG-07: a tool that cannot run at the legacy git gate: exit 0, explicitly unverified."""

from pathlib import Path

import pytest
from gate_support import GOOD_PY, orchestrate, ruff_unavailable, run, stage

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


@pytest.mark.scenario("CG-07")
def test_legacy_missing_tool_exit_0_unverified(git_repo: Path) -> None:
    ruff_unavailable(git_repo)
    assert orchestrate(git_repo, "install-hooks", "--protocol", "legacy-v1").returncode == 0
    stage(git_repo, {"a.py": GOOD_PY})
    res = run(git_repo, "git", "commit", "-q", "-m", "x")
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert "UNVERIFIED" in out and "not a certified pass" in out
