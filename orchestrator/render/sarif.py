"""SARIF 2.1.0 presentation of the report; coverage travels inside it.

Every scope that is not `checked` becomes one toolExecutionNotification, and the
invocation is `executionSuccessful: false` whenever coverage is incomplete. A syntax
candidate is at most a `warning` (an unconfirmed parse, never an `error`); each file's
detected language is its artifact's `sourceLanguage`, with `detected_by`. A shard's
report, or one merged from shards, names every shard's identity in the invocation's
properties (`shards`), and each gap in a merged set of shards is a notification.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator import __version__
from orchestrator.decisions.coverage import shard_gaps
from orchestrator.decisions.findings import is_blocking
from orchestrator.model.report import Finding, Report, Scope, rule_label
from orchestrator.vocab import ScopeStatus, Severity

INFO_URI = "https://pypi.org/project/orchestrate/"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_CANDIDATE_LEVEL = {Severity.INFO: "note"}
# Statuses that are only an absence of coverage are notes-worth "warning"; faults "error".
_FAULTS = {ScopeStatus.TOOL_ERROR, ScopeStatus.TIMED_OUT, ScopeStatus.PARTIAL, ScopeStatus.UNSAFE}


def _region(f: Finding) -> dict[str, int]:
    region: dict[str, int] = {}
    if f.line:
        region["startLine"] = f.line
        if f.column:
            region["startColumn"] = f.column
        if f.end_line:
            region["endLine"] = f.end_line
        if f.end_column and f.end_line:
            region["endColumn"] = f.end_column
    return region


def _result(f: Finding, rule_id: str) -> dict[str, Any]:
    """One finding as a SARIF result, located relative to PROJECTROOT."""
    loc: dict[str, Any] = {"artifactLocation": {"uri": f.path, "uriBaseId": "PROJECTROOT"}}
    if region := _region(f):
        loc["region"] = region
    props: dict[str, Any] = {"candidate": f.candidate, "blocking": is_blocking(f)}
    if f.safety_tier:
        props["safety_tier"] = f.safety_tier
    return {
        "ruleId": rule_id,
        # A syntax candidate is unconfirmed: at most a warning, never an error.
        "level": _CANDIDATE_LEVEL.get(f.severity, "warning") if f.candidate else _LEVEL[f.severity],
        "message": {"text": f.message or f.rule},
        "locations": [{"physicalLocation": loc}],
        "partialFingerprints": {"orchestrate/v1": f.fingerprint or rule_id},
        "properties": props,
    }


def _scope_note(s: Scope) -> dict[str, Any]:
    """One scope that is not `checked` as a toolExecutionNotification."""
    text = f"{s.checker}: {s.status}" + (f" ({s.reason})" if s.reason else "")
    return {
        "level": "error" if s.status in _FAULTS else "warning",
        "message": {"text": text},
        "descriptor": {"id": str(s.status)},
        "locations": [
            {"physicalLocation": {"artifactLocation": {"uri": s.path, "uriBaseId": "PROJECTROOT"}}}
        ],
        "properties": {"checker": s.checker, "status": str(s.status)}
        | ({"detected_by": str(s.detected_by)} if s.detected_by else {}),
    }


def _artifacts(report: Report) -> list[dict[str, Any]]:
    """One artifact per file whose language was detected: SARIF's `sourceLanguage`,
    with how it was decided (`detected_by`) as a property."""
    seen: dict[str, dict[str, Any]] = {}
    for s in report.scopes:
        if s.language and s.path not in seen:
            seen[s.path] = {
                "location": {"uri": s.path, "uriBaseId": "PROJECTROOT"},
                "sourceLanguage": s.language,
                "properties": {"detected_by": str(s.detected_by) if s.detected_by else None},
            }
    return [seen[p] for p in sorted(seen)]


def _notes(report: Report) -> list[dict[str, Any]]:
    notes = [
        {"level": "error", "message": {"text": gap}, "descriptor": {"id": "shard_missing"}}
        for gap in shard_gaps(report)
    ]
    notes += [_scope_note(s) for s in report.scopes if s.status != ScopeStatus.CHECKED]
    for pf in report.plugin_failures:
        notes.append(
            {
                "level": "error",
                "message": {"text": f"plugin {pf.name} failed to load: {pf.reason}"},
                "descriptor": {"id": "plugin_failure"},
            }
        )
    return notes


def to_sarif(report: Report) -> dict[str, Any]:
    """The report as one SARIF 2.1.0 log with a single run."""
    rules: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []
    for f in report.findings:
        rule_id = rule_label(f.checker, f.rule)
        rules.setdefault(rule_id, {"id": rule_id, "name": f.rule})
        results.append(_result(f, rule_id))
    notes = _notes(report)
    root_uri = Path(report.scan.project_root).as_uri().rstrip("/") + "/"
    driver = {
        "name": "orchestrate",
        "version": __version__,
        "informationUri": INFO_URI,
        "rules": [rules[k] for k in sorted(rules)],
    }
    invocation = {
        "executionSuccessful": bool(report.coverage.complete) and not notes,
        "toolExecutionNotifications": notes,
        "properties": {
            "gate": str(report.gate.decision),
            "coverage": report.coverage.model_dump(mode="json"),
        }
        | ({"shards": [s.model_dump(mode="json") for s in report.shards]} if report.shards else {}),
    }
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "originalUriBaseIds": {"PROJECTROOT": {"uri": root_uri}},
                "invocations": [invocation],
                "artifacts": _artifacts(report),
                "results": results,
            }
        ],
    }
