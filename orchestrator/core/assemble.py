"""Stage 4 of the lint path: outcomes -> scopes -> the standard report.

Each outcome becomes its scope through one conversion (`FileOutcome.to_scope`), with
its checker's tier and, for a reused result, the reuse reason set right there.
`coverage_of` and `missing_required` judge the finished scopes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from orchestrator.core import plugin_host
from orchestrator.core.checker import FileOutcome
from orchestrator.core.plugin_host import PluginSet
from orchestrator.core.report import (
    Coverage,
    PluginFailure,
    Report,
    RequestInfo,
    ScanInfo,
    Scope,
    normalize,
)
from orchestrator.vocab import GateDecision, ScopeStatus, Tier


def scopes_of(
    outcomes: Sequence[FileOutcome],
    tiers: Mapping[str, Tier],
    reused: set[tuple[str, str]],
    reason: str,
) -> list[Scope]:
    """One scope per outcome; `reused` keys (path, checker) carry `reason`."""
    return [
        o.to_scope(tiers.get(o.checker), reason if (o.path, o.checker) in reused else None)
        for o in outcomes
    ]


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
    if report.coverage.native_files and report.coverage.syntax_only_files:
        report.notes.append("mixed coverage: some files had only syntax checks, not native lint")
    # Checker notes in outcome order, each once (the same remark may come per file).
    report.notes += list(dict.fromkeys(n for o in outcomes for n in o.notes))
    return normalize(report)


def coverage_of(scopes: Sequence[Scope], failures: int = 0) -> Coverage:
    """Counts per status and which files had native evidence, only syntax, or none."""
    by_status: dict[str, int] = defaultdict(int)
    per_file: dict[str, set[str]] = defaultdict(set)
    for s in scopes:
        by_status[str(s.status)] += 1
        if s.tier == Tier.POLICY:
            continue
        if s.status == ScopeStatus.CHECKED:
            per_file[s.path].add(str(s.tier))
        else:
            per_file.setdefault(s.path, set())
    native = sum(1 for tiers in per_file.values() if "native" in tiers)
    syntax = sum(1 for tiers in per_file.values() if tiers == {"fallback"})
    complete = failures == 0 and all(s.status == ScopeStatus.CHECKED for s in scopes)
    return Coverage(
        by_status=dict(sorted(by_status.items())),
        native_files=native,
        syntax_only_files=syntax,
        uncovered_files=len(per_file) - native - syntax,
        complete=complete and bool(scopes),
    )


def missing_required(
    report: Report, require: Sequence[str], native: Mapping[str, str] | None = None
) -> list[str]:
    """Reasons why the coverage the caller asked for (`--require`) is incomplete.

    `native` maps a language to the native checker declaring it (default: the loaded
    plugins' declarations, `PluginSet.native_languages`)."""
    reasons: list[str] = []
    want = set(require)
    if not want:
        return reasons
    NATIVE_LANGUAGES = native if native is not None else plugin_host.load().native_languages()
    by_file: dict[str, list[Scope]] = defaultdict(list)
    for s in report.scopes:
        by_file[s.path].append(s)
    for path, scopes in sorted(by_file.items()):
        checked = [s for s in scopes if s.status == ScopeStatus.CHECKED and s.tier != Tier.POLICY]
        lang = next((s.language for s in scopes if s.language), None)
        if "complete" in want and any(s.status != ScopeStatus.CHECKED for s in scopes):
            bad = next(s for s in scopes if s.status != ScopeStatus.CHECKED)
            reasons.append(f"{path}: {bad.checker} {bad.status}")
        elif "native" in want and lang in NATIVE_LANGUAGES:
            if not any(s.tier == Tier.NATIVE for s in checked):
                reasons.append(f"{path}: no native ({NATIVE_LANGUAGES[lang]}) evidence")
        elif "syntax" in want and not checked:
            reasons.append(f"{path}: no checker produced evidence")
    return reasons
