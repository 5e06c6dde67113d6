"""Gemini CLI adapter: `orchestrate hook gemini`, the event JSON on stdin.

Events: SessionStart, BeforeAgent (prompt), BeforeTool (shell: git commit / push
gate; file tools: protected paths), AfterTool (file writes), AfterAgent (the Stop equivalent). Blocking is
`{"decision": "deny", "reason": ...}`; context for the agent goes in
`hookSpecificOutput.additionalContext` (SessionStart, BeforeAgent, AfterTool).
An AfterTool whose response carries an error is a failed write: no checker runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orchestrator.decisions.exits import HOST_CONTINUE, HOST_REFUSAL, Protocol
from orchestrator.hosts.common import (
    GATE_REFUSED,
    HostSpec,
    OutputShape,
    edit_pending_event,
    event_name,
    file_changed_event,
    handle,
    render_output,
    root_of,
    shell_event,
    stop_event,
)
from orchestrator.hosts.events import Kind, RouterEvent, str_field
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
        return shell_event(obj, tool_input, root, HOST)
    if name == "BeforeTool" and tool in FILE_TOOLS:
        return edit_pending_event(tool_input, FILE_TOOLS[tool], root, HOST)
    if name == "AfterAgent":
        return stop_event(obj, root, HOST)
    return RouterEvent(Kind.IGNORED, root, host=HOST)


def _before_tool(res: RouteResult) -> dict[str, Any]:
    if not res.block:
        return {}
    return {_REFUSE[0]: _REFUSE[1], "reason": res.context or GATE_REFUSED}


# AfterAgent's deny is one retry turn with the reason as its prompt; only the first time.
SHAPE = OutputShape("BeforeTool", ("AfterAgent",), CONTEXT_EVENTS, _CONTINUE, _before_tool)


def to_output(name: str, res: RouteResult) -> dict[str, Any]:
    """The Gemini CLI hook output for `res`."""
    return render_output(SHAPE, name, res)


SPEC = HostSpec(HOST, "BeforeTool", to_event, to_output, PROJECT_ENV)


def run(
    data: bytes, env: Mapping[str, str] | None = None, services: Services | None = None
) -> tuple[int, bytes]:
    """Handle one Gemini CLI event (bytes as read from stdin): (exit code, stdout)."""
    return handle(SPEC, data, env, services)
