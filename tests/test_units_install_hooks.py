"""`install-hooks` / `uninstall-hooks` in process (gates/install_hooks.py) on real git
repositories: which hooks each protocol writes, where git looks for them, what is
never overwritten or removed, and the scripts' text. The installed hooks running
under git are end-to-end cases (tests/test_install_hooks.py).
"""

from __future__ import annotations

import argparse
import stat
import subprocess
from pathlib import Path

import pytest
from helpers import git

from orchestrator.deadline import Deadline
from orchestrator.errors import UsageError
from orchestrator.gates import install_hooks as ih

STRICT = {"pre-commit", "pre-merge-commit", "commit-msg", "pre-push"}
LEGACY = {"pre-commit", "pre-merge-commit", "pre-push"}


def _hooks(repo: Path) -> Path:
    return repo / ".git" / "hooks"


def _ours(hooks: Path) -> set[str]:
    return {p.name for p in hooks.iterdir() if ih.is_ours(p)} if hooks.is_dir() else set()


def test_the_strict_script_runs_this_interpreters_gate_and_passes_git_arguments() -> None:
    text = ih.hook_script("commit-msg", "strict", python="/opt/py 3/bin/python")
    lines = text.splitlines()
    assert lines[0] == "#!/bin/sh" and lines[1] == ih.MARKER
    # The path is quoted for the shell, and any exit of the gate is the hook's exit.
    assert (
        lines[-1] == "exec '/opt/py 3/bin/python' -m orchestrator.cli.main gate commit-msg \"$@\""
    )


def test_the_legacy_script_blocks_on_2_only_and_says_when_it_fails_open(tmp_path: Path) -> None:
    text = ih.hook_script("push", ih.LEGACY, python="/bin/false")
    assert "compat legacy-v1 gate push" in text and "UNVERIFIED" in text
    script = tmp_path / "pre-push"
    script.write_text(text)
    # /bin/false stands for a gate that cannot start (exit 1): the hook fails open, saying so.
    run = subprocess.run(["sh", str(script)], capture_output=True, text=True, check=False)
    assert run.returncode == 0
    assert "UNVERIFIED: the gate failed (exit 1)" in run.stderr


def test_legacy_has_no_commit_msg_gate() -> None:
    with pytest.raises(ValueError, match="no commit-msg gate"):
        ih.hook_script("commit-msg", ih.LEGACY)


def test_strict_install_writes_four_executable_hooks(git_repo: Path) -> None:
    hooks = ih.hooks_dir(Deadline.after(30), git_repo)
    assert hooks == _hooks(git_repo)
    messages = ih.install(hooks, "strict", force=False)
    assert _ours(hooks) == STRICT
    assert len(messages) == 4 and all(m.startswith("installed ") for m in messages)
    for name in STRICT:
        assert (hooks / name).stat().st_mode & stat.S_IXUSR
    assert "gate push" in (hooks / "pre-push").read_text()
    assert "gate commit " in (hooks / "pre-merge-commit").read_text()


def test_the_hooks_go_where_core_hookspath_points(git_repo: Path) -> None:
    git(git_repo, "config", "core.hooksPath", "githooks")
    hooks = ih.hooks_dir(Deadline.after(30), git_repo)
    assert hooks.resolve() == (git_repo / "githooks").resolve()
    hooks.mkdir()
    ih.install(hooks, "strict", force=False)
    assert _ours(git_repo / "githooks") == STRICT
    assert _ours(_hooks(git_repo)) == set()


def test_a_foreign_hook_is_refused_unless_forced_and_never_removed(git_repo: Path) -> None:
    hooks = _hooks(git_repo)
    (hooks / "pre-push").write_text("#!/bin/sh\necho mine\n")
    with pytest.raises(UsageError, match=r"pre-push \(use --force"):
        ih.install(hooks, "strict", force=False)
    assert _ours(hooks) == set()  # nothing written when refused
    ih.install(hooks, "strict", force=True)
    assert _ours(hooks) == STRICT
    # Uninstall removes ours only; a foreign hook written afterwards stays, said so.
    (hooks / "commit-msg").write_text("#!/bin/sh\nexit 0\n")
    messages = ih.uninstall(hooks)
    assert _ours(hooks) == set()
    assert (hooks / "commit-msg").read_text() == "#!/bin/sh\nexit 0\n"
    assert any("left" in m and "commit-msg" in m for m in messages)
    assert sum(m.startswith("removed ") for m in messages) == 3


def test_switching_to_legacy_removes_our_commit_msg_hook_only(git_repo: Path) -> None:
    hooks = _hooks(git_repo)
    ih.install(hooks, "strict", force=False)
    messages = ih.install(hooks, ih.LEGACY, force=False)
    assert _ours(hooks) == LEGACY
    assert not (hooks / "commit-msg").exists()
    assert any("has no commit-msg gate" in m for m in messages)
    # A foreign commit-msg hook is never taken away by a legacy install.
    (hooks / "commit-msg").write_text("#!/bin/sh\nexit 0\n")
    ih.install(hooks, ih.LEGACY, force=False)
    assert (hooks / "commit-msg").exists()


def test_is_ours_reads_the_marker_and_a_missing_file_is_not_ours(tmp_path: Path) -> None:
    (tmp_path / "a").write_text(f"#!/bin/sh\n{ih.MARKER}\n")
    (tmp_path / "b").write_text("#!/bin/sh\n")
    assert ih.is_ours(tmp_path / "a")
    assert not ih.is_ours(tmp_path / "b")
    assert not ih.is_ours(tmp_path / "missing")


def test_the_commands_print_what_they_did(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(git_repo)
    ns = argparse.Namespace(protocol="strict", force=False)
    assert ih.cmd_install(ns) == 0
    assert capsys.readouterr().out.count("installed ") == 4
    assert ih.cmd_uninstall(argparse.Namespace()) == 0
    assert capsys.readouterr().out.count("removed ") == 4
    assert ih.cmd_uninstall(argparse.Namespace()) == 0
    assert capsys.readouterr().out == "no orchestrate hooks installed\n"


def test_outside_a_repository_install_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    with pytest.raises(UsageError):
        ih.cmd_install(argparse.Namespace(protocol="strict", force=False))


def test_the_parsers_take_the_protocol_and_force() -> None:
    parser = argparse.ArgumentParser()
    ih.add_install_parsers(parser.add_subparsers(dest="cmd"))
    args = parser.parse_args(["install-hooks", "--protocol", "legacy-v1", "--force"])
    assert (args.protocol, args.force, args.func) == ("legacy-v1", True, ih.cmd_install)
    assert parser.parse_args(["install-hooks"]).protocol == "strict"
    assert parser.parse_args(["uninstall-hooks"]).func is ih.cmd_uninstall
