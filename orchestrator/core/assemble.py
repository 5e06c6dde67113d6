"""Stage 4 of the lint path: outcomes -> scopes -> the standard report.

Each outcome becomes its scope through one conversion (`FileOutcome.to_scope`), with
its checker's tier, how its language was decided (from its target) and, for a
reused result, the reuse reason set right there.
Coverage completeness is a decision: `coverage_of` comes from orchestrator/decisions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from orchestrator.core.plugin_host import PluginSet
from orchestrator.decisions.coverage import coverage_of
from orchestrator.model.checker import FileOutcome, FileTarget
from orchestrator.model.report import (
    Coverage,
    PluginFailure,
    Report,
    RequestInfo,
    ScanInfo,
    Scope,
    normalize,
)
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
    scopes = []
    for o in outcomes:
        scope = o.to_scope(tiers.get(o.checker), reason if (o.path, o.checker) in reused else None)
        t = decided.get(o.path)
        if t is not None and scope.language and scope.language == t.language:
            scope.detected_by = t.detected_by
        scopes.append(scope)
    return scopes


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
    plugins = parts.plugins
    report = Report(
        scan=parts.scan,
        request=parts.request,
        scopes=scopes,
        findings=[f for o in outcomes for f in o.findings],
        plugin_failures=[PluginFailure(name=f.name, reason=f.reason) for f in plugins.failed],
    )
    report.coverage = coverage_of(scopes, len(plugins.failed))
    report.gate.decision = GateDecision.NOT_EVALUATED
    if plugins.failed:
        report.notes.append(
            f"{len(plugins.failed)} plugin(s) failed to load; their checks did not run"
        )
    report.notes += coverage_notes(report.coverage)
    # Checker notes in outcome order, each once (the same remark may come per file).
    report.notes += list(dict.fromkeys(n for o in outcomes for n in o.notes))
    return normalize(report)
