"""The checker interface every plugin implements, and the records it exchanges.

A checker plans its files (settling the ones it cannot run, e.g. tool missing) and
runs batches under the shared deadline. It returns one `FileOutcome` per file it was
given, whatever happens: a crash or a timeout is an outcome, never an exception into
the host (the engine contains any that escape anyway).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from orchestrator.core.report import Finding, ToolIdentity
from orchestrator.deadline import Deadline
from orchestrator.procs import DEFAULT_OUTPUT_BUDGET
from orchestrator.vocab import Purpose, ScopeStatus, SyntaxStatus, Tier

#: Bytes of a single file a checker will read; larger files are refused as scopes.
MAX_FILE_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
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
    #: Values like ("tool", "eslint") -> "/abs/path" from config or tests.
    tool_overrides: Mapping[str, str] = field(default_factory=dict)
    env: Mapping[str, str] | None = None


@dataclass(frozen=True)
class FileOutcome:
    """One file x checker result.

    `falls_back` says the fallback tier should still look at this file (the native
    tool is missing or unconfigured). `coherent` says the checker parsed these exact
    bytes coherently, so no other checker needs to parse them again.
    """

    path: str
    checker: str
    status: ScopeStatus
    reason: str | None = None
    findings: tuple[Finding, ...] = ()
    syntax: SyntaxStatus | None = None
    tool: ToolIdentity | None = None
    config_digest: str | None = None
    config_files: tuple[str, ...] = ()
    exit_code: int | None = None
    duration_ms: int | None = None
    hint: str | None = None
    falls_back: bool = False
    coherent: bool = False
    language: str | None = None

    def with_(self, **changes: Any) -> FileOutcome:
        return replace(self, **changes)


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


@runtime_checkable
class Checker(Protocol):
    """What a checker plugin provides. See plugins/README.md for the guide."""

    name: str
    tier: Tier

    def claims(self, target: FileTarget) -> bool:
        """True when this checker wants to judge `target` (cheap: extension, language)."""
        ...

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        """Resolve the tool and config; batch the runnable files, settle the rest."""
        ...

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        """Run one batch before `ctx.deadline`; one outcome per target in the batch."""
        ...


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


def one_line(text: str | bytes, limit: int = 200) -> str:
    """Squash tool output into one bounded line for a `reason` field."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
