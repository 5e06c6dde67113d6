"""A shallow repository (`.git/shallow`) and the push gate: git walks a shallow boundary
commit as if it had no parent, for the push it makes as for the range the gate reads.
The gate judges such a commit as a root (every file of its tree), names the boundary in
the notes, and never allows what git will deliver unjudged: what is hidden below the
boundary is not delivered either.

Real git, a real bare remote, real shallow clones and `gate push`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_support import GOOD_PY, commit_files
from gate_support import orchestrate as _orchestrate
from gate_support import run as _run
from helpers import add_remote, git, new_repo, run_cli
from secrets_support import AWS_KEY

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

ZERO = "0" * 40


def _head(repo: Path, rev: str = "HEAD") -> str:
    return git(repo, "rev-parse", rev).strip()


def _identity(repo: Path) -> None:
    git(repo, "config", "user.name", "Test")
    git(repo, "config", "user.email", "test@example.invalid")
    git(repo, "config", "commit.gpgsign", "false")


def _push_gate(repo: Path, line: str) -> tuple[int, dict[str, object], str]:
    res = _orchestrate(repo, "gate", "push", "origin", "--format", "json", stdin=line)
    return res.returncode, json.loads(res.stdout), res.stdout + res.stderr


def test_a_shallow_clone_judges_its_boundary_commit_whole(tmp_path: Path) -> None:
    """A new branch pushed from a depth-1 clone to a remote that holds none of it: the
    range reaches the boundary, whose whole tree is judged, and the notes say so."""
    src = new_repo(tmp_path / "src")
    commit_files(src, {"app.py": GOOD_PY})
    boundary = commit_files(src, {"keys.txt": f"{AWS_KEY}\n"})
    add_remote(src, tmp_path / "remote.git")
    clone = tmp_path / "clone"
    uri = (tmp_path / "remote.git").as_uri()
    git(tmp_path, "clone", "-q", "--depth", "1", "-b", "main", uri, str(clone))
    _identity(clone)
    assert git(clone, "rev-parse", "--is-shallow-repository").strip() == "true"
    git(clone, "checkout", "-q", "-b", "feature")
    tip = commit_files(clone, {"feat.py": GOOD_PY})
    # The push goes to an empty repository (the gate asks it what it holds: nothing).
    git(tmp_path, "init", "-q", "--bare", str(tmp_path / "empty.git"))
    git(clone, "remote", "set-url", "origin", str(tmp_path / "empty.git"))
    code, report, out = _push_gate(clone, f"refs/heads/feature {tip} refs/heads/feature {ZERO}\n")
    assert code == 1, out
    assert any(f"commit {boundary[:12]} is a shallow boundary" in n for n in report["notes"])
    judged = {s["path"] for s in report["scopes"]}  # type: ignore[index]
    assert {"app.py", "keys.txt", "feat.py", "README.md"} <= judged
    assert [f["path"] for f in report["findings"] if f["checker"] == "secrets"] == ["keys.txt"]  # type: ignore[index]
    assert AWS_KEY not in out


def test_a_forged_shallow_file_hides_nothing_git_delivers(git_repo: Path, tmp_path: Path) -> None:
    """`.git/shallow` naming the tip cuts the history from the gate's range and from
    the push alike: the secret a hidden commit added never reaches the remote."""
    commit_files(git_repo, {"app.py": GOOD_PY})
    remote = add_remote(git_repo, tmp_path / "remote.git")
    git(remote, "config", "receive.shallowUpdate", "true")  # a remote that takes it
    base = _head(git_repo)
    commit_files(git_repo, {"keys.txt": f"{AWS_KEY}\n"}, "add")
    hidden_blob = git(git_repo, "rev-parse", "HEAD:keys.txt").strip()
    commit_files(git_repo, {}, "remove", delete=("keys.txt",))
    tip = commit_files(git_repo, {"feat.py": GOOD_PY}, "feature")
    shallow = Path(git(git_repo, "rev-parse", "--git-path", "shallow").strip())
    (git_repo / shallow).write_text(f"{tip}\n")

    code, report, out = _push_gate(git_repo, f"refs/heads/main {tip} refs/heads/main {base}\n")
    assert code == 0, out
    assert any(f"commit {tip[:12]} is a shallow boundary" in n for n in report["notes"])
    judged = {s["path"] for s in report["scopes"] if s["checker"] != "secrets"}  # type: ignore[index]
    assert {"app.py", "feat.py", "README.md"} <= judged  # the whole tree of the root

    assert run_cli(["install-hooks"], cwd=git_repo).returncode == 0
    res = _run(git_repo, "git", "push", "-q", "-f", "origin", "main")
    assert res.returncode == 0, res.stdout + res.stderr
    assert _head(remote, "main") == tip
    sent = _run(remote, "git", "cat-file", "-e", hidden_blob)
    assert sent.returncode != 0, "a blob below the shallow boundary reached the remote"
