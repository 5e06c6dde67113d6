"""Building the core's `LintRequest`: the one place a presenter's question becomes one.

`orchestrate lint` (with `--since REV`), `orchestrate baseline` and the language
server's buffer check all ask through here, so a field the core adds is filled in one
module and the editor asks exactly what the command line asks (CG-12).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from orchestrator.core.config import find_project_root
from orchestrator.core.engine import SPOOL_OVER, LintRequest
from orchestrator.core.selection import parse_shard
from orchestrator.deadline import Deadline
from orchestrator.errors import UsageError
from orchestrator.usecases.lint import deadline_for
from orchestrator.vocab import Purpose

#: How long reading the changed files of `--since REV` may take.
SINCE_TIMEOUT_S = 60.0


def project_root(asked: str | None, cwd: Path) -> Path:
    """The project a command runs on: the `--root` the caller asked (resolved), else the
    git top level above `cwd`, else `cwd` (core/config.find_project_root)."""
    return Path(asked).resolve() if asked else find_project_root(cwd)


def lint_request(
    root: Path,
    cwd: Path,
    paths: Sequence[str] = (),
    *,
    feedback: bool = False,
    timeout: float | None = None,
    jobs: int | None = None,
    only: Iterable[str] | None = None,
    require: Iterable[str] | None = None,
    allow_gaps: Iterable[str] | None = None,
    since: bool = False,
    from_hook: bool = False,
    include_generated: bool = False,
    shard: str | None = None,
) -> LintRequest:
    """The request of `orchestrate lint` with these options: the feedback route's entry
    and deadline under `feedback`, the caller's `timeout` otherwise when given; under
    `since` the `paths` are what `since_paths` found (none: an empty run, not the whole
    project) and, like a hook's, not named by the user. A bad `--shard` is a usage error."""
    only_set = frozenset(only) if only else None
    return LintRequest(
        project_root=root,
        paths=tuple(paths),
        targets=[] if since and not paths else None,
        entry="feedback" if feedback else "lint",
        purpose=Purpose.FEEDBACK,
        timeout=timeout or deadline_for(None, feedback),
        jobs=jobs,
        only_checkers=only_set,
        require=tuple(require or ()),
        allow_gaps=frozenset(allow_gaps or ()),
        cwd=cwd,
        paths_named=not (since or from_hook),
        include_generated=include_generated,
        shard=parse_shard(shard) if shard is not None else None,
    )


def spooled(req: LintRequest) -> LintRequest:
    """`req` as `orchestrate lint` runs it: a run of more than core/engine.SPOOL_OVER
    files keeps its rows on disk instead of in memory (every other caller keeps them
    in memory)."""
    return replace(req, spool_over=SPOOL_OVER)


def buffer_request(root: Path, rel: str, timeout: float) -> LintRequest:
    """The request `orchestrate lint --feedback REL` makes from `root`, under `timeout`:
    what the editor asks for one buffer (CG-12)."""
    return LintRequest(
        project_root=root,
        paths=(rel,),
        entry="feedback",
        purpose=Purpose.FEEDBACK,
        timeout=timeout,
        cwd=root,
        paths_named=True,
    )


def baseline_request(root: Path) -> LintRequest:
    """The request `orchestrate baseline` records from: the whole project, a full lint's
    deadline."""
    return LintRequest(project_root=root, timeout=deadline_for(None, False), cwd=root)


@dataclass(frozen=True)
class SinceSelection:
    """The files `--since REV` lints (absolute), or why the base is unknown (`problem`,
    git's own words: the run is then incomplete)."""

    paths: list[str] = field(default_factory=list)
    problem: str = ""


def since_paths(root: Path, rev: str, named: Sequence[str], cwd: Path) -> SinceSelection:
    """The absolute paths changed against the merge-base with `rev`, plus untracked
    files, limited to the `named` paths (relative to `cwd`) when given. No repository,
    or a `rev` that is not a revision name, is a usage error."""
    from orchestrator.git.changed import changed_since
    from orchestrator.git.repo import NoRepository, open_repo

    try:
        git = open_repo(Deadline.after(SINCE_TIMEOUT_S), root)
        changed = changed_since(git, rev)
    except NoRepository as exc:
        raise UsageError(f"--since needs a git repository: {exc}") from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if changed.problem:
        return SinceSelection(problem=changed.problem)
    limits = [(p if Path(p).is_absolute() else cwd / p).resolve() for p in named]
    out = []
    for rel in changed.paths:
        full = git.root / rel
        if not limits or any(full == lim or full.is_relative_to(lim) for lim in limits):
            out.append(str(full))
    return SinceSelection(paths=out)


__all__ = [
    "SINCE_TIMEOUT_S",
    "SinceSelection",
    "baseline_request",
    "buffer_request",
    "lint_request",
    "project_root",
    "since_paths",
    "spooled",
]
