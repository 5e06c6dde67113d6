"""The one git runner: literal argv, the pinned environment, the deadline, the budget.

The git here is a fake: a script named `git` that the test writes into its own folder
and puts first on PATH, so a hang or a flood is certain and no real repository is touched.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from orchestrator.deadline import Deadline
from orchestrator.git.repo import (
    NoRepository,
    config_get,
    find_repo,
    hooks_path,
    in_work_tree,
    open_repo,
)
from orchestrator.git.runner import Git, GitError, GitQuery, git_env


def _fake_git(tmp_path: Path, body: str) -> dict[str, str]:
    """An environment whose PATH starts with a fake `git` running the shell `body`."""
    fake_bin = tmp_path / "fake-bin"
    fake_bin.mkdir(exist_ok=True)
    script = fake_bin / "git"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(0o755)
    return {**os.environ, "PATH": f"{fake_bin}{os.pathsep}{os.environ.get('PATH', '')}"}


def test_deadline_kills_a_hanging_git(tmp_path: Path) -> None:
    env = _fake_git(tmp_path, "sleep 60 & wait")
    start = time.monotonic()
    # The runner's first call, the read of the drivers, hangs: a GitError, never a
    # runner with no driver emptied.
    with pytest.raises(GitError, match="git config: timed out"):
        Git(tmp_path, Deadline.after(0.5), env).run("status")
    assert time.monotonic() - start < 10
    # The soft answers treat the same hang as "git cannot say", never as a crash.
    query = GitQuery(tmp_path, Deadline.after(0.3), env)
    assert query.answer("rev-parse", "HEAD") is None and not query.ok("rev-parse", "HEAD")


def test_output_over_budget_is_an_error(tmp_path: Path) -> None:
    env = _fake_git(tmp_path, "head -c 200000 /dev/zero")
    with pytest.raises(GitError, match="over budget"):
        Git(tmp_path, Deadline.after(30), env).run("ls-files", budget=1000)


def test_failure_reason_is_bounded_and_names_the_exit(tmp_path: Path) -> None:
    env = _fake_git(tmp_path, "printf 'fatal: %0500d' 0 >&2; exit 128")
    with pytest.raises(GitError) as info:
        GitQuery(tmp_path, Deadline.after(30), env).run("rev-parse", "HEAD")
    assert "git rev-parse: exit 128" in str(info.value) and len(str(info.value)) < 260
    # The same failure in the read of the drivers is named as that, bounded too.
    with pytest.raises(GitError) as info:
        Git(tmp_path, Deadline.after(30), env)
    message = str(info.value)
    assert "driver programs cannot be read: git config: exit 128" in message
    assert len(message) < 320


def test_no_git_on_path_is_an_error_not_a_crash(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path / "empty")}
    with pytest.raises(GitError, match="could not start git"):
        Git(tmp_path, Deadline.after(30), env).run("status")
    assert find_repo(tmp_path, Deadline.after(30), env) is None


def test_argv_is_literal_never_a_shell_string(tmp_path: Path) -> None:
    env = _fake_git(tmp_path, "printf '%s\\0' \"$@\"")
    args = ("ls-files", "-z", "--", "a b; rm -rf ~", "$(id)", "*", "line\nbreak")
    out = Git(tmp_path, Deadline.after(30), env).run(*args).stdout
    assert out.split(b"\0")[:-1] == [a.encode() for a in args]


def test_environment_pins_index_locale_and_locks(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    env = git_env({"GIT_INDEX_FILE": "alt-index", "LC_ALL": "de_DE.UTF-8", "KEEP": "1"})
    assert env["GIT_INDEX_FILE"] == str(tmp_path / "alt-index")
    assert env["LC_ALL"] == "C" and env["GIT_OPTIONAL_LOCKS"] == "0" and env["KEEP"] == "1"
    assert git_env({"GIT_OPTIONAL_LOCKS": "1"})["GIT_OPTIONAL_LOCKS"] == "1"
    fake = _fake_git(tmp_path, 'printf "%s|%s" "$GIT_INDEX_FILE" "$LC_ALL"')
    git = Git(tmp_path, Deadline.after(30), {**fake, "GIT_INDEX_FILE": "rel"})
    assert git.out("x") == f"{tmp_path / 'rel'}|C"


def test_repo_questions(git_repo: Path, tmp_path: Path) -> None:
    lone = tmp_path / "lone"
    lone.mkdir()
    assert in_work_tree(git_repo) and not in_work_tree(lone)
    assert not in_work_tree(git_repo / ".git")
    with pytest.raises(NoRepository):
        open_repo(Deadline.after(30), lone)
    git = open_repo(Deadline.after(30), git_repo / ".")
    assert git.root == git_repo
    assert hooks_path(git) == git_repo / ".git" / "hooks"
    git.run("config", "core.hooksPath", "custom-hooks")
    assert hooks_path(git) == git_repo / "custom-hooks"


def test_config_get_tells_unset_from_empty_and_parses_booleans(git_repo: Path) -> None:
    git = Git(git_repo, Deadline.after(30))
    assert config_get(git, "orchestrate.none") is None
    git.run("config", "orchestrate.empty", "")
    assert config_get(git, "orchestrate.empty") == ""
    git.run("config", "orchestrate.flag", "yes")
    assert config_get(git, "orchestrate.flag") == "yes"
    assert config_get(git, "orchestrate.flag", as_bool=True) == "true"
    git.run("config", "orchestrate.bad", "maybe")
    assert config_get(git, "orchestrate.bad", as_bool=True) is None


def test_a_runner_that_cannot_read_its_drivers_is_a_value_where_git_is_only_asked(
    tmp_path: Path,
) -> None:
    """Where git is only asked (is it tracked, what changed, hygiene's tier), a runner
    that cannot be built is the answer that costs least safety, never an exception:
    tracked (doubt), no changed-path list, untracked and dirty."""
    from orchestrator.git.listing import tracks_path
    from orchestrator.hygiene.gitstate import path_state
    from orchestrator.usecases.changed_paths import git_changed_paths

    missing = tmp_path / "gone"  # git cannot start there: the drivers cannot be read
    assert tracks_path(missing, "a.py", 5) is True
    assert git_changed_paths(missing, Deadline.after(5)) is None
    state = path_state(missing, "a.py")
    assert (state.tracked, state.clean) == (False, False)
