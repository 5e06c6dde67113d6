"""An editor buffer's check: one file of a project judged from the buffer's bytes.

What the language server asks (lsp/check.py) and what the warm engine serves for it
(a `buffer_lint` request, server/services.py) are this one call, on the same request
(`usecases/requests.buffer_request`, CG-12) and the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.deadline import FEEDBACK_DEADLINE_S
from orchestrator.safetext import printable

if TYPE_CHECKING:
    from orchestrator.model.report import Report

#: The most characters of a fault's text (ours, or the engine's).
MAX_FAULT = 400


@dataclass(frozen=True)
class BufferCheck:
    """The report of one buffer check, or why there is none (`fault`, our own words);
    `warm` when the engine answered, else `cold_reason` says why it did not."""

    report: Report | None
    fault: str = ""
    warm: bool = False
    cold_reason: str = ""


def check_content(
    root: Path, rel: str, content: bytes | None, timeout: float = FEEDBACK_DEADLINE_S
) -> BufferCheck:
    """Lint `rel` under `root` in this process, judging `content` (the buffer's bytes)
    instead of the disk when given. Records no task and writes nothing in the project.
    Never raises: a fault of the run (a bad configuration, an internal error) is
    returned as `fault`, at most MAX_FAULT printable characters."""
    from orchestrator.usecases.lint import NO_TASKS, lint, with_overlay
    from orchestrator.usecases.requests import buffer_request

    req = buffer_request(root, rel, timeout)
    try:
        if content is not None:
            req = with_overlay(req, {rel: content})
        return BufferCheck(lint(req, NO_TASKS).report)
    except Exception as exc:  # noqa: BLE001 - the editor keeps its server whatever a run does
        return BufferCheck(None, fault_text(exc))


def preload() -> None:
    """Import what the first buffer check needs (the lint use case, the report models,
    the plugins), so a server that calls this in the background right after it
    started answers its first check without paying for the imports. Keeps nothing
    else: every check still loads its plugins and configuration afresh. Never raises."""
    try:
        from orchestrator.core import plugin_host
        from orchestrator.usecases import lint  # noqa: F401 - imported to be loaded

        plugin_host.load()
    except Exception:  # noqa: BLE001 - the first check reports any fault itself
        pass


def fault_text(exc: BaseException) -> str:
    """What a buffer check says of `exc`: its type and message, printable, bounded."""
    return printable(f"{type(exc).__name__}: {exc}")[:MAX_FAULT]


__all__ = ["MAX_FAULT", "BufferCheck", "check_content", "fault_text", "preload"]
