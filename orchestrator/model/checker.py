"""The checker interface every plugin implements, and the records it exchanges.

A checker plans its files (settling the ones it cannot run, e.g. tool missing) and
runs batches under the shared deadline. It returns one `FileOutcome` per file it was
given, whatever happens: a crash or a timeout is an outcome, never an exception into
the host (the engine contains any that escape anyway).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from orchestrator.deadline import Deadline
from orchestrator.model.report import Finding, Scope, ToolIdentity, compact
from orchestrator.procs import DEFAULT_OUTPUT_BUDGET
from orchestrator.vocab import DetectedBy, Purpose, ScopeStatus, SyntaxEvidence, SyntaxStatus, Tier

#: Bytes of a single file a checker will read; larger files are refused as scopes.
MAX_FILE_BYTES = 16 * 1024 * 1024
#: Bytes of a single file a checker parses in orchestrate's own process (the syntax
#: fallback): a syntax tree takes about 40 to 70 times the file in memory, so a 16 MiB
#: file once took 1.2 GB. Larger files are `not_run` naming this limit; the project
#: setting `max_parse_bytes` moves it (`RunContext.parse_limit`).
MAX_PARSE_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)  # 100,000 of them: no dict each
class FileTarget:
    """A selected, safety-checked file.

    `path` is project-relative (POSIX). `abs_path` is where it lives on disk in the
    project. `content` holds the bytes to judge when they do not come from the
    worktree (a staged blob, a pushed commit); checkers must then use `content` and
    feed it on stdin (or a temporary tree), never read `abs_path`.
    """

    path: str
    abs_path: Path
    language: str | None = None
    content: bytes | None = None
    size: int = 0
    #: How `language` was decided (languages.detect_language), and why not when undecided.
    detected_by: DetectedBy | None = None
    undecided: str | None = None
    #: A generated file (model/generated.py) offered to the fallback tier only for its
    #: language's exact parser: no grammar runs on it (core/plan.split_generated).
    generated: bool = False

    @property
    def on_disk(self) -> bool:
        return self.content is None

    def read_bytes(self, limit: int = MAX_FILE_BYTES) -> bytes:
        """The bytes to judge: `content` if set, else the file (at most `limit` bytes)."""
        if self.content is not None:
            return self.content[:limit]
        with open(self.abs_path, "rb") as fh:
            # fh.read(limit) allocates `limit` bytes up front (16 MiB for every small
            # file); read what the file holds, and on if it grew since the fstat.
            size = os.fstat(fh.fileno()).st_size
            data = fh.read(min(limit, size + 1))
            if size < len(data) < limit:
                data += fh.read(limit - len(data))
            return data

    def digest(self) -> str:
        return hashlib.sha256(self.read_bytes()).hexdigest()


@dataclass(frozen=True)
class RunContext:
    """Everything a checker may consult: root, deadline, budgets, project config."""

    project_root: Path
    deadline: Deadline
    purpose: Purpose = Purpose.FEEDBACK
    output_budget: int = DEFAULT_OUTPUT_BUDGET
    config: Mapping[str, Any] = field(default_factory=dict)
    jobs: int = 4
    #: Explicit tool paths by checker or parser name ("eslint" -> "/abs/path"): the
    #: machine's (core/tool_paths.machine_tools), never the project config's.
    tool_overrides: Mapping[str, str] = field(default_factory=dict)
    #: Folders besides the project root whose executables a delivery run never runs.
    untrusted_roots: tuple[Path, ...] = ()
    env: Mapping[str, str] | None = None
    #: Policy files taken from the judged surface by a strict gate (project-relative
    #: path -> bytes; a path absent from the mapping is absent from the surface). When
    #: set, a checker reads its policy files from here, never from the working tree;
    #: None means the working tree is the surface.
    surface_files: Mapping[str, bytes] | None = None
    #: The base commit's copies of the policy files whose stricter reading a strict gate
    #: applies (the root `.gitattributes`: model/generated.stricter); None: no base to
    #: compare with (the surface's own policy applies).
    base_files: Mapping[str, bytes] | None = None
    #: Called with (0, total) when a set of batches starts (total: their file count)
    #: and with (done, total) after each batch returns; a presenter's progress count.
    on_progress: Callable[[int, int], None] | None = None
    #: Called with (checker name, seconds) once per batch run, from the batch's thread
    #: (a batch still running at the deadline: the time until then).
    on_batch_time: Callable[[str, float], None] | None = None

    def parse_limit(self) -> int:
        """The most bytes of one file to parse in-process: the project's validated
        `max_parse_bytes`, else MAX_PARSE_BYTES."""
        value = self.config.get("max_parse_bytes")
        return value if isinstance(value, int) and value > 0 else MAX_PARSE_BYTES


@dataclass(frozen=True)
class FileOutcome:
    """One file x checker result.

    `falls_back` says the fallback tier should still look at this file (the native
    tool is missing or unconfigured). `coherent` says the checker parsed these exact
    bytes coherently, so no other checker needs to parse them again. `notes` are
    report-level remarks (an allowlist use, ...): the report lists each distinct one.
    `reusable` False keeps this one outcome out of per-file reuse (core/reuse.py): the
    result depends on something its checker's reuse identity does not cover (the
    fallback's exact-parser verdicts). It is not a report field.
    """

    path: str
    checker: str
    status: ScopeStatus
    reason: str | None = None
    findings: tuple[Finding, ...] = ()
    syntax: SyntaxStatus | None = None
    syntax_evidence: SyntaxEvidence | None = None
    syntax_parser: ToolIdentity | None = None
    tool: ToolIdentity | None = None
    config_digest: str | None = None
    config_files: tuple[str, ...] = ()
    exit_code: int | None = None
    duration_ms: int | None = None
    hint: str | None = None
    falls_back: bool = False
    coherent: bool = False
    language: str | None = None
    notes: tuple[str, ...] = ()
    reusable: bool = True

    def with_(self, **changes: Any) -> FileOutcome:
        return replace(self, **changes)

    def to_scope(self, tier: Tier | None, reused: str | None = None) -> Scope:
        """The report row of this outcome: every field the Scope model declares is read
        from the outcome by name (no field list to keep in step), plus the two the
        outcome cannot know: the checker's tier and why the result was reused."""
        source = (
            self
            if self.tool is None or isinstance(self.tool, ToolIdentity)
            else (
                replace(self, tool=None)  # a malformed identity is dropped, not trusted
            )
        )
        scope = compact(Scope.model_validate(source, from_attributes=True))
        # Set on the fresh row rather than copied into a second one (a copy per file).
        scope.tier = tier
        scope.reused = reused
        return scope

    @classmethod
    def from_scope(cls, scope: Scope, **rest: Any) -> FileOutcome:
        """An outcome holding every field `scope` shares with it, plus `rest` (findings,
        coherent, ...): the inverse of `to_scope` for the shared fields."""
        names = {f.name for f in fields(cls)}
        shared = {
            k: tuple(v) if isinstance(v, list) else v
            for k, v in ((n, getattr(scope, n)) for n in type(scope).model_fields)
            if k in names
        }
        return cls(**{**shared, **rest})


@dataclass(frozen=True)
class Batch:
    """Files a checker will run together in one tool invocation."""

    targets: tuple[FileTarget, ...]
    #: Checker-private data (the config file, the resolved tool...).
    data: Any = None
    label: str = ""


@dataclass(frozen=True)
class CheckerPlan:
    """How a checker will handle the files it claimed: batches to run, files settled now."""

    batches: tuple[Batch, ...] = ()
    settled: tuple[FileOutcome, ...] = ()


@dataclass(frozen=True)
class Probe:
    """What a checker knows about its tool and config for a project, found without
    running a linter or writing anything (session-start discovery, doctor output).

    `found` is None when there is no external tool to find (an in-process checker, or
    a checker that does not say). `needs_config` says the tool refuses to run without
    project configuration (ESLint 9 without a flat config).
    """

    found: bool | None = None
    tool_path: str | None = None
    version: str | None = None
    configured: bool = False
    config_files: tuple[str, ...] = ()
    needs_config: bool = False
    hint: str | None = None

    @property
    def state(self) -> str:
        """configured | defaults | missing | configuration_required | available."""
        if self.found is None:
            return "available"
        if not self.found:
            return "missing"
        if self.configured:
            return "configured"
        return "configuration_required" if self.needs_config else "defaults"


@runtime_checkable
class Checker(Protocol):
    """What a checker plugin provides. See plugins/README.md for the guide.

    `languages` (detected language names the checker judges natively or by grammar),
    `config_names`, `column_unit` and `probe` are declared by every built-in; the host
    reads them once into a `model/declared.LoadedChecker`, and a third-party checker
    that lacks one gets its default with a warning. `essential = True` marks a
    policy checker that no block list may switch off (the secret scan).
    """

    name: str
    tier: Tier
    languages: frozenset[str]

    def claims(self, target: FileTarget) -> bool:
        """True when this checker wants to judge `target` (cheap: extension, language)."""
        ...

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        """Resolve the tool and config; batch the runnable files, settle the rest."""
        ...

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        """Run one batch before `ctx.deadline`; one outcome per target in the batch."""
        ...

    def probe(self, root: Path) -> Probe:
        """Tool found? configured? which config files? No process that lints, no write."""
        ...


def probe_of(checker: object, root: Path) -> Probe:
    """`checker.probe(root)`, contained: a missing or faulty probe is `Probe()` (available)."""
    fn = getattr(checker, "probe", None)
    if not callable(fn):
        return Probe()
    try:
        probe = fn(root)
    except Exception:  # noqa: BLE001 - discovery must never crash on a plugin
        return Probe()
    return probe if isinstance(probe, Probe) else Probe()


def is_essential(checker: object) -> bool:
    """True when the checker declares itself essential (cannot be blocked by name)."""
    return getattr(checker, "essential", False) is True


def outcome_for_all(
    checker: Checker | str,
    targets: Sequence[FileTarget],
    status: ScopeStatus,
    reason: str | None,
    **extra: Any,
) -> list[FileOutcome]:
    """The same outcome (e.g. timed_out) for every target of a batch."""
    name = checker if isinstance(checker, str) else checker.name
    return [
        FileOutcome(
            path=t.path, checker=name, status=status, reason=reason, language=t.language, **extra
        )
        for t in targets
    ]


def settled_plan(
    checker: Checker | str,
    targets: Sequence[FileTarget],
    status: ScopeStatus,
    reason: str | None,
    **extra: Any,
) -> CheckerPlan:
    """A plan that runs nothing: every target settled with the same outcome (the tool is
    missing, its version probe failed ...); `extra` as for `outcome_for_all`."""
    return CheckerPlan(settled=tuple(outcome_for_all(checker, targets, status, reason, **extra)))


def one_line(text: str | bytes, limit: int = 200) -> str:
    """Squash tool output into one bounded line for a `reason` field."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def bounded_message(text: str | bytes, limit: int = 500) -> str:
    """A tool's message for `Finding.message`: its own text with its line breaks kept
    (CRLF and CR written LF, each line's trailing blanks and the trailing blank lines
    dropped), at most `limit` characters. Unlike `one_line` nothing is folded: the
    machine formats (JSON, JSONL, SARIF) carry the text as the tool wrote it, and the
    terminal and agent presenters escape or fold it themselves."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept = "\n".join(line.rstrip() for line in lines).rstrip("\n")
    return kept if len(kept) <= limit else kept[: limit - 1] + "…"
