"""`git commit --amend`: the amended commit's parent is HEAD's parent, so what HEAD
changed (perhaps committed past the hooks) enters the new commit too. The commit gate
recognises an amend from the `git commit` that runs its hook and judges the index
against HEAD's parent, under that parent's policy; the push gate judges every pushed
commit whatever the commit gate saw.

Real git, the real installed hooks, real `gate commit` / `gate push`.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from gate_support import GOOD_PY, commit_files, orchestrate
from gate_support import clean_env as _env
from gate_support import run as _run
from helpers import add_remote, git, run_cli
from secrets_support import AWS_KEY


@pytest.fixture
def leaked(git_repo: Path) -> Path:
    """Hooks installed; HEAD adds a secret, committed past them (`--no-verify`)."""
    assert run_cli(["install-hooks"], cwd=git_repo).returncode == 0
    commit_files(git_repo, {"app.py": GOOD_PY})
    commit_files(git_repo, {"keys.txt": f"{AWS_KEY}\n"}, "keys")
    (git_repo / "app.py").write_text("x = 2\n")
    git(git_repo, "add", "app.py")
    return git_repo


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _run(repo, "git", *args, env=_env())


def _blocked(res: subprocess.CompletedProcess[str]) -> None:
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "keys.txt" in out and "secret-aws-access-key-id" in out and AWS_KEY not in out
    assert "amending" in out


@pytest.mark.e2e
@pytest.mark.parametrize(
    "argv",
    [
        ("commit", "-q", "--amend", "--no-edit"),
        ("commit", "-qm", "reworded", "--amen"),  # git takes a unique prefix
        ("-c", "user.name=Other", "commit", "-q", "--no-edit", "--amend"),
        ("-c", "alias.fix=commit --amend", "fix", "-q", "--no-edit"),
        ("-c", "alias.sfix=!git commit -q --amend", "sfix", "--no-edit"),  # a shell alias
    ],
)
def test_amend_through_the_hook_judges_what_head_changed(
    leaked: Path, argv: tuple[str, ...]
) -> None:
    head = git(leaked, "rev-parse", "HEAD").strip()
    _blocked(_git(leaked, *argv))
    assert git(leaked, "rev-parse", "HEAD").strip() == head  # nothing was amended


@pytest.mark.e2e
def test_an_amend_by_the_dashed_command_judges_what_head_changed(leaked: Path) -> None:
    """git still installs its builtins under their dashed names (`git-core/git-commit`)."""
    dashed = Path(git(leaked, "--exec-path").strip()) / "git-commit"
    assert dashed.exists(), dashed
    head = git(leaked, "rev-parse", "HEAD").strip()
    _blocked(_run(leaked, str(dashed), "-q", "--amend", "--no-edit", env=_env()))
    assert git(leaked, "rev-parse", "HEAD").strip() == head


#: A hook that reaches the gate through many processes, as hook managers do (husky:
#: git -> sh -> sh -> npx -> node -> sh -> ...): each level is a process of its own.
DEEP_HOOK = """#!{python}
import os, subprocess, sys
depth = int(os.environ.get("DEPTH", "12"))
if depth:
    env = dict(os.environ, DEPTH=str(depth - 1))
    sys.exit(subprocess.run([sys.executable, __file__], env=env).returncode)
sys.exit(subprocess.run([{orchestrate!r}, "gate", "commit"]).returncode)
"""


@pytest.mark.e2e
def test_an_amend_seen_through_a_deep_hook_manager(leaked: Path) -> None:
    import sys

    from helpers import VENV_BIN

    hook = leaked / ".git" / "hooks" / "pre-commit"
    orchestrate = str(Path(VENV_BIN) / "orchestrate")
    hook.write_text(DEEP_HOOK.format(python=sys.executable, orchestrate=orchestrate))
    head = git(leaked, "rev-parse", "HEAD").strip()
    _blocked(_git(leaked, "commit", "-q", "--amend", "--no-edit"))
    assert git(leaked, "rev-parse", "HEAD").strip() == head


@pytest.mark.e2e
def test_a_plain_commit_still_judges_the_index_against_head(leaked: Path) -> None:
    # "--amend" here is the message of a new commit, not an option.
    res = _git(leaked, "commit", "-q", "-m", "--amend")
    assert res.returncode == 0, res.stdout + res.stderr
    assert git(leaked, "log", "-1", "--format=%s").strip() == "--amend"
    res = _git(leaked, "commit", "-q", "--allow-empty", "--no-amend", "-m", "again")
    assert res.returncode == 0, res.stdout + res.stderr


@pytest.mark.e2e
def test_an_amend_is_judged_under_the_parents_allowlist(leaked: Path) -> None:
    """An allowlist entry HEAD added past the hooks is not the amended commit's base."""
    ci = orchestrate(leaked, "gate", "ci", "--format", "json")
    [fp] = [f["fingerprint"] for f in json.loads(ci.stdout)["findings"] if f["path"] == "keys.txt"]
    git(leaked, "reset", "-q", "--soft", "HEAD~1")
    (leaked / ".orchestrate-secrets-allow").write_text(f"{fp}  keys.txt  reviewed\n")
    git(leaked, "add", ".orchestrate-secrets-allow")
    git(leaked, "commit", "-q", "--no-verify", "-m", "keys and their allowlist entry")
    (leaked / "app.py").write_text("x = 3\n")
    git(leaked, "add", "app.py")
    res = _git(leaked, "commit", "-q", "--amend", "--no-edit")
    _blocked(res)
    assert "apply once the allowlist change is committed on its own" in res.stdout + res.stderr


@pytest.mark.e2e
def test_the_push_gate_judges_an_amend_made_past_every_hook(leaked: Path, tmp_path: Path) -> None:
    git(leaked, "reset", "-q", "--hard", "HEAD~1")  # the commit before the secret
    add_remote(leaked, tmp_path / "remote.git", push=False)
    assert _git(leaked, "push", "-q", "--no-verify", "origin", "main").returncode == 0
    commit_files(leaked, {"keys.txt": f"{AWS_KEY}\n"}, "keys")
    (leaked / "app.py").write_text("x = 4\n")
    git(leaked, "add", "app.py")
    amended = _git(leaked, "commit", "-q", "--no-verify", "--amend", "--no-edit")
    assert amended.returncode == 0, amended.stderr
    res = _git(leaked, "push", "-q", "origin", "main")
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "keys.txt" in out and "secret-aws-access-key-id" in out and AWS_KEY not in out


ALIASES = {"ci": "commit", "fix": "commit --amend", "sh": "!git commit --amend"}
ALIASES |= {"loop": "loop2", "loop2": "loop", "bad": "commit 'unclosed"}


@pytest.mark.parametrize(
    ("argv", "amends"),
    [
        ("git commit --amend", True),
        ("git commit -m --amend", False),  # a message
        ("git commit --message --amend", False),
        ("git commit --message=--amend", False),
        ("git commit --mess --amend", False),  # an abbreviated option still takes its value
        ("git commit -qm x --amend", True),
        ("git commit -mx --amend", True),  # the value attached to -m
        ("git commit -F- --amend", True),
        ("git commit --amend --no-amend", False),  # the last one wins
        ("git commit --no-am --amend", True),
        ("git commit -- --amend", False),  # a pathspec
        ("git commit path.py --amend", True),  # options after a path still count
        ("git -C /x -c a.b=c --no-pager commit --am", True),
        ("git commit --a", False),  # ambiguous: git refuses it
        ("git ci --amend", True),
        ("git fix", True),
        ("git sh", False),  # a shell alias: its own `git commit` is the hook's parent
        ("git loop", False),
        ("git bad", False),
        ("git merge --amend", False),
        ("git", False),
    ],
)
def test_the_command_line_is_read_as_git_reads_it(argv: str, amends: bool) -> None:
    from orchestrator.gates.amend import commit_amends

    assert commit_amends(argv.split(), ALIASES.get) is amends
