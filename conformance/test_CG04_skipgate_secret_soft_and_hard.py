"""CG-04: skipGate set, secret staged: the soft gate injects a non-blocking security
report; the hard gate on the same staged surface exits 2."""

import json
from pathlib import Path

import pytest
from gate_support import SECRET_VALUE, orchestrate, stage
from helpers import git

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


@pytest.mark.scenario("CG-04")
def test_soft_report_then_hard_block(git_repo: Path) -> None:
    git(git_repo, "config", "codeguard.skipGate", "true")
    stage(git_repo, {"config/.env": f"API_KEY={SECRET_VALUE}\n", "a.py": "import os\n"})
    event = json.dumps(
        {
            "hook_event_name": "UserPromptSubmit",
            "prompt": "please commit this",
            "cwd": str(git_repo),
        }
    )
    soft = orchestrate(git_repo, "compat", "legacy-v1", "prompt", stdin=event)
    assert soft.returncode == 0
    context = json.loads(soft.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "config/.env" in context and "secret-dotenv-file" in context
    assert "not certified" in context and "exit 2" in context
    assert SECRET_VALUE not in soft.stdout + soft.stderr
    hard = orchestrate(git_repo, "compat", "legacy-v1", "gate", "commit")
    assert hard.returncode == 2
    assert "config/.env" in hard.stdout and SECRET_VALUE not in hard.stdout + hard.stderr
