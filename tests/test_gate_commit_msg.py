"""The commit-msg hook scans the message git is about to record for secrets: a key in
`git commit -F file` or `-m` never reaches a commit, and the value is never echoed.

Real git, the installed hooks and the real `orchestrate` console script.
"""

from __future__ import annotations

import json
from pathlib import Path

from gate_support import run as _run
from helpers import git, run_cli
from secrets_support import AWS_KEY


def _hooked(repo: Path) -> Path:
    res = run_cli(["install-hooks"], cwd=repo)
    assert res.returncode == 0, res.stderr
    assert (repo / ".git/hooks/commit-msg").is_file()
    return repo


def _count(repo: Path) -> int:
    return int(git(repo, "rev-list", "--count", "HEAD").strip())


def test_commit_message_with_a_secret_is_refused_by_the_hook(git_repo: Path) -> None:
    repo = _hooked(git_repo)
    before = _count(repo)
    msg = repo.parent / "msg.txt"
    msg.write_text(f"deploy notes\n\nkey {AWS_KEY}\n")
    res = _run(repo, "git", "commit", "-q", "--allow-empty", "-F", str(msg))
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "secret-aws-access-key-id" in out and "<commit message>" in out
    assert AWS_KEY not in out
    res = _run(repo, "git", "commit", "-q", "--allow-empty", "-m", f"x {AWS_KEY}")
    assert res.returncode != 0
    assert _count(repo) == before


def test_clean_message_commits(git_repo: Path) -> None:
    repo = _hooked(git_repo)
    before = _count(repo)
    res = _run(repo, "git", "commit", "-q", "--allow-empty", "-m", "an ordinary message")
    assert res.returncode == 0, res.stdout + res.stderr
    assert _count(repo) == before + 1


def test_gate_commit_msg_reads_the_file_it_is_given(git_repo: Path) -> None:
    msg = git_repo / ".git" / "COMMIT_EDITMSG"
    scissors = "# ------------------------ >8 ------------------------\n"
    msg.write_text(f"fine\n{scissors}+KEY = '{AWS_KEY}'\n")
    res = run_cli(["gate", "commit-msg", str(msg)], cwd=git_repo)
    assert res.returncode == 0, res.stdout + res.stderr  # `commit -v` diff: not recorded
    msg.write_text(f"leak {AWS_KEY}\n{scissors}")
    res = run_cli(["gate", "commit-msg", str(msg), "--format", "json"], cwd=git_repo)
    assert res.returncode == 1, res.stdout + res.stderr
    assert AWS_KEY not in res.stdout + res.stderr


def test_legacy_protocol_still_scans_the_message(git_repo: Path) -> None:
    res = run_cli(["install-hooks", "--protocol", "legacy-v1"], cwd=git_repo)
    assert res.returncode == 0, res.stderr
    before = _count(git_repo)
    res = _run(
        git_repo,
        "git",
        "-c",
        "codeguard.skipGate=true",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        f"x {AWS_KEY}",
    )
    out = res.stdout + res.stderr
    assert res.returncode != 0 and "secret-aws-access-key-id" in out and AWS_KEY not in out
    assert _count(git_repo) == before


def test_a_message_longer_than_the_scan_limit_is_not_allowed(git_repo: Path) -> None:
    """Only the first 16 MiB of a message are scanned: a longer one is refused as
    unsafe (a key past the limit would otherwise be committed unjudged)."""
    from orchestrator.model.checker import MAX_FILE_BYTES

    msg = git_repo.parent / "long-msg.txt"
    filler = ("notes " * 15 + "\n").encode()
    body = filler * (MAX_FILE_BYTES // len(filler) + 1)
    msg.write_bytes(body + f"key {AWS_KEY}\n".encode())
    res = run_cli(["gate", "commit-msg", str(msg), "--format", "json"], cwd=git_repo)
    assert res.returncode == 3, res.stderr
    assert AWS_KEY not in res.stdout + res.stderr
    [scope] = [s for s in json.loads(res.stdout)["scopes"] if s["status"] == "unsafe"]
    assert scope["path"] == "<commit message>" and "longer than" in scope["reason"]
    msg.write_bytes(b"short and clean\n")
    assert run_cli(["gate", "commit-msg", str(msg)], cwd=git_repo).returncode == 0
