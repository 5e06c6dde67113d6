"""CG-02: a strict delivery entry that hits an internal fault blocks and reports incomplete."""

from pathlib import Path

import pytest
from gate_support import GOOD_PY, broken_index, orchestrate, stage

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


@pytest.mark.scenario("CG-02")
@pytest.mark.parametrize("event", ["commit", "push"])
def test_strict_fault_blocks_never_fails_open(git_repo: Path, event: str) -> None:
    stage(git_repo, {"a.py": GOOD_PY})
    env = broken_index(git_repo)
    if event == "push":  # a push line naming an object that does not exist
        stdin = f"refs/heads/main {'e' * 40} refs/heads/main {'0' * 40}\n"
        res = orchestrate(git_repo, "gate", "push", "origin", env=env, stdin=stdin)
    else:
        res = orchestrate(git_repo, "gate", "commit", env=env)
    assert res.returncode == 4
    assert "incomplete" in res.stderr and "internal fault" in res.stderr
    assert "delivery blocked" in res.stderr
