"""Issue 24, class 3 and the hooks spelling of the pre-tool gate's protected writes:
git's program folders written by git itself or into a hooks folder other than
`.git/hooks`.

A hook is a program git runs at the next commit or push; writing one is a change of
the gate's policy, refused as a `core.hooksPath` change is. The analyser already
refused writers aimed at `.git` (`cp`, `tar -C`, `unzip -d`, ...); it did not read the
folders git itself fills: a work tree inside `.git` (`git --work-tree=.git/hooks
checkout HEAD -- .` writes the tree's `pre-commit` as a hook; also `core.worktree`,
relative to the git folder), `git worktree add`/`move`, `git clone`, `git init` and
`git submodule add` there, nor git's output files (`archive -o`, `diff --output`,
`format-patch -o`, `bundle create`, `checkout-index --prefix`). And a hooks folder named by
`core.hooksPath` inside the work tree (`.husky`, `.githooks`) is a protected place
only the repository's config names: the router asks git for it (`git rev-parse
--git-path hooks`) and refuses a shell write into it, as it refuses an edit there.
Written as an adversary: generated spellings of each git place by each way of
naming the folder. What still passes: the same git commands elsewhere.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from helpers import git
from shell_gate_support import make_project

from orchestrator.hosts.events import Kind, RouterEvent
from orchestrator.hosts.router import RouteResult, route
from orchestrator.shell.analyser import analyse
from orchestrator.shell.records import Reason

#: Folders inside git's own folder, as a command may spell them.
GIT_FOLDERS = (
    ".git/hooks",
    ".git",
    "./.git/hooks/",
    ".git/hooks/sub",
    "x/../.git/hooks",
    ".GIT/hooks",
)
#: Git commands that write files into the folder `{d}`.
GIT_WRITES = (
    "git --work-tree={d} checkout HEAD -- .",
    "git --work-tree={d} checkout -f",
    "git --work-tree {d} restore --source=HEAD --worktree -- .",
    "git --work-tree={d} reset --hard",
    "GIT_WORK_TREE={d} git checkout -- .",
    "env GIT_WORK_TREE={d} git checkout -f HEAD",
    "export GIT_WORK_TREE={d}; git checkout -- .",
    "git worktree add {d}",
    "git worktree add -f {d} main",
    "git worktree add -b tmp {d}",
    "git worktree add --detach {d} HEAD",
    "git clone /tmp/r {d}",
    "git clone -q --depth 1 https://h/r.git {d}",
    "git clone -b main /tmp/r {d}",
    "git clone --separate-git-dir={d} /tmp/r elsewhere",
    "git init {d}",
    "git init -q {d}",
    "git init --separate-git-dir {d} elsewhere",
    "git submodule add /tmp/r {d}",
    "git submodule add -b main /tmp/r {d}",
    "git -C {d} init",
    "git -C {d} clone /tmp/r",
    "cd {d} && git init",
    "GIT_WORK_TREE={d} git init -q",
    "git --work-tree={d} clone /tmp/r elsewhere",
    "git -c core.worktree={d} checkout -f",
    "git config core.worktree {d} && git checkout -f",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.worktree GIT_CONFIG_VALUE_0={d} git checkout -f",
    "git worktree move ../wt {d}",
    "git archive -o {d}/pre-commit HEAD",
    "git archive --output={d}/pre-commit HEAD",
    "git bundle create {d}/pre-commit HEAD",
    "git format-patch -o {d} HEAD~1",
    "git format-patch --output-directory {d} HEAD~1",
    "git diff --output={d}/pre-commit",
    "git log -p --output {d}/pre-push",
    "git checkout-index -a --prefix={d}/",
)


@pytest.mark.parametrize(("write", "folder"), list(itertools.product(GIT_WRITES, GIT_FOLDERS)))
def test_git_filling_a_folder_inside_dot_git_is_forbidden(write: str, folder: str) -> None:
    command = write.format(d=folder)
    for spelled in (command, f"{command} && git commit -m x", f"bash -c '{command}'"):
        result = analyse(spelled)
        assert result.verdict == "forbidden", (spelled, result)
        assert result.reason == Reason.GIT_DIR_WRITE, (spelled, result)


@pytest.mark.parametrize(
    "command",
    [
        "git --work-tree=.orchestrate checkout HEAD -- .",
        "git worktree add .orchestrate/wt",
        "git clone /tmp/r .orchestrate",
    ],
)
def test_git_filling_orchestrates_folder_is_forbidden(command: str) -> None:
    result = analyse(command)
    assert (result.verdict, result.reason) == ("forbidden", Reason.ORCHESTRATE_CONFIG_WRITE)


@pytest.mark.parametrize(
    "command",
    [
        "git worktree add ../wt",
        "git worktree add -b topic ../topic main",
        "git worktree add /tmp/wt HEAD",
        "git clone https://h/r.git",
        "git clone https://h/r.git vendor/r",
        "git clone /tmp/r.git other",
        "git init",
        "git init sub",
        "git --work-tree=. status",
        "git --git-dir=.git --work-tree=. status",
        "GIT_WORK_TREE=../other git status",
        "git submodule add https://h/r.git vendor/r",
        "git submodule update --init",
        "git checkout main",
        "git worktree list",
        "git config core.worktree /srv/wt",
        "git config --unset core.worktree",
        "git archive -o out.tar HEAD",
        "git format-patch -o patches HEAD~3",
        "git diff --output=d.patch",
        "git bundle create repo.bundle --all",
        "git worktree move ../wt ../wt2",
        "git --work-tree=.git/hooks status",
        "GIT_WORK_TREE=$PWD git status",
        "git worktree add ~/wt",
    ],
)
def test_git_filling_ordinary_folders_still_passes(command: str) -> None:
    result = analyse(command)
    assert result.verdict != "forbidden", (command, result)


@pytest.mark.parametrize(
    "command",
    ['git clone url "$DIR"', 'git worktree add "$T/wt"', "GIT_WORK_TREE=$W git checkout -f"],
)
def test_git_filling_a_folder_known_only_at_run_time_is_undeterminable(command: str) -> None:
    assert analyse(command).verdict == "undeterminable", command


# ---------------------------------------------------------------- core.hooksPath


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = make_project(tmp_path, dirty=False).resolve()
    (root / ".husky").mkdir()
    (root / ".husky" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    git(root, "config", "core.hooksPath", ".husky")
    return root


def _shell(root: Path, command: str) -> RouteResult:
    return route(RouterEvent(Kind.SHELL_COMMAND, root, command=command, shell_cwd=root))


#: Writes into the hooks folder `core.hooksPath` names (`.husky`, in the work tree).
HOOK_WRITES = (
    "cp /tmp/x .husky/pre-commit",
    "cp x .husky/",
    "cp -r kit/. .husky",
    "mv x .husky/pre-push",
    "ln -sf /tmp/x .husky/pre-commit",
    "install -m755 x .husky/commit-msg",
    "cat x > .husky/pre-commit",
    "echo 'exit 0' >> .husky/pre-commit",
    "tee .husky/pre-commit < x",
    "printf 'exit 0' | tee -a ./.husky/pre-push",
    "sed -i 's/gate/true/' .husky/pre-commit",
    "truncate -s 0 .husky/pre-commit",
    "rm .husky/pre-commit",
    "dd if=x of=.husky/pre-commit",
    "cd .husky && cp /tmp/x pre-commit",
    "git archive -o .husky/pre-commit HEAD",
    "git show HEAD:x > .husky/pre-commit",
    "git --work-tree=.husky checkout HEAD -- .",
    "git diff --output=.husky/pre-push",
    # a folder an unpacker or a downloader fills
    "tar xf a.tar -C .husky",
    "tar -C.husky -xf a.tar",
    "unzip -o a.zip -d .husky",
    "7z x a.7z -o.husky",
    "wget -P .husky https://h/pre-commit",
    "curl --output-dir .husky -O https://h/pre-commit",
    "curl -o .husky/pre-commit https://h/x",
)


@pytest.mark.parametrize("write", HOOK_WRITES)
def test_a_write_into_the_configured_hooks_folder_is_refused(project: Path, write: str) -> None:
    for command in (write, f"{write} && git commit -m x", f"{write}; git status"):
        res = _shell(project, command)
        assert res.block, (command, res.context)
        assert res.reasons == ("protected_path",), (command, res.reasons)


def test_the_hooks_folder_is_read_from_the_repository_not_guessed(project: Path) -> None:
    """A `.husky` folder git does not run hooks from is an ordinary folder; nor does
    a write elsewhere in the project become one."""
    git(project, "config", "--unset", "core.hooksPath")
    assert not _shell(project, "cp /tmp/x .husky/pre-commit").block
    git(project, "config", "core.hooksPath", ".husky")
    for command in ("cp a b", "echo hi > notes.txt", "cat .husky/pre-commit", "ls .husky"):
        assert not _shell(project, command).block, command
