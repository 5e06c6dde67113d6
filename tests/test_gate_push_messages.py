"""Pushed messages are delivered content: the pre-push gate scans the message of every
pushed commit and of every pushed annotated tag for secrets, naming the object by a
synthetic label (never a file path), never echoing the value. A pushed tag's commit is
judged as a range like a branch.

Real git, a real bare remote, the real pre-push hook and `gate push`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_support import GOOD_PY
from gate_support import orchestrate as _orchestrate
from gate_support import run as _run
from helpers import add_remote, git, run_cli
from secrets_support import AWS_KEY

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

ZERO = "0" * 40


def _head(repo: Path, rev: str = "HEAD") -> str:
    return git(repo, "rev-parse", rev).strip()


@pytest.fixture
def remote(git_repo: Path, tmp_path: Path) -> Path:
    """`git_repo` with `origin` holding main; hooks installed; a message file with a key."""
    (git_repo / "app.py").write_text(GOOD_PY)
    git(git_repo, "add", "app.py")
    git(git_repo, "commit", "-q", "--no-verify", "-m", "app")
    add_remote(git_repo, tmp_path / "remote.git")
    assert run_cli(["install-hooks"], cwd=git_repo).returncode == 0
    (tmp_path / "secret.txt").write_text(f"deploy\n\naws key {AWS_KEY}\n")
    return git_repo


def _message_file(repo: Path) -> str:
    return str(repo.parent / "secret.txt")


def test_commit_message_secret_blocks_the_real_push(remote: Path) -> None:
    # Made past the commit-msg hook (--no-verify, or before the hooks were installed).
    args = ("commit", "-q", "--no-verify", "--allow-empty", "-F", _message_file(remote))
    res = _run(remote, "git", *args)
    assert res.returncode == 0, res.stdout + res.stderr
    res = _run(remote, "git", "push", "-q", "origin", "main")
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "secret-aws-access-key-id" in out and AWS_KEY not in out
    assert _head(remote, "refs/remotes/origin/main") != _head(remote)


def test_gate_push_names_the_commit_message_by_a_synthetic_label(remote: Path) -> None:
    old = _head(remote)
    git(remote, "commit", "-q", "--no-verify", "--allow-empty", "-F", _message_file(remote))
    tip = _head(remote)
    git(remote, "commit", "-q", "--no-verify", "--allow-empty", "-m", "clean follow-up")
    clean = _head(remote)
    line = f"refs/heads/main {clean} refs/heads/main {old}\n"
    res = _orchestrate(remote, "gate", "push", "origin", "--format", "json", stdin=line)
    assert res.returncode == 1, res.stdout + res.stderr
    report = json.loads(res.stdout)
    [finding] = [f for f in report["findings"] if f["checker"] == "secrets"]
    assert finding["path"] == f"<commit {tip[:12]} message>"
    assert finding["rule"] == "secret-aws-access-key-id"
    assert AWS_KEY not in res.stdout + res.stderr
    assert not (remote / finding["path"]).exists()


def test_annotated_tag_message_secret_blocks_the_real_tag_push(remote: Path) -> None:
    git(remote, "tag", "-a", "v1", "-F", _message_file(remote))
    res = _run(remote, "git", "push", "-q", "origin", "v1")
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "secret-aws-access-key-id" in out and AWS_KEY not in out
    assert "v1" not in git(remote.parent / "remote.git", "tag")


def test_gate_push_of_a_tag_judges_its_message_and_its_commits(remote: Path) -> None:
    git(remote, "tag", "-a", "v1", "-F", _message_file(remote))
    tag = _head(remote, "refs/tags/v1")
    line = f"refs/tags/v1 {tag} refs/tags/v1 {ZERO}\n"
    res = _orchestrate(remote, "gate", "push", "origin", "--format", "json", stdin=line)
    assert res.returncode == 1, res.stdout + res.stderr
    report = json.loads(res.stdout)
    paths = {f["path"] for f in report["findings"] if f["checker"] == "secrets"}
    assert paths == {f"<tag {tag[:12]} message>"}

    # A clean tag on a commit the remote lacks: that commit's files are judged.
    (remote / "keys.txt").write_text(f"{AWS_KEY}\n")
    git(remote, "add", "keys.txt")
    git(remote, "commit", "-q", "--no-verify", "-m", "keys")
    git(remote, "tag", "-a", "v2", "-m", "release two")
    tag2 = _head(remote, "refs/tags/v2")
    line = f"refs/tags/v2 {tag2} refs/tags/v2 {ZERO}\n"
    res = _orchestrate(remote, "gate", "push", "origin", "--format", "json", stdin=line)
    assert res.returncode == 1, res.stdout + res.stderr
    paths = {f["path"] for f in json.loads(res.stdout)["findings"]}
    assert paths == {"keys.txt"}


def test_clean_messages_push_through(remote: Path) -> None:
    git(remote, "commit", "-q", "--no-verify", "--allow-empty", "-m", "nothing secret here")
    git(remote, "tag", "-a", "v3", "-m", "release three")
    res = _run(remote, "git", "push", "-q", "origin", "main", "v3")
    assert res.returncode == 0, res.stdout + res.stderr
