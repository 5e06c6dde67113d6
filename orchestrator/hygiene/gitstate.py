"""Live git state of a path: is it tracked, and is the worktree clean there.

A lifecycle delete may only be auto when git can give the content back: every file
under the path is tracked and unmodified, and nothing untracked or ignored sits there
(git history could not restore it). Outside a git repository nothing is tracked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.procs import run_bounded, scrubbed_env

_GIT_TIMEOUT = 30.0


@dataclass(frozen=True)
class GitState:
    """Tracked: git knows at least one file at the path. Clean: no change, no stranger."""

    tracked: bool
    clean: bool


def _git(root: Path, *args: str) -> tuple[bool, bytes]:
    res = run_bounded(
        ["git", "-C", str(root), *args],
        deadline=Deadline.after(_GIT_TIMEOUT),
        env=scrubbed_env(),
        output_budget=64 * 1024 * 1024,
    )
    return res.returncode == 0 and not res.timed_out and not res.over_budget, res.stdout


def path_state(root: Path, rel: str) -> GitState:
    """Ask git now about `rel` (a file or a directory, relative POSIX path).

    Uses `git ls-files` and `git status --porcelain --ignored --untracked-files=all`;
    any git failure counts as untracked and dirty, so it can only make a tier stricter.
    """
    ok_ls, listed = _git(root, "ls-files", "-z", "--", rel)
    ok_st, status = _git(
        root, "status", "--porcelain", "-z", "--ignored", "--untracked-files=all", "--", rel
    )
    tracked = ok_ls and bool(listed.strip(b"\0"))
    clean = ok_st and not status.strip(b"\0")
    return GitState(tracked=tracked, clean=tracked and clean)


@dataclass(frozen=True)
class RepoSnapshot:
    """One look at the whole repository, taken once per scan (two git calls)."""

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


def snapshot(root: Path) -> RepoSnapshot:
    """Tracked files and unclean paths of the repository at `root` (relative POSIX)."""
    ok, top = _git(root, "rev-parse", "--show-toplevel")
    if not ok:
        return RepoSnapshot(False, frozenset(), frozenset())
    ok_ls, listed = _git(root, "ls-files", "-z", "--full-name", "--", ".")
    ok_st, status = _git(
        root, "status", "--porcelain", "-z", "--ignored", "--untracked-files=all", "--", "."
    )
    if not (ok_ls and ok_st):
        return RepoSnapshot(False, frozenset(), frozenset())
    # Paths from git are relative to the top level; re-base them on `root`.
    toplevel = Path(top.decode("utf-8", "surrogateescape").strip())
    try:
        base = root.resolve().relative_to(toplevel.resolve()).as_posix()
    except ValueError:
        return RepoSnapshot(False, frozenset(), frozenset())
    prefix = "" if base in ("", ".") else base + "/"

    def rebase(p: str) -> str | None:
        return p[len(prefix) :] if p.startswith(prefix) else None

    tracked = {
        r
        for p in listed.decode("utf-8", "surrogateescape").split("\0")
        if p and (r := rebase(p)) is not None
    }
    unclean: set[str] = set()
    parts = status.decode("utf-8", "surrogateescape").split("\0")
    i = 0
    while i < len(parts):
        item = parts[i]
        i += 1
        if len(item) < 4:
            continue
        code, path = item[:2], item[3:]
        if code[0] in "RC":
            i += 1  # the rename source follows as its own field
        r = rebase(path)
        if r is not None:
            unclean.add(r)
    return RepoSnapshot(True, frozenset(tracked), frozenset(unclean))
