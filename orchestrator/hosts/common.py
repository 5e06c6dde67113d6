"""The adapter skeleton every host shares: bytes in, (exit code, JSON bytes) out.

A host module supplies two functions: `to_event(obj, env)` that maps a decoded event
to a RouterEvent (trusting only the event name and bounded path fields), and
`to_output(name, result)` that maps the router's result to the host's output shape.
Undecodable input never reaches a checker; when it may be a strict delivery event
(the host's before-tool event), it is refused rather than let through.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.decisions.exits import FAULT_DECISION, HOST_EXIT, gate_blocks
from orchestrator.hosts.events import (
    Kind,
    RouterEvent,
    bool_field,
    decode_event,
    existing_dir,
    project_root_for,
    resolve_target,
    str_field,
)
from orchestrator.hosts.router import RouteResult, Services, route

ToEvent = Callable[[dict[str, Any], Mapping[str, str]], RouterEvent]
ToOutput = Callable[[str, RouteResult], dict[str, Any]]
#: A host's answer to its before-tool event: the keys it adds to the output.
BeforeTool = Callable[[RouteResult], dict[str, Any]]

#: The refusal reason when a strict gate blocks without a context text.
GATE_REFUSED = "orchestrate strict gate refused"

UNREADABLE = (
    "orchestrate: the hook event could not be read (oversized, not JSON, or wrong types); "
    "scope undetermined, check not run. Delivery not_evaluated."
)
EVENT_OVER_BUDGET = (
    "orchestrate: the hook event is over the 1 MiB event budget; only the tool name and "
    "its target path were read. The target is not a protected path, so the edit goes on; "
    "feedback not run: event over budget. Delivery not_evaluated. After the edit run: "
    "orchestrate lint"
)
UNREADABLE_GATE = (
    "orchestrate strict gate: incomplete. The hook event could not be read, so the command "
    "could not be checked; it is refused. Run: orchestrate gate commit"
)


@dataclass(frozen=True)
class HostSpec:
    """One host: its name, its before-tool event, and its two mapping functions."""

    name: str
    before_tool_event: str
    to_event: ToEvent
    to_output: ToOutput
    project_env: tuple[str, ...] = ()


def event_name(obj: dict[str, Any]) -> str:
    """The event name if it is a short identifier, else ""."""
    name = str_field(obj, "hook_event_name", 64) or ""
    return name if re.fullmatch(r"[A-Za-z]{1,64}", name) else ""


def root_of(obj: dict[str, Any], env: Mapping[str, str], names: tuple[str, ...]) -> Path | None:
    """The project root from the first set variable of `names`, else the event's cwd."""
    env_value = next((env[n] for n in names if env.get(n)), None)
    return project_root_for(env_value, str_field(obj, "cwd", 4096))


def file_changed_event(
    tool_input: object,
    key: str,
    root: Path | None,
    host: str,
    *,
    no_root: str = "event_fields_invalid",
    bad_input: str = "event_fields_invalid",
) -> RouterEvent:
    """A confirmed file write: FILE_CHANGED for a safe target inside `root`, else INVALID
    with the reason (only the bounded path field `key` of the tool input is read)."""
    if root is None:
        return RouterEvent(Kind.INVALID, None, scope_reason=no_root, host=host)
    if not isinstance(tool_input, dict):
        return RouterEvent(Kind.INVALID, root, scope_reason=bad_input, host=host)
    target = resolve_target(tool_input.get(key), root)
    if target.rel_path is None:
        return RouterEvent(Kind.INVALID, root, scope_reason=target.reason, host=host)
    return RouterEvent(Kind.FILE_CHANGED, root, paths=(target.rel_path,), host=host)


def shell_event(
    obj: dict[str, Any],
    tool_input: object,
    root: Path | None,
    host: str,
    command: object = None,
) -> RouterEvent:
    """A shell tool about to run: its command (the tool input's `command` unless given,
    as it is: the analyser refuses what is not plain text) and the directory it starts
    in (the event's `cwd`, when a real folder). No command at all is ""."""
    if command is None:
        command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if isinstance(command, list):
        command = tuple(command)
    if command is None:
        command = ""
    cwd = existing_dir(str_field(obj, "cwd", 4096))
    return RouterEvent(Kind.SHELL_COMMAND, root, command=command, shell_cwd=cwd, host=host)


def edit_pending_event(tool_input: object, key: str, root: Path | None, host: str) -> RouterEvent:
    """A file-edit tool about to run: its raw path field `key`, only to be compared
    with the places no agent may write."""
    target = tool_input.get(key) if isinstance(tool_input, dict) else None
    return RouterEvent(Kind.EDIT_PENDING, root, target=target, host=host)


def stop_event(obj: dict[str, Any], root: Path | None, host: str) -> RouterEvent:
    """The host's end-of-turn event; of its fields only `stop_hook_active` is read."""
    return RouterEvent(
        Kind.STOP, root, stop_hook_active=bool_field(obj, "stop_hook_active"), host=host
    )


@dataclass(frozen=True)
class OutputShape:
    """What differs in how hosts spell a RouteResult; `render_output` does the rest."""

    before_tool_event: str
    stop_events: tuple[str, ...]
    context_events: tuple[str, ...]
    #: The (key, value) that asks the host for one more turn (decisions/exits.HOST_CONTINUE).
    continuation: tuple[str, str]
    before_tool: BeforeTool


def render_output(shape: OutputShape, name: str, res: RouteResult) -> dict[str, Any]:
    """The host output for event `name`: nothing for an ignored event; the person's line
    as `systemMessage`; the before-tool answer; at the end of a turn a continuation only
    when one is asked for; otherwise the context for the agent on the host's context
    events."""
    out: dict[str, Any] = {}
    if res.action == "ignored":
        return out
    if res.message:
        out["systemMessage"] = res.message
    if name == shape.before_tool_event:
        out.update(shape.before_tool(res))
    elif name in shape.stop_events:
        # Only a continuation request continues the turn; status-only results go to the person.
        if res.continue_once and res.context:
            out[shape.continuation[0]] = shape.continuation[1]
            out["reason"] = res.context
    elif name in shape.context_events and res.context:
        out["hookSpecificOutput"] = {"hookEventName": name, "additionalContext": res.context}
    return out


def dump(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj, ensure_ascii=True, separators=(",", ":")) + "\n").encode()


def _names_before_tool(data: bytes, before_tool: str) -> bool:
    """Whether undecodable bytes still name the host's before-tool event.

    Only this fixed token is looked for; nothing else of the bytes is used.
    """
    head = bytes(data[: 2 * 1024 * 1024])
    return re.search(rb'"hook_event_name"\s*:\s*"' + before_tool.encode() + rb'"', head) is not None


def _refusal(spec: HostSpec, name: str) -> tuple[int, bytes]:
    """The before-tool refusal of an event whose command could not be read."""
    result = RouteResult(
        "gate",
        context=UNREADABLE_GATE,
        message="orchestrate gate: event unreadable, command refused",
        block=gate_blocks(FAULT_DECISION),
        gate=FAULT_DECISION,
    ).bounded()
    return HOST_EXIT, dump(spec.to_output(name, result))


def _over_budget(
    spec: HostSpec, skimmed: dict[str, Any], env: Mapping[str, str], services: Services | None
) -> tuple[int, bytes]:
    """An event over the budget, from the fields a skim kept (hosts/intake.py): a file
    edit is judged on its target path alone (a protected path is refused, anything else
    goes on with feedback not run); a shell command or any other before-tool event is
    refused; another event is said unread."""
    name = event_name(skimmed)
    if name != spec.before_tool_event:
        return HOST_EXIT, dump({"systemMessage": UNREADABLE[:300]})
    ev = spec.to_event(skimmed, env)
    if ev.kind != Kind.EDIT_PENDING:
        return _refusal(spec, name)
    result = route(ev, services)
    if not result.block:
        result = RouteResult(
            "not_run",
            context=EVENT_OVER_BUDGET,
            message="orchestrate: feedback not run: event over budget",
            reasons=("event_over_budget",),
        ).bounded()
    return HOST_EXIT, dump(spec.to_output(name, result))


def handle(
    spec: HostSpec,
    data: bytes,
    env: Mapping[str, str] | None = None,
    services: Services | None = None,
    *,
    skimmed: dict[str, Any] | None = None,
) -> tuple[int, bytes]:
    """Run one host event through the router. Returns (exit code, stdout bytes).

    Exit code is 0: each host reads its JSON on exit 0, and a block is expressed in
    the JSON (never by passing our CLI exit codes through). `skimmed` holds the kept
    fields of an event over the budget (hosts/intake.py). A fault below the router
    (bounding, rendering) is raised to the outer guard (hosts/guard.py), which refuses.
    """
    env = env or {}
    obj = decode_event(data)
    if obj is None and skimmed is not None:
        return _over_budget(spec, skimmed, env, services)
    if obj is None:
        if _names_before_tool(data, spec.before_tool_event):
            return _refusal(spec, spec.before_tool_event)
        return HOST_EXIT, dump({"systemMessage": UNREADABLE[:300]})
    name = event_name(obj)
    try:
        ev = spec.to_event(obj, env)
    except Exception:  # noqa: BLE001 - a malformed event is a result, never a crash
        if name == spec.before_tool_event:
            return _refusal(spec, name)
        ev = RouterEvent(Kind.INVALID, scope_reason="event_fields_invalid", host=spec.name)
    return HOST_EXIT, dump(spec.to_output(name, route(ev, services)))
