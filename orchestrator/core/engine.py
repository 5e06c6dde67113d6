"""The one core flow: select -> plan -> run under one deadline -> merge -> report.

Every entry (CLI, git hooks, agent hosts, MCP) calls `run_lint`. Checker faults are
contained here: an exception, a malformed result or a hang becomes a scope outcome.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.core import plugin_host, reuse
from orchestrator.core.checker import (
    Batch,
    Checker,
    CheckerPlan,
    FileOutcome,
    FileTarget,
    RunContext,
    one_line,
    outcome_for_all,
)
from orchestrator.core.config import load_config, tool_overrides
from orchestrator.core.plugin_host import PluginSet
from orchestrator.core.report import (
    Finding,
    PluginFailure,
    Report,
    RequestInfo,
    ScanInfo,
    Scope,
    ToolIdentity,
    normalize,
)
from orchestrator.core.selection import EXCLUDED_DIRS, SELECTION, select
from orchestrator.deadline import Deadline
from orchestrator.decisions.coverage import coverage_of
from orchestrator.vocab import GateDecision, Purpose, ScopeStatus, Tier

GRACE_S = 0.5  # how long past the deadline we wait for a batch to return its outcome


@dataclass(frozen=True)
class LintRequest:
    """What a caller asks the core to check. See module docs of each field's user."""

    project_root: Path
    paths: Sequence[str] = ()
    targets: Sequence[FileTarget] | None = None
    refused: Sequence[Scope] = ()
    entry: str = "lint"
    purpose: Purpose = Purpose.FEEDBACK
    surface: str = "worktree"
    revision: str | None = None
    timeout: float = 1800.0
    jobs: int | None = None
    only_checkers: frozenset[str] | None = None
    require: Sequence[str] = ()
    config: Mapping[str, Any] | None = None
    plugins: PluginSet | None = None
    extra_plugins: Sequence[tuple[str, object]] = ()
    cwd: Path | None = None
    env: Mapping[str, str] | None = None
    output_budget: int | None = None


def default_jobs() -> int:
    return max(1, min(4, os.cpu_count() or 1))


def _contained_plan(checker: Checker, targets: list[FileTarget], ctx: RunContext) -> CheckerPlan:
    """Call checker.plan; an exception becomes tool_error for every target."""
    try:
        plan = checker.plan(targets, ctx)
        if not isinstance(plan, CheckerPlan):
            raise TypeError(f"plan() returned {type(plan).__name__}, not CheckerPlan")
        return plan
    except Exception as exc:  # noqa: BLE001 - contain plugin faults
        reason = one_line(f"checker plan failed: {type(exc).__name__}: {exc}")
        return CheckerPlan(
            settled=tuple(outcome_for_all(checker, targets, ScopeStatus.TOOL_ERROR, reason))
        )


def _validated(checker: Checker, batch: Batch, result: object) -> list[FileOutcome]:
    """Keep one well-formed outcome per target; anything else is a tool_error."""
    wanted = {t.path: t for t in batch.targets}
    got: dict[str, FileOutcome] = {}
    if isinstance(result, list | tuple):
        for o in result:
            if (
                isinstance(o, FileOutcome)
                and o.path in wanted
                and o.path not in got
                and isinstance(o.status, ScopeStatus)
                and all(isinstance(f, Finding) for f in o.findings)
            ):
                got[o.path] = o.with_(checker=checker.name)
    out = []
    for path, t in wanted.items():
        if path in got:
            out.append(got[path])
        else:
            out.append(
                FileOutcome(
                    path=path,
                    checker=checker.name,
                    status=ScopeStatus.TOOL_ERROR,
                    reason="checker returned no well-formed outcome for this file",
                    language=t.language,
                )
            )
    return out


def _interleaved(work: Sequence[tuple[Checker, Batch]]) -> list[int]:
    """Start order of the batches: round-robin over checkers, so an in-process parse
    proceeds while a native tool's process works, instead of queueing behind all of
    that tool's batches for a slot. Outcomes keep the order of `work`."""
    lanes: dict[str, list[int]] = {}
    for i, (checker, _batch) in enumerate(work):
        lanes.setdefault(checker.name, []).append(i)
    order: list[int] = []
    for depth in range(max(len(lane) for lane in lanes.values())):
        order.extend(lane[depth] for lane in lanes.values() if depth < len(lane))
    return order


def _run_batches(
    work: list[tuple[Checker, Batch]], ctx: RunContext, jobs: int
) -> list[FileOutcome]:
    """Run every batch concurrently (at most `jobs` at once) until the deadline."""
    results: dict[int, list[FileOutcome]] = {}
    lock = threading.Lock()
    slots = threading.Semaphore(jobs)
    done = threading.Event()
    remaining = [len(work)]

    def worker(i: int, checker: Checker, batch: Batch) -> None:
        outs: list[FileOutcome] = []
        try:
            with slots:
                if ctx.deadline.expired():
                    outs = outcome_for_all(
                        checker,
                        batch.targets,
                        ScopeStatus.TIMED_OUT,
                        "deadline reached before start",
                    )
                else:
                    try:
                        outs = _validated(checker, batch, checker.run(batch, ctx))
                    except Exception as exc:  # noqa: BLE001 - contain plugin faults
                        outs = outcome_for_all(
                            checker,
                            batch.targets,
                            ScopeStatus.TOOL_ERROR,
                            one_line(f"checker crashed: {type(exc).__name__}: {exc}"),
                        )
        finally:
            with lock:
                results.setdefault(i, outs)
                remaining[0] -= 1
                if remaining[0] == 0:
                    done.set()

    if not work:
        return []
    for i in _interleaved(work):
        checker, batch = work[i]
        # Daemon threads: a plugin that hangs in-process cannot keep the run alive.
        threading.Thread(target=worker, args=(i, checker, batch), daemon=True).start()
    done.wait(timeout=ctx.deadline.remaining() + GRACE_S)
    out: list[FileOutcome] = []
    with lock:
        for i, (checker, batch) in enumerate(work):
            if results.get(i):
                out.extend(results[i])
            else:
                out.extend(
                    outcome_for_all(
                        checker,
                        batch.targets,
                        ScopeStatus.TIMED_OUT,
                        "deadline reached; checker did not return",
                    )
                )
    return out


def _scope(o: FileOutcome, tier: Tier | None) -> Scope:
    return Scope(
        path=o.path,
        checker=o.checker,
        tier=tier,
        language=o.language,
        status=o.status,
        reason=o.reason,
        syntax=o.syntax,
        tool=o.tool if isinstance(o.tool, ToolIdentity) else None,
        config_digest=o.config_digest,
        config_files=list(o.config_files),
        exit_code=o.exit_code,
        duration_ms=o.duration_ms,
        hint=o.hint,
    )


def _late_fallback(
    ran: list[FileOutcome],
    targets: Sequence[FileTarget],
    fallbacks: Sequence[Checker],
    fallback_paths: set[str],
    ctx: RunContext,
    jobs: int,
    claimed_by: Any,
) -> list[FileOutcome]:
    """Syntax fallback for files a native tool declined only while running (e.g. ESLint
    found no config object for a `.ts` file): they still get candidates, on the same
    deadline. Failures (timed_out, tool_error) never fall back."""
    wanted = {o.path for o in ran if o.falls_back} - fallback_paths
    if not wanted or ctx.deadline.expired():
        return []
    pool = [t for t in targets if t.path in wanted]
    late: list[tuple[Checker, Batch]] = []
    late_settled: list[FileOutcome] = []
    for c in fallbacks:
        mine = claimed_by(c, [t for t in pool if t.path not in fallback_paths])
        if not mine:
            continue
        plan = _contained_plan(c, mine, ctx)
        late_settled.extend(o.with_(checker=c.name) for o in plan.settled)
        late.extend((c, b) for b in plan.batches)
        fallback_paths.update(t.path for t in mine)
    return late_settled + _run_batches(late, ctx, jobs)


def run_lint(req: LintRequest) -> Report:
    """Check what `req` names and return the standard report. Never raises for a
    checker's fault (those are outcomes); raises UsageError for a bad configuration."""
    deadline = Deadline.after(req.timeout)
    root = req.project_root.resolve()
    config = dict(req.config) if req.config is not None else load_config(root)
    plugins = req.plugins or plugin_host.load(
        block=tuple(config.get("disable_plugins", []) or ()), extra_modules=req.extra_plugins
    )
    excluded = tuple(EXCLUDED_DIRS) + tuple(config.get("exclude_dirs", []) or ())
    if req.targets is None:
        targets, refused = select(root, req.paths, excluded, cwd=req.cwd)
    else:
        targets, refused = list(req.targets), list(req.refused)
    jobs = req.jobs or int(config.get("jobs", 0) or 0) or default_jobs()
    overrides = tool_overrides(config)
    ctx = RunContext(
        project_root=root,
        deadline=deadline,
        purpose=req.purpose,
        config=config,
        jobs=jobs,
        tool_overrides=overrides,
        env=req.env,
        **({"output_budget": req.output_budget} if req.output_budget else {}),
    )

    checkers = plugins.checkers()
    if req.only_checkers is not None:
        checkers = [c for c in checkers if c.name in req.only_checkers]
    tiers = {c.name: c.tier for c in checkers}
    policy = [c for c in checkers if c.tier == Tier.POLICY]
    natives = [c for c in checkers if c.tier == Tier.NATIVE]
    fallbacks = [c for c in checkers if c.tier == Tier.FALLBACK]

    def claimed_by(checker: Checker, pool: Sequence[FileTarget]) -> list[FileTarget]:
        mine = []
        for t in pool:
            try:
                if checker.claims(t):
                    mine.append(t)
            except Exception:  # noqa: BLE001 - a faulty claims() claims nothing
                continue
        return mine

    settled: list[FileOutcome] = []
    work: list[tuple[Checker, Batch]] = []

    def take(checker: Checker, pool: list[FileTarget]) -> CheckerPlan:
        plan = _contained_plan(checker, pool, ctx) if pool else CheckerPlan()
        settled.extend(o.with_(checker=checker.name) for o in plan.settled)
        work.extend((checker, b) for b in plan.batches)
        return plan

    # Policy checks (the secret scan) guard delivery surfaces; a plain lint runs them
    # only when asked by name (--only secrets) or by config (policy_in_lint = true).
    if req.purpose == Purpose.DELIVERY or req.only_checkers or config.get("policy_in_lint"):
        for c in policy:
            take(c, claimed_by(c, targets))

    native_paths: set[str] = set()
    falls_back: dict[str, bool] = {}
    for c in natives:
        pool = claimed_by(c, targets)
        plan = take(c, pool)
        native_paths.update(t.path for t in pool)
        for o in plan.settled:
            falls_back[o.path] = falls_back.get(o.path, True) and o.falls_back
    rest = [t for t in targets if t.path not in native_paths or falls_back.get(t.path, False)]
    fallback_paths: set[str] = set()
    for c in fallbacks:
        pool = claimed_by(c, [t for t in rest if t.path not in fallback_paths])
        take(c, pool)
        fallback_paths.update(t.path for t in pool)

    unsupported: list[Scope] = []
    if req.only_checkers is None:
        for t in targets:
            if t.path not in native_paths and t.path not in fallback_paths:
                unsupported.append(
                    Scope(
                        path=t.path,
                        checker=SELECTION,
                        language=t.language,
                        status=ScopeStatus.UNSUPPORTED,
                        reason="no checker or grammar covers this file"
                        + (f" ({t.language})" if t.language else ""),
                    )
                )

    # Identity-keyed reuse of complete feedback results (CG-17); delivery never reuses.
    # A run with more files than the bounded cache holds would only evict what it just
    # stored, paying a durable write per file for it: such a run checks fresh.
    if sum(len(batch.targets) for _checker, batch in work) <= reuse.MAX_ENTRIES:
        reuse_plan = reuse.consult(root, work, ctx)
    else:
        reuse_plan = reuse.ReusePlan([], list(work), set(), [{} for _ in work])
    ran = _run_batches(reuse_plan.work, ctx, jobs)
    reuse.record(root, reuse_plan, ctx, ran)
    ran += _late_fallback(ran, targets, fallbacks, fallback_paths, ctx, jobs, claimed_by)
    outcomes = settled + reuse_plan.reused + ran
    scopes = [_scope(o, tiers.get(o.checker)) for o in outcomes]
    for s in scopes:
        if (s.path, s.checker) in reuse_plan.reused_keys:
            s.reused = reuse.REUSE_REASON
    scopes += list(refused) + unsupported
    findings = [f for o in outcomes for f in o.findings]

    report = Report(
        scan=ScanInfo(
            project_root=str(root),
            scope_globs=list(req.paths) or (["."] if req.targets is None else []),
            excluded_dirs=list(excluded),
            files_scanned=len(targets),
        ),
        request=RequestInfo(
            entry=req.entry,
            purpose=req.purpose,
            paths=list(req.paths),
            surface=req.surface,
            revision=req.revision,
            require=list(req.require),
            timeout_s=req.timeout,
            jobs=jobs,
        ),
        scopes=scopes,
        findings=findings,
        plugin_failures=[PluginFailure(name=f.name, reason=f.reason) for f in plugins.failed],
    )
    report.coverage = coverage_of(scopes, len(plugins.failed))
    report.gate.decision = GateDecision.NOT_EVALUATED
    if plugins.failed:
        report.notes.append(
            f"{len(plugins.failed)} plugin(s) failed to load; their checks did not run"
        )
    if report.coverage.native_files and report.coverage.syntax_only_files:
        report.notes.append("mixed coverage: some files had only syntax checks, not native lint")
    return normalize(report)
