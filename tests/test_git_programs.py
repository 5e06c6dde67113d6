"""orchestrate's own git calls run no program the configuration names.

For every git setting that makes git start a program (fsmonitor, hooks, pager, external
diff, diff and textconv drivers, clean/smudge/process filters, merge drivers, a
signature check, ssh, a remote's upload-pack and receive-pack, transports, alternate
refs), a real repository is configured with a program that writes a marker file, as
the repository's config and as the caller's `git -c` (``GIT_CONFIG_PARAMETERS``, which
git hands its hooks). Then each of orchestrate's git entries runs in-process: lint,
doctor, `gate commit`, `gate push` with a pre-push line, and the agent host's pre-tool
check of `git commit -a` (which replays the staging into a private index) and of
`git push`. The marker must not appear.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from gate_support import commit_files
from helpers import add_remote, git
from shell_gate_support import claude_pre_tool

from orchestrator.core.engine import LintRequest
from orchestrator.git.runner import driver_settings, with_settings
from orchestrator.usecases.doctor import doctor
from orchestrator.usecases.gate import gate
from orchestrator.usecases.lint import NO_TASKS, lint

ZERO = "0" * 40
HOOKS = (
    "post-index-change",
    "reference-transaction",
    "pre-auto-gc",
    "post-checkout",
    "post-commit",
    "pre-commit",
    "commit-msg",
    "pre-push",
    "post-rewrite",
    "push-to-checkout",
)


def _program(tmp: Path, mark: Path) -> Path:
    """A program that records it ran, passes its input through and succeeds."""
    prog = tmp / "prog.sh"
    prog.write_text(f"#!/bin/sh\necho \"$0 $*\" >> '{mark}'\ncat\nexit 0\n")
    prog.chmod(0o755)
    return prog


def _hooks_dir(tmp: Path, prog: Path) -> Path:
    hooks = tmp / "evil-hooks"
    hooks.mkdir(exist_ok=True)
    for name in HOOKS:
        (hooks / name).write_text(f"#!/bin/sh\nexec '{prog}' hook {name}\n")
        (hooks / name).chmod(0o755)
    return hooks


#: Each setting: the config (key, value) pairs that make git run the program ({prog};
#: {hooks}: a folder whose every hook runs it).
SETTINGS: dict[str, tuple[tuple[str, str], ...]] = {
    "core.fsmonitor": (("core.fsmonitor", "{prog}"),),
    "core.hooksPath": (("core.hooksPath", "{hooks}"),),
    "core.pager": (("core.pager", "{prog}"), ("pager.status", "{prog}"), ("pager.log", "{prog}")),
    "diff.external": (("diff.external", "{prog}"),),
    "diff.driver.command": (("diff.evil.command", "{prog}"),),
    "diff.driver.textconv": (("diff.evil.textconv", "{prog}"), ("diff.evil.cachetextconv", "0")),
    "filter.clean": (("filter.evil.clean", "{prog}"),),
    "filter.smudge": (("filter.evil.smudge", "{prog}"),),
    "filter.clean.required": (("filter.evil.clean", "{prog}"), ("filter.evil.required", "true")),
    "filter.process": (("filter.evil.process", "{prog}"),),
    "merge.driver": (("merge.evil.driver", "{prog} %O %A %B"),),
    "log.showSignature": (("log.showSignature", "true"), ("gpg.program", "{prog}")),
    "core.sshCommand": (("core.sshCommand", "{prog}"), ("remote.origin.pushurl", "ssh://h/r")),
    "remote.uploadpack": (("remote.origin.uploadpack", "{prog}"),),
    "remote.receivepack": (("remote.origin.receivepack", "{prog}"),),
    "protocol.ext": (("protocol.ext.allow", "always"), ("remote.origin.url", "ext::{prog} %S")),
    "core.alternateRefsCommand": (("core.alternateRefsCommand", "{prog}"),),
}


@pytest.fixture
def repo(git_repo: Path, tmp_path: Path) -> Path:
    """A project with a pushed commit, .gitattributes sending every file through the
    `evil` filter, diff and merge drivers, a signed-looking HEAD, a staged change and
    an unstaged one (so git has content to filter, compare and diff)."""
    commit_files(
        git_repo,
        {".gitattributes": "* filter=evil diff=evil merge=evil\n", "app.py": "VALUE = 1\n"},
        "base",
    )
    add_remote(git_repo, tmp_path / "remote.git")
    commit_files(git_repo, {"app.py": "VALUE = 2\n", "notes.txt": "n\n"}, "second")
    (git_repo / "app.py").write_text("VALUE = 3\n")
    (git_repo / "notes.txt").write_text("staged\n")
    git(git_repo, "add", "notes.txt")
    (git_repo / "notes.txt").write_text("staged and then changed\n")
    return git_repo


def _entries(repo: Path, extra: dict[str, str]) -> dict[str, Callable[[], object]]:
    head = git(repo, "rev-parse", "HEAD").strip()
    old = git(repo, "rev-parse", "refs/remotes/origin/main").strip()
    line = f"refs/heads/main {head} refs/heads/main {old}\n".encode()
    env = {**os.environ, **extra}
    return {
        "lint": lambda: lint(LintRequest(project_root=repo, cwd=repo, timeout=120), NO_TASKS),
        "doctor": lambda: doctor(repo, timeout=120),
        "gate commit": lambda: gate("commit", timeout=120, cwd=repo, env=env),
        "gate push": lambda: gate(
            "push", timeout=120, cwd=repo, remote="origin", stdin=line, env=env
        ),
        "pre-tool commit -a": lambda: claude_pre_tool(repo, "git commit -a -q -m x", extra),
        "pre-tool push": lambda: claude_pre_tool(repo, "git push origin main", extra),
    }


def _configure(repo: Path, tmp: Path, name: str, mark: Path) -> list[tuple[str, str]]:
    prog = _program(tmp, mark)
    hooks = _hooks_dir(tmp, prog)
    return [(k, v.format(prog=prog, hooks=hooks)) for k, v in SETTINGS[name]]


def _run_every_entry(repo: Path, mark: Path, extra: dict[str, str]) -> None:
    ran = []
    for entry, call in _entries(repo, extra).items():
        mark.unlink(missing_ok=True)
        call()
        if mark.exists():
            ran.append(f"{entry}: {mark.read_text().strip()[:200]}")
    assert not ran, ran


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_no_program_the_repository_config_names_runs(
    repo: Path, tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    mark = tmp_path / "ran"
    for key, value in _configure(repo, tmp_path, name, mark):
        git(repo, "config", key, value)
    _run_every_entry(repo, mark, {})


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_no_program_the_callers_git_c_names_runs(
    repo: Path, tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As `git -c KEY=PROG commit` hands its hooks the setting: GIT_CONFIG_PARAMETERS."""
    mark = tmp_path / "ran"
    settings = _configure(repo, tmp_path, name, mark)
    extra = {"GIT_CONFIG_PARAMETERS": with_settings({}, settings)["GIT_CONFIG_PARAMETERS"]}
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", extra["GIT_CONFIG_PARAMETERS"])
    _run_every_entry(repo, mark, extra)


def test_the_driver_settings_empty_every_program_key() -> None:
    listing = (
        b"filter.a.b.clean\nx\0filter.a.b.required\ntrue\0diff.d.textconv\ny\0"
        b"diff.d.binary\ntrue\0merge.m.driver\nz\0remote.o.uploadpack\nu\0remote.o.url\nv\0"
    )
    assert driver_settings(listing) == [
        ("filter.a.b.clean", ""),
        ("filter.a.b.required", "false"),
        ("diff.d.textconv", ""),
        ("merge.m.driver", ""),
        ("remote.o.uploadpack", ""),
    ]
