"""CG-27: commit checks the real index, push the real ref range; a saved single-file
lint of the worktree never stands in for either."""

import json
from pathlib import Path

import pytest
from gate_support import BAD_PY, GOOD_PY, orchestrate, stage
from helpers import add_remote, git

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


@pytest.mark.scenario("CG-27")
def test_each_delivery_event_checks_its_own_surface(git_repo: Path, tmp_path: Path) -> None:
    add_remote(git_repo, tmp_path / "remote.git")
    stage(git_repo, {"a.py": BAD_PY})
    (git_repo / "a.py").write_text(GOOD_PY)
    saved = orchestrate(git_repo, "lint", "a.py")  # the save-time lint sees the worktree
    assert saved.returncode == 0
    commit = orchestrate(git_repo, "gate", "commit", "--format", "json")
    assert commit.returncode == 1
    report = json.loads(commit.stdout)
    assert report["request"]["surface"] == "index" and report["request"]["entry"] == "gate-commit"
    assert [f["rule"] for f in report["findings"]] == ["F401"]
    # Commit the bad blob anyway, then fix only the index: the push checks the commits.
    git(git_repo, "commit", "-q", "--no-verify", "-m", "bad")
    git(git_repo, "add", "a.py")
    tip = git(git_repo, "rev-parse", "HEAD").strip()
    base = git(git_repo, "rev-parse", "origin/main").strip()
    line = f"refs/heads/main {tip} refs/heads/main {base}\n"
    push = orchestrate(git_repo, "gate", "push", "origin", "--format", "json", stdin=line)
    assert push.returncode == 1
    report = json.loads(push.stdout)
    assert report["request"]["surface"] == "push-range"
    assert [f["path"] for f in report["findings"]] == ["a.py"]
    assert orchestrate(git_repo, "gate", "commit").returncode == 0  # the index itself is clean now
