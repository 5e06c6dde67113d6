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
