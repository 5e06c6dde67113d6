"""The lint use case: check paths, add the required-coverage notes, sync tasks.

`lint` is what `orchestrate lint`, `lint --feedback`, the host fast route and the
MCP lint tool call. It owns the policy around the core: the `--require` gaps and
their notes, the note that says a planned check failed, the caller's exit policy
(`--fail-on`, `--exit-zero`; the code itself comes from decisions/exits.py), and the
task budget (a repair loop works on one task per finding; a
backlog of thousands is a clean-up project, so over the budget no task is recorded
and the report says so).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.checkers import project_recipes
from orchestrator.core import plugin_host
from orchestrator.core.config import load_config
from orchestrator.core.engine import LintRequest, excluded_dirs, run_lint
from orchestrator.core.selection import VANISHED, select, unsaved_target
from orchestrator.deadline import FEEDBACK_DEADLINE_S, Deadline
from orchestrator.decisions.coverage import (
    failed_checks,
    is_configured_gap,
    missing_required,
    outside_native,
)
from orchestrator.decisions.exits import DEFAULT_LINT_EXIT, LintExitPolicy, lint_exit_code
from orchestrator.decisions.findings import is_task_worthy
from orchestrator.model.checker import FileTarget
from orchestrator.model.report import Report, Scope
from orchestrator.tasks.baseline import apply_local_baseline
from orchestrator.vocab import Purpose

if TYPE_CHECKING:  # annotations only: the use case imports git and the gates
    from orchestrator.usecases.new_from_rev import Revisions

TASK_SYNC_BUDGET = 256  # blocking findings a plain lint turns into tasks
FULL_TIMEOUT_S = 1800.0  # a full lint's one deadline, and the most a caller may ask


def deadline_for(asked: float | None, feedback: bool) -> float:
    """The lint's overall timeout: what the caller asked (within 0..FULL_TIMEOUT_S),
    else the default of its route."""
    if asked and 0 < asked <= FULL_TIMEOUT_S:
        return asked
    return FEEDBACK_DEADLINE_S if feedback else FULL_TIMEOUT_S


def missing_paths(base: Path, paths: Iterable[str]) -> list[str]:
    """The `paths` (relative to `base`, or absolute) that do not exist, in order: a lint
    naming one is refused as a usage error before anything runs (the CLI's exit 2, the
    MCP tool's `isError`). A name with a NUL byte is among them (no file has one); an
    unreadable or odd path is not: selection gives it a scope with the reason."""
    missing = []
    for raw in paths:
        p = Path(raw)
        try:
            os.lstat(p if p.is_absolute() else base / p)
        except (FileNotFoundError, NotADirectoryError, ValueError):
            missing.append(raw)
        except OSError:
            pass
    return missing


@dataclass(frozen=True)
class TaskPolicy:
    """Whether and how a lint records its task-worthy findings as tasks."""

    record: bool = True
    #: At most this many task-worthy findings become tasks; None: no budget.
    budget: int | None = TASK_SYNC_BUDGET
    #: Sync even when nothing is task-worthy (the store then settles earlier tasks).
    when_clean: bool = False
    #: Any store fault is a note (feedback must not lose its report), not only I/O.
    tolerate_faults: bool = False
    #: A run restricted to some checkers (a task re-check child) observes only.
    only_observes: bool = True


#: `orchestrate lint`: budgeted, the store is opened only when there is something to record.
CLI_TASKS = TaskPolicy()
#: Edit feedback and MCP: every run settles the store, no budget, never fails on it.
FEEDBACK_TASKS = TaskPolicy(budget=None, when_clean=True, tolerate_faults=True, only_observes=False)
NO_TASKS = TaskPolicy(record=False)


@dataclass
class LintResult:
    """A finished lint: the report (final, presenters only render it) and its decisions."""

    report: Report
    required_gaps: list[str] = field(default_factory=list)
    task_ids: tuple[str, ...] = ()
    #: Why the task store was not written ("" when it was, or was not asked to be).
    task_error: str = ""
    #: What the caller lets fail the exit (`--fail-on`, `--exit-zero`).
    exit_policy: LintExitPolicy = DEFAULT_LINT_EXIT
    #: Edit feedback: the linter suppressions each edited file adds over its committed
    #: version, path -> {marker: how many more} (decisions/suppressions.py).
    suppressions: dict[str, dict[str, int]] = field(default_factory=dict)
    #: Edit feedback: the edited files that are a lint checker's configuration and
    #: differ from their committed version (decisions/suppressions.config_edited).
    config_edits: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        """The CLI exit code of this run under its exit policy (decisions/exits.py)."""
        return lint_exit_code(self.report, self.required_gaps, self.exit_policy)


def _sync(report: Report, req: LintRequest, policy: TaskPolicy) -> tuple[tuple[str, ...], str]:
    """Record the task-worthy findings as tasks under `policy`: (task ids, error or "")."""
    worthy = sum(1 for f in report.findings if is_task_worthy(f))
    if policy.budget is not None and worthy > policy.budget:
        report.notes.append(
            f"tasks not recorded: {worthy} blocking findings exceed the budget of "
            f"{policy.budget}; lint fewer paths to get task ids"
        )
        return (), "over_budget"
    if not worthy and not policy.when_clean:
        return (), ""
    faults: tuple[type[BaseException], ...] = (
        (Exception,) if policy.tolerate_faults else (OSError, TimeoutError)
    )
    try:
        from orchestrator.tasks.store import sync_tasks

        return tuple(sync_tasks(report, req.project_root).task_ids), ""
    except faults as exc:
        report.notes.append(f"tasks not recorded: {type(exc).__name__}: {exc}")
        return (), type(exc).__name__


#: How the note that names a failed check starts (a merge recomputes it).
INCOMPLETE_NOTE = "run incomplete: "


def incomplete_notes(report: Report) -> list[str]:
    """The note naming why the run is incomplete whatever was required (the failed
    checks of decisions/coverage.py), or none."""
    failed = failed_checks(report)
    if not failed:
        return []
    return [
        f"{INCOMPLETE_NOTE}{len(failed)} check(s) the project asked for did not finish, "
        f"first {failed[0]}"
    ]


def allowed_gap_notes(report: Report) -> list[str]:
    """One note per checker whose gap the caller accepted (`--allow-gap`), naming the
    scopes it let through, so the human summary says what the exit did not count."""
    notes = []
    for name in report.request.allow_gaps:
        let = [s.path for s in report.scopes if s.checker == name and is_configured_gap(s)]
        what = (
            f"{len(let)} scope(s) not counted, first {let[0]}" if let else "nothing to let through"
        )
        notes.append(
            f"--allow-gap {name}: the project configures {name}; that it cannot run does "
            f"not make the run incomplete ({what})"
        )
    return notes


def without_incomplete_notes(notes: list[str]) -> list[str]:
    """`notes` less the note of `incomplete_notes` (a part of a run says it of itself)."""
    return [n for n in notes if not n.startswith(INCOMPLETE_NOTE)]


def _native_declared(req: LintRequest) -> dict[str, str] | None:
    """Which languages have a native checker, as the loaded checkers declare them; only
    `--require native` asks, so only it pays for a plugin load."""
    if "native" not in req.require:
        return None
    plugins = req.plugins or plugin_host.load()
    root = req.project_root
    return plugins.native_languages({n for n in plugins.config_names() if (root / n).is_file()})


#: What may wrap the core's run: given the request and the run, it returns what
#: `run(request)` returns (the CLI's progress count on a terminal, cli/progress.py).
Around = Callable[[LintRequest, Callable[[LintRequest], Report]], Report]


def lint(
    req: LintRequest,
    tasks: TaskPolicy = CLI_TASKS,
    around: Around | None = None,
    exit_policy: LintExitPolicy = DEFAULT_LINT_EXIT,
    baseline: bool = True,
    new_from: Revisions | None = None,
) -> LintResult:
    """Check `req`, hide the findings the project's baseline holds (unless `baseline`
    is False), judge each finding new or unchanged against `new_from`
    (`--new-from-rev`; the report must be held in memory, not spooled), note failed
    checks and missing required coverage, and record tasks under `tasks`; the result's
    exit code follows `exit_policy`.

    A re-check child (`only_checkers`) observes and never writes tasks. `around` lets
    a presenter wrap the core run without importing the core: it is handed the
    request and the run (core/engine.run_lint) and must return that run's report.
    """
    started = Deadline.after(req.timeout)  # the base side shares the run's deadline
    if req.project_recipes is None:
        # The work tree's recipes, each as the user trusted it (checkers/project_recipes).
        delivery = req.purpose == Purpose.DELIVERY
        req = replace(req, project_recipes=project_recipes.for_worktree(delivery))
    report = around(req, run_lint) if around is not None else run_lint(req)
    if baseline:
        apply_local_baseline(report, req.project_root)
    if new_from is not None:
        from orchestrator.usecases.new_from_rev import judge_new

        judge_new(report, req.project_root, new_from, started)
    report.notes += allowed_gap_notes(report) + incomplete_notes(report)
    native = _native_declared(req)
    gaps = missing_required(report, req.require, native)
    for gap in gaps:
        report.notes.append(f"required coverage missing: {gap}")
    unjudged = outside_native(report, native) if "native" in req.require else []
    if unjudged and not {"syntax", "complete"} & set(req.require):
        report.notes.append(
            f"--require native asks nothing of {len(unjudged)} file(s) in languages no native "
            f"checker declares (first {unjudged[0]}); add --require syntax to require them"
        )
    task_ids: tuple[str, ...] = ()
    error = ""
    wants = tasks.when_clean or bool(report.findings)
    observing = tasks.only_observes and bool(req.only_checkers)
    if tasks.record and not observing and wants:
        task_ids, error = _sync(report, req, tasks)
    return LintResult(report, gaps, task_ids, error, exit_policy)


def with_overlay(req: LintRequest, overlay: Mapping[str, bytes]) -> LintRequest:
    """`req` with the files it selects judged from `overlay` (project-relative path ->
    bytes, e.g. an editor's unsaved buffer) instead of the disk.

    Selection runs as for any lint (the same safety checks, exclusions and language
    detection); a selected file the overlay names carries those bytes as its content,
    so every checker feeds them on stdin and nothing is written anywhere. A named path
    whose file does not exist (a never-saved or untitled buffer) is judged from the
    overlay's bytes alone, with the same name and content checks
    (selection.unsaved_target). Paths the overlay names that the request does not
    select are ignored.
    """
    if not overlay:
        return req
    root = req.project_root.resolve()
    config = dict(req.config) if req.config is not None else load_config(root)
    targets, refused = select(root, req.paths, excluded_dirs(config), cwd=req.cwd)
    targets = [
        replace(t, content=overlay[t.path], size=len(overlay[t.path])) if t.path in overlay else t
        for t in targets
    ]
    kept: list[Scope] = []
    for scope in refused:
        if scope.path in overlay and scope.reason == VANISHED:
            got = unsaved_target(root, scope.path, overlay[scope.path])
            if isinstance(got, FileTarget):
                targets.append(got)
                continue
            scope = got
        kept.append(scope)
    targets.sort(key=lambda t: t.path)
    return replace(req, config=config, targets=targets, refused=kept)


def core_view(report: Report) -> dict[str, Any]:
    """The presentation-free core of a report: findings, scopes, gate.

    This is what "the same core report" means when two entries are compared (CG-12):
    timings and reuse marks differ between runs and are left out.
    """
    data = report.model_dump(mode="json")
    for scope in data["scopes"]:
        scope.pop("duration_ms", None)
        scope.pop("reused", None)
    return {"findings": data["findings"], "scopes": data["scopes"], "gate": data["gate"]}


__all__ = [
    "CLI_TASKS",
    "FEEDBACK_TASKS",
    "NO_TASKS",
    "TASK_SYNC_BUDGET",
    "Around",
    "LintResult",
    "TaskPolicy",
    "allowed_gap_notes",
    "core_view",
    "deadline_for",
    "incomplete_notes",
    "lint",
    "with_overlay",
    "without_incomplete_notes",
]
