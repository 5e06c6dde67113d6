"""The one core flow: select -> plan -> run under one deadline -> assemble the report.

Every entry (CLI, git hooks, agent hosts, MCP) calls `run_lint`. The stages live in
their own modules: selection (which files), plan (who checks which file), run
(batches under the deadline, containment, late fallback) and assemble (outcomes ->
scopes -> report). Checker faults are contained: an exception, a malformed result or
a hang becomes a scope outcome.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.core import assemble as stages
from orchestrator.core import plugin_host, reuse, run_memo
from orchestrator.core.assemble import Assembly, Streamed, assemble, scopes_of
from orchestrator.core.config import config_source, load_config, tool_key_warnings
from orchestrator.core.plan import plan_run, unsupported
from orchestrator.core.plugin_host import PluginSet
from orchestrator.core.run import Sink, late_fallback, run_batches
from orchestrator.core.selection import (
    EXCLUDED_DIRS,
    Shard,
    escaped_name,
    named_files,
    select,
    take_shard,
)
from orchestrator.core.tool_paths import (
    ENV_PREFIX,
    committed_tools_note,
    machine_tools,
    user_config_path,
)
from orchestrator.deadline import Deadline
from orchestrator.errors import UsageError
from orchestrator.model.checker import FileOutcome, FileTarget, RunContext
from orchestrator.model.declared import LoadedChecker
from orchestrator.model.report import Report, RequestInfo, ScanInfo, Scope, checker_times
from orchestrator.model.rows import Spool
from orchestrator.vocab import Purpose, Tier
from orchestrator.workspace import user_cache_dir

__all__ = ["LintRequest", "default_jobs", "excluded_dirs", "run_lint"]


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
    #: Checkers whose gap the caller accepts (`--allow-gap`): one the project configures
    #: that cannot run does not make the run incomplete. Recorded in `request.allow_gaps`.
    allow_gaps: frozenset[str] = frozenset()
    config: Mapping[str, Any] | None = None
    plugins: PluginSet | None = None
    extra_plugins: Sequence[tuple[str, object]] = ()
    cwd: Path | None = None
    env: Mapping[str, str] | None = None
    output_budget: int | None = None
    #: The judged surface's policy files, for a strict gate (see RunContext).
    surface_files: Mapping[str, bytes] | None = None
    #: The base commit's copies of them (RunContext.base_files).
    base_files: Mapping[str, bytes] | None = None
    #: `paths` are the user's own (the command line): a generated file named there is
    #: linted. Paths a hook or an agent hands over are not (generated files skip lint).
    paths_named: bool = False
    #: `paths` are file entries as git lists them (a hook's re-determined scope): a
    #: folder among them is refused as not a regular file, never walked (select `walk`).
    paths_are_entries: bool = False
    #: Lint generated files too (`--include-generated`); the secret scan always does.
    include_generated: bool = False
    #: Check only this share of the selection (`--shard I/N`); the report records it.
    shard: Shard | None = None
    #: The presenter's progress count (RunContext.on_progress); None shows none.
    on_progress: Callable[[int, int], None] | None = None
    #: Over this many files, stream the rows to a spool on disk instead of holding them
    #: (model/rows.py: the report's two lists are then read-only sequences); None: never.
    spool_over: int | None = None
    #: Explicit absolute tool paths by checker (or parser) name; None: the machine's
    #: (core/tool_paths.machine_tools). Never the project config's `[tools]`.
    tools: Mapping[str, str] | None = None
    #: Folders besides the project root whose executables a delivery run never runs
    #: (a strict gate's real repository; core/tool_paths.tool_refusal).
    untrusted_roots: Sequence[Path] = ()
    #: The project's own recipe checkers for this run (checkers/project_recipes.py, set
    #: by the use cases: the work tree's and the user's trust for `lint`, the base's at
    #: a strict gate): given (root, config, taken checker names -> whose), their
    #: checkers and notes. None: no project recipe is loaded.
    project_recipes: ProjectRecipes | None = None


#: (project root, config, checker name -> whose) -> (project checkers, notes).
ProjectRecipes = Callable[
    [Path, Mapping[str, Any], Mapping[str, str]], tuple[Sequence[LoadedChecker], Sequence[str]]
]


#: The files past which `orchestrate lint` streams its report rows (`spool_over`).
SPOOL_OVER = 2000
#: Where a streamed run's spool lives: the user's cache folder for the repository.
SPOOL_DIR = "spool"


def default_jobs() -> int:
    """Parallel batches by default: the cores, at most 4."""
    return max(1, min(4, os.cpu_count() or 1))


def _context(
    req: LintRequest,
    root: Path,
    config: Mapping[str, Any],
    tools: Mapping[str, str],
    on_batch_time: Callable[[str, float], None] | None = None,
) -> RunContext:
    """The run context every checker sees: one deadline started now, budgets, config,
    the machine's tool paths; `on_batch_time` hears what each batch took."""
    jobs = req.jobs or int(config.get("jobs", 0) or 0) or default_jobs()
    return RunContext(
        project_root=root,
        deadline=Deadline.after(req.timeout),
        purpose=req.purpose,
        config=config,
        jobs=jobs,
        tool_overrides=dict(tools),
        untrusted_roots=tuple(req.untrusted_roots),
        env=req.env,
        surface_files=req.surface_files,
        base_files=req.base_files,
        on_progress=req.on_progress,
        on_batch_time=on_batch_time,
        **({"output_budget": req.output_budget} if req.output_budget else {}),
    )


def excluded_dirs(config: Mapping[str, Any]) -> tuple[str, ...]:
    """The folder names a walk never enters: the built-in set plus `exclude_dirs`."""
    return tuple(EXCLUDED_DIRS) + tuple(config.get("exclude_dirs", []) or ())


def _request_info(req: LintRequest, jobs: int) -> RequestInfo:
    return RequestInfo(
        entry=req.entry,
        purpose=req.purpose,
        paths=[escaped_name(p) for p in req.paths],
        surface=req.surface,
        revision=req.revision,
        require=list(req.require),
        timeout_s=req.timeout,
        jobs=jobs,
        allow_gaps=sorted(req.allow_gaps),
    )


def taken_names(plugins: PluginSet) -> dict[str, str]:
    """Checker name -> whose it is ("orchestrate (built in)", "the plugin DIST[NAME]"),
    for every loaded checker: the names a project recipe may not take."""
    out: dict[str, str] = {}
    for p in plugins.loaded:
        whose = (
            "orchestrate (built in)"
            if p.source.startswith("orchestrate_plugins.")
            else f"the plugin {p.display}"
        )
        out.update(dict.fromkeys(p.checkers, whose))
    for c in plugins.checkers():
        out.setdefault(c.name, "a loaded plugin")
    for name in plugins.blocked_builtin_checkers:
        out.setdefault(name, "orchestrate (built in, disabled here)")
    return out


def _project(
    req: LintRequest, root: Path, config: Mapping[str, Any], plugins: PluginSet
) -> tuple[list[LoadedChecker], list[str]]:
    """The project's recipe checkers for this run and their notes (`project_recipes`)."""
    if req.project_recipes is None:
        return [], []
    checkers, notes = req.project_recipes(root, config, taken_names(plugins))
    return list(checkers), list(notes)


def _checkers(
    req: LintRequest, plugins: PluginSet, project: Sequence[LoadedChecker] = ()
) -> list[LoadedChecker]:
    """The checkers this run may plan: all loaded ones and the project's recipes, or
    those `only_checkers` names. A name no checker has is a usage error: a typo must
    not check nothing."""
    checkers = plugins.checkers() + list(project)
    known = sorted(c.name for c in checkers)
    for option, asked in (("--only", req.only_checkers), ("--allow-gap", req.allow_gaps)):
        unknown = sorted(set(asked or ()) - set(known))
        if unknown:
            names = ", ".join(repr(n[:64]) for n in unknown[:8])
            raise UsageError(
                f"{option}: no loaded checker named {names}; known: {', '.join(known)}"
            )
    if req.only_checkers is None:
        return checkers
    return [c for c in checkers if c.name in req.only_checkers]


def _tools(req: LintRequest) -> tuple[Mapping[str, str], list[str]]:
    """The run's explicit tool paths (the request's, else the machine's) and notes."""
    if req.tools is not None:
        return req.tools, []
    return machine_tools(req.env)


def _tool_notes(
    req: LintRequest,
    root: Path,
    config: Mapping[str, Any],
    tools: Mapping[str, str],
    checkers: Sequence[LoadedChecker],
) -> list[str]:
    """The note when the project config sets `[tools]` (ignored: core/tool_paths), and
    the warnings about machine tool names no checker looks a tool up by; a name that is
    a near miss of one is a usage error (core/config.tool_key_warnings). The names are
    the loaded checkers' own and the tools they declare they look up (`tool_names`)."""
    source, prefix = config_source(root) if req.config is None else ("configuration", "")
    note = committed_tools_note(config, source, prefix)
    notes = [note] if note is not None else []
    if not tools or req.tools is not None:
        return notes
    known = {c.name for c in checkers} | {n for c in checkers for n in c.tool_names}

    # A name from the environment is set in both spellings of `-`/`_`: only one of the
    # two is checked (the known one, else the `-` one).
    def twins(key: str) -> set[str]:
        return {key.replace("_", "-"), key.replace("-", "_")} - {key}

    twin = {
        k
        for k in tools
        if k not in known and twins(k) & set(tools) and (twins(k) & known or "_" in k)
    }
    spelt = {k: v for k, v in tools.items() if k not in twin}
    source = f"machine tool paths ({user_config_path()} [tools], {ENV_PREFIX}*)"
    return notes + tool_key_warnings(spelt, known, source, "")


def run_lint(req: LintRequest) -> Report:
    """Check what `req` names and return the standard report. Never raises for a
    checker's fault (those are outcomes); raises UsageError for a bad configuration."""
    root = req.project_root.resolve()
    config = dict(req.config) if req.config is not None else load_config(root)
    tools, machine_notes = _tools(req)
    runs: list[tuple[str, float]] = []  # (checker, seconds) per batch: Report.timings
    ctx = _context(req, root, config, tools, lambda name, spent: runs.append((name, spent)))
    # A long-lived process answers an unchanged tree's run again (core/run_memo.py).
    memo_key = run_memo.request_key(req, root, config, tools)
    if (replayed := run_memo.replay(memo_key)) is not None:
        return replayed
    plugins = req.plugins or plugin_host.load(
        block=tuple(config.get("disable_plugins", []) or ()), extra_modules=req.extra_plugins
    )
    excluded = excluded_dirs(config)
    if req.targets is None:
        walk = not req.paths_are_entries
        targets, refused = select(root, req.paths, excluded, cwd=req.cwd, walk=walk)
    else:
        targets, refused = list(req.targets), list(req.refused)
    shard_id = None
    if req.shard is not None:
        targets, refused, shard_id = take_shard(targets, refused, req.shard, config)

    project, recipe_notes = _project(req, root, config, plugins)
    checkers = _checkers(req, plugins, project)
    tool_notes = machine_notes + _tool_notes(req, root, config, tools, checkers)
    tool_notes += recipe_notes
    # Policy checks (the secret scan) guard delivery surfaces; a plain lint runs them
    # only when asked by name (--only secrets) or by config (policy_in_lint = true).
    with_policy = bool(
        req.purpose == Purpose.DELIVERY or req.only_checkers or config.get("policy_in_lint")
    )
    named = named_files(root, req.paths, req.cwd) if req.paths_named else frozenset()
    planned = plan_run(checkers, targets, ctx, with_policy, named, req.include_generated)
    gaps = unsupported(targets, planned) if req.only_checkers is None else []
    gaps += planned.generated

    fallbacks = [c for c in checkers if c.tier == Tier.FALLBACK]
    tiers = {c.name: c.tier for c in checkers}
    scan = ScanInfo(
        project_root=str(root),
        scope_globs=[escaped_name(p) for p in req.paths] or (["."] if req.targets is None else []),
        excluded_dirs=list(excluded),
        files_scanned=len(targets),
    )
    parts = Assembly(scan=scan, request=_request_info(req, ctx.jobs), plugins=plugins)
    # Identity-keyed reuse of complete feedback results (CG-17); delivery never reuses.
    if req.spool_over is not None and len(targets) > req.spool_over:
        keys: set[tuple[str, str]] = set()
        rows = Streamed(
            Spool(user_cache_dir(root, SPOOL_DIR)), tiers, keys, reuse.REUSE_REASON, targets
        )
        rows.add(stages.SETTLED, -1, planned.settled)
        planned.settled.clear()  # on disk now: not held through the run
        # Each batch's reused outcomes go to disk as they are decoded, never all at once.
        hits = functools.partial(rows.add, stages.REUSED, -1)
        reuse_plan = reuse.consult(root, planned.work, ctx, keys=keys, on_hits=hits)
        _stream(rows, reuse_plan, ctx)
        late: Sink = functools.partial(rows.add, stages.LATE)
        late_fallback(rows.declined, targets, fallbacks, planned, ctx, ctx.jobs, late)
        rows.add_scopes(stages.REFUSED, refused)
        rows.add_scopes(stages.GAPS, gaps)
        report = rows.report(parts)
    else:
        reuse_plan = reuse.consult(root, planned.work, ctx)
        ran = run_batches(reuse_plan.work, ctx, ctx.jobs)
        reuse.record(root, reuse_plan, ctx, ran)
        declined = {o.path for o in ran if o.falls_back}
        ran += late_fallback(declined, targets, fallbacks, planned, ctx, ctx.jobs)
        outcomes = planned.settled + reuse_plan.reused + ran
        scopes = scopes_of(outcomes, tiers, reuse_plan.reused_keys, reuse.REUSE_REASON, targets)
        report = assemble(parts, scopes + list(refused) + gaps, outcomes)
    report.notes[:0] = tool_notes
    report.timings = checker_times(runs, report.scopes)
    if shard_id is not None:
        report.shards = [shard_id]
    names = [n for c in checkers for n in c.config_names]
    watched = None if reuse_plan.unwatched else reuse_plan.watched
    run_memo.keep(memo_key, root, req, targets, report, names, excluded, ctx.deadline, watched)
    return report


def _stream(rows: Streamed, plan: reuse.ReusePlan, ctx: RunContext) -> None:
    """Run the batches `plan` leaves, each batch's outcomes written to `rows` as it
    finishes (the settled and reused ones are there already); what reuse may keep of a
    batch is handed to its index then, and the index is written once at the end (as
    `reuse.record` does for a run held in memory)."""
    index = plan.index

    def sink(i: int, outcomes: list[FileOutcome]) -> None:
        rows.add(stages.RAN, i, outcomes)
        if index is not None and plan.digests[i]:
            checker, batch = plan.work[i]
            with contextlib.suppress(Exception):  # the cache must never stop a check
                reuse.remember(index, checker, batch, ctx, outcomes, plan.digests[i], plan.pre[i])

    run_batches(plan.work, ctx, ctx.jobs, sink)
    if index is not None:
        with contextlib.suppress(Exception):
            index.save()
