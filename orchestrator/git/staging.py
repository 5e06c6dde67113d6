"""A private index holding what a command's own staging would stage, never the real one.

The pre-tool gate judges a commit before its command runs. When the command stages
first (`git add X && git commit`, `git commit -a`, `git commit PATHS`), the surface is
the index *after* that staging. This module copies the index (or, for `commit PATHS`,
starts from HEAD) into a private temporary folder and replays the staging there with
``GIT_INDEX_FILE`` pointing at the copy. New blobs go to a private object folder too
(``GIT_OBJECT_DIRECTORY``, the repository's objects as alternates): the repository is
never written. A replay git refuses is an error: the command's own staging would fail
the same way, and nothing it would commit is known.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from orchestrator.git.runner import Git, GitError, succeeded, without_hooks

#: Git subcommands a replay may run. `rm` runs as `rm --cached` (the same index, the
#: work tree untouched); `mv` moves files, so it is never replayed.
REPLAYABLE = frozenset({"add", "rm"})


class ReplayFailed(GitError):
    """The command's staging could not be replayed; what it commits is unknown."""


def _absolute(git: Git, path: str) -> str:
    return path if os.path.isabs(path) else str((git.root / path).resolve())


@contextmanager
def replayed_index(
    git: Git,
    staging: Sequence[Sequence[str]] = (),
    only_paths: Sequence[str] | None = None,
) -> Iterator[dict[str, str]]:
    """Yield the GIT_* variables naming a private index after `staging` (each a git argv
    such as ``("add", "--", "a.py")``, run in `git.root`; never the work tree); with `only_paths`, the index
    is HEAD plus those paths as the work tree holds them (`git commit PATHS`).

    Nothing to replay yields ``{}`` (the real index is the surface). `ReplayFailed`
    when a step fails or is not a staging command; the folder is removed on exit.
    """
    if not staging and only_paths is None:
        yield {}
        return
    index = _absolute(git, git.out("rev-parse", "--git-path", "index"))
    objects = _absolute(git, git.out("rev-parse", "--git-path", "objects"))
    with tempfile.TemporaryDirectory(prefix="orchestrate-index-") as tmp:
        private = Path(tmp)
        (private / "objects").mkdir()
        alternates = [objects, *filter(None, [git.env.get("GIT_ALTERNATE_OBJECT_DIRECTORIES")])]
        extra = {
            "GIT_INDEX_FILE": str(private / "index"),
            "GIT_OBJECT_DIRECTORY": str(private / "objects"),
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": os.pathsep.join(alternates),
        }
        # The replay writes an index: git would run the repository's post-index-change
        # hook on it. No hook of the repository runs inside the gate.
        sub = Git(git.root, git.deadline, without_hooks({**git.env, **extra}))
        steps = [list(s) for s in staging]
        if only_paths is not None:
            tree = sub.answer("rev-parse", "--verify", "-q", "HEAD^{tree}")
            _step(sub, ["read-tree", tree or "--empty"])
            steps = [["add", "--", *only_paths]]
        elif os.path.isfile(index):
            # copy2 keeps the index's mtime: git's racy-clean check compares each entry
            # with it, and a fresh mtime would hide a same-size edit made in the same
            # second the index was written (`commit -a` would then stage nothing).
            shutil.copy2(index, private / "index")
        for n, argv in enumerate(steps):
            if not argv or argv[0] not in REPLAYABLE:
                raise ReplayFailed("not a replayable staging command")
            if n:
                # A step may have staged a nested repository as a gitlink (`git add
                # sub`); the next one enters it: read its drivers again, to empty them.
                sub = Git(git.root, git.deadline, without_hooks({**git.env, **extra}))
            _step(sub, argv if argv[0] == "add" else ["rm", "--cached", *argv[1:]])
        yield extra


def _step(git: Git, argv: list[str]) -> None:
    res = git.run(*argv, check=False, budget=1024 * 1024)
    if not succeeded(res):
        raise ReplayFailed(f"git {argv[0]}: the staging step fails")
