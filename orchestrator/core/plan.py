"""Stage 2 of the lint path: who checks which file.

Policy checkers claim on delivery surfaces (or when asked), native checkers claim
first, the fallback tier gets every file no native checker claimed or whose native
outcome was settled with `falls_back`, and a file nobody claims is `unsupported`.
Project recipes (checkers/project_recipes.py) claim last, beside all of them: they take
no file from another tier.
A native checker sees every file, as it would run directly: its own configuration
decides what it skips. A generated file (model/generated.py) is kept from the fallback
tier's grammar (its noise on generated code), unless the user named it: a fallback
checker that `judges_generated` it (its language has an exact parser) gets it marked
`generated` and judges it by that parser alone; every generated file keeps its
`not_run` "generated" scope (so a gate never requires it); the secret scan always
covers it.
A checker's fault while claiming or planning is contained as an outcome.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from orchestrator.core.selection import SELECTION
from orchestrator.model import generated as gen
from orchestrator.model.checker import (
    Batch,
    Checker,
    CheckerPlan,
    FileOutcome,
    FileTarget,
    RunContext,
    one_line,
    outcome_for_all,
)
from orchestrator.model.report import Scope
from orchestrator.vocab import NO_CHECKER_REASON, ScopeStatus, Tier


@dataclass
class Claim:
    """What one checker claimed of a pool: the targets it takes, and those whose
    `claims()` raised (it may have wanted them: each becomes its `tool_error`, never a
    quiet gap, so a strict gate whose secret scan faulted while claiming refuses)."""

    mine: list[FileTarget] = field(default_factory=list)
    faulted: list[FileTarget] = field(default_factory=list)
    reason: str = ""

    @property
    def paths(self) -> set[str]:
        """Every path this checker answers for, taken or faulted."""
        return {t.path for t in self.mine} | {t.path for t in self.faulted}

    def __bool__(self) -> bool:
        return bool(self.mine or self.faulted)


def claimed_by(checker: Checker, pool: Sequence[FileTarget]) -> Claim:
    """The targets of `pool` that `checker` claims, and those its `claims()` faulted on."""
    claim = Claim()
    for t in pool:
        try:
            if checker.claims(t):
                claim.mine.append(t)
        except Exception as exc:  # noqa: BLE001 - contained as that file's tool_error
            claim.faulted.append(t)
            if not claim.reason:
                claim.reason = one_line(f"checker claims failed: {type(exc).__name__}: {exc}")
    return claim


def faulted_outcomes(checker: Checker, claim: Claim) -> list[FileOutcome]:
    """The tool_error outcomes of the targets `checker` faulted on while claiming."""
    return outcome_for_all(checker, claim.faulted, ScopeStatus.TOOL_ERROR, claim.reason)


def contained_plan(checker: Checker, targets: list[FileTarget], ctx: RunContext) -> CheckerPlan:
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


@dataclass
class Planned:
    """The plan of one run: outcomes settled now, batches to run, who claimed what."""

    settled: list[FileOutcome] = field(default_factory=list)
    work: list[tuple[Checker, Batch]] = field(default_factory=list)
    native_paths: set[str] = field(default_factory=set)
    fallback_paths: set[str] = field(default_factory=set)
    #: `not_run` scopes of the generated files the linters skip.
    generated: list[Scope] = field(default_factory=list)

    def take(self, checker: Checker, claim: Claim, ctx: RunContext) -> CheckerPlan:
        """Plan what `checker` claimed and keep its settled outcomes (a faulted claim's
        tool_error included) and batches."""
        plan = contained_plan(checker, claim.mine, ctx) if claim.mine else CheckerPlan()
        self.settled.extend(o.with_(checker=checker.name) for o in plan.settled)
        self.settled.extend(faulted_outcomes(checker, claim))
        self.work.extend((checker, b) for b in plan.batches)
        return plan


def _attributes(ctx: RunContext) -> gen.Attributes:
    """The root `.gitattributes`: the judged surface's copy in a strict gate (never the
    work tree's), else the work tree's."""
    if ctx.surface_files is not None:
        surface = gen.parse_gitattributes(ctx.surface_files.get(gen.GITATTRIBUTES))
        if ctx.base_files is None:
            return surface
        return gen.stricter(gen.parse_gitattributes(ctx.base_files.get(gen.GITATTRIBUTES)), surface)
    try:
        return gen.parse_gitattributes((ctx.project_root / gen.GITATTRIBUTES).read_bytes())
    except OSError:
        return gen.parse_gitattributes(None)


def judges_generated(checker: Checker, target: FileTarget) -> bool:
    """Whether a fallback checker judges the generated file `target` without its grammar
    (its optional `judges_generated(target)`: an exact parser covers the language); a
    fault is no."""
    judges = getattr(checker, "judges_generated", None)
    if judges is None:
        return False
    try:
        return bool(judges(target))
    except Exception:  # noqa: BLE001 - a fault offers nothing: the generated scope stays
        return False


def split_generated(
    targets: Sequence[FileTarget],
    ctx: RunContext,
    named: frozenset[str],
    fallbacks: Sequence[Checker] = (),
) -> tuple[list[FileTarget], list[Scope]]:
    """The targets the linters check, and a `not_run` scope for each generated one that
    the user did not name. The one decision of what a generated file gets: a generated
    file some fallback checker `judges_generated` stays among the targets, marked
    `generated` (its exact parser alone judges it), and keeps its scope, saying so."""
    attrs = _attributes(ctx)
    kept: list[FileTarget] = []
    skipped: list[Scope] = []
    for t in targets:
        why = None
        if t.path not in named:
            try:
                head = t.read_bytes(gen.HEAD)
            except OSError:
                head = b""  # the checker that reads it reports why
            why = gen.generated_reason(t.path, head, attrs)
        if why is None:
            kept.append(t)
            continue
        exact = any(judges_generated(c, t) for c in fallbacks)
        if exact:
            kept.append(replace(t, generated=True))
        skipped.append(
            Scope(
                path=t.path,
                checker=SELECTION,
                language=t.language,
                status=ScopeStatus.NOT_RUN,
                reason=gen.generated_text(why, exact=exact),
            )
        )
    return kept, skipped


def plan_run(
    checkers: Sequence[Checker],
    targets: Sequence[FileTarget],
    ctx: RunContext,
    with_policy: bool,
    named: frozenset[str] = frozenset(),
    include_generated: bool = False,
) -> Planned:
    """Native-first planning over `targets`; policy checkers only when `with_policy`.
    Generated files not in `named` are kept from the fallback tier's grammar, unless
    `include_generated` (split_generated); native checkers see them all."""
    planned = Planned()
    by_tier = {tier: [c for c in checkers if c.tier == tier] for tier in Tier}
    if with_policy:
        for c in by_tier[Tier.POLICY]:
            planned.take(c, claimed_by(c, targets), ctx)
    falls_back: dict[str, bool] = {}
    language = {t.path: t.language for t in targets}
    for c in by_tier[Tier.NATIVE]:
        claim = claimed_by(c, targets)
        plan = planned.take(c, claim, ctx)
        planned.native_paths.update(claim.paths)
        # A checker that claims a file by suffix, not for its language (prettier,
        # mypy, go vet: `languages` does not hold the file's), adds its findings beside
        # the language's own evidence and never stands in for it: the fallback still
        # judges the file unless a checker of its language does.
        answers = {p for p in claim.paths if language.get(p) in c.languages}
        for o in plan.settled:
            if o.path in answers:
                falls_back[o.path] = falls_back.get(o.path, True) and o.falls_back
        # A file another native checker will run needs no fallback (a second native
        # checker's missing tool must not hand a natively judged file to the grammar).
        for b in plan.batches:
            falls_back.update((t.path, False) for t in b.targets if t.path in answers)
    rest = [t for t in targets if falls_back.get(t.path, True)]
    if not include_generated:
        # Only here: a native checker judged its files as run directly (a Django
        # migration says "Generated by Django" and Ruff lints it); the generated-file
        # rule spares the fallback's grammar noise on what no one edits by hand.
        rest, planned.generated = split_generated(rest, ctx, named, by_tier[Tier.FALLBACK])
    for c in by_tier[Tier.FALLBACK]:
        pool = [
            t
            for t in rest
            if t.path not in planned.fallback_paths and (not t.generated or judges_generated(c, t))
        ]
        claim = claimed_by(c, pool)
        planned.take(c, claim, ctx)
        planned.fallback_paths.update(claim.paths)
    # Project recipes only add: they see every file, after the others planned, and what
    # they claim is claimed by no other tier for it (nor `unsupported` any the less).
    for c in by_tier[Tier.PROJECT]:
        planned.take(c, claimed_by(c, targets), ctx)
    return planned


def unsupported(targets: Sequence[FileTarget], planned: Planned) -> list[Scope]:
    """An `unsupported` scope for every target no native or fallback checker claimed
    (a generated file was not offered to them: its scope says so instead)."""
    out: list[Scope] = []
    skipped = {s.path for s in planned.generated}
    for t in targets:
        if t.path in skipped:
            continue
        if t.path not in planned.native_paths and t.path not in planned.fallback_paths:
            out.append(
                Scope(
                    path=t.path,
                    checker=SELECTION,
                    language=t.language,
                    detected_by=t.detected_by,
                    status=ScopeStatus.UNSUPPORTED,
                    reason=t.undecided
                    or NO_CHECKER_REASON + (f" ({t.language})" if t.language else ""),
                )
            )
    return out
