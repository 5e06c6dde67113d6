"""The host-neutral event router: one event in, one bounded action out.

session_start -> read-only discovery (no lint); prompt_submitted -> fixed advice (the
prompt is never read); file_changed -> fast check of those files only, and for a
file with open tasks the repair re-check of those tasks instead (`task verify` by the
original checker, docs/hosts.md); write_unknown -> scope re-determined from git,
marked incomplete; write_failed -> no checker; repair_ready -> `task verify` of that
id; shell_command -> the shell analyser (hosts/shell_surface.py): a commit or push it
can read is judged by the strict gate on the surface the command will have (its
repository, its own staging), anything it cannot read or a gate bypass is refused, and
so is a write it sees aimed at a checker's config under `protect_checker_config`,
and so is a commit that changes the gate's own policy (other changed config files
are named in the text);
edit_pending -> a file-edit tool aimed at git's folder, the hooks or orchestrate's
config is refused; stop -> bounded summary from local task facts.

Routing itself never issues a quality or delivery pass: only a strict gate decides
delivery, and a fast check always says "feedback only, delivery not evaluated".
Every text this module returns is built from fixed phrases, counts, vocabulary
words, safe rule / task ids and validated path labels; nothing from the event or a
tool's free text is copied in.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.deadline import GIT_LOOKUP_DEADLINE_S, Deadline
from orchestrator.decisions.agent import (
    FAST_SCOPE_BUDGET_EXCEEDED,
    POLICY_CHANGE_DECISION,
    PROTECTED_EDIT_DECISION,
    edit_incomplete,
    is_incomplete,
    refused_decision,
    source_check_word,
    verify_complete,
)
from orchestrator.decisions.exits import FAULT_DECISION, gate_blocks
from orchestrator.hosts import budgets as B
from orchestrator.hosts.events import Kind, RouterEvent
from orchestrator.model.report import Report
from orchestrator.render import agent_labels as L
from orchestrator.render.agent import (
    FEEDBACK_ONLY,
    PROMPT_ADVICE,
    edit_context,
    edit_message,
    gate_text,
    tasks_line,
    unjudged_why,
    unsafe_paths,
    word,
)
from orchestrator.shell.analyser import describe
from orchestrator.usecases import changed_paths
from orchestrator.usecases.agent import (
    DeliveryUnjudged,
    analyse_command,
    judge_delivery,
    protected_edit,
    protected_shell_write,
)
from orchestrator.usecases.shell_delivery import delivery_kind, delivery_of
from orchestrator.vocab import GateDecision

if TYPE_CHECKING:  # the engine loads only when a route needs it (fast hook start)
    from orchestrator.usecases.lint import LintResult
    from orchestrator.usecases.pretool import SurfaceChanges
    from orchestrator.usecases.tasks import RepairTargets


@dataclass
class RouteResult:
    """The host-neutral outcome an adapter turns into its host's output shape."""

    action: str
    context: str = ""
    message: str = ""
    #: Strict gate: the tool call must be refused.
    block: bool = False
    #: Stop: ask the host for one continuation with `context` as the reason.
    continue_once: bool = False
    gate: GateDecision = GateDecision.NOT_EVALUATED
    source_check: str = "not_run"  # checked | incomplete | not_run
    report: Report | None = None
    task_ids: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()

    def bounded(self) -> RouteResult:
        """This result with its texts escaped (no control characters) and clamped to
        the host budgets: the last step before any text reaches an agent or a person."""
        self.context = L.clamp(L.escape(self.context))
        self.message = L.clamp(L.escape(self.message), L.MESSAGE_MAX_CHARS)
        return self


# --- services (the engine, gates, verify, next): real by default -------------------


def _lint(root: Path, paths: Sequence[str], timeout: float) -> LintResult:
    """Edit feedback: from the warm engine when one runs (README "Warm engine"), else
    here, with what is left of `timeout`."""
    import time

    from orchestrator.server.client import hook_lint

    began = time.monotonic()
    warm = hook_lint(root, list(paths), timeout)
    if warm is not None:
        return warm
    from orchestrator.usecases.agent import lint_here

    return lint_here(root, paths, max(1.0, timeout - (time.monotonic() - began)))


def _gate(kind: str, root: Path, timeout: float, env: Mapping[str, str] | None = None) -> Report:
    from orchestrator.usecases.gate import pre_tool_gate

    return pre_tool_gate(kind, root, timeout, env=env)


def _surface_changes(
    root: Path, env: Mapping[str, str], deadline: Deadline, kind: str
) -> SurfaceChanges:
    from orchestrator.usecases.pretool import checker_config_names, surface_changes

    return surface_changes(root, env, deadline, checker_config_names(), kind)


def _verify(root: Path, task_id: str, timeout: float) -> object:
    from orchestrator.usecases.tasks import repair_ready

    return repair_ready(root, task_id, timeout)


def _repair_targets_of(root: Path, paths: Sequence[str], limit: int) -> RepairTargets:
    from orchestrator.usecases.tasks import repair_targets

    return repair_targets(root, paths, limit)


def _record_edit(root: Path, paths: Sequence[str], outcome: str) -> object:
    from orchestrator.usecases.tasks import record_edit

    return record_edit(root, paths, outcome)


@dataclass
class Services:
    """The use cases the router calls. Tests replace one only to inject a fault."""

    lint: Callable[[Path, Sequence[str], float], LintResult] = _lint
    #: gate(kind, root, timeout), or with `env=` the GIT_* variables naming the
    #: repository and the prepared index when the command selects them.
    gate: Callable[..., Report] = _gate
    verify: Callable[[Path, str, float], object] = _verify
    record_edit: Callable[[Path, Sequence[str], str], object] = _record_edit
    repair_targets: Callable[[Path, Sequence[str], int], RepairTargets] = _repair_targets_of
    git_changed: Callable[[Path, Deadline], list[str] | None] = field(
        default_factory=lambda: changed_paths.git_changed_paths
    )
    #: surface_changes(root, env, deadline, kind): the governing files a prepared
    #: commit or push changes (usecases/pretool.surface_changes).
    surface_changes: Callable[[Path, Mapping[str, str], Deadline, str], SurfaceChanges] = (
        _surface_changes
    )


# --- routes -------------------------------------------------------------------------


def _session_start(ev: RouterEvent) -> RouteResult:
    from orchestrator.hosts.discovery import discover, loaded_checker_names

    root = ev.project_root
    if root is None:
        return RouteResult(
            "discovery",
            context="orchestrate: session start; project root undetermined, discovery not run. "
            "Delivery not_evaluated.",
            message="orchestrate: project root undetermined",
        )
    names, failed = loaded_checker_names()
    states = discover(root, names)
    listing = ", ".join(f"{s.name} {s.state}" for s in states) or "none loaded"
    advice = []
    if any(s.state == "missing" for s in states):
        advice.append("install the missing tools for native lint")
    if any(s.state == "configuration_required" for s in states):
        advice.append("configure the checkers that need configuration")
    text = (
        f"orchestrate: session start, read-only discovery (no lint ran). checkers: {listing}"
        + (f"; {failed} plugin(s) failed to load" if failed else "")
        + (f". Advice: {'; '.join(advice)}" if advice else "")
        + ". Fast feedback runs after confirmed edits; strict gates run on real git "
        "commit / push. Source check not_run, delivery not_evaluated."
        + (f" {ev.host_gap}." if ev.host_gap else "")
    )
    return RouteResult(
        "discovery",
        context=text,
        message=f"orchestrate: checkers {listing}",
        source_check="not_run",
    )


def _scope_reasons(ev: RouterEvent, plan: B.FastPlan, rescoped: bool) -> list[str]:
    """The reasons known before any check runs: a re-determined or over-budget scope."""
    reasons: list[str] = []
    if rescoped:
        reasons.append(ev.scope_reason or "scope_redetermined_from_git")
    if not plan.per_file:
        reasons.append(FAST_SCOPE_BUDGET_EXCEEDED)
    return reasons


def _batch_refused(plan: B.FastPlan, reasons: list[str]) -> RouteResult:
    text = (
        f"orchestrate: {FAST_SCOPE_BUDGET_EXCEEDED}: {len(plan.paths)} changed files is "
        f"over the batch limit of {B.BATCH_MAX_FILES}; check not run. Run: orchestrate lint "
        f"({FEEDBACK_ONLY})."
    )
    return RouteResult(
        "batch_check",
        context=text,
        message="orchestrate: too many changed files for edit feedback; check not run",
        source_check="not_run",
        reasons=tuple(reasons),
    )


@dataclass(frozen=True)
class _Repair:
    """The repair re-checks of one edit event: what was chosen and what each observed."""

    targets: RepairTargets | None = None
    #: (task id, observation word, reason word or None), in re-check order.
    observed: tuple[tuple[str, str, str | None], ...] = ()

    @property
    def paths(self) -> frozenset[str]:
        return self.targets.paths if self.targets else frozenset()


def _repair_targets(
    root: Path, plan: B.FastPlan, svc: Services, rescoped: bool, reasons: list[str]
) -> RepairTargets | None:
    """The open tasks of a confirmed per-file edit, looked up from local task facts only.

    A batch or a re-determined scope is no confirmed repair of a known file: no lookup.
    """
    if rescoped or not plan.per_file:
        return None
    try:
        targets = svc.repair_targets(root, plan.paths, L.MAX_TASK_IDS)
    except Exception:  # noqa: BLE001 - the lookup is optional; feedback still runs
        reasons.append("task_facts_unavailable")
        return None
    if targets.over_budget:
        reasons.append("task_facts_over_budget")
    return targets


def _recheck(
    root: Path, targets: RepairTargets | None, svc: Services, deadline: Deadline
) -> _Repair:
    """Each chosen task re-checked by its original checker on what is left of the event's
    deadline; a fault is an incomplete observation, never a claimed recheck."""
    observed: list[tuple[str, str, str | None]] = []
    for tid in targets.task_ids if targets else ():
        if L.safe_task_id(tid) is None:
            continue
        try:
            outcome = svc.verify(root, tid, deadline.remaining())
        except Exception:  # noqa: BLE001 - one task's fault must not hide the others
            observed.append((tid, "recheck_incomplete", "internal_fault"))
            continue
        observation = word(getattr(outcome, "outcome", None)) or "unknown"
        observed.append((tid, observation, word(getattr(outcome, "reason", None))))
    return _Repair(targets, tuple(observed))


def _log_edit(
    root: Path, paths: Sequence[str], incomplete: bool, svc: Services, reasons: list[str]
) -> None:
    try:  # the edit log is bookkeeping: it never changes or fails the feedback
        svc.record_edit(root, paths, "incomplete" if incomplete else "checked")
    except Exception:  # noqa: BLE001
        reasons.append("event_log_unavailable")


def _fast(ev: RouterEvent, svc: Services, rescoped: bool) -> RouteResult:
    """A confirmed (or re-determined) edit: the fast check of its files, and for files
    with open tasks the repair re-check of those tasks instead (CG-13), all on one
    event deadline; the original checker never runs twice on a file in one event."""
    root = ev.project_root
    assert root is not None
    plan = B.plan_fast_scope(ev.paths)
    reasons = _scope_reasons(ev, plan, rescoped)
    if len(plan.paths) > B.BATCH_MAX_FILES:
        return _batch_refused(plan, reasons)
    deadline = Deadline.after(B.FAST_DEADLINE_S)
    targets = _repair_targets(root, plan, svc, rescoped, reasons)
    fast_paths = tuple(p for p in plan.paths if not targets or p not in targets.paths)
    result = svc.lint(root, fast_paths, deadline.remaining()) if fast_paths else None
    if result is not None and result.task_error:  # task ids are optional in feedback
        reasons.append("task_store_unavailable")
    if result is not None and unsafe_paths(result.report):
        reasons.append("unsafe_path")
    repair = _recheck(root, targets, svc, deadline)
    if repair.paths:
        reasons.append("repair_recheck_only")
    incomplete = edit_incomplete(
        rescoped, bool(repair.paths), result.report if result is not None else None
    )
    _log_edit(root, plan.paths, incomplete, svc, reasons)
    rechecked = tuple(t for t, _, _ in repair.observed)
    return RouteResult(
        ("repair_check" if rechecked else "fast_check") if plan.per_file else "batch_check",
        context=edit_context(
            plan.per_file,
            plan.paths,
            result,
            (repair.targets, repair.observed),
            reasons,
            incomplete,
        ),
        message=edit_message(result, repair.observed, incomplete),
        source_check=source_check_word(incomplete),
        report=result.report if result is not None else None,
        task_ids=tuple(dict.fromkeys((result.task_ids if result else ()) + rechecked)),
        reasons=tuple(reasons),
    )


def _undetermined(ev: RouterEvent) -> RouteResult:
    reason = ev.scope_reason or "scope_undetermined"
    return RouteResult(
        "not_run",
        context=f"orchestrate: scope undetermined ({reason}); source check not run, coverage "
        "incomplete. Delivery not_evaluated. Run: orchestrate lint",
        message="orchestrate: scope undetermined, check not run",
        reasons=(reason,),
    )


def _write_unknown(ev: RouterEvent, svc: Services) -> RouteResult:
    root = ev.project_root
    if root is None:
        return _undetermined(ev)
    changed = svc.git_changed(root, Deadline.after(GIT_LOOKUP_DEADLINE_S))
    if changed is None:
        return RouteResult(
            "not_run",
            context="orchestrate: write outcome unknown and the changed scope cannot be "
            "re-determined (no git repository); source check not run, coverage incomplete. "
            "Delivery not_evaluated. Run: orchestrate lint",
            message="orchestrate: changed scope undetermined, check not run",
            source_check="not_run",
            reasons=(ev.scope_reason or "write_outcome_unknown", "no_git_repository"),
        )
    if not changed:
        return RouteResult(
            "rescope",
            context="orchestrate: write outcome unknown; git shows no changed files. Source "
            "check not run, coverage incomplete (the write was not confirmed). Delivery "
            "not_evaluated.",
            message="orchestrate: no changed files found",
            source_check="not_run",
            reasons=(ev.scope_reason or "write_outcome_unknown",),
        )
    return _fast(
        RouterEvent(
            Kind.FILE_CHANGED,
            project_root=root,
            paths=tuple(changed),
            scope_reason=ev.scope_reason or "write_outcome_unknown",
        ),
        svc,
        rescoped=True,
    )


def _write_failed(ev: RouterEvent) -> RouteResult:
    return RouteResult(
        "not_run",
        context="orchestrate: the write failed; no checker ran (not_run/write_failed). "
        "Existing delivery obligations still apply. Delivery not_evaluated.",
        message="orchestrate: write failed, no check",
        reasons=("write_failed",),
    )


def _no_repository(kind: str) -> RouteResult:
    # No target repository: refuse rather than scan a workspace (CG-06, CG-02).
    return RouteResult(
        "gate",
        context=f"orchestrate strict {kind} gate: incomplete. No git repository was found "
        "for this command's project; nothing was scanned and delivery did not pass.",
        message=f"orchestrate {kind} gate: incomplete (no repository)",
        block=gate_blocks(FAULT_DECISION),
        gate=FAULT_DECISION,
        reasons=("no_git_repository",),
    )


def _refused(kind: str, why: str, reason: str, forbidden: bool = False) -> RouteResult:
    """A command refused before it ran: nothing was judged, and the text says so."""
    decision = refused_decision(forbidden)
    return RouteResult(
        "gate",
        context=f"orchestrate strict {kind} gate: refused before the command ran; nothing "
        f"was judged. {why}.",
        message=f"orchestrate {kind} gate: command refused ({reason})",
        block=gate_blocks(decision),
        gate=decision,
        reasons=(reason,),
    )


def _policy_refused(kind: str, names: Sequence[str]) -> RouteResult:
    """A commit that changes the gate's own policy: refused whatever the verdict."""
    label = L.config_labels(names) or "orchestrate settings"
    return RouteResult(
        "gate",
        context=f"orchestrate strict {kind} gate: deny. This commit changes the gate's own "
        f"policy ({label}): a person commits that, outside the agent.",
        message=f"orchestrate {kind} gate: deny (changes the gate's own policy)",
        block=gate_blocks(POLICY_CHANGE_DECISION),
        gate=POLICY_CHANGE_DECISION,
        reasons=("policy_change",),
    )


def _shell(ev: RouterEvent, svc: Services) -> RouteResult:
    # One deadline for the whole event, well inside the host's hook timeout (budgets).
    event = Deadline.after(B.gate_deadline_s())
    command = ev.command if ev.command is not None else ""
    result = analyse_command(command, ev.shell_cwd or ev.project_root, event)
    start = ev.shell_cwd or ev.project_root
    if result.verdict != "forbidden" and (
        protected := protected_shell_write(result.writes, start, ev.project_root, event)
    ):
        return _protected_refusal(protected)
    if result.verdict == "no_delivery":
        return RouteResult("ignored")
    kind = delivery_kind(result)
    if result.verdict != "judge_index":
        reason = result.reason.value if result.reason else result.verdict
        return _refused(kind, describe(result), reason, result.verdict == "forbidden")
    if start is None:
        return _no_repository(kind)
    delivery = delivery_of(result, start)
    if isinstance(delivery, str):
        why = (
            f"cannot determine which repository this command {kind}s to ({delivery}): run "
            f"the {kind} as a plain git command in the repository's folder"
        )
        return _refused(kind, why, delivery)
    outcome = judge_delivery(delivery, event, svc.surface_changes, svc.gate, B.POLICY_DEADLINE_S)
    if isinstance(outcome, DeliveryUnjudged):
        if outcome.cause == "no_repository":
            return _no_repository(kind)
        return _refused(kind, *unjudged_why(kind, outcome.cause, word(outcome.detail)))
    if outcome.report is None:
        return _policy_refused(kind, outcome.policy)
    report, configs, policy_refused = outcome.report, outcome.configs, outcome.policy_refused
    context, message = gate_text(kind, report, configs)
    decision = report.gate.decision
    source_check = source_check_word(is_incomplete(report))
    if policy_refused:
        refused = _policy_refused(kind, outcome.policy)
        # The gate's own text joins only when it also blocks: an "allow" beside the
        # refusal would read as reassurance.
        joined = (
            refused.context if decision == GateDecision.ALLOW else f"{refused.context} {context}"
        )
        return replace(refused, context=joined, source_check=source_check, report=report)
    return RouteResult(
        "gate",
        context=context,
        message=message,
        block=gate_blocks(decision),
        gate=decision,
        source_check=source_check,
        report=report,
    )


def _edit_pending(ev: RouterEvent) -> RouteResult:
    """A file-edit tool about to run: refused when it aims at git's folder, the hooks or
    orchestrate's configuration; otherwise nothing to say (feedback follows the edit)."""
    reason = protected_edit(ev.target, ev.project_root, Deadline.after(B.gate_deadline_s()))
    if reason is None:
        return RouteResult("ignored")
    return _protected_refusal(reason)


def _protected_refusal(reason: str) -> RouteResult:
    """The refusal of an edit, or of a shell command writing a file, aimed at a
    protected place (`reason`: protected_path, protected_checker_config, or why the
    target cannot be determined)."""
    text = {
        "protected_path": "orchestrate: this edit is refused: an agent may not write inside "
        ".git, the git hooks folder or orchestrate's configuration (orchestrate.toml, "
        ".orchestrate/, .orchestrate-secrets-allow)",
        "protected_checker_config": "orchestrate: this edit is refused: the project protects "
        "its checkers' configuration (protect_checker_config); fix the code the checker "
        "reports instead of changing or silencing the checker",
    }.get(reason, "orchestrate: this edit is refused: its target path cannot be determined")
    return RouteResult(
        "gate",
        context=f"{text}. Ask the person to make such a change.",
        message=f"orchestrate: edit refused ({reason})",
        block=gate_blocks(PROTECTED_EDIT_DECISION),
        gate=PROTECTED_EDIT_DECISION,
        reasons=(reason,),
    )


def _repair_ready(ev: RouterEvent, svc: Services) -> RouteResult:
    tid = L.safe_task_id(ev.task_id)
    if ev.project_root is None or tid is None:
        return RouteResult(
            "not_run",
            context="orchestrate: repair_ready without a valid task id; recheck not run. Run: "
            "orchestrate next",
            message="orchestrate: no valid task id, recheck not run",
            reasons=("task_id_invalid",),
        )
    outcome = svc.verify(ev.project_root, tid, B.VERIFY_DEADLINE_S)
    observation = word(getattr(outcome, "outcome", None)) or "unknown"
    reason = word(getattr(outcome, "reason", None))
    complete = verify_complete(observation)
    return RouteResult(
        "verify",
        context=f"orchestrate: task verify {tid}: {observation}"
        + (f" ({reason})" if reason else "")
        + ". The task is not closed by this hook and no recheck is claimed beyond this "
        f"observation; delivery not_evaluated. Details: orchestrate task verify {tid}",
        message=f"orchestrate: task {tid} recheck {observation}",
        source_check=source_check_word(not complete),
        task_ids=(tid,),
        reasons=(reason,) if reason else (),
    )


def _stop(ev: RouterEvent) -> RouteResult:
    from orchestrator.tasks.nextstep import OVER_BUDGET, legacy_skip_line
    from orchestrator.usecases.tasks import next_summary

    root = ev.project_root
    skips: str | None = None
    if root is None:
        ids, why = None, "project_root_undetermined"
    else:
        summary = next_summary(root)
        skips = legacy_skip_line(summary)
        if summary.state == OVER_BUDGET:
            ids, why = None, word(summary.reason) or "stop_summary_over_budget"
        else:
            pending = summary.open_task_ids + summary.verification_required_ids
            ids, why = [t for t in pending if L.safe_task_id(t)], None

    def note(text: str) -> str:
        """`text`, then the legacy-v1 skip count when skips are recorded (seed 004)."""
        return f"{text.removesuffix('.')}. {skips}." if skips else text

    if ids is None:
        return RouteResult(
            "summary",
            context=note(
                f"orchestrate: task facts not read ({why}); the summary was not produced "
                "(native checks not run, delivery not_evaluated). Run: orchestrate next"
            ),
            # The person sees only this line at the end of a turn: it carries the reason.
            message=note(
                f"orchestrate: stop summary not available ({why or 'unavailable'}); "
                "run: orchestrate next"
            ),
            reasons=(why or "unavailable",),
        )
    if not ids:
        return RouteResult(
            "summary",
            context=note(
                "orchestrate: no open tasks recorded. That is not a pass: native checks did "
                "not run here and delivery is not_evaluated. Recommended: a fresh full check, "
                "orchestrate lint"
            ),
            message=note("orchestrate: no open tasks; run a full check before delivery"),
        )
    tasks = tasks_line(ids)
    first = ids[0]
    if ev.stop_hook_active:
        return RouteResult(
            "summary",
            context=note(
                f"orchestrate: {len(ids)} open task(s) remain ({tasks}). Status only; "
                "delivery not_evaluated."
            ),
            message=note(f"orchestrate: {len(ids)} open task(s) remain"),
            task_ids=tuple(ids),
        )
    return RouteResult(
        "summary",
        context=note(
            f"orchestrate: {len(ids)} open task(s): {tasks}. Next: repair, then run "
            f"orchestrate task verify {first} (list: orchestrate next). Native checks not run "
            "by this hook; delivery not_evaluated."
        ),
        message=note(f"orchestrate: {len(ids)} open task(s); one continuation requested"),
        continue_once=True,
        task_ids=tuple(ids),
    )


def _fault(ev: RouterEvent, exc: BaseException) -> RouteResult:
    if os.environ.get("ORCHESTRATE_DEBUG"):
        traceback.print_exception(exc)
    name = type(exc).__name__
    # Never re-enter what may have failed (the analyser, the gate): a fault on a
    # command or an edit about to run refuses it, whatever the command was.
    if ev.kind in (Kind.SHELL_COMMAND, Kind.EDIT_PENDING):
        return RouteResult(
            "gate",
            context="orchestrate strict gate: incomplete. An internal fault stopped the gate "
            f"({name[:40]}); delivery is refused until it runs. Run: orchestrate gate commit",
            message="orchestrate gate: internal fault, delivery refused",
            block=gate_blocks(FAULT_DECISION),
            gate=FAULT_DECISION,
            reasons=("internal_fault",),
        )
    return RouteResult(
        "not_run",
        context=f"orchestrate: internal fault ({name[:40]}); check not run, nothing verified. "
        "Delivery not_evaluated.",
        message="orchestrate: internal fault, check not run",
        reasons=("internal_fault",),
    )


def route(ev: RouterEvent, services: Services | None = None) -> RouteResult:
    """Map one event to its bounded action. Never raises: a fault is a result (and a
    strict delivery gate that faults still blocks)."""
    svc = services or Services()
    try:
        if ev.kind == Kind.SESSION_START:
            res = _session_start(ev)
        elif ev.kind == Kind.PROMPT_SUBMITTED:
            res = RouteResult("advice", context=PROMPT_ADVICE, message="orchestrate: no check ran")
        elif ev.kind == Kind.FILE_CHANGED:
            res = (
                _fast(ev, svc, rescoped=False)
                if ev.paths and ev.project_root
                else _undetermined(ev)
            )
        elif ev.kind == Kind.WRITE_UNKNOWN:
            res = _write_unknown(ev, svc)
        elif ev.kind == Kind.WRITE_FAILED:
            res = _write_failed(ev)
        elif ev.kind == Kind.REPAIR_READY:
            res = _repair_ready(ev, svc)
        elif ev.kind == Kind.SHELL_COMMAND:
            res = _shell(ev, svc)
        elif ev.kind == Kind.EDIT_PENDING:
            res = _edit_pending(ev)
        elif ev.kind == Kind.STOP:
            res = _stop(ev)
        elif ev.kind == Kind.INVALID:
            res = _undetermined(ev)
        else:
            res = RouteResult("ignored")
    except Exception as exc:  # noqa: BLE001 - CG-02: a fault is a result; gates still block
        res = _fault(ev, exc)
    return res.bounded()
