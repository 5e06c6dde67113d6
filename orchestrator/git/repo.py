"""Which repository: the work tree around a folder, its hooks folder, its config values."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.errors import UsageError
from orchestrator.git.runner import Git, GitQuery, succeeded
from orchestrator.statmemo import StatMemo

#: Seconds a "is this a work tree?" probe may take when the caller gives no deadline.
PROBE_SECONDS = 5.0
NO_REPO = (
    "no target repository: {cwd} is not inside a git work tree; nothing was scanned "
    "and delivery was not evaluated (use `orchestrate lint` to check a folder)"
)


class NoRepository(UsageError):
    """A git event outside any git work tree (CG-06)."""


_TOPS = StatMemo()
#: Environment variables besides GIT_* that change where git finds a repository.
_DISCOVERY_ENV = ("HOME", "XDG_CONFIG_HOME", "PATH")


def _discovery_files(cwd: Path, top: Path | None, env: Mapping[str, str]) -> list[str]:
    """The files git's answer on the top level rests on: `cwd` and each folder up to the
    top (or the file system's root) with its `.git`, the repository's HEAD and config,
    and the global config files (`safe.directory`)."""
    here = Path(os.path.abspath(cwd))
    files: list[str] = []
    for folder in (here, *here.parents):
        files += [str(folder), str(folder / ".git")]
        if top is not None and str(folder) == str(top):
            break
    if top is not None:
        files += [str(top / ".git" / "HEAD"), str(top / ".git" / "config")]
    home = env.get("HOME", "")
    xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    files += [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config")]
    return [*files, "/etc/gitconfig"]


def find_repo(cwd: Path, deadline: Deadline, env: Mapping[str, str] | None = None) -> Path | None:
    """The top of the work tree containing `cwd`, or None when there is no git work tree
    (or git cannot say: not installed, `cwd` missing, deadline passed).

    A warm engine (orchestrator/statmemo.py) keeps a found answer while the folders,
    `.git` entries and config files it rests on keep their stat, under the same git
    environment; a failure is never kept (it may be the deadline)."""
    git = GitQuery(cwd, deadline, env)
    if any(git.env.get(k) for k in _NAMED_ELSEWHERE):
        return _top(git)  # the environment names the repository or its config: ask git
    seen = tuple(
        sorted((k, v) for k, v in git.env.items() if k.startswith("GIT_") or k in _DISCOVERY_ENV)
    )
    return _TOPS.get(
        (os.path.abspath(cwd), seen),  # the engine serves clients in other folders
        lambda top: _discovery_files(cwd, top, git.env) if top is not None else None,
        lambda: _top(git),
    )


#: Variables that point git at a repository or config files elsewhere.
_NAMED_ELSEWHERE = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
)


def _top(git: Git) -> Path | None:
    top = git.answer("rev-parse", "--show-toplevel")
    return Path(top) if top else None


def open_repo(
    deadline: Deadline, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> Git:
    """The git runner for the work tree around `cwd` (default: the process's cwd), run
    with `env` (default: the process's environment); `NoRepository` when there is none."""
    cwd = cwd or Path.cwd()
    root = find_repo(cwd, deadline, env)
    if root is None:
        raise NoRepository(NO_REPO.format(cwd=cwd))
    return Git(root, deadline, env)


def in_work_tree(cwd: Path, deadline: Deadline | None = None) -> bool:
    """True when `cwd` lies inside a git work tree (False inside ``.git`` or a bare
    repository, and whenever git cannot answer in time)."""
    git = GitQuery(cwd, deadline or Deadline.after(PROBE_SECONDS))
    return git.answer("rev-parse", "--is-inside-work-tree") == "true"


def config_get(git: Git, key: str, *, as_bool: bool = False, exact: bool = False) -> str | None:
    """The value of `key` as git resolves it (``-c``, includes, every config level), or
    None when it is unset or git fails. With `as_bool`, git's own boolean parsing
    normalises it to "true"/"false" and a value git cannot parse counts as unset. With
    `exact`, the value comes back byte for byte (read NUL-terminated: a newline or blank
    the value itself ends with is kept).

    A key set to the empty string returns "" (it is present), unlike None (absent).
    """
    args = [
        "config",
        *(["--type=bool"] if as_bool else []),
        *(["--null"] if exact else []),
        "--get",
        key,
    ]
    res = git.run(*args, check=False, budget=64 * 1024)
    if not succeeded(res):
        return None
    text = res.stdout.decode("utf-8", "surrogateescape")
    return text.removesuffix("\0") if exact else text.rstrip("\n")


def hooks_path(git: Git) -> Path:
    """The folder git runs hooks from (``rev-parse --git-path hooks``: honours
    ``core.hooksPath``), absolute. `GitError` when git cannot say."""
    path = Path(git.out("rev-parse", "--git-path", "hooks"))
    return path if path.is_absolute() else (git.root / path)
