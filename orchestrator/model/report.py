"""The standard report: pydantic models, their JSON Schema, deterministic ordering.

One report for every entry (CLI, git hooks, agent hosts, MCP). Presentation layers
read it; none of them rewrites it.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from orchestrator import __version__
from orchestrator.model.edits import ExactEdit, OpType, SafetyTier
from orchestrator.vocab import (
    SELECTION_CHECKER,
    BaselineState,
    DetectedBy,
    GateDecision,
    Purpose,
    ScopeStatus,
    Severity,
    SyntaxEvidence,
    SyntaxStatus,
    Tier,
)

SCHEMA_VERSION = "1.3"
#: The lint report schemas this version reads: 1.1 added the shard's `tree_digest` and
#: `config_digest` (fields only added, so a 1.0 report still validates).
#: 1.2 added `timings`. 1.3 added the scope tier `project` (a project recipe's scopes):
#: a reader that checks the tier's values against 1.2's would refuse them.
READABLE_SCHEMAS = ("1.0", "1.1", "1.2", "1.3")
#: The most shards one run may be split into (`--shard I/N`).
MAX_SHARDS = 1024
#: `request.entry` of a report merged from shards (`orchestrate report merge`).
MERGE_ENTRY = "merge"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolIdentity(_Model):
    """Which tool produced the evidence: resolved path and version."""

    path: str | None = None
    version: str | None = None


class ScanInfo(_Model):
    project_root: str
    scope_globs: list[str] = Field(default_factory=list)
    excluded_dirs: list[str] = Field(default_factory=list)
    files_scanned: int = 0


class RequestInfo(_Model):
    """What was asked: the entry, the purpose, the paths or git surface, the budgets."""

    entry: str = (
        "lint"  # lint | feedback | gate-commit | gate-push | gate-ci | hook | mcp | verify | merge
    )
    purpose: Purpose = Purpose.FEEDBACK
    paths: list[str] = Field(default_factory=list)
    surface: str = "worktree"  # worktree | index | push-range | revision
    revision: str | None = None
    require: list[str] = Field(default_factory=list)
    timeout_s: float | None = None
    jobs: int | None = None
    #: Checkers whose gap the caller accepts (`lint --allow-gap`): a checker the project
    #: configures that cannot run does not make the run incomplete (decisions/coverage.py).
    allow_gaps: list[str] = Field(default_factory=list)


class Scope(_Model):
    """One file x checker row: what was checked and what was not, with the reason."""

    path: str
    checker: str
    tier: Tier | None = None
    language: str | None = None
    #: How the language was decided: filename, extension, shebang, heuristic, classifier.
    detected_by: DetectedBy | None = None
    status: ScopeStatus
    reason: str | None = None
    syntax: SyntaxStatus | None = None
    #: What the syntax verdict rests on: the grammar alone (`candidate`), or the
    #: language's own parser (`confirmed` / `refuted`), named in `syntax_parser`.
    syntax_evidence: SyntaxEvidence | None = None
    syntax_parser: ToolIdentity | None = None
    tool: ToolIdentity | None = None
    config_digest: str | None = None
    #: The config files that govern this file for the checker; on a `missing` or
    #: `configuration_required` scope, the project's config that asks for the checker.
    config_files: list[str] = Field(default_factory=list)
    exit_code: int | None = None
    duration_ms: int | None = None
    reused: str | None = None
    hint: str | None = None


class Finding(_Model):
    """One diagnostic. `message` is the tool's free text: untrusted, never forwarded to agents."""

    checker: str
    rule: str
    severity: Severity
    tool_severity: str | None = None
    path: str
    line: int | None = Field(default=None, ge=1)
    column: int | None = Field(default=None, ge=1)
    end_line: int | None = Field(default=None, ge=1)
    end_column: int | None = Field(default=None, ge=1)
    message: str = ""
    candidate: bool = False  # a syntax-fallback candidate, not a native verdict
    blocking: bool = False
    fingerprint: str = ""
    exact_edit: ExactEdit | None = None
    op_type: OpType | None = None
    is_destructive: bool | None = None
    is_reversible: bool | None = None
    safety_tier: SafetyTier | None = None
    fix_applicability: str | None = None
    #: Where the tool documents the rule: the URL the tool itself gave, never made up.
    help_uri: str | None = None
    #: The tool's one-line description of the rule, when the tool gives one.
    rule_description: str | None = None
    #: What `column` and `end_column` count when not Unicode code points: "utf16" (UTF-16
    #: code units, a JavaScript string index) or "utf8" (bytes); None is code points. The
    #: engine sets it from the checker's declared `column_unit` (model/declared.py).
    column_unit: Literal["utf16", "utf8"] | None = None
    #: Against `lint --new-from-rev REV`: `new` or `unchanged` (decisions/new_findings.py);
    #: None when the run names no revision. An unchanged finding never blocks.
    baseline_state: BaselineState | None = None


class Coverage(_Model):
    """Counts per scope status plus which files had native evidence and which only syntax."""

    by_status: dict[str, int] = Field(default_factory=dict)
    native_files: int = 0
    syntax_only_files: int = 0
    uncovered_files: int = 0
    complete: bool = False


class Gate(_Model):
    decision: GateDecision = GateDecision.NOT_EVALUATED
    reasons: list[str] = Field(default_factory=list)
    recovery: list[str] = Field(default_factory=list)


class ShardIdentity(_Model):
    """Which share of a sharded run a report holds (`orchestrate lint --shard I/N`).

    `files_digest` is the SHA-256 of the full file list the share was chosen from (every
    path the unsharded run would report on, sorted, NUL-separated), so shards of
    different trees never pass for one run; `files` is that list's length;
    `tree_digest` and `config_digest` tell two revisions or configurations with the
    same file list apart.
    """

    index: int = Field(ge=1)
    count: int = Field(ge=1, le=MAX_SHARDS)
    files_digest: str = Field(pattern=r"^[0-9a-f]{64}$")
    files: int = Field(ge=0)
    #: SHA-256 over every file of that list and its bytes: the revision (and any
    #: uncommitted edit) the run judged (schema 1.1; None in an older shard's report).
    tree_digest: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    #: SHA-256 of the run's orchestrate settings (schema 1.1).
    config_digest: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")


def files_digest(paths: Iterable[str]) -> str:
    """The `files_digest` of a file list: SHA-256 over the sorted, distinct paths,
    NUL-separated (no path holds a NUL). A shard records it for the list its share was
    chosen from; a merge compares it with the files its shards' reports hold."""
    h = hashlib.sha256()
    for p in sorted(set(paths)):
        h.update(p.encode("utf-8", "surrogateescape") + b"\x00")
    return h.hexdigest()


class PluginFailure(_Model):
    name: str
    reason: str


#: Scope rows no checker wrote: files refused before any checker ran (the selection's
#: and a gate's surface rows).
NOT_CHECKERS = frozenset({SELECTION_CHECKER, "selection"})


class CheckerTime(_Model):
    """What one checker cost a run: its files, how many of them were reused, the
    batches it ran and the wall time they took (summed over batches run side by side,
    so the sum over checkers may exceed the run's own time)."""

    checker: str
    files: int = Field(default=0, ge=0)
    reused: int = Field(default=0, ge=0)
    batches: int = Field(default=0, ge=0)
    ms: int = Field(default=0, ge=0)


def checker_times(runs: Iterable[tuple[str, float]], scopes: Iterable[Scope]) -> list[CheckerTime]:
    """Per checker (by name), from the batches this run ran (`runs`: checker name and
    seconds each) and the report's scopes: the rows `Report.timings` holds, sorted by
    name (so two runs' reports differ only in the numbers). A checker with scopes and no batch ran nothing this time."""
    rows: dict[str, CheckerTime] = {}
    for scope in scopes:
        if scope.checker in NOT_CHECKERS:
            continue
        row = rows.setdefault(scope.checker, CheckerTime(checker=scope.checker))
        row.files += 1
        row.reused += scope.reused is not None
    seconds: dict[str, float] = {}
    for name, spent in runs:
        row = rows.setdefault(name, CheckerTime(checker=name))
        row.batches += 1
        seconds[name] = seconds.get(name, 0.0) + max(0.0, spent)
    for name, spent in seconds.items():
        rows[name].ms = round(spent * 1000)
    return sorted(rows.values(), key=lambda r: r.checker)


def summed_times(*parts: Iterable[CheckerTime]) -> list[CheckerTime]:
    """The `timings` of one run made of `parts` (a gate's rounds, a merge's shards):
    each checker's counts and time added up, sorted by name as `checker_times` sorts."""
    rows: dict[str, CheckerTime] = {}
    for part in parts:
        for t in part:
            row = rows.setdefault(t.checker, CheckerTime(checker=t.checker))
            row.files += t.files
            row.reused += t.reused
            row.batches += t.batches
            row.ms += t.ms
    return sorted(rows.values(), key=lambda r: r.checker)


class Report(_Model):
    schema_version: str = SCHEMA_VERSION
    tool_version: str = __version__
    generated_at: str = Field(default_factory=lambda: utc_now())
    scan: ScanInfo
    request: RequestInfo = Field(default_factory=RequestInfo)
    scopes: list[Scope] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    coverage: Coverage = Field(default_factory=Coverage)
    gate: Gate = Field(default_factory=Gate)
    plugin_failures: list[PluginFailure] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    #: A shard's own identity, or (a merged report) the identity of every shard merged.
    shards: list[ShardIdentity] = Field(default_factory=list)
    #: What each checker cost this run (`checker_times`); schema 1.2.
    timings: list[CheckerTime] = Field(default_factory=list)


@functools.cache
def _every_field(cls: type[BaseModel]) -> set[str]:
    return set(cls.model_fields)


def compact(model: BaseModel) -> BaseModel:
    """`model`, in place, sharing one "fields set" with every instance of its class.

    pydantic keeps a set of the fields given to each instance, only read by
    `exclude_unset` (which no report output uses); at 10,000 files those sets were
    about 20 MB of the report's memory. The shared set names every field, so an
    assignment (which adds the field's name to it) changes nothing in it.
    """
    object.__setattr__(model, "__pydantic_fields_set__", _every_field(type(model)))
    return model


def utc_now() -> str:
    """ISO-8601 UTC timestamp with a trailing Z, second precision plus microseconds."""
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def fingerprint(checker: str, rule: str, path: str, anchor: str) -> str:
    """A stable digest of what a finding is about (not where exactly it sits)."""
    raw = "\x1f".join((checker, rule, path, anchor)).encode("utf-8", "surrogateescape")
    return hashlib.sha256(raw).hexdigest()[:16]


def rule_label(checker: str, rule: str) -> str:
    """`checker/rule`, without doubling a prefix the rule id already carries."""
    return rule if rule.startswith(f"{checker}/") else f"{checker}/{rule}"


def finding_key(f: Finding) -> tuple[str, int, int, str, str, str]:
    """The order of findings in a report: path, line, column, checker, rule, message."""
    return (f.path, f.line or 0, f.column or 0, f.checker, f.rule, f.message)


def scope_key(s: Scope) -> tuple[str, str]:
    """The order of scopes in a report: path, checker."""
    return (s.path, s.checker)


def normalize(report: Report) -> Report:
    """Sort scopes and findings deterministically (path, line, column, checker); rows
    kept on disk (model/rows.py) already come out in this order."""
    if isinstance(report.scopes, list):
        report.scopes.sort(key=scope_key)
    if isinstance(report.findings, list):
        report.findings.sort(key=finding_key)
    report.plugin_failures.sort(key=lambda p: p.name)
    report.shards.sort(key=lambda s: (s.count, s.index, s.files_digest))
    return report


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the report, as printed by `orchestrate schema`."""
    schema = Report.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "orchestrate report"
    return schema
