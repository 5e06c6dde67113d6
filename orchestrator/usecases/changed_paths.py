"""The changed files git sees, for an edit whose paths the host could not name.

(Which shell commands commit or push is read by the Bash analyser in
`orchestrator/shell/`; this module only re-determines an edit's scope from git.)
"""

from __future__ import annotations

import os
from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.git.listing import status
from orchestrator.git.runner import Git, GitError


def git_changed_paths(root: Path, deadline: Deadline) -> list[str] | None:
    """Every changed or untracked path git reports under `root` (project-relative
    POSIX, sorted), from `git status --porcelain -z`; None when git cannot tell (no
    repository, timeout).

    Nothing here judges whether a path is safe to read: a symlink that escapes the
    root, a FIFO or socket where a file was, a folder in place of a tracked file or a
    nested repository, a name lint refuses are all listed, so that lint's own
    selection (core/selection.py, through `usecases/agent.lint_here`) decides each one
    and its `unsafe` scope reaches the report. Left out are only a deletion with
    nothing at its path now (nothing to check) and orchestrate's own workspace.
    """
    try:
        git = Git(root, deadline)
    except GitError:
        return None  # the drivers git might run could not be read: git is not asked
    top = git.answer("rev-parse", "--show-toplevel")
    try:
        entries = status(git, ".") if top is not None else None
    except GitError:
        entries = None
    if top is None or entries is None:
        return None
    toplevel = Path(top).resolve()
    paths: set[str] = set()
    for entry in entries:
        # Lexical, never resolved: resolving is how an escaping link used to vanish.
        where = Path(os.path.normpath(toplevel / entry.path))
        # "D" is also how git shows a file turned into a folder: keep what exists.
        if entry.deleted and not os.path.lexists(where):
            continue
        try:
            posix = where.relative_to(root).as_posix()
        except ValueError:
            # Not under the root (git was asked for "." so this should not happen):
            # the absolute path goes to lint, whose selection says "outside the root".
            posix = str(where)
        if posix != ".orchestrate" and not posix.startswith(".orchestrate/"):
            paths.add(posix)
    return sorted(paths)
