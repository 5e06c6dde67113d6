"""CG-06: a git event outside any repository says there is no target repo and scans nothing."""

import json
from pathlib import Path

import pytest
from gate_support import BAD_PY, orchestrate

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


@pytest.mark.scenario("CG-06")
def test_git_events_outside_a_repo_scan_nothing(tmp_path: Path) -> None:
    work = tmp_path / "not-a-repo"
    work.mkdir()
    (work / "a.py").write_text(BAD_PY)
    for args in (["gate", "commit"], ["gate", "push"], ["gate", "ci"]):
        res = orchestrate(work, *args, stdin="")
        assert res.returncode == 2, res.stderr
        assert "no target repository" in res.stderr and "nothing was scanned" in res.stderr
        assert "F401" not in res.stdout + res.stderr and "allow" not in res.stdout
    res = orchestrate(work, "compat", "legacy-v1", "gate", "commit")
    assert res.returncode == 0 and "no target repository" in res.stdout
    event = json.dumps({"prompt": "commit my work", "cwd": str(work)})
    res = orchestrate(work, "compat", "legacy-v1", "prompt", stdin=event)
    context = json.loads(res.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "no target repository" in context and "not evaluated" in context
    assert not (work / ".orchestrate").exists()
    # An explicit lint of a folder is not bound by the git precondition.
    res = orchestrate(work, "lint", str(work / "a.py"))
    assert res.returncode == 1 and "F401" in res.stdout
