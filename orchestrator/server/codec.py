"""The one codec of the warm engine's lint answers: a use case's result as the JSON
bytes of a reply's `stdout`, and back.

Two answers travel this way: a host hook's edit-feedback lint (`hook_lint`: the lint
use case's `LintResult`) and an editor buffer's check (`buffer_lint`: the editor use
case's `BufferCheck`). The engine encodes (server/services.py), the client decodes
(server/client.py), each with the functions here, so both ends read one definition of
the shape. Decoding is strict: exact keys, exact types, a report the model validates;
anything else is None and the caller checks in-process.

This module imports the standard library only at load (the client's start-up path
must stay light); the report model and the result records load when a decode needs
them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from orchestrator.usecases.editor import BufferCheck
    from orchestrator.usecases.lint import LintResult

#: The keys of a hook lint's answer.
LINT_RESULT_KEYS = frozenset(
    {"report", "required_gaps", "task_ids", "task_error", "suppressions", "config_edits"}
)
#: The keys of a buffer check's answer.
BUFFER_CHECK_KEYS = frozenset({"report", "fault"})


def _dump(data: dict[str, Any]) -> bytes:
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


def encode_lint_result(result: LintResult) -> bytes:
    """A lint result as the engine sends it: the report, the unmet required coverage,
    the task ids, the task store's error, the suppressions and the checker config edits
    of edit feedback."""
    return _dump(
        {
            "report": result.report.model_dump(mode="json"),
            "required_gaps": list(result.required_gaps),
            "task_ids": list(result.task_ids),
            "task_error": result.task_error,
            "suppressions": {p: dict(m) for p, m in result.suppressions.items()},
            "config_edits": list(result.config_edits),
        }
    )


def _is_suppressions(value: Any) -> bool:
    """A path -> {marker: count} map whose markers are the known ones (never free text)."""
    from orchestrator.decisions.suppressions import MARKERS

    return isinstance(value, dict) and all(
        isinstance(p, str)
        and isinstance(m, dict)
        and all(k in MARKERS and type(n) is int and n > 0 for k, n in m.items())
        for p, m in value.items()
    )


def _is_strs(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def decode_lint_result(data: Any) -> LintResult | None:
    """The lint result in `data` (parsed JSON), or None when it is not of the exact
    shape `encode_lint_result` gives (keys, types, a report the model accepts)."""
    if not isinstance(data, dict) or set(data) != LINT_RESULT_KEYS:
        return None
    if not (
        _is_strs(data["required_gaps"])
        and _is_strs(data["task_ids"])
        and isinstance(data["task_error"], str)
        and _is_suppressions(data["suppressions"])
        and _is_strs(data["config_edits"])
    ):
        return None
    from pydantic import ValidationError

    from orchestrator.model.report import Report
    from orchestrator.usecases.lint import LintResult

    try:
        report = Report.model_validate(data["report"])
    except (ValidationError, RecursionError):
        return None
    return LintResult(
        report,
        list(data["required_gaps"]),
        tuple(data["task_ids"]),
        data["task_error"],
        suppressions=data["suppressions"],
        config_edits=tuple(data["config_edits"]),
    )


def encode_buffer_check(check: BufferCheck) -> bytes:
    """A buffer check as the engine sends it: the report (or null) and the fault."""
    report = None if check.report is None else check.report.model_dump(mode="json")
    return _dump({"report": report, "fault": check.fault})


def decode_buffer_check(data: Any) -> BufferCheck | None:
    """The buffer check in `data` (parsed JSON), marked `warm`, or None when it is not of
    the exact shape `encode_buffer_check` gives: a report the model accepts, or no
    report and a fault of at most MAX_FAULT characters (shown printable)."""
    from orchestrator.safetext import printable
    from orchestrator.usecases.editor import MAX_FAULT, BufferCheck

    if not isinstance(data, dict) or set(data) != BUFFER_CHECK_KEYS:
        return None
    fault = data["fault"]
    if not isinstance(fault, str) or len(fault) > MAX_FAULT:
        return None
    if data["report"] is None:
        return BufferCheck(None, printable(fault), warm=True) if fault else None
    from pydantic import ValidationError

    from orchestrator.model.report import Report

    try:
        return BufferCheck(Report.model_validate(data["report"]), warm=True)
    except (ValidationError, RecursionError):
        return None


__all__ = [
    "BUFFER_CHECK_KEYS",
    "LINT_RESULT_KEYS",
    "decode_buffer_check",
    "decode_lint_result",
    "encode_buffer_check",
    "encode_lint_result",
]
