"""Replace refs and grafts cannot make a strict gate judge other content or history than
git commits and pushes (real git, real hooks, a real bare remote)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from gate_support import GOOD_PY
from gate_support import run as _run
from helpers import add_remote, git, run_cli
from secrets_support import AWS_KEY

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


def _blob(repo: Path, text: str) -> str:
    out = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=repo,
        input=text.encode(),
        capture_output=True,
        check=True,
    )
    return out.stdout.decode().strip()


@pytest.fixture
def hooked(git_repo: Path, tmp_path: Path) -> Path:
    (git_repo / "app.py").write_text(GOOD_PY)
    git(git_repo, "add", "app.py")
    git(git_repo, "commit", "-q", "--no-verify", "-m", "app")
    add_remote(git_repo, tmp_path / "remote.git")
    res = run_cli(["install-hooks"], cwd=git_repo)
    assert res.returncode == 0, res.stderr
    return git_repo


def test_a_replace_ref_over_a_staged_secret_does_not_open_the_commit_gate(hooked: Path) -> None:
    (hooked / "leak.py").write_text(f'KEY = "{AWS_KEY}"\n')
    git(hooked, "add", "leak.py")
    staged = git(hooked, "rev-parse", ":leak.py").strip()
    git(hooked, "replace", staged, _blob(hooked, "KEY = 1\n"))
    res = run_cli(["gate", "commit"], cwd=hooked)
    assert res.returncode == 1, res.stdout
    assert "secret-aws-access-key-id" in res.stdout
    before = git(hooked, "rev-parse", "HEAD").strip()
    res = _run(hooked, "git", "commit", "-q", "-m", "leak")
    assert res.returncode != 0, res.stdout + res.stderr
    assert git(hooked, "rev-parse", "HEAD").strip() == before


def test_a_replace_ref_over_a_committed_secret_does_not_open_the_push_gate(hooked: Path) -> None:
    (hooked / "leak.py").write_text(f'KEY = "{AWS_KEY}"\n')
    git(hooked, "add", "leak.py")
    git(hooked, "commit", "-q", "--no-verify", "-m", "leak")
    git(hooked, "replace", git(hooked, "rev-parse", "HEAD:leak.py").strip(), _blob(hooked, "x\n"))
    res = _run(hooked, "git", "push", "-q", "origin", "main")
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "secret-aws-access-key-id" in out
    remote = git(hooked, "rev-parse", "refs/remotes/origin/main").strip()
    assert remote != git(hooked, "rev-parse", "HEAD").strip()


def test_a_grafts_file_cannot_hide_a_pushed_commit(hooked: Path) -> None:
    (hooked / "leak.py").write_text(f'KEY = "{AWS_KEY}"\n')
    git(hooked, "add", "leak.py")
    git(hooked, "commit", "-q", "--no-verify", "-m", "leak")
    git(hooked, "rm", "-q", "leak.py")
    git(hooked, "commit", "-q", "--no-verify", "-m", "remove")
    # Graft the tip onto the remote's commit: the leaking commit vanishes from history
    # as `rev-list` shows it, but `git push` still sends it.
    base = git(hooked, "rev-parse", "refs/remotes/origin/main").strip()
    tip = git(hooked, "rev-parse", "HEAD").strip()
    (hooked / ".git" / "info").mkdir(exist_ok=True)
    (hooked / ".git" / "info" / "grafts").write_text(f"{tip} {base}\n")
    res = _run(hooked, "git", "push", "-q", "origin", "main")
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "secret-aws-access-key-id" in out
