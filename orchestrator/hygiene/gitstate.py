"""Live git state of a path: is it tracked, and is the worktree clean there.

A lifecycle delete may only be auto when git can give the content back: every file
under the path is tracked and unmodified, and nothing untracked or ignored sits there
(git history could not restore it). Outside a git repository nothing is tracked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.git.listing import ls_files, status
from orchestrator.git.runner import Git, GitError

#: Seconds one git state question (a path, or a whole snapshot) may take.
GIT_SECONDS = 30.0


@dataclass(frozen=True)
class GitState:
    """Tracked: git knows at least one file at the path. Clean: no change, no stranger."""

    tracked: bool
    clean: bool


def _git(root: Path) -> Git:
    return Git(root, Deadline.after(GIT_SECONDS))


def path_state(root: Path, rel: str) -> GitState:
    """Ask git now about `rel` (a file or a directory, relative POSIX path).

    Uses `git ls-files` and `git status --porcelain --ignored --untracked-files=all`;
    any git failure counts as untracked and dirty, so it can only make a tier stricter.
    """
    try:
        git = _git(root)
        tracked = bool(ls_files(git, rel))
    except GitError:
        return GitState(tracked=False, clean=False)
    try:
        clean = not status(git, rel, ignored=True)
    except GitError:
        clean = False
    return GitState(tracked=tracked, clean=tracked and clean)


@dataclass(frozen=True)
class RepoSnapshot:
    """One look at the whole repository, taken once per scan (three git calls)."""

    is_repo: bool
    tracked: frozenset[str]
    unclean: frozenset[str]  # modified, staged, untracked or ignored paths

    def state(self, rel: str, is_dir: bool = False) -> GitState:
        """Tracked/clean for a file, or for every path under a directory."""
        if not self.is_repo:
            return GitState(False, False)
        if not is_dir:
            tracked = rel in self.tracked
            return GitState(tracked, tracked and rel not in self.unclean)
        prefix = rel.rstrip("/") + "/"
        tracked = any(p.startswith(prefix) for p in self.tracked)
        dirty = any(p.startswith(prefix) or p == prefix for p in self.unclean)
        return GitState(tracked, tracked and not dirty)


NOT_A_REPO = RepoSnapshot(False, frozenset(), frozenset())


def snapshot(root: Path) -> RepoSnapshot:
    """Tracked files and unclean paths of the repository at `root` (relative POSIX);
    not a repository when git fails or `root` lies outside the top level it names."""
    git = _git(root)
    top = git.answer("rev-parse", "--show-toplevel")
    if top is None:
        return NOT_A_REPO
    try:
        listed = ls_files(git, ".", full_name=True)
        entries = status(git, ".", ignored=True)
    except GitError:
        return NOT_A_REPO
    # Paths from git are relative to the top level; re-base them on `root`.
    try:
        base = root.resolve().relative_to(Path(top).resolve()).as_posix()
    except ValueError:
        return NOT_A_REPO
    prefix = "" if base in ("", ".") else base + "/"

    def rebase(paths: list[str]) -> frozenset[str]:
        return frozenset(p[len(prefix) :] for p in paths if p.startswith(prefix))

    return RepoSnapshot(True, rebase(listed), rebase([e.path for e in entries]))
