"""Stage 4 of the lint path: outcomes -> scopes -> the standard report.

Each outcome becomes its scope through one conversion (`FileOutcome.to_scope`), with
its checker's tier, how its language was decided (from its target) and, for a
reused result, the reuse reason set right there.
Coverage completeness is a decision: `coverage_of` comes from orchestrator/decisions.

A big run streams (`Streamed`): each batch's outcomes become their rows as the batch
finishes, written to a spool on disk (model/rows.py) in the report's order, so neither
the outcomes nor the rows are held; only the notes and the paths a native tool declined
stay in memory. The report then reads its rows back from the spool.
"""

from __future__ import annotations

import bisect
import itertools
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from orchestrator.core.plugin_host import PluginSet
from orchestrator.decisions.coverage import coverage_of
from orchestrator.model.checker import FileOutcome, FileTarget
from orchestrator.model.report import (
    Coverage,
    Finding,
    PluginFailure,
    Report,
    RequestInfo,
    ScanInfo,
    Scope,
    finding_key,
    normalize,
    scope_key,
)
from orchestrator.model.rows import Spool, SpooledRows, sort_bytes
from orchestrator.vocab import GateDecision, Tier


def scopes_of(
    outcomes: Sequence[FileOutcome],
    tiers: Mapping[str, Tier],
    reused: set[tuple[str, str]],
    reason: str,
    targets: Sequence[FileTarget] = (),
) -> list[Scope]:
    """One scope per outcome; `reused` keys (path, checker) carry `reason`; a scope
    whose language is its target's records how that language was decided."""
    decided = {t.path: t for t in targets}
    return [scope_of(o, tiers, reused, reason, decided) for o in outcomes]


def scope_of(
    o: FileOutcome,
    tiers: Mapping[str, Tier],
    reused: set[tuple[str, str]],
    reason: str,
    decided: Mapping[str, FileTarget],
) -> Scope:
    """The scope of one outcome (see `scopes_of`; `decided`: the targets by path)."""
    scope = o.to_scope(tiers.get(o.checker), reason if (o.path, o.checker) in reused else None)
    t = decided.get(o.path)
    if t is not None and scope.language and scope.language == t.language:
        scope.detected_by = t.detected_by
    return scope


MIXED_COVERAGE = "mixed coverage: some files had only syntax checks, not native lint"


def coverage_notes(coverage: Coverage) -> list[str]:
    """The notes a report's coverage block calls for (some files only syntax-checked)."""
    return [MIXED_COVERAGE] if coverage.native_files and coverage.syntax_only_files else []


@dataclass(frozen=True)
class Assembly:
    """What the report is built from, besides the scopes and findings."""

    scan: ScanInfo
    request: RequestInfo
    plugins: PluginSet


def assemble(parts: Assembly, scopes: list[Scope], outcomes: Sequence[FileOutcome]) -> Report:
    """The normalised report: scopes, findings, plugin failures, coverage and notes."""
    findings = [f for o in outcomes for f in o.findings]
    notes = [n for o in outcomes for n in o.notes]
    return _report(parts, scopes, findings, notes)


def _report(
    parts: Assembly, scopes: Sequence[Scope], findings: Sequence[Finding], notes: list[str]
) -> Report:
    plugins = parts.plugins
    report = Report(
        scan=parts.scan,
        request=parts.request,
        plugin_failures=[PluginFailure(name=f.name, reason=f.reason) for f in plugins.failed],
    )
    # Assigned, not validated: spooled rows stay on disk (a list is taken as it is).
    report.scopes = scopes  # type: ignore[assignment]
    report.findings = findings  # type: ignore[assignment]
    report.coverage = coverage_of(scopes, len(plugins.failed))
    report.gate.decision = GateDecision.NOT_EVALUATED
    if plugins.failed:
        report.notes.append(
            f"{len(plugins.failed)} plugin(s) failed to load; their checks did not run"
        )
    report.notes += coverage_notes(report.coverage)
    # Checker notes in outcome order, each once (the same remark may come per file).
    report.notes += list(dict.fromkeys(notes))
    return normalize(report)


class _SortedTargets(Mapping[str, FileTarget]):
    """Targets sorted by path, looked up by bisection: no table of 100,000 of them."""

    def __init__(self, targets: Sequence[FileTarget]) -> None:
        self._targets = targets

    def __getitem__(self, path: str) -> FileTarget:
        i = bisect.bisect_left(self._targets, path, key=lambda t: t.path)
        if i < len(self._targets) and self._targets[i].path == path:
            return self._targets[i]
        raise KeyError(path)

    def __iter__(self) -> Iterator[str]:
        return (t.path for t in self._targets)

    def __len__(self) -> int:
        return len(self._targets)


def _by_path(targets: Sequence[FileTarget]) -> Mapping[str, FileTarget]:
    """The targets by path: a bisection over them when they come sorted (selection
    sorts them), else a table."""
    if all(a.path < b.path for a, b in itertools.pairwise(targets)):
        return _SortedTargets(targets)
    return {t.path: t for t in targets}


#: The order groups of a run's rows, as the in-memory path concatenates them.
SETTLED, REUSED, RAN, LATE, REFUSED, GAPS = range(6)
_SCOPES, _FINDINGS = 1, 2


class Streamed:
    """A run's rows as they are made: outcomes to scopes and findings in `spool`, in
    the order `assemble` gives the same outcomes (the report's sort, then the order of
    `group`, batch and position, as a stable sort keeps ties). Thread-safe."""

    def __init__(
        self,
        spool: Spool,
        tiers: Mapping[str, Tier],
        reused: set[tuple[str, str]],
        reason: str,
        targets: Sequence[FileTarget],
    ) -> None:
        self._spool = spool
        self._convert = (tiers, reused, reason, _by_path(targets))
        self._lock = threading.Lock()
        self._scopes = 0
        self._findings = 0
        #: Each distinct note with the first place it was made.
        self._notes: dict[str, tuple[int, int, int]] = {}
        #: Paths whose outcome `falls_back` (a native tool declined them while running).
        self.declined: set[str] = set()

    def add(self, group: int, batch: int, outcomes: Sequence[FileOutcome]) -> None:
        """Write the rows of `outcomes` (batch -1: before every batch of `group`)."""
        for i, o in enumerate(outcomes):
            order = (group, batch + 1, i)
            self._add_scope(scope_of(o, *self._convert), order)
            for j, f in enumerate(o.findings):
                self._spool.add(_FINDINGS, sort_bytes((*finding_key(f), *order, j)), f)
            with self._lock:
                self._findings += len(o.findings)
                for n in o.notes:
                    self._notes[n] = min(order, self._notes.get(n, order))
                if o.falls_back:
                    self.declined.add(o.path)

    def add_scopes(self, group: int, scopes: Sequence[Scope]) -> None:
        """Write scopes that no outcome made (refused paths, gaps)."""
        for i, s in enumerate(scopes):
            self._add_scope(s, (group, 0, i))

    def _add_scope(self, scope: Scope, order: tuple[int, int, int]) -> None:
        self._spool.add(_SCOPES, sort_bytes((*scope_key(scope), *order)), scope)
        with self._lock:
            self._scopes += 1

    def report(self, parts: Assembly) -> Report:
        """The normalised report over the spooled rows (as `assemble` makes it)."""
        self._spool.finish()
        scopes = SpooledRows(self._spool, _SCOPES, Scope, self._scopes)
        findings = SpooledRows(self._spool, _FINDINGS, Finding, self._findings)
        notes = sorted(self._notes, key=self._notes.__getitem__)
        return _report(parts, scopes, findings, notes)
