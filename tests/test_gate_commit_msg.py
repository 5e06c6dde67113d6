"""The commit-msg hook scans the message git is about to record for secrets: a key in
`git commit -F file` or `-m` never reaches a commit, and the value is never echoed.

Real git, the installed hooks and the real `orchestrate` console script.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_support import run as _run
from helpers import git, run_cli
from secrets_support import AWS_KEY

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


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


SCISSORS = "# ------------------------ >8 ------------------------\n"
#: An editor for `git commit -v`: writes a message above what git put in the file.
EDITOR = """#!/bin/sh
{ printf 'remove the key\\n'; cat "$1"; } > "$1.new" && mv "$1.new" "$1"
"""


def test_what_git_cuts_below_the_scissors_is_not_judged(git_repo: Path) -> None:
    """`git commit -v` shows the staged diff below the scissors line and drops it: a
    commit removing a key (the diff's `-` line) passes the commit-msg hook."""
    from gate_support import clean_env, commit_files

    repo = _hooked(git_repo)
    commit_files(repo, {"keys.txt": f"{AWS_KEY}\n"}, "keys")
    git(repo, "rm", "-q", "keys.txt")
    editor = repo.parent / "editor.sh"
    editor.write_text(EDITOR)
    editor.chmod(0o755)
    res = _run(repo, "git", "commit", "-q", "-v", env=clean_env(GIT_EDITOR=str(editor)))
    assert res.returncode == 0, res.stdout + res.stderr
    assert git(repo, "log", "-1", "--format=%B").strip() == "remove the key"


def test_a_scissors_line_git_keeps_hides_nothing(git_repo: Path) -> None:
    """Without `-v` (or the scissors cleanup) git records the lines below a scissors
    line: a key there is judged and refused, as is one after a scissors text that does
    not start its line."""
    repo = _hooked(git_repo)
    before = _count(repo)
    msg = repo.parent / "msg.txt"
    for text in (f"fine\n{SCISSORS}key {AWS_KEY}\n", f"fine x {SCISSORS}key {AWS_KEY}\n"):
        msg.write_text(text)
        res = _run(repo, "git", "commit", "-q", "--allow-empty", "-F", str(msg))
        out = res.stdout + res.stderr
        assert res.returncode != 0, out
        assert "secret-aws-access-key-id" in out and AWS_KEY not in out
    assert _count(repo) == before


def test_gate_commit_msg_reads_the_file_it_is_given(git_repo: Path) -> None:
    msg = git_repo / ".git" / "COMMIT_EDITMSG"
    msg.write_text(f"leak {AWS_KEY}\n{SCISSORS}")
    res = run_cli(["gate", "commit-msg", str(msg), "--format", "json"], cwd=git_repo)
    assert res.returncode == 1, res.stdout + res.stderr
    assert AWS_KEY not in res.stdout + res.stderr
    # Run by hand, no `git commit` above it: nothing says git drops the lines below.
    msg.write_text(f"fine\n{SCISSORS}+KEY = '{AWS_KEY}'\n")
    res = run_cli(["gate", "commit-msg", str(msg)], cwd=git_repo)
    assert res.returncode == 1, res.stdout + res.stderr


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


#: `git commit` spellings that set the scissors cleanup and give the message on the
#: command line: git runs no editor, reads the cleanup as `whitespace` and keeps what
#: follows the scissors line ({msg}: the message file; the text, for `-m`).
KEPT_SCISSORS = (
    ("commit", "--cleanup=scissors", "-F", "{msg}"),
    ("commit", "--cleanup", "scissors", "-F", "{msg}"),
    ("commit", "--cleanu=scissors", "--file={msg}"),
    ("commit", "--cleanup=scissors", "-m", "{text}"),
    ("commit", "--cleanup=scissors", "-qm", "{text}"),
    ("-c", "commit.cleanup=scissors", "commit", "-F", "{msg}"),
    ("commit", "--cleanup=scissors", "--edit", "--no-edit", "-F", "{msg}"),
    ("config:scissors", "commit", "-F", "{msg}"),
)


@pytest.mark.parametrize("spelling", KEPT_SCISSORS, ids=" ".join)
def test_a_scissors_cleanup_without_an_editor_keeps_and_judges_every_line(
    git_repo: Path, spelling: tuple[str, ...]
) -> None:
    """git keeps the lines below the scissors line when it runs no editor, whatever the
    cleanup says; the commit-msg hook judges them and refuses the key there."""
    repo = _hooked(git_repo)
    text = f"fine\n{SCISSORS}key {AWS_KEY}\n"
    msg = repo.parent / "msg.txt"
    msg.write_text(text)
    words = list(spelling)
    if words[0] == "config:scissors":
        git(repo, "config", "commit.cleanup", "scissors")
        words = words[1:]
    argv = [w.format(msg=msg, text=text) for w in words]
    before = _count(repo)
    # What git records of this message when no hook judges it: the key line too.
    res = _run(repo, "git", *argv, "--allow-empty", "--no-verify")
    assert res.returncode == 0, res.stdout + res.stderr
    assert AWS_KEY in git(repo, "log", "-1", "--format=%B")
    git(repo, "reset", "-q", "--soft", "HEAD~1")
    res = _run(repo, "git", *argv, "--allow-empty")
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "secret-aws-access-key-id" in out and AWS_KEY not in out
    assert _count(repo) == before


#: An editor that leaves a message whose key follows the scissors line.
SCISSORS_EDITOR = """#!/bin/sh
printf 'fine\\n# ------------------------ >8 ------------------------\\nkey %s\\n' "$KEY" > "$1"
"""


@pytest.mark.parametrize(
    "spelling",
    [("--cleanup=scissors",), ("--cleanup=scissors", "-e", "-m", "draft")],
    ids=" ".join,
)
def test_a_scissors_cleanup_with_the_editor_cuts_as_git_does(
    git_repo: Path, spelling: tuple[str, ...]
) -> None:
    """With the editor (none given, or `--edit`), git drops what follows the scissors
    line: the hook does not judge it, and git records none of it."""
    from gate_support import clean_env

    repo = _hooked(git_repo)
    editor = repo.parent / "editor.sh"
    editor.write_text(SCISSORS_EDITOR)
    editor.chmod(0o755)
    env = clean_env(GIT_EDITOR=str(editor), KEY=AWS_KEY)
    res = _run(repo, "git", "commit", "-q", "--allow-empty", *spelling, env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert git(repo, "log", "-1", "--format=%B").strip() == "fine"
