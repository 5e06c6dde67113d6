"""One ladder from a tool process's result to a scope status, shared by every checker.

A plugin keeps only what is tool-specific: which exit codes mean "ran and reported"
and how to parse the output. Everything else about the process is decided here, so
the same fact gives the same status whichever plugin ran the tool:

=============================  ============  =========================================
process fact                   status        why
=============================  ============  =========================================
could not start (spawn error)  tool_error    nothing ran
deadline reached               timed_out     the tool was killed before it finished
output over the budget         tool_error    the output was cut mid-stream: unparsable,
                                             so no file has a result (not ``partial``,
                                             which promises some output stands)
killed by a signal (rc < 0)    tool_error    a crash; its output is not trusted
unexpected exit code           tool_error    e.g. 139 (a shell's 128 + SIGSEGV), 2
no output at all               tool_error    a tool that promised output printed none
output the parser rejects      tool_error    garbage: not the tool's promised format
=============================  ============  =========================================

In-process checkers (no process) map their own faults the same way: a parse cut off
at the deadline is ``timed_out``, an exception is ``tool_error``.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from orchestrator.model.checker import FileOutcome, FileTarget, one_line, outcome_for_all
from orchestrator.procs import ProcResult
from orchestrator.vocab import ScopeStatus

#: The reason phrase of a process that printed nothing (shared so reasons agree too).
NO_OUTPUT = "printed nothing: no result, no diagnostics"


class Unparsable(ValueError):
    """Raised by a plugin's parser when the output is not the tool's promised format."""


@dataclass(frozen=True)
class ProcessFailure:
    """Why a process result cannot be parsed into per-file outcomes."""

    status: ScopeStatus
    reason: str


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def process_failure(
    res: ProcResult,
    *,
    label: str,
    exits: Collection[int] = (0, 1),
    quiet_ok: bool = False,
    cause: Callable[[bytes], str] = one_line,
) -> ProcessFailure | None:
    """The failure rung of `res` (see the module table), or None when it may be parsed.

    `exits` are the codes with which the tool reports a result (clean or findings);
    `quiet_ok` says that exit 0 with no output is a clean answer (yamllint's
    parsable format prints nothing for a clean file); `cause` condenses stderr into
    the reason's detail; `label` names the tool in reasons.
    """
    rc = res.returncode
    if res.spawn_error:
        return ProcessFailure(ScopeStatus.TOOL_ERROR, f"{label} could not start: {res.spawn_error}")
    if res.timed_out:
        return ProcessFailure(ScopeStatus.TIMED_OUT, f"deadline reached; {label} killed")
    if res.over_budget:
        why = f"output over budget ({len(res.stdout) + len(res.stderr)} bytes kept); {label} killed"
        return ProcessFailure(ScopeStatus.TOOL_ERROR, f"{why}, no results")
    if rc is not None and rc < 0:
        detail = cause(res.stderr)
        why = f"{label} exit {rc}: killed by {_signal_name(-rc)}"
        return ProcessFailure(ScopeStatus.TOOL_ERROR, f"{why}{': ' + detail if detail else ''}")
    if rc not in exits:
        detail = cause(res.stderr) or cause(res.stdout)
        if rc is not None and rc > 128 and _signal_name(rc - 128) != f"signal {rc - 128}":
            detail = f"(128 + {_signal_name(rc - 128)}) {detail}".strip()
        return ProcessFailure(ScopeStatus.TOOL_ERROR, f"{label} exit {rc}: {detail or 'crashed'}")
    if not res.stdout.strip() and not res.stderr.strip() and not (quiet_ok and rc == 0):
        return ProcessFailure(ScopeStatus.TOOL_ERROR, f"{label} exit {rc}: {NO_OUTPUT}")
    return None


def outcome_from(
    res: ProcResult,
    targets: Sequence[FileTarget],
    *,
    checker: str,
    label: str,
    parse: Callable[[ProcResult], list[FileOutcome]],
    exits: Collection[int] = (0, 1),
    quiet_ok: bool = False,
    cause: Callable[[bytes], str] = one_line,
    **common: Any,
) -> list[FileOutcome]:
    """Per-file outcomes of one tool process: the shared failure ladder, then `parse`.

    Promise: the same process fact gives the same status for every plugin (module
    table). `parse` is called only for a result that passed the ladder; when it raises
    `Unparsable` (or any ValueError, e.g. a JSON or UTF-8 decode error) every target
    is `tool_error`. `common` fields (tool identity, config digest...) go on every
    outcome; the exit code and duration are recorded on failures too.
    """
    failure = process_failure(res, label=label, exits=exits, quiet_ok=quiet_ok, cause=cause)
    if failure is None:
        try:
            return parse(res)
        except ValueError as exc:  # Unparsable, JSONDecodeError, UnicodeDecodeError
            detail = str(exc) if isinstance(exc, Unparsable) else f"unparsable output: {exc}"
            failure = ProcessFailure(
                ScopeStatus.TOOL_ERROR, f"{label} exit {res.returncode}: {detail}"
            )
    fields = {"exit_code": res.returncode, "duration_ms": res.duration_ms, **common}
    return outcome_for_all(checker, targets, failure.status, one_line(failure.reason), **fields)
