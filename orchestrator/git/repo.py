"""Which repository: the work tree around a folder, its hooks folder, its config values."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.errors import UsageError
from orchestrator.git.runner import Git, succeeded

#: Seconds a "is this a work tree?" probe may take when the caller gives no deadline.
PROBE_SECONDS = 5.0
NO_REPO = (
    "no target repository: {cwd} is not inside a git work tree; nothing was scanned "
    "and delivery was not evaluated (use `orchestrate lint` to check a folder)"
)


class NoRepository(UsageError):
    """A git event outside any git work tree (CG-06)."""


def find_repo(cwd: Path, deadline: Deadline, env: Mapping[str, str] | None = None) -> Path | None:
    """The top of the work tree containing `cwd`, or None when there is no git work tree
    (or git cannot say: not installed, `cwd` missing, deadline passed)."""
    top = Git(cwd, deadline, env).answer("rev-parse", "--show-toplevel")
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
    git = Git(cwd, deadline or Deadline.after(PROBE_SECONDS))
    return git.answer("rev-parse", "--is-inside-work-tree") == "true"


def config_get(git: Git, key: str, *, as_bool: bool = False) -> str | None:
    """The value of `key` as git resolves it (``-c``, includes, every config level), or
    None when it is unset or git fails. With `as_bool`, git's own boolean parsing
    normalises it to "true"/"false" and a value git cannot parse counts as unset.

    A key set to the empty string returns "" (it is present), unlike None (absent).
    """
    args = ["config", *(["--type=bool"] if as_bool else []), "--get", key]
    res = git.run(*args, check=False, budget=64 * 1024)
    if not succeeded(res):
        return None
    return res.stdout.decode("utf-8", "surrogateescape").rstrip("\n")


def hooks_path(git: Git) -> Path:
    """The folder git runs hooks from (``rev-parse --git-path hooks``: honours
    ``core.hooksPath``), absolute. `GitError` when git cannot say."""
    path = Path(git.out("rev-parse", "--git-path", "hooks"))
    return path if path.is_absolute() else (git.root / path)
