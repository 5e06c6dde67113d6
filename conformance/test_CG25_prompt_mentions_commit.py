"""CG-25: a prompt that mentions a commit gets advice only; the strict commit gate
fires at the real delivery entry on the real index."""

import json
from pathlib import Path

import pytest
from gate_support import BAD_PY, GOOD_PY, orchestrate, run, stage

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


@pytest.mark.scenario("CG-25")
def test_prompt_is_advice_the_real_commit_is_gated(git_repo: Path) -> None:
    assert orchestrate(git_repo, "install-hooks").returncode == 0
    stage(git_repo, {"a.py": BAD_PY})
    (git_repo / "a.py").write_text(GOOD_PY)  # the worktree looks fine; the index does not
    event = json.dumps({"prompt": "ok, commit it now", "cwd": str(git_repo)})
    soft = orchestrate(git_repo, "compat", "legacy-v1", "prompt", stdin=event)
    assert soft.returncode == 0  # advice never blocks
    context = json.loads(soft.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "advice only" in context and "not a certification" in context
    quiet = orchestrate(
        git_repo, "compat", "legacy-v1", "prompt", stdin=json.dumps({"prompt": "hello"})
    )
    assert quiet.returncode == 0 and quiet.stdout == ""
    res = run(git_repo, "git", "commit", "-q", "-m", "x")
    assert res.returncode != 0 and "F401" in res.stdout + res.stderr
