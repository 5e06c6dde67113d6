"""install-hooks / uninstall-hooks: where git looks, foreign hooks, reversibility."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from gate_support import run
from helpers import add_remote, git, run_cli
from secrets_support import AWS_KEY

from orchestrator.gates.install_hooks import MARKER, hook_script, is_ours

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


def test_hook_script_calls_this_interpreter() -> None:
    text = hook_script("commit", "strict")
    assert text.startswith("#!/bin/sh\n") and MARKER in text
    assert f"{sys.executable} -m orchestrator.cli.main gate commit" in text
    assert "compat legacy-v1 gate push" in hook_script("push", "legacy-v1")


def test_install_respects_hooks_path_and_uninstall_is_reversible(git_repo: Path) -> None:
    git(git_repo, "config", "core.hooksPath", "custom-hooks")
    res = run_cli(["install-hooks"], cwd=git_repo)
    assert res.returncode == 0, res.stderr
    hooks = git_repo / "custom-hooks"
    for name in ("pre-commit", "pre-push"):
        assert os.access(hooks / name, os.X_OK) and MARKER in (hooks / name).read_text()
    assert not (git_repo / ".git/hooks/pre-commit").exists()
    assert run_cli(["install-hooks"], cwd=git_repo).returncode == 0  # ours: re-install is fine
    assert run_cli(["uninstall-hooks"], cwd=git_repo).returncode == 0
    assert not (hooks / "pre-commit").exists() and not (hooks / "pre-push").exists()


def test_foreign_hook_is_kept_unless_forced(git_repo: Path) -> None:
    foreign = git_repo / ".git/hooks/pre-commit"
    foreign.write_text("#!/bin/sh\necho mine\n")
    foreign.chmod(0o755)
    res = run_cli(["install-hooks"], cwd=git_repo)
    assert res.returncode == 2 and "--force" in res.stderr
    assert foreign.read_text() == "#!/bin/sh\necho mine\n"
    assert not (git_repo / ".git/hooks/pre-push").exists()
    res = run_cli(["uninstall-hooks"], cwd=git_repo)
    assert res.returncode == 0 and foreign.exists()
    assert run_cli(["install-hooks", "--force"], cwd=git_repo).returncode == 0
    assert MARKER in foreign.read_text()


def test_install_outside_a_repository_is_a_usage_error(tmp_path: Path) -> None:
    res = run_cli(["install-hooks"], cwd=tmp_path)
    assert res.returncode == 2 and "no target repository" in res.stderr


LEGACY_HOOKS = {"pre-commit", "pre-merge-commit", "pre-push"}


def _ours(hooks: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in hooks.iterdir() if p.is_file() and is_ours(p)}


def test_legacy_install_writes_legacy_hooks_only(git_repo: Path) -> None:
    """legacy-v1 has no commit-msg event: no strict hook rides along with a legacy install."""
    res = run_cli(["install-hooks", "--protocol", "legacy-v1"], cwd=git_repo)
    assert res.returncode == 0, res.stderr
    ours = _ours(git_repo / ".git/hooks")
    assert set(ours) == LEGACY_HOOKS
    for name, text in ours.items():
        assert "# protocol: legacy-v1." in text, name
        assert " compat legacy-v1 gate " in text, name
        assert " gate commit-msg" not in text, name
    with pytest.raises(ValueError, match="legacy-v1"):
        hook_script("commit-msg", "legacy-v1")


def test_switching_protocols_replaces_our_commit_msg_hook_only(git_repo: Path) -> None:
    hooks = git_repo / ".git/hooks"
    assert run_cli(["install-hooks"], cwd=git_repo).returncode == 0
    assert "commit-msg" in _ours(hooks)  # strict: the message is scanned at commit time
    res = run_cli(["install-hooks", "--protocol", "legacy-v1"], cwd=git_repo)
    assert res.returncode == 0, res.stderr
    assert set(_ours(hooks)) == LEGACY_HOOKS  # our strict commit-msg hook is gone
    assert "removed" in res.stdout and "commit-msg" in res.stdout
    assert run_cli(["install-hooks"], cwd=git_repo).returncode == 0
    assert set(_ours(hooks)) == {*LEGACY_HOOKS, "commit-msg"}
    # A foreign commit-msg hook is none of a legacy install's business, even with --force.
    assert run_cli(["uninstall-hooks"], cwd=git_repo).returncode == 0
    foreign = hooks / "commit-msg"
    foreign.write_text("#!/bin/sh\nexit 0\n")
    foreign.chmod(0o755)
    for extra in ([], ["--force"]):
        res = run_cli(["install-hooks", "--protocol", "legacy-v1", *extra], cwd=git_repo)
        assert res.returncode == 0, res.stderr
        assert foreign.read_text() == "#!/bin/sh\nexit 0\n"
    assert set(_ours(hooks)) == LEGACY_HOOKS


def test_legacy_install_judges_messages_where_legacy_does(git_repo: Path, tmp_path: Path) -> None:
    """Under legacy-v1 a message is delivered content at pre-push (exit 2), as the old
    protocol's push gate judges it; no strict commit-time gate blocks the commit."""
    add_remote(git_repo, tmp_path / "remote.git")
    assert run_cli(["install-hooks", "--protocol", "legacy-v1"], cwd=git_repo).returncode == 0
    message = tmp_path / "msg.txt"
    message.write_text(f"deploy\n\naws key {AWS_KEY}\n")
    res = run(git_repo, "git", "commit", "-q", "--allow-empty", "-F", str(message))
    assert res.returncode == 0, res.stdout + res.stderr
    res = run(git_repo, "git", "push", "-q", "origin", "main")
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "secret-aws-access-key-id" in out and AWS_KEY not in out
    assert "legacy-v1 gate push" in out and "blocked (exit 2)" in out


def test_a_legacy_hook_fails_open_when_its_gate_cannot_start(tmp_path: Path) -> None:
    """legacy-v1 blocks only with exit 2: the installed hook turns any other failure of
    the gate (here: an interpreter that does not exist) into exit 0 with UNVERIFIED on
    stderr, never a block and never a pass."""
    import subprocess

    hook = tmp_path / "pre-commit"
    hook.write_text(hook_script("commit", "legacy-v1", python=str(tmp_path / "no-python")))
    hook.chmod(0o755)
    res = subprocess.run([str(hook)], capture_output=True, text=True, check=False)
    assert res.returncode == 0, res
    assert "UNVERIFIED" in res.stderr and "nothing was certified" in res.stderr
    strict = tmp_path / "strict-pre-commit"
    strict.write_text(hook_script("commit", "strict", python=str(tmp_path / "no-python")))
    strict.chmod(0o755)
    assert subprocess.run([str(strict)], capture_output=True, check=False).returncode != 0
