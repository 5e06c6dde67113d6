"""One check of one editor buffer through the lint use case: by the project's warm
engine when one runs (server/client.buffer_lint), else in this process.

Both ways run `check_content` on the same request and the same bytes (CG-12); the
engine's answer is its result as JSON, validated back into the report model here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.deadline import FEEDBACK_DEADLINE_S
from orchestrator.safetext import printable

if TYPE_CHECKING:
    from orchestrator.model.report import Report

#: The most characters of a fault's text (ours, or the engine's).
MAX_FAULT = 400
#: The keys of the engine's answer (`check_json`).
RESULT_KEYS = frozenset({"report", "fault"})


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
    returned as `fault`."""
    from orchestrator.usecases.lint import NO_TASKS, lint, with_overlay
    from orchestrator.usecases.requests import buffer_request

    req = buffer_request(root, rel, timeout)
    try:
        if content is not None:
            req = with_overlay(req, {rel: content})
        return BufferCheck(lint(req, NO_TASKS).report)
    except Exception as exc:  # noqa: BLE001 - the editor keeps its server whatever a run does
        return BufferCheck(None, printable(f"{type(exc).__name__}: {exc}")[:MAX_FAULT])


def check_json(root: Path, rel: str, content: bytes, timeout: float) -> bytes:
    """The warm engine's side: `check_content` of the buffer, as JSON bytes."""
    result = check_content(root, rel, content, timeout)
    report = None if result.report is None else result.report.model_dump(mode="json")
    return json.dumps({"report": report, "fault": result.fault}, ensure_ascii=False).encode()


def _from_engine(data: dict[str, Any]) -> BufferCheck | None:
    """The engine's answer as a check, or None when it is not of the exact shape."""
    from pydantic import ValidationError

    from orchestrator.model.report import Report

    fault = data.get("fault")
    if set(data) != RESULT_KEYS or not isinstance(fault, str) or len(fault) > MAX_FAULT:
        return None
    if data["report"] is None:
        return BufferCheck(None, printable(fault), warm=True) if fault else None
    try:
        return BufferCheck(Report.model_validate(data["report"]), warm=True)
    except (ValidationError, RecursionError):
        return None


def check_buffer(root: Path, rel: str, text: str | None) -> BufferCheck:
    """Lint `rel` under `root`, judging `text` (the buffer) instead of the disk when
    given: by the project's running warm engine when it answers well, else in this
    process (`cold_reason` says why). The same request and bytes either way; never
    starts an engine, never raises."""
    if text is None:
        return check_content(root, rel, None)
    try:
        content = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:  # a lone surrogate the editor sent
        return BufferCheck(None, printable(f"{type(exc).__name__}: {exc}")[:MAX_FAULT])
    from orchestrator.server.client import buffer_lint

    answer = buffer_lint(root, rel, content, FEEDBACK_DEADLINE_S)
    if answer.data is not None:
        warm = _from_engine(answer.data)
        if warm is not None:
            return warm
        reason = "warm engine answered something malformed (buffer check)"
    else:
        reason = answer.reason
    cold = check_content(root, rel, content)
    return BufferCheck(cold.report, cold.fault, cold_reason=printable(reason)[:MAX_FAULT])
