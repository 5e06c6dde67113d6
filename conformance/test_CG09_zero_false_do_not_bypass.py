"""CG-09: CODEGUARD_SKIP_GATE=0/false/empty: the legacy gate checks as usual."""

from pathlib import Path

import pytest
from gate_support import BAD_PY, audit_records, clean_env, orchestrate, stage

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


@pytest.mark.scenario("CG-09")
@pytest.mark.parametrize("value", ["0", "false", "FALSE", ""])
def test_non_accepted_values_check_as_usual(git_repo: Path, value: str) -> None:
    stage(git_repo, {"a.py": BAD_PY})
    env = clean_env(CODEGUARD_SKIP_GATE=value)
    res = orchestrate(git_repo, "compat", "legacy-v1", "gate", "commit", env=env)
    assert res.returncode == 2 and "F401" in res.stdout
    assert "skipped" not in res.stdout
    assert audit_records(git_repo) == []
