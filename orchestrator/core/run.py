"""Stage 3 of the lint path: run the planned batches under the one deadline.

The batches run on `jobs` daemon threads, each taking the next batch when it is done
with one, so a plugin that hangs in-process holds one thread and cannot keep the run
alive. Whatever a checker does - raise, return malformed results, never return -
becomes one outcome per target. A thread per batch (hundreds at 100,000 files) cost
about 16 KB each, and the syntax fallback's per-thread parsers were made again for
every batch.
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable, Sequence

from orchestrator.core.plan import Planned, claimed_by, contained_plan, faulted_outcomes
from orchestrator.model.checker import (
    Batch,
    CheckerPlan,
    FileOutcome,
    FileTarget,
    RunContext,
    one_line,
    outcome_for_all,
)
from orchestrator.model.declared import LoadedChecker
from orchestrator.model.report import Finding, compact
from orchestrator.vocab import ScopeStatus

GRACE_S = 0.5  # how long past the deadline we wait for a batch to return its outcome
#: Where a streamed run hands each batch's outcomes (its index in the work, outcomes).
Sink = Callable[[int, list[FileOutcome]], None]


def validated(checker: LoadedChecker, batch: Batch, result: object) -> list[FileOutcome]:
    """Keep one well-formed outcome per target; anything else is a tool_error. A finding
    with a column and no unit of its own gets the checker's declared `column_unit`."""
    unit = None if checker.column_unit == "codepoint" else checker.column_unit
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
                for f in o.findings:  # the report keeps them: a shared fields set each
                    compact(f)
                    if unit is not None and f.column_unit is None and f.column is not None:
                        f.column_unit = unit
                    if f.exact_edit is not None:
                        compact(f.exact_edit)
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


def interleaved(work: Sequence[tuple[LoadedChecker, Batch]]) -> list[int]:
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


def _run_one(checker: LoadedChecker, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
    """One batch, contained: not started past the deadline, a crash is tool_error."""
    if ctx.deadline.expired():
        return outcome_for_all(
            checker, batch.targets, ScopeStatus.TIMED_OUT, "deadline reached before start"
        )
    try:
        return validated(checker, batch, checker.run(batch, ctx))
    except Exception as exc:  # noqa: BLE001 - contain plugin faults
        reason = one_line(f"checker crashed: {type(exc).__name__}: {exc}")
        return outcome_for_all(checker, batch.targets, ScopeStatus.TOOL_ERROR, reason)


def run_batches(
    work: list[tuple[LoadedChecker, Batch]], ctx: RunContext, jobs: int, sink: Sink | None = None
) -> list[FileOutcome]:
    """Run every batch concurrently (at most `jobs` at once) until the deadline.

    Without `sink`, return the outcomes in the order of `work`. With `sink`, hand each
    batch's outcomes to it as the batch finishes (a batch still running at the deadline
    gets its timed-out outcomes then; what it returns later is dropped), one call at a
    time, each batch exactly once, and return nothing: the outcomes are not kept."""
    results: dict[int, list[FileOutcome]] = {}
    handed: set[int] = set()
    faults: list[BaseException] = []
    lock = threading.Lock()
    done = threading.Event()
    remaining = [len(work)]
    pending = collections.deque(interleaved(work)) if work else collections.deque()
    total = sum(len(batch.targets) for _checker, batch in work)
    checked = [0]
    started: dict[int, float] = {}
    timed: set[int] = set()

    def clocked(i: int) -> None:
        # Under `lock`: each batch's time is reported once, when it returns or when the
        # run stops waiting for it.
        if ctx.on_batch_time is not None and i in started and i not in timed:
            timed.add(i)
            ctx.on_batch_time(work[i][0].name, time.monotonic() - started[i])

    def finished(i: int, outs: list[FileOutcome]) -> None:
        with lock:
            try:
                if sink is None:
                    results.setdefault(i, outs)
                elif outs and i not in handed:
                    handed.add(i)
                    sink(i, outs)
            except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
                faults.append(exc)
            finally:
                clocked(i)
                remaining[0] -= 1
                checked[0] += len(work[i][1].targets)
                if remaining[0] == 0:
                    done.set()
                if ctx.on_progress is not None:
                    ctx.on_progress(checked[0], total)

    def worker() -> None:
        while True:
            with lock:
                if not pending:
                    return
                i = pending.popleft()
                started[i] = time.monotonic()
            outs: list[FileOutcome] = []
            try:
                outs = _run_one(*work[i], ctx)
            finally:
                finished(i, outs)

    if not work:
        return []
    if ctx.on_progress is not None:
        ctx.on_progress(0, total)
    for _ in range(max(1, min(jobs, len(work)))):
        # Daemon threads: a plugin that hangs in-process cannot keep the run alive.
        threading.Thread(target=worker, daemon=True).start()
    if not ctx.deadline.wait(done):  # wakes early when the run is cancelled
        done.wait(GRACE_S)
    out: list[FileOutcome] = []
    with lock:
        if faults:
            raise faults[0]
        for i in sorted(started):
            clocked(i)  # still running at the deadline: the time until now
        for i, (checker, batch) in enumerate(work):
            if results.get(i) or i in handed:
                out.extend(results.get(i, ()))
                continue
            reason = "deadline reached; checker did not return"
            late = outcome_for_all(checker, batch.targets, ScopeStatus.TIMED_OUT, reason)
            if sink is None:
                out.extend(late)
            else:
                handed.add(i)
                if late:
                    sink(i, late)
    return out


def late_fallback(
    declined: set[str],
    targets: Sequence[FileTarget],
    fallbacks: Sequence[LoadedChecker],
    planned: Planned,
    ctx: RunContext,
    jobs: int,
    sink: Sink | None = None,
) -> list[FileOutcome]:
    """Syntax fallback for files a native tool declined only while running (e.g. ESLint
    found no config object for a `.ts` file; `declined`: the paths of outcomes that
    `falls_back`): they still get candidates, on the same deadline. Failures
    (timed_out, tool_error) do not fall back, except a tool_error that judged nothing
    because the project's own dependencies are not installed (ESLint's config imports
    a package the project did not install): that file is declined like a missing tool's. With `sink`, the outcomes go to it as in
    `run_batches`: the settled ones first, as batch -1."""
    wanted = declined - planned.fallback_paths
    if not wanted or ctx.deadline.expired():
        return []
    pool = [t for t in targets if t.path in wanted]
    late: list[tuple[LoadedChecker, Batch]] = []
    late_settled: list[FileOutcome] = []
    for c in fallbacks:
        claim = claimed_by(c, [t for t in pool if t.path not in planned.fallback_paths])
        if not claim:
            continue
        plan = contained_plan(c, claim.mine, ctx) if claim.mine else CheckerPlan()
        late_settled.extend(o.with_(checker=c.name) for o in plan.settled)
        late_settled.extend(faulted_outcomes(c, claim))
        late.extend((c, b) for b in plan.batches)
        planned.fallback_paths.update(claim.paths)
    if sink is None:
        return late_settled + run_batches(late, ctx, jobs)
    if late_settled:
        sink(-1, late_settled)
    return run_batches(late, ctx, jobs, sink)
