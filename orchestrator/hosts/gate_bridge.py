"""The router's bridge to the strict gates and to task verification.

The gate is the same composition `orchestrate gate commit|push` runs (surface ->
core -> evaluate_gate), bound to the event's project root instead of the process's
cwd. For a push seen before it happens (an agent's shell `git push`), the pushed
range is the current branch against its upstream as git knows it locally; the
installed pre-push hook still checks the exact ranges git reports.
"""

from __future__ import annotations

from pathlib import Path

from orchestrator.core.report import Report
from orchestrator.deadline import Deadline


def run_gate(kind: str, root: Path, timeout: float, rev: str = "HEAD") -> Report:
    """The strict `kind` gate ("commit" | "push" | "ci") for the repository at `root`.

    Raises on an internal fault: the router turns any exception into a refusal.
    """
    from orchestrator.cli.gate import check_surface, required_for
    from orchestrator.decisions.gate import evaluate_gate
    from orchestrator.gates.legacy import legacy_skip_sources
    from orchestrator.git.push import current_push, push_surface
    from orchestrator.git.repo import open_repo
    from orchestrator.git.surfaces import ci_surface, commit_surface

    deadline = Deadline.after(timeout)
    git = open_repo(deadline, cwd=root)
    required = required_for(git.root)
    if kind == "commit":
        surface = commit_surface(git)
    elif kind == "ci":
        surface = ci_surface(git, rev)
    else:
        updates, remote = current_push(git)
        surface = push_surface(git, updates, remote)
    report = check_surface(git, kind, surface, timeout)
    for source in legacy_skip_sources(git):
        report.notes.append(
            f"legacy skip present ({source}) and ignored: strict gates accept no skip; "
            "the full contract was checked"
        )
    report.gate = evaluate_gate(report, required)
    return report


def verify(root: Path, task_id: str, timeout: float) -> object:
    """repair_ready: local task facts first, then the original checker's recheck."""
    from orchestrator.tasks.verify import repair_ready

    return repair_ready(root, task_id, Deadline.after(timeout))
