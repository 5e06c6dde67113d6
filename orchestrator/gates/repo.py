"""The repository a delivery event acts on: found from a folder, or a usage error."""

from __future__ import annotations

from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.errors import UsageError
from orchestrator.git.surface import Git, find_repo

NO_REPO = (
    "no target repository: {cwd} is not inside a git work tree; nothing was scanned "
    "and delivery was not evaluated (use `orchestrate lint` to check a folder)"
)


class NoRepository(UsageError):
    """A git event outside any git work tree (CG-06)."""


def open_repo(deadline: Deadline, cwd: Path | None = None) -> Git:
    """The git runner for the work tree around `cwd`; NoRepository when there is none."""
    cwd = cwd or Path.cwd()
    root = find_repo(cwd, deadline)
    if root is None:
        raise NoRepository(NO_REPO.format(cwd=cwd))
    return Git(root, deadline)


__all__ = ["NO_REPO", "NoRepository", "open_repo"]
