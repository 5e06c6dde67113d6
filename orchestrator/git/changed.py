"""`lint --since REV`: the files changed against REV's merge-base, plus untracked ones."""

from __future__ import annotations

from dataclasses import dataclass, field

from orchestrator.git.listing import split_z
from orchestrator.git.objects import has_commit
from orchestrator.git.runner import Git

SHALLOW_FIX = (
    "fetch the full history (GitHub Actions: actions/checkout with `fetch-depth: 0`; "
    "elsewhere `git fetch --unshallow`)"
)


@dataclass(frozen=True)
class Changed:
    """The changed files (top-level relative, sorted), the base they were compared with,
    and, when the base is unknown, why (then `paths` is empty and nothing is judged)."""

    paths: list[str] = field(default_factory=list)
    base: str | None = None
    problem: str = ""


def changed_since(git: Git, rev: str) -> Changed:
    """Files that differ between the merge-base of HEAD and `rev` and the work tree
    (added, copied, modified, renamed; deleted ones are gone), plus untracked files that
    are not ignored. On a shallow clone where `rev` or the merge-base is missing, the
    `problem` says so; `ValueError` when `rev` names no commit in a full clone."""
    shallow = git.answer("rev-parse", "--is-shallow-repository") == "true"
    if rev.startswith("-") or not has_commit(git, rev):
        if shallow:
            return Changed(
                problem=f"shallow clone: {rev} is not in the history here; {SHALLOW_FIX}"
            )
        raise ValueError(f"--since: {rev} names no commit here")
    head = "HEAD" if has_commit(git, "HEAD") else None
    base = git.answer("merge-base", "--end-of-options", head, rev) if head else rev
    if base is None:
        why = "shallow clone" if shallow else "no common history"
        fix = SHALLOW_FIX if shallow else "name a revision HEAD shares history with"
        return Changed(problem=f"{why}: the merge-base of HEAD and {rev} is unknown; {fix}")
    diff = git.run("diff", "--name-only", "-z", "--no-renames", "--diff-filter=d", base, "--")
    others = git.run("ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--")
    paths = {p for p in split_z(diff.stdout) + split_z(others.stdout) if p}
    return Changed(sorted(paths), base)


@dataclass(frozen=True)
class Moves:
    """What changed between two trees, with git's rename detection: the paths of the
    newer side that differ from the older (added, modified, renamed, copied, changed
    in type), each renamed or copied one with its older path in `older`; and the
    older side's paths that are gone or renamed away."""

    changed: frozenset[str] = frozenset()
    older: dict[str, str] = field(default_factory=dict)
    gone: frozenset[str] = frozenset()


def moves(git: Git, base: str, tip: str | None = None) -> Moves:
    """`Moves` from commit `base` to commit `tip`, or to the work tree (and the index)
    when `tip` is None; untracked files count as added there. `GitError` when git fails."""
    args = ["diff", "--name-status", "-z", "-M", "--no-ext-diff", "--no-textconv", base]
    res = git.run(*args, *([tip] if tip else []), "--")
    fields = split_z(res.stdout)
    changed: set[str] = set()
    older: dict[str, str] = {}
    gone: set[str] = set()
    i = 0
    while i < len(fields):
        status = fields[i]
        i += 1
        if not status:
            continue
        if status[0] in "RC":
            old, new = fields[i], fields[i + 1]
            i += 2
            changed.add(new)
            older[new] = old
            if status[0] == "R":
                gone.add(old)
            continue
        path = fields[i]
        i += 1
        if status[0] == "D":
            gone.add(path)
        else:
            changed.add(path)
    if tip is None:
        others = git.run("ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--")
        changed |= {p for p in split_z(others.stdout) if p}
    return Moves(frozenset(changed), older, frozenset(gone))


def merge_base(git: Git, rev: str, head: str = "HEAD") -> tuple[str | None, str | None, str]:
    """(the merge-base of `head` and `rev`, `rev`'s commit, why either is unknown): the
    problem names a shallow clone's fix. `ValueError` when `rev` names no commit in a
    full clone."""
    shallow = git.answer("rev-parse", "--is-shallow-repository") == "true"
    if rev.startswith("-") or not has_commit(git, rev):
        if shallow:
            return None, None, f"shallow clone: {rev} is not in the history here; {SHALLOW_FIX}"
        raise ValueError(f"{rev} names no commit here")
    tip = git.answer("rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}")
    ours = head if has_commit(git, head) else None
    base = git.answer("merge-base", "--end-of-options", ours, rev) if ours else None
    if base is None or tip is None:
        why = "shallow clone" if shallow else "no common history"
        fix = SHALLOW_FIX if shallow else f"name a revision {head[:12]} shares history with"
        return None, None, f"{why}: the merge-base of {head[:12]} and {rev} is unknown; {fix}"
    return base, tip, ""
