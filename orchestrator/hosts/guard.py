"""The one outer guard of `orchestrate hook <host>`: a strict event never fails open.

Everything a host hook does runs below `answer`: reading the event, decoding it, the
shell analyser, the gate, bounding the texts, rendering, serialising and writing the
answer. Any exception anywhere below it (or a cancellation) on an event that may be a
strict one (the host's before-tool event: a delivery through the shell tool, or a
file-edit tool that may aim at a protected path) ends in a refusal built before the
event was read: constant bytes in the host's own shape on stdout, the reason on
stderr and exit 2, which each host reads as "block this tool call" (hooks/
__protocol__.md, "When the hook itself fails"). The refusal path writes those
constants with `os.write` and nothing else: it never re-enters the code that failed.

An event that names another event (edit feedback, prompt, session start, Stop) gets a
constant "internal fault, check not run" line instead, exit 0: it never blocks and
never says anything passed. An event whose name cannot be read is treated as strict.

This module imports only the standard library at import time, so a fault while
importing the rest of orchestrate is caught here too.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Mapping
from typing import BinaryIO

#: The reason every host shows for a refusal by the guard (stderr and the JSON).
FAULT_REASON = (
    "orchestrate strict gate: incomplete. An internal fault stopped the hook before it "
    "could judge this tool call, so it is refused (nothing was checked, delivery did "
    "not pass). Run: orchestrate gate commit"
)
# Pre-built answers, one per host: JSON in the host's before-tool shape (the fast test
# tests/test_strict_guard.py checks each equals the adapter's own rendering of a
# refusal and passes the host's published schema). Exit 2 with the reason on stderr
# blocks on every host even when stdout was already partly written.
_HSO_DENY = (
    b'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",'
    b'"permissionDecisionReason":"' + FAULT_REASON.encode() + b'"}}\n'
)
REFUSALS: dict[str, bytes] = {
    "claude-code": _HSO_DENY,
    "codex": _HSO_DENY,
    "gemini": b'{"decision":"deny","reason":"' + FAULT_REASON.encode() + b'"}\n',
}
#: The exit code every host reads as a block of the tool call (reason on stderr).
REFUSAL_EXIT = 2
REFUSAL_STDERR = (FAULT_REASON + "\n").encode()
#: A fault on an event that cannot deliver anything: said, never a pass, exit 0.
FAULT_NOTE = (
    b'{"systemMessage":"orchestrate: internal fault, check not run; nothing was verified '
    b'(delivery not_evaluated)"}\n'
)


def _give(out_fd: int, err_fd: int, strict: bool, host: str) -> int:
    """Write the constant answer of a failed event; its exit code. Constants and
    `os.write` only, with SIGTERM / SIGINT held off: nothing here re-enters what failed,
    and a signal cannot cut the answer short."""
    # Held off until the process exits: a signal delivered after the answer would turn
    # exit 2 into a death by signal, which hosts read as "go on".
    with contextlib.suppress(BaseException):
        signal.pthread_sigmask(signal.SIG_BLOCK, (signal.SIGTERM, signal.SIGINT))
    try:
        view = memoryview(REFUSALS.get(host, _HSO_DENY) if strict else FAULT_NOTE)
        while view:
            view = view[os.write(out_fd, view) :]
        if strict:
            os.write(err_fd, REFUSAL_STDERR)
    except BaseException:  # noqa: BLE001 - nothing left to tell; the exit code blocks
        pass
    return REFUSAL_EXIT if strict else 0


def answer(
    host: str,
    stdin: BinaryIO | None = None,
    env: Mapping[str, str] | None = None,
    *,
    out_fd: int = 1,
    err_fd: int = 2,
) -> int:
    """Answer one hook event of `host` on `out_fd`; return the process exit code.

    Promise: whatever raises below (BaseException included), a possibly strict event is
    answered with the host's constant refusal and exit 2; any other event with the
    constant fault note and exit 0. Never an empty answer, never an allow by accident.
    A second SIGTERM / SIGINT while the first unwinds gives the same answer, then exits.
    """
    state = {"strict": True}

    def insist() -> None:  # a second signal: answer now, then the process exits
        os._exit(_give(out_fd, err_fd, state["strict"], host))

    try:
        from orchestrator.hosts import intake
        from orchestrator.procs import signals_end_children

        # SIGTERM / SIGINT end the tool children, then raise here: refused below. The
        # answer is written inside, so a signal while writing is refused too.
        with signals_end_children(on_insist=insist):
            event = intake.read_event(stdin if stdin is not None else sys.stdin.buffer)
            state["strict"] = intake.may_be_strict(host, event)
            code, out = intake.respond(host, event, env if env is not None else dict(os.environ))
            view = memoryview(out)
            while view:
                view = view[os.write(out_fd, view) :]
            return int(code)
    except BaseException:  # noqa: BLE001 - the outer guard: every fault ends in an answer
        return _give(out_fd, err_fd, state["strict"], host)
