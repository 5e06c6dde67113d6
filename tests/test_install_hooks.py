"""install-hooks / uninstall-hooks: where git looks, foreign hooks, reversibility."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from helpers import git, run_cli

from orchestrator.gates.install_hooks import MARKER, hook_script


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
