"""What git lists: file names (``ls-files -z``) and worktree state (``status -z``).

Both readers use the NUL-separated form, so no name is quoted or escaped: a name may
hold spaces, newlines or bytes that are not UTF-8 (kept as surrogate escapes, the way
`os.fsdecode` does, so they map back to the same bytes on disk). Paths are POSIX and
relative to where git reports them (see each function).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.git.runner import Git, GitError, succeeded


def split_z(data: bytes) -> list[str]:
    """NUL-terminated records as text (surrogate escapes for non-UTF-8 bytes)."""
    parts = data.decode("utf-8", "surrogateescape").split("\0")
    if parts and parts[-1] == "":
        parts.pop()
    return parts


def ls_files(
    git: Git, *pathspecs: str, untracked: bool = False, full_name: bool = False
) -> list[str]:
    """Index paths under `pathspecs` (``git ls-files -z``), in git's order.

    Paths are relative to the runner's folder, or to the top level with `full_name`.
    With `untracked`, files that are untracked but not ignored are listed too.
    `GitError` when git fails.
    """
    args = ["ls-files", "-z"]
    if full_name:
        args.append("--full-name")
    if untracked:
        args += ["--cached", "--others", "--exclude-standard"]
    return [p for p in split_z(git.run(*args, "--", *pathspecs).stdout) if p]


def check_ignore(git: Git, paths: list[str]) -> set[str] | None:
    """Which of `paths` (relative to the runner's folder) git ignores
    (``git check-ignore -z --stdin``); None when git could not say."""
    if not paths:
        return set()
    asked = b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)
    res = git.run("check-ignore", "-z", "--stdin", stdin=asked, check=False)
    # Exit 0: some are ignored, 1: none is; anything else is git failing.
    if not res.ok or res.returncode not in (0, 1):
        return None
    return set(split_z(res.stdout))


@dataclass(frozen=True)
class StatusEntry:
    """One ``git status --porcelain=v1`` entry.

    `code` is the two-letter XY (index, worktree): " M", "A ", "R ", "??", "!!" ...
    `path` is relative to the top level; `orig_path` is the source of a rename or copy.
    """

    code: str
    path: str
    orig_path: str | None = None

    @property
    def deleted(self) -> bool:
        """True when the path is gone from the index or the worktree."""
        return "D" in self.code


def parse_status_z(data: bytes) -> list[StatusEntry]:
    """Parse ``git status --porcelain=v1 -z`` output.

    Each entry is ``XY PATH\\0``; a rename or copy (R or C in either column) is followed
    by its source as a field of its own, ``ORIG\\0``. A field too short to be an entry is
    skipped; a rename whose source field is missing keeps `orig_path` None.
    """
    fields = split_z(data)
    entries: list[StatusEntry] = []
    i = 0
    while i < len(fields):
        item = fields[i]
        i += 1
        if len(item) < 4 or item[2] != " ":
            continue
        code, path = item[:2], item[3:]
        orig = None
        if "R" in code or "C" in code:
            # The source is its own NUL-terminated field: consume it even when it
            # looks like an entry, or it would be misread as one.
            if i < len(fields):
                orig = fields[i]
            i += 1
        entries.append(StatusEntry(code, path, orig))
    return entries


def status(git: Git, *pathspecs: str, ignored: bool = False) -> list[StatusEntry]:
    """Changed, staged and untracked paths under `pathspecs` (every untracked file, not
    just folders), plus ignored ones with `ignored`. `GitError` when git fails."""
    args = ["status", "--porcelain=v1", "-z", "--untracked-files=all"]
    if ignored:
        args.append("--ignored")
    return parse_status_z(git.run(*args, "--", *pathspecs).stdout)


def tracks_path(root: Path, rel: str, seconds: float) -> bool:
    """Whether the repository at `root` tracks the file `rel` (POSIX, relative to
    `root`, taken literally), asked within `seconds`. Any doubt (git fails or does not
    answer in time) counts as tracked."""
    try:
        git = Git(root, Deadline.after(seconds))
    except GitError:
        return True
    res = git.run("ls-files", "-z", "--", f":(literal){rel}", check=False)
    return not succeeded(res) or bool(res.stdout.strip(b"\0"))
