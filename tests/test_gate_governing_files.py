"""A checker's governing file (the secret scan's allowlist) counts at a strict gate only
as the judged surface holds it: an untracked or unstaged allowlist never clears a
staged secret, a committed one does, and its use is named in the gate output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import git, new_repo, run_cli, stage
from secrets_support import AWS_KEY

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

ALLOW = ".orchestrate-secrets-allow"


def _gate(repo: Path) -> tuple[int, dict]:  # type: ignore[type-arg]
    res = run_cli(["gate", "commit", "--format", "json"], cwd=repo)
    return res.returncode, json.loads(res.stdout)


def test_allowlist_counts_only_from_the_index(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", {"fixture.py": f'KEY = "{AWS_KEY}"\n'})
    code, report = _gate(repo)
    assert code == 1, report["gate"]
    [secret] = [f for f in report["findings"] if f["checker"] == "secrets"]
    fingerprint = secret["fingerprint"]
    assert AWS_KEY not in json.dumps(report)

    # In the work tree only (untracked): the commit would not carry it, so it is ignored.
    (repo / ALLOW).write_text(fingerprint + "\n")
    code, report = _gate(repo)
    assert code == 1, report["gate"]

    # Committed on its own first (reviewed policy: an entry counts once the base holds
    # it), the finding is allowed, and the gate output says so.
    git(repo, "reset", "-q")
    stage(repo, {ALLOW: fingerprint + "\n"})
    git(repo, "commit", "-q", "-m", "allow the fixture key")
    git(repo, "add", "fixture.py")
    code, report = _gate(repo)
    assert code == 0, report["gate"]
    assert any(fingerprint in n and "allowed" in n for n in report["notes"])

    # Unstaged edit that empties the allowlist does not matter either: the index rules.
    (repo / ALLOW).write_text("")
    code, _report = _gate(repo)
    assert code == 0
