"""CG-03: skipGate set, commit under legacy-v1: old exit and accounting, marked not certified."""

from pathlib import Path

import pytest
from gate_support import BAD_PY, audit_records, orchestrate, run, stage
from helpers import git

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


@pytest.mark.scenario("CG-03")
def test_legacy_skip_exits_0_audits_and_certifies_nothing(git_repo: Path) -> None:
    assert orchestrate(git_repo, "install-hooks", "--protocol", "legacy-v1").returncode == 0
    git(git_repo, "config", "codeguard.skipGate", "true")
    stage(git_repo, {"a.py": BAD_PY})
    res = run(git_repo, "git", "commit", "-q", "-m", "skip")
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert "skipped, not certified" in out
    [record] = audit_records(git_repo)
    assert record["source"] == "git config codeguard.skipGate"
    assert record["count"] == 1 and record["certified"] is False
    stage(git_repo, {"b.py": BAD_PY})
    assert run(git_repo, "git", "commit", "-q", "-m", "again").returncode == 0
    assert [r["count"] for r in audit_records(git_repo)] == [1, 2]
