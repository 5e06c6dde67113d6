"""The changed files git sees, for an edit whose paths the host could not name.

(Which shell commands commit or push is read by the Bash analyser in
`shell_surface.py`; this module only re-determines an edit's scope from git.)
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.git.listing import status
from orchestrator.git.runner import Git, GitError


def git_changed_paths(root: Path, deadline: Deadline) -> list[str] | None:
    """Changed or untracked regular files under `root` (project-relative, sorted), from
    `git status --porcelain -z`; None when git cannot tell (no repository, timeout).

    Deleted paths, paths outside `root` (through a link) and orchestrate's own
    workspace are left out: only files a checker could read now are listed.
    """
    git = Git(root, deadline)
    top = git.answer("rev-parse", "--show-toplevel")
    try:
        entries = status(git, ".") if top is not None else None
    except GitError:
        entries = None
    if top is None or entries is None:
        return None
    toplevel = Path(top).resolve()
    paths: list[str] = []
    for entry in entries:
        if entry.deleted:
            continue
        try:
            real = (toplevel / entry.path).resolve()
            rel = real.relative_to(root)
            if not stat.S_ISREG(os.stat(real).st_mode):
                continue
        except (OSError, ValueError, RuntimeError):
            continue
        posix = rel.as_posix()
        if not posix.startswith(".orchestrate/"):
            paths.append(posix)
    return sorted(set(paths))
