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
from orchestrator.git.surface import Git, PushUpdate

ZERO = "0" * 40


def _out(git: Git, *args: str) -> str | None:
    res = git.run(*args, check=False, budget=64 * 1024)
    if not res.ok or res.returncode != 0:
        return None
    return res.stdout.decode("utf-8", "surrogateescape").strip() or None


def current_push(git: Git) -> tuple[list[PushUpdate], str | None]:
    """The update a plain `git push` of the current branch would make, and the remote."""
    head = _out(git, "rev-parse", "--verify", "HEAD^{commit}")
    if head is None:
        return [], None
    ref = _out(git, "symbolic-ref", "-q", "HEAD") or "HEAD"
    branch = ref.removeprefix("refs/heads/")
    remote = _out(git, "config", "--get", f"branch.{branch}.remote") if ref != "HEAD" else None
    remotes = (_out(git, "remote") or "").split()
    if remote is None and remotes:
        remote = "origin" if "origin" in remotes else remotes[0]
    merge = _out(git, "config", "--get", f"branch.{branch}.merge") if ref != "HEAD" else None
    remote_ref = merge or ref
    remote_oid = ZERO
    if remote:
        short = remote_ref.removeprefix("refs/heads/")
        known = _out(
            git, "rev-parse", "--verify", "-q", f"refs/remotes/{remote}/{short}^{{commit}}"
        )
        remote_oid = known or ZERO
    if len(head) == 64 and remote_oid == ZERO:
        remote_oid = "0" * 64
    return [PushUpdate(ref, head, remote_ref, remote_oid)], remote


def run_gate(kind: str, root: Path, timeout: float, rev: str = "HEAD") -> Report:
    """The strict `kind` gate ("commit" | "push" | "ci") for the repository at `root`.

    Raises on an internal fault: the router turns any exception into a refusal.
    """
    from orchestrator.cli.gate import check_surface, open_repo, required_for
    from orchestrator.decisions.gate import evaluate_gate
    from orchestrator.gates.legacy import legacy_skip_sources
    from orchestrator.git.surface import ci_surface, commit_surface, push_surface

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
