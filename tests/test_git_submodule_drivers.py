"""Issue 24, class 3, drivers named only in a submodule's own configuration.

Git enters a checked-out submodule to ask whether it changed (`status`, `diff` and
`diff-index` against the work tree, `add`), and there runs the clean filter or textconv
the submodule's own config names for the attributes its files carry. The
superproject's config does not name them, so emptying the drivers it names is not
enough. A real superproject is built with three nested repositories: a submodule, a
submodule of that submodule, and a repository added as a gitlink without
`.gitmodules`; each names the drivers in its own config, and a file in each is changed
with its size kept and an old time stamp (so git must run the filter to compare). Then
orchestrate's git calls run, directly and through each entry; the marker must not
appear. The bound on how many nested repositories are read is a `GitError`, never a
silent skip.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from gate_support import commit_files
from helpers import git
from shell_gate_support import claude_pre_tool

from orchestrator.core.engine import LintRequest
from orchestrator.deadline import Deadline
from orchestrator.git import runner
from orchestrator.git.runner import Git, GitError, nested_driver_settings
from orchestrator.usecases.changed_paths import git_changed_paths
from orchestrator.usecases.doctor import doctor
from orchestrator.usecases.gate import gate
from orchestrator.usecases.lint import NO_TASKS, lint

#: The driver settings each nested repository's own config gets ({prog}: the marker).
DRIVERS = (
    ("filter.evil.clean", "{prog}"),
    ("filter.evil.smudge", "{prog}"),
    ("filter.evil.process", "{prog}"),
    ("diff.evil.textconv", "{prog}"),
    ("diff.evil.cachetextconv", "0"),
    ("diff.evil.command", "{prog}"),
)
ALLOW_FILE = ("-c", "protocol.file.allow=always")


def _program(tmp: Path, mark: Path) -> Path:
    prog = tmp / "prog.sh"
    prog.write_text(f"#!/bin/sh\necho \"$0 $*\" >> '{mark}'\ncat\nexit 0\n")
    prog.chmod(0o755)
    return prog


def _library(path: Path, name: str) -> Path:
    """A repository whose every file goes through the `evil` drivers."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    commit_files(path, {".gitattributes": "* filter=evil diff=evil\n", f"{name}.txt": "aa\n"}, name)
    return path


@pytest.fixture
def superproject(git_repo: Path, tmp_path: Path) -> tuple[Path, Path, list[Path]]:
    """The project, the marker path, and the three nested repositories (drivers set
    in each one's own config only; a same-size change in each)."""
    mark = tmp_path / "ran"
    prog = _program(tmp_path, mark)
    inner = _library(tmp_path / "src" / "inner", "inner")
    lib = _library(tmp_path / "src" / "lib", "lib")
    git(lib, *ALLOW_FILE, "submodule", "add", "-q", str(inner), "inner")
    git(lib, "commit", "-q", "-m", "inner")
    commit_files(git_repo, {"app.py": "VALUE = 1\n"}, "base")
    git(git_repo, *ALLOW_FILE, "submodule", "add", "-q", str(lib), "lib")
    git(git_repo, *ALLOW_FILE, "submodule", "update", "-q", "--init", "--recursive")
    embedded = _library(git_repo / "vendored", "vendored")
    git(git_repo, "add", "vendored")  # a gitlink with no .gitmodules entry
    git(git_repo, "commit", "-q", "-m", "submodules")
    nested = [git_repo / "lib", git_repo / "lib" / "inner", embedded]
    for repo in nested:
        for key, value in DRIVERS:
            git(repo, "config", key, value.format(prog=prog))
        name = next(p for p in repo.glob("*.txt"))
        name.write_text("bb\n")
        os.utime(name, (1_000_000, 1_000_000))
    (git_repo / "app.py").write_text("VALUE = 2\n")
    mark.unlink(missing_ok=True)
    return git_repo, mark, nested


def test_git_itself_runs_the_submodules_drivers(
    superproject: tuple[Path, Path, list[Path]],
) -> None:
    """The attack is real: a plain `git status` in the superproject runs them."""
    repo, mark, _nested = superproject
    git(repo, "status", "--porcelain")
    assert mark.exists()


@pytest.mark.parametrize(
    "args",
    [
        ("status", "--porcelain=v1", "-z", "--untracked-files=all"),
        ("diff", "--name-only", "-z", "HEAD", "--"),
        ("diff-index", "HEAD"),
        ("diff", "HEAD", "--", "lib"),
    ],
    ids=" ".join,
)
def test_the_runner_empties_every_nested_driver(
    superproject: tuple[Path, Path, list[Path]], args: tuple[str, ...]
) -> None:
    repo, mark, _nested = superproject
    Git(repo, Deadline.after(60)).run(*args, check=False)
    assert not mark.exists(), mark.read_text()[:300]


def test_a_private_index_replay_of_add_runs_no_nested_driver(
    superproject: tuple[Path, Path, list[Path]], tmp_path: Path
) -> None:
    repo, mark, _nested = superproject
    index = tmp_path / "index"
    index.write_bytes((repo / ".git" / "index").read_bytes())
    Git(repo, Deadline.after(60), {**os.environ, "GIT_INDEX_FILE": str(index)}).run("add", "-A")
    assert not mark.exists(), mark.read_text()[:300]


def test_each_nested_repository_is_read(superproject: tuple[Path, Path, list[Path]]) -> None:
    repo, _mark, _nested = superproject
    settings = dict(nested_driver_settings(repo, runner.git_env(None), Deadline.after(60)))
    assert settings["filter.evil.clean"] == ""
    assert settings["filter.evil.required"] == "false"
    assert settings["diff.evil.textconv"] == ""


def _entries(repo: Path) -> dict[str, Callable[[], object]]:
    return {
        "lint": lambda: lint(LintRequest(project_root=repo, cwd=repo, timeout=120), NO_TASKS),
        "doctor": lambda: doctor(repo, timeout=120),
        "gate commit": lambda: gate("commit", timeout=120, cwd=repo, env=dict(os.environ)),
        "changed paths": lambda: git_changed_paths(repo, Deadline.after(60)),
        "pre-tool commit -a": lambda: claude_pre_tool(repo, "git commit -a -q -m x"),
        "pre-tool add then commit": lambda: claude_pre_tool(
            repo, "git add lib app.py && git commit -q -m x"
        ),
        "pre-tool add -A then commit": lambda: claude_pre_tool(
            repo, "git add -A && git commit -q -m x"
        ),
    }


@pytest.mark.parametrize("entry", sorted(_entries(Path("."))))
def test_no_entry_runs_a_nested_driver(
    superproject: tuple[Path, Path, list[Path]], entry: str
) -> None:
    repo, mark, _nested = superproject
    _entries(repo)[entry]()
    assert not mark.exists(), mark.read_text()[:300]


def test_past_the_bound_is_an_error_not_a_skip(
    superproject: tuple[Path, Path, list[Path]], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _mark, _nested = superproject
    monkeypatch.setattr(runner, "MAX_NESTED_REPOSITORIES", 2)
    with pytest.raises(GitError, match="submodules"):
        Git(repo, Deadline.after(60))
    monkeypatch.setattr(runner, "MAX_NESTED_REPOSITORIES", 256)
    monkeypatch.setattr(runner, "MAX_NESTED_DEPTH", 1)
    with pytest.raises(GitError, match="deeper"):
        Git(repo, Deadline.after(60))


def test_a_repository_without_submodules_reads_none(git_repo: Path) -> None:
    commit_files(git_repo, {"a.py": "A = 1\n"}, "a")
    assert nested_driver_settings(git_repo, runner.git_env(None), Deadline.after(60)) == []


# ---------------------------------------------------------------- a second, adversarial pass


@pytest.fixture
def subfolder(superproject: tuple[Path, Path, list[Path]]) -> tuple[Path, Path]:
    """A tracked folder of the superproject with no submodule under it (git run from
    there still enters every submodule of the tree); and the marker."""
    repo, mark, _nested = superproject
    commit_files(repo, {"src/a.py": "A = 1\n"}, "src")
    (repo / "src" / "a.py").write_text("A = 2\n")
    mark.unlink(missing_ok=True)
    return repo / "src", mark


@pytest.mark.parametrize(
    "args",
    [("status", "--porcelain=v1", "-z"), ("diff-index", "HEAD"), ("add", "-u", ":/")],
    ids=" ".join,
)
def test_a_runner_started_in_a_subfolder_empties_every_nested_driver(
    subfolder: tuple[Path, Path], tmp_path: Path, args: tuple[str, ...]
) -> None:
    """`git ls-files` from a subfolder lists only that folder: the submodules elsewhere
    in the tree were not read, yet git enters them."""
    cwd, mark = subfolder
    index = tmp_path / "index"
    index.write_bytes((cwd.parent / ".git" / "index").read_bytes())
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    Git(cwd, Deadline.after(60), env).run(*args, check=False)
    assert not mark.exists(), mark.read_text()[:300]


@pytest.mark.parametrize(
    "command", ["git commit -a -q -m x", "git add -A :/ && git commit -q -m x"]
)
def test_the_pre_tool_gate_in_a_subfolder_runs_no_nested_driver(
    subfolder: tuple[Path, Path], command: str
) -> None:
    cwd, mark = subfolder
    claude_pre_tool(cwd, command)
    assert not mark.exists(), mark.read_text()[:300]


def test_a_work_tree_named_by_the_environment_empties_every_nested_driver(
    superproject: tuple[Path, Path, list[Path]], tmp_path: Path
) -> None:
    """git run from elsewhere on `GIT_DIR` / `GIT_WORK_TREE`: the submodules' paths are
    the work tree's, not the folder git was started in."""
    repo, mark, _nested = superproject
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "GIT_DIR": str(repo / ".git"), "GIT_WORK_TREE": str(repo)}
    Git(elsewhere, Deadline.after(60), env).run("status", "--porcelain", check=False)
    assert not mark.exists(), mark.read_text()[:300]


@pytest.mark.parametrize(
    "command",
    [
        "git add fresh && git commit -a -q -m x",
        "git add fresh app.py && git add -u && git commit -q -m x",
        "git add -A && git commit -q -m x",
    ],
)
def test_a_repository_the_replay_stages_runs_no_driver(
    superproject: tuple[Path, Path, list[Path]], tmp_path: Path, command: str
) -> None:
    """A nested repository not yet in the index (say unpacked by an earlier command)
    becomes a gitlink by the command's own `git add`; the replay's next step (`add -u`)
    enters it and would run the drivers its config names (named apart from the
    others', so that no earlier emptying covers them)."""
    repo, mark, _nested = superproject
    prog = tmp_path / "prog.sh"
    fresh = repo / "fresh"
    fresh.mkdir()
    git(fresh, "init", "-q", "-b", "main")
    files = {".gitattributes": "* filter=other diff=other\n", "fresh.txt": "aa\n"}
    commit_files(fresh, files, "fresh")
    for key, value in DRIVERS:
        git(fresh, "config", key.replace(".evil.", ".other."), value.format(prog=prog))
    (fresh / "fresh.txt").write_text("bb\n")
    os.utime(fresh / "fresh.txt", (1_000_000, 1_000_000))
    mark.unlink(missing_ok=True)
    claude_pre_tool(repo, command)
    assert not mark.exists(), mark.read_text()[:300]
    git(repo, "add", "fresh")
    git(repo, "add", "-u")  # the attack is real: git itself runs them here
    assert mark.exists()


def test_a_submodule_whose_work_tree_lies_elsewhere_is_read_there(
    git_repo: Path, tmp_path: Path
) -> None:
    """A submodule `lib` whose own config sets `core.worktree` to another folder: git
    entering `lib` works on that folder and enters the gitlinks found there (`inner`,
    with its own drivers), not under `lib`."""
    mark = tmp_path / "ran"
    prog = _program(tmp_path, mark)
    commit_files(git_repo, {"a.txt": "x\n"}, "base")
    libgit = tmp_path / "libgit"
    (git_repo / "lib").mkdir()
    git(git_repo / "lib", "init", "-q", "-b", "main", f"--separate-git-dir={libgit}")
    elsewhere = git_repo / "elsewhere"
    inner = _library(elsewhere / "inner", "inner")
    (elsewhere / "y").write_text("y\n")
    git(git_repo, f"--git-dir={libgit}", "config", "core.worktree", str(elsewhere))
    git(git_repo, f"--git-dir={libgit}", f"--work-tree={elsewhere}", "add", "y")
    inner_head = git(inner, "rev-parse", "HEAD").strip()
    git(elsewhere, f"--git-dir={libgit}", "update-index", "--add", "--cacheinfo",
        f"160000,{inner_head},inner")  # fmt: skip
    git(elsewhere, f"--git-dir={libgit}", "commit", "-q", "-m", "inner")
    lib_head = git(git_repo, f"--git-dir={libgit}", "rev-parse", "HEAD").strip()
    git(git_repo, "update-index", "--add", "--cacheinfo", f"160000,{lib_head},lib")
    git(git_repo, "commit", "-q", "-m", "lib")
    for key, value in DRIVERS:
        git(inner, "config", key, value.format(prog=prog))
    (inner / "inner.txt").write_text("bb\n")
    os.utime(inner / "inner.txt", (1_000_000, 1_000_000))
    mark.unlink(missing_ok=True)
    Git(git_repo, Deadline.after(60)).run("status", "--porcelain", check=False)
    assert not mark.exists(), mark.read_text()[:300]
    git(git_repo, "status", "--porcelain")  # the attack is real: git itself runs it
    assert mark.exists()
