"""Gemini CLI adapter: `orchestrate hook gemini`, the event JSON on stdin.

Events: SessionStart, BeforeAgent (prompt), BeforeTool (shell: git commit / push
gate), AfterTool (file writes), AfterAgent (the Stop equivalent). Blocking is
`{"decision": "deny", "reason": ...}`; context for the agent goes in
`hookSpecificOutput.additionalContext` (SessionStart, BeforeAgent, AfterTool).
An AfterTool whose response carries an error is a failed write: no checker runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orchestrator.decisions.exits import HOST_CONTINUE, HOST_REFUSAL, Protocol
from orchestrator.hosts.common import HostSpec, event_name, file_changed_event, handle, root_of
from orchestrator.hosts.events import Kind, RouterEvent, bool_field, str_field
from orchestrator.hosts.router import RouteResult, Services

HOST = "gemini"
FILE_TOOLS = {"write_file": "file_path", "replace": "file_path", "edit": "file_path"}
SHELL_TOOLS = ("run_shell_command",)
PROJECT_ENV = ("GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR")
CONTEXT_EVENTS = ("SessionStart", "BeforeAgent", "AfterTool")
_REFUSE = HOST_REFUSAL[Protocol.GEMINI]
_CONTINUE = HOST_CONTINUE[Protocol.GEMINI]


def _failed(response: object) -> bool:
    return isinstance(response, dict) and response.get("error") not in (None, "", False)


def to_event(obj: dict[str, Any], env: Mapping[str, str]) -> RouterEvent:
    """Map a Gemini CLI event to the router's vocabulary."""
    name = event_name(obj)
    root = root_of(obj, env, PROJECT_ENV)
    tool = str_field(obj, "tool_name", 64)
    tool_input = obj.get("tool_input")
    if name == "SessionStart":
        return RouterEvent(Kind.SESSION_START, root, host=HOST)
    if name == "BeforeAgent":
        return RouterEvent(Kind.PROMPT_SUBMITTED, root, host=HOST)
    if name == "AfterTool" and tool in FILE_TOOLS:
        if _failed(obj.get("tool_response")):
            return RouterEvent(Kind.WRITE_FAILED, root, host=HOST)
        return file_changed_event(tool_input, FILE_TOOLS[tool], root, HOST)
    if name == "BeforeTool" and tool in SHELL_TOOLS:
        command = (
            str_field(tool_input, "command", 1024 * 1024) if isinstance(tool_input, dict) else None
        )
        return RouterEvent(Kind.SHELL_COMMAND, root, command=command or "", host=HOST)
    if name == "AfterAgent":
        return RouterEvent(
            Kind.STOP, root, stop_hook_active=bool_field(obj, "stop_hook_active"), host=HOST
        )
    return RouterEvent(Kind.IGNORED, root, host=HOST)


def to_output(name: str, res: RouteResult) -> dict[str, Any]:
    """The Gemini CLI hook output for `res`."""
    out: dict[str, Any] = {}
    if res.action == "ignored":
        return out
    if res.message:
        out["systemMessage"] = res.message
    if name == "BeforeTool":
        if res.block:
            out[_REFUSE[0]] = _REFUSE[1]
            out["reason"] = res.context or "orchestrate strict gate refused"
    elif name == "AfterAgent":
        # deny = one retry turn with the reason as its prompt; only the first time.
        if res.continue_once and res.context:
            out[_CONTINUE[0]] = _CONTINUE[1]
            out["reason"] = res.context
    elif name in CONTEXT_EVENTS and res.context:
        out["hookSpecificOutput"] = {"hookEventName": name, "additionalContext": res.context}
    return out


SPEC = HostSpec(HOST, "BeforeTool", to_event, to_output, PROJECT_ENV)


def run(
    data: bytes, env: Mapping[str, str] | None = None, services: Services | None = None
) -> tuple[int, bytes]:
    """Handle one Gemini CLI event (bytes as read from stdin): (exit code, stdout)."""
    return handle(SPEC, data, env, services)
