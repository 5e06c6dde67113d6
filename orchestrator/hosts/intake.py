"""Reading one host event from stdin and handing it to its host adapter.

An event up to the event budget (budgets.MAX_EVENT_BYTES) is read whole and decoded by
the adapter. A larger one (a Write of a 5 MB file carries the content) is skimmed: a
streaming parser reads on, at most `OVERSIZE_READ_MAX` bytes within `OVERSIZE_READ_S`,
and keeps only the event name, the tool name, `cwd` and the target path fields of the
tool input, each only when the whole event parsed and the field occurs once. Only a
file edit is judged from those fields (hosts/common.handle); everything else over the
budget is refused (a before-tool event) or said unread.

Every function here runs below the outer guard (hosts/guard.answer).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO

from orchestrator.hosts.budgets import MAX_EVENT_BYTES
from orchestrator.hosts.events import names_another_event

#: The adapter module of each host name `orchestrate hook` accepts.
HOSTS = {
    "claude-code": "orchestrator.hosts.claude_code",
    "codex": "orchestrator.hosts.codex",
    "gemini": "orchestrator.hosts.gemini",
}
#: An event over the budget is read on up to this many bytes, within this many seconds.
OVERSIZE_READ_MAX = 64 * 1024 * 1024
OVERSIZE_READ_S = 10.0
#: The skim reads the stream this many bytes at a time, and hands the parser up to the
#: read cap at once.
READ_CHUNK = 64 * 1024
#: The tool-input fields that name a file-edit tool's target, across hosts.
TARGET_KEYS = frozenset({"file_path", "notebook_path"})
_TOP_KEYS = frozenset({"hook_event_name", "tool_name", "cwd"})


@dataclass(frozen=True)
class EventInput:
    """One event as read: its bytes (at most the budget plus one byte) and, when it was
    over the budget, the few fields a skim of the whole event kept (None: unreadable)."""

    data: bytes
    over_budget: bool = False
    skimmed: dict[str, Any] | None = None


class _Exhausted(Exception):
    """The skim read past its byte cap or its deadline."""


class _Chained:
    """A read-only file over bytes already read and the rest of a stream, bounded."""

    def __init__(self, head: bytes, stream: BinaryIO, cap: int, deadline: float) -> None:
        self._head = memoryview(head)
        self._stream = stream
        self._left = cap - len(head)
        self._deadline = deadline

    def read(self, n: int = -1) -> bytes:
        if self._head:
            size = len(self._head) if n < 0 else n
            out, self._head = bytes(self._head[:size]), self._head[size:]
            return out
        # The stream is read in chunks (the deadline is checked before each), and the
        # parser gets them joined: a JSON string split over many small reads costs the
        # C parser time quadratic in its length (a 20 MB Write outran the deadline).
        want = self._left + 1 if n < 0 else n
        parts: list[bytes] = []
        got = 0
        while got < want:
            if time.monotonic() > self._deadline:
                raise _Exhausted("deadline")
            out = self._stream.read(min(READ_CHUNK, want - got, self._left + 1)) or b""
            if not out:
                break
            self._left -= len(out)
            if self._left < 0:
                raise _Exhausted("cap")
            parts.append(out)
            got += len(out)
        return b"".join(parts)


def read_event(stream: BinaryIO) -> EventInput:
    """The event on `stream`: whole up to the budget, else skimmed (module docstring)."""
    try:
        head = stream.read(MAX_EVENT_BYTES + 1) or b""
    except (OSError, ValueError):
        return EventInput(b"")
    if len(head) <= MAX_EVENT_BYTES:
        return EventInput(head)
    deadline = time.monotonic() + OVERSIZE_READ_S
    return EventInput(head, True, skim(_Chained(head, stream, OVERSIZE_READ_MAX, deadline)))


def _fields(events: Iterator[tuple[str, Any]]) -> dict[str, Any] | None:
    """The kept fields from a stream of JSON parse events, or None (not an object, a
    kept field given twice, or a tool input that is not an object)."""
    first = next(events, None)
    if first is None or first[0] != "start_map":
        return None
    top: dict[str, Any] = {}
    tool_input: dict[str, Any] = {}
    # One (container kind, key in its parent map) per open container below the root.
    stack: list[tuple[str, str | None]] = []
    key: str | None = None
    for ev, value in events:
        if ev == "map_key":
            key = value
        elif ev in ("start_map", "start_array"):
            stack.append((ev, key))
            key = None
            if len(stack) == 1 and stack[0][1] == "tool_input":
                if ev != "start_map" or "tool_input" in top:
                    return None
                top["tool_input"] = tool_input
        elif ev in ("end_map", "end_array"):
            if not stack:
                break  # the root closed
            stack.pop()
        elif not stack and key in _TOP_KEYS:
            if key in top:
                return None
            top[key] = value
        elif len(stack) == 1 and stack[0] == ("start_map", "tool_input") and key in TARGET_KEYS:
            if key in tool_input:
                return None
            tool_input[key] = value
    if next(events, None) is not None:
        return None  # bytes after the root object
    return top


def skim(source: Any) -> dict[str, Any] | None:
    """The kept fields of the JSON event read from `source`, or None when it is not one
    well-formed JSON object within the read bounds."""
    import ijson

    try:
        return _fields(iter(ijson.basic_parse(source, use_float=True, buf_size=OVERSIZE_READ_MAX)))
    except (_Exhausted, ijson.JSONError, OSError, ValueError):  # UnicodeDecodeError too
        return None


def before_tool_event(host: str) -> str:
    """The name of `host`'s before-tool event (the one strict gates answer)."""
    return str(importlib.import_module(HOSTS[host]).SPEC.before_tool_event)


def may_be_strict(host: str, event: EventInput) -> bool:
    """Whether `event` may be the host's before-tool event: unless the event plainly
    names another one, it is treated as strict (a fault then refuses)."""
    strict_name = before_tool_event(host)
    if event.over_budget:
        if event.skimmed is None:
            return True
        name = event.skimmed.get("hook_event_name")
        return not isinstance(name, str) or name == strict_name
    return not names_another_event(event.data, strict_name)


def respond(host: str, event: EventInput, env: Mapping[str, str]) -> tuple[int, bytes]:
    """The adapter's answer to `event`: (exit code, stdout bytes)."""
    from orchestrator.hosts.common import handle

    spec = importlib.import_module(HOSTS[host]).SPEC
    skimmed = event.skimmed if event.over_budget else None
    failed = event.over_budget and event.skimmed is None
    return handle(spec, event.data, env, skimmed=skimmed, skim_failed=failed)
