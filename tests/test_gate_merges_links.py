"""Merges, symlinks and submodules at the strict commit gate.

Real git with our installed hooks: a clean `git merge` runs pre-merge-commit, a merge
whose conflicts were resolved is finished by `git commit` (pre-commit); both run the
commit gate, which scans every blob the merged commits add. A staged symlink or
submodule is named for what it is, with what the user can do.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from gate_support import GOOD_PY, commit_files
from gate_support import orchestrate as _orchestrate
from gate_support import run as _run
from helpers import git, run_cli
from secrets_support import AWS_KEY

from orchestrator.gates.install_hooks import MARKER

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

_commit = commit_files


def _head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def hooked(git_repo: Path) -> Path:
    res = run_cli(["install-hooks"], cwd=git_repo)
    assert res.returncode == 0, res.stderr
    return git_repo


def _diverge(repo: Path, feature: dict[str, str], **kw: tuple[str, ...]) -> str:
    """A branch `feature` with `feature` committed, and a new commit on main: a merge of
    feature into main is a true (non fast-forward) merge. Returns feature's tip."""
    git(repo, "checkout", "-q", "-b", "feature")
    tip = _commit(repo, feature, "feature")
    git(repo, "checkout", "-q", "main")
    _commit(repo, {"main.py": GOOD_PY}, "main moves on")
    return tip


def test_install_hooks_installs_pre_merge_commit(git_repo: Path) -> None:
    res = run_cli(["install-hooks"], cwd=git_repo)
    assert res.returncode == 0, res.stderr
    hook = git_repo / ".git/hooks/pre-merge-commit"
    assert os.access(hook, os.X_OK) and MARKER in hook.read_text()
    assert "gate commit" in hook.read_text()
    assert run_cli(["uninstall-hooks"], cwd=git_repo).returncode == 0
    assert not hook.exists()


def test_clean_merge_of_a_branch_with_a_secret_is_blocked_by_pre_merge_commit(
    hooked: Path,
) -> None:
    _diverge(hooked, {"feat/config.py": f'KEY = "{AWS_KEY}"\n'})
    before = _head(hooked)
    res = _run(hooked, "git", "merge", "--no-edit", "feature")
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "secret-aws-access-key-id" in out and "feat/config.py" in out
    assert AWS_KEY not in out
    assert _head(hooked) == before  # no merge commit was made


def test_merge_of_a_secret_added_and_removed_on_the_branch_is_blocked(hooked: Path) -> None:
    git(hooked, "checkout", "-q", "-b", "feature")
    added = _commit(hooked, {"feat.txt": f"aws {AWS_KEY}\n"}, "add")
    _commit(hooked, {"feat.txt": "nothing\n"}, "remove")
    git(hooked, "checkout", "-q", "main")
    _commit(hooked, {"main.py": GOOD_PY}, "main moves on")
    before = _head(hooked)
    res = _run(hooked, "git", "merge", "--no-edit", "feature")
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "secret-aws-access-key-id" in out and added[:12] in out
    assert _head(hooked) == before


def test_conflicted_merge_finished_by_git_commit_is_blocked_by_pre_commit(hooked: Path) -> None:
    _commit(hooked, {"shared.py": "x = 0\n"}, "base")
    git(hooked, "checkout", "-q", "-b", "feature")
    _commit(hooked, {"shared.py": "x = 1\n", "creds.py": f'KEY = "{AWS_KEY}"\n'}, "feature")
    git(hooked, "checkout", "-q", "main")
    _commit(hooked, {"shared.py": "x = 2\n"}, "main")
    res = _run(hooked, "git", "merge", "--no-edit", "feature")
    assert res.returncode != 0 and "CONFLICT" in res.stdout + res.stderr
    (hooked / "shared.py").write_text("x = 3\n")
    git(hooked, "add", "shared.py")
    before = _head(hooked)
    res = _run(hooked, "git", "commit", "-q", "--no-edit")
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "creds.py" in out and "secret-aws-access-key-id" in out
    assert "merge in progress" in out
    assert _head(hooked) == before


def test_clean_merge_without_secrets_passes(hooked: Path) -> None:
    _diverge(hooked, {"feat.py": GOOD_PY})
    res = _run(hooked, "git", "merge", "--no-edit", "feature")
    assert res.returncode == 0, res.stdout + res.stderr
    assert len(git(hooked, "log", "-1", "--format=%P").split()) == 2


def test_staged_symlink_says_what_it_is_and_its_target_text_is_scanned(git_repo: Path) -> None:
    _commit(git_repo, {"real.py": GOOD_PY})
    os.symlink("real.py", git_repo / "link.py")
    git(git_repo, "add", "link.py")
    res = _orchestrate(git_repo, "gate", "commit", "--format", "json")
    report = json.loads(res.stdout)
    assert res.returncode == 0, report["gate"]
    assert report["gate"]["decision"] == "allow"
    [link] = [s for s in report["scopes"] if s["path"] == "link.py" and s["checker"] == "selection"]
    assert link["reason"].startswith("symlink: git records only the link's target path")
    assert any("link.py (symlink)" in r for r in report["gate"]["reasons"])
    assert not any("essential plugins" in r for r in report["gate"]["recovery"])
    res = _orchestrate(git_repo, "gate", "commit")
    assert "symlink" in res.stdout and "essential plugins" not in res.stdout
    # The link text is content git delivers: a secret there blocks.
    os.symlink(f"/keys/{AWS_KEY}", git_repo / "leak")
    git(git_repo, "add", "leak")
    res = _orchestrate(git_repo, "gate", "commit", "--format", "json")
    report = json.loads(res.stdout)
    assert res.returncode == 1 and report["gate"]["decision"] == "deny"
    assert [f["path"] for f in report["findings"]] == ["leak"]
    assert AWS_KEY not in res.stdout


def test_staged_submodule_says_what_it_is_and_where_it_is_judged(
    git_repo: Path, tmp_path: Path
) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    git(sub, "init", "-q", "-b", "main")
    _commit(sub, {"s.py": GOOD_PY})
    oid = _head(sub)
    git(git_repo, "update-index", "--add", "--cacheinfo", f"160000,{oid},vendor/sub")
    res = _orchestrate(git_repo, "gate", "commit", "--format", "json")
    report = json.loads(res.stdout)
    assert res.returncode == 3, report["gate"]
    gate = report["gate"]
    assert gate["decision"] == "incomplete"
    assert any(
        "vendor/sub" in r and f"submodule at commit {oid[:12]}" in r for r in gate["reasons"]
    )
    assert any("orchestrate gate ci" in r and "inside it" in r for r in gate["recovery"])
    assert not any("essential plugins" in r for r in gate["recovery"])
    assert not any(f["path"] == "vendor/sub" for f in report["findings"])
