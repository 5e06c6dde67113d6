"""CG-10: CODEGUARD_SKIP_GATE=1/true/yes (any case): legacy exempts, audits, certifies nothing."""

from pathlib import Path

import pytest
from gate_support import BAD_PY, audit_records, clean_env, orchestrate, stage

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


@pytest.mark.scenario("CG-10")
@pytest.mark.parametrize("value", ["1", "true", "TRUE", "Yes"])
def test_accepted_values_exempt_and_audit(git_repo: Path, value: str) -> None:
    stage(git_repo, {"a.py": BAD_PY})
    env = clean_env(CODEGUARD_SKIP_GATE=value)
    res = orchestrate(git_repo, "compat", "legacy-v1", "gate", "commit", env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "skipped, not certified" in res.stdout and "allow" not in res.stdout
    [record] = audit_records(git_repo)
    assert record["source"] == "CODEGUARD_SKIP_GATE" and record["certified"] is False
