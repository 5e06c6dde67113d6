"""`gate ci` judges the commit it names, and a commit delivers its message as much as
its tree: the message is scanned for secrets under its synthetic label, as the push
gate scans the message of every pushed commit.

Real git, the real `orchestrate gate ci`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_support import GOOD_PY
from gate_support import orchestrate as _orchestrate
from helpers import git
from secrets_support import AWS_KEY

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


def _commit(repo: Path, message: str) -> str:
    (repo / "app.py").write_text(GOOD_PY)
    git(repo, "add", "app.py")
    git(repo, "commit", "-q", "--no-verify", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def test_gate_ci_denies_a_secret_in_the_commit_message(git_repo: Path) -> None:
    oid = _commit(git_repo, f"deploy\n\naws key {AWS_KEY}\n")
    res = _orchestrate(git_repo, "gate", "ci", "--format", "json")
    assert res.returncode == 1, res.stdout + res.stderr
    report = json.loads(res.stdout)
    assert report["gate"]["decision"] == "deny"
    [finding] = [f for f in report["findings"] if f["checker"] == "secrets"]
    assert finding["path"] == f"<commit {oid[:12]} message>"
    assert finding["rule"] == "secret-aws-access-key-id"
    assert AWS_KEY not in res.stdout + res.stderr
    assert not (git_repo / finding["path"]).exists()
    # The human text names the message too, never the value.
    human = _orchestrate(git_repo, "gate", "ci", "--rev", oid)
    assert human.returncode == 1 and f"<commit {oid[:12]} message>" in human.stdout
    assert AWS_KEY not in human.stdout + human.stderr


def test_gate_ci_scans_only_the_named_commits_message(git_repo: Path) -> None:
    bad = _commit(git_repo, f"key {AWS_KEY}")
    git(git_repo, "commit", "-q", "--no-verify", "--allow-empty", "-m", "clean follow-up")
    clean = git(git_repo, "rev-parse", "HEAD").strip()
    res = _orchestrate(git_repo, "gate", "ci", "--format", "json")
    assert res.returncode == 0, res.stdout + res.stderr
    report = json.loads(res.stdout)
    message = [s for s in report["scopes"] if s["path"].startswith("<commit")]
    assert [(s["path"], s["checker"], s["status"]) for s in message] == [
        (f"<commit {clean[:12]} message>", "secrets", "checked")
    ]
    assert _orchestrate(git_repo, "gate", "ci", "--rev", bad).returncode == 1
