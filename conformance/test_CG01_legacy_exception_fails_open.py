"""CG-01: a legacy-v1 hook that hits an unexpected exception: stderr diagnostic, exit 0, unverified."""

from pathlib import Path

import pytest
from gate_support import BAD_PY, broken_index, orchestrate, stage

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


@pytest.mark.scenario("CG-01")
def test_legacy_exception_is_diagnosed_exit_0_never_certified(git_repo: Path) -> None:
    stage(git_repo, {"a.py": BAD_PY})
    res = orchestrate(git_repo, "compat", "legacy-v1", "gate", "commit", env=broken_index(git_repo))
    assert res.returncode == 0
    assert "diagnostic" in res.stderr
    assert "UNVERIFIED" in res.stdout and "nothing was certified" in res.stdout
    assert "allow" not in res.stdout and "pass" not in res.stdout.lower().replace("passed", "")
