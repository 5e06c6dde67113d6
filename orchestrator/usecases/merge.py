"""The merge use case: the reports of `lint --shard I/N` runs as one report.

`merge` reads each shard's report (untrusted: read with a size bound and validated as
a lint report by hygiene/validate.py, the one validation every report consumer uses),
checks that every scope and finding lies in its shard's share (`shard_of`), refuses
shards that judged different contents or settings (`tree_digest`, `config_digest`: two
commits can share a file list) and a shard's report too old to say, and unions
scopes, findings, plugin failures and notes into one report that records every
shard's identity. Whether the set of shards is one whole run (none missing, none twice,
one N, one file list) and the coverage block come from decisions/coverage.py, as for
any run: a merge that lacks a shard is `incomplete` (exit 3) and says which, never
silently smaller.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from orchestrator.core.assemble import coverage_notes
from orchestrator.core.selection import shard_of
from orchestrator.decisions.coverage import report_coverage
from orchestrator.errors import UsageError
from orchestrator.hygiene.validate import read_json, validate_lint
from orchestrator.model.report import (
    MERGE_ENTRY,
    CheckerTime,
    Finding,
    PluginFailure,
    Report,
    Scope,
    ShardIdentity,
    normalize,
    summed_times,
)
from orchestrator.safetext import printable
from orchestrator.usecases.lint import LintResult, incomplete_notes, without_incomplete_notes
from orchestrator.vocab import GateDecision

#: Reasons of one invalid input named in its error.
_REASONS_SHOWN = 5


def _in_share(path: str, shards: Sequence[ShardIdentity]) -> bool:
    return any(shard_of(path, s.count) == s.index for s in shards)


def load_shard_report(path: Path) -> Report:
    """The shard's report at `path`, validated; UsageError saying why it is refused
    (unreadable, not a valid lint report, no shard identity, or a scope or finding
    outside the share its identity names)."""
    label = printable(str(path))
    data, reasons = read_json(path)
    report = None
    if not reasons:
        report, reasons = validate_lint(data)
    if report is None or reasons:
        shown = "; ".join(printable(r) for r in reasons[:_REASONS_SHOWN])
        raise UsageError(f"{label}: not a valid orchestrate report: {shown}")
    if not report.shards:
        raise UsageError(
            f"{label}: not a shard's report (no shard identity; make it with "
            "`orchestrate lint --shard I/N --format json`)"
        )
    if any(s.tree_digest is None or s.config_digest is None for s in report.shards):
        raise UsageError(
            f"{label}: a shard's report from before schema 1.1 (schema "
            f"{printable(report.schema_version)}): it does not say which revision and settings "
            "it judged, so it cannot be merged; make every shard again with this orchestrate"
        )
    stray = [s.path for s in report.scopes if not _in_share(s.path, report.shards)]
    stray += [f.path for f in report.findings if not _in_share(f.path, report.shards)]
    if stray:
        raise UsageError(
            f"{label}: {printable(stray[0])} is not in the share of the shard(s) the report "
            "names: the report does not match its identity"
        )
    return report


def _key(s: ShardIdentity) -> tuple[int, int, str]:
    return (s.count, s.index, s.files_digest)


def _one_revision(shards: Sequence[ShardIdentity]) -> None:
    """UsageError when shards chosen from one file list judged different contents or
    settings: shards of two commits (or two configurations) with the same file list
    are not one run. Different file lists are a gap the merged report names
    (decisions/coverage.shard_gaps)."""
    for what, attr in (("revisions (file contents)", "tree_digest"), ("settings", "config_digest")):
        groups: dict[str, set[str]] = {}
        for s in shards:
            groups.setdefault(s.files_digest, set()).add(str(getattr(s, attr)))
        seen = sorted(max(groups.values(), key=len, default=set()))
        if len(seen) > 1:
            named = ", ".join(d[:12] for d in seen[:_REASONS_SHOWN])
            raise UsageError(
                f"report merge: the shards judged different {what} ({named}): they are not "
                "one run; make every shard from one commit with one configuration"
            )


def merge_reports(reports: Sequence[Report]) -> Report:
    """One report of `reports` (validated shard reports), in the order given.

    Every shard's identity is recorded, each time it is given; the contents of a
    shard given again are taken once. A (path, checker) row is taken from the first
    report that has it, with that report's findings for it.
    """
    if not reports:
        raise UsageError("report merge: name at least one shard's report")
    _one_revision([s for r in reports for s in r.shards])
    first = reports[0]
    identities: list[ShardIdentity] = []
    taken: set[tuple[int, int, str]] = set()
    scopes: dict[tuple[str, str], Scope] = {}
    findings: list[Finding] = []
    failures: dict[str, PluginFailure] = {}
    notes: dict[str, None] = {}
    scanned = 0
    spent: list[list[CheckerTime]] = []
    for report in reports:
        identities += report.shards
        keys = {_key(s) for s in report.shards}
        if keys <= taken:
            continue  # the same shard again: its identity counts, its rows do not
        taken |= keys
        scanned += report.scan.files_scanned
        spent.append(report.timings)
        won = set()
        for s in report.scopes:
            if (s.path, s.checker) not in scopes:
                scopes[(s.path, s.checker)] = s
                won.add((s.path, s.checker))
        findings += [f for f in report.findings if (f.path, f.checker) in won]
        for p in report.plugin_failures:
            failures.setdefault(p.name, p)
        notes.update(dict.fromkeys(without_incomplete_notes(report.notes)))
    merged = Report(
        scan=first.scan.model_copy(update={"files_scanned": scanned}),
        request=first.request.model_copy(update={"entry": MERGE_ENTRY}),
        scopes=list(scopes.values()),
        findings=findings,
        plugin_failures=list(failures.values()),
        shards=identities,
        timings=summed_times(*spent),
    )
    merged.gate.decision = GateDecision.NOT_EVALUATED
    merged.coverage = report_coverage(merged)
    merged.notes = [
        *incomplete_notes(merged),
        *coverage_notes(merged.coverage),
        *(n for n in notes if n not in coverage_notes(merged.coverage)),
    ]
    return normalize(merged)


def merge(paths: Sequence[Path]) -> LintResult:
    """`orchestrate report merge A.json B.json ...`: the merged report and its exit
    code (decisions/exits.py, as for a lint: 3 when a shard is missing or a check
    failed, 1 for blocking findings, else 0)."""
    return LintResult(merge_reports([load_shard_report(p) for p in paths]))


__all__ = ["load_shard_report", "merge", "merge_reports"]
