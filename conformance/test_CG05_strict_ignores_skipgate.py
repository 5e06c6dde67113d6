"""CG-05: a strict entry that sees codeguard.skipGate (set or chained) checks the full contract."""

from pathlib import Path

import pytest
from gate_support import BAD_PY, orchestrate, run, stage
from helpers import git

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


@pytest.mark.scenario("CG-05")
def test_git_config_and_chained_skip_are_no_exemption(git_repo: Path, tmp_path: Path) -> None:
    assert orchestrate(git_repo, "install-hooks").returncode == 0
    chained = tmp_path / "team.gitconfig"
    chained.write_text("[codeguard]\n\tskipGate = true\n")
    git(git_repo, "config", "include.path", str(chained))
    stage(git_repo, {"a.py": BAD_PY})
    res = run(git_repo, "git", "commit", "-q", "-m", "x")
    out = res.stdout + res.stderr
    assert res.returncode != 0 and "F401" in out
    assert "legacy skip present (git config codeguard.skipGate) and ignored" in out
    res = run(git_repo, "git", "-c", "codeguard.skipGate=true", "commit", "-q", "-m", "x")
    assert res.returncode != 0 and "ignored" in res.stdout + res.stderr
    res = orchestrate(git_repo, "gate", "commit")
    assert res.returncode == 1 and "deny" in res.stdout
