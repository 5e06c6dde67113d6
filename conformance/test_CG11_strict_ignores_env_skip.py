"""CG-11: a strict entry that inherits CODEGUARD_SKIP_GATE=true runs the full gate."""

from pathlib import Path

import pytest
from gate_support import BAD_PY, audit_records, clean_env, orchestrate, stage

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


@pytest.mark.scenario("CG-11")
def test_strict_full_gate_with_accepted_legacy_value(git_repo: Path) -> None:
    stage(git_repo, {"a.py": BAD_PY})
    res = orchestrate(git_repo, "gate", "commit", env=clean_env(CODEGUARD_SKIP_GATE="true"))
    assert res.returncode == 1 and "deny" in res.stdout and "F401" in res.stdout
    assert "legacy skip present (CODEGUARD_SKIP_GATE) and ignored" in res.stdout
    assert audit_records(git_repo) == []
