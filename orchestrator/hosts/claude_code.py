"""Claude Code adapter: `orchestrate hook claude-code`, the event JSON on stdin.

Trusted: the event name, `cwd`, `tool_name`, the file path field of file tools,
`stop_hook_active`, and the Bash command only to read what it commits or pushes.
Never read: prompts, tool output, error text, file contents, last messages.
PreToolUse of a file tool is refused when it aims at git's folder, the hooks or
orchestrate's configuration.

Output (exit 0, JSON): `hookSpecificOutput.additionalContext` for the agent plus
`systemMessage` for the person; PreToolUse refuses with `permissionDecision: deny`;
the first Stop with open tasks asks for one continuation with `decision: block`.
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

HOST = "claude-code"
FILE_TOOLS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
SHELL_TOOLS = ("Bash",)
SESSION_SOURCES = ("startup", "resume", "clear", "compact")
PROJECT_ENV = ("CLAUDE_PROJECT_DIR",)
CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure")
STOP_EVENTS = ("Stop", "SubagentStop")
_REFUSE = HOST_REFUSAL[Protocol.CLAUDE_CODE]
_CONTINUE = HOST_CONTINUE[Protocol.CLAUDE_CODE]


def to_event(obj: dict[str, Any], env: Mapping[str, str]) -> RouterEvent:
    """Map a Claude Code event to the router's vocabulary."""
    name = event_name(obj)
    root = root_of(obj, env, PROJECT_ENV)
    tool = str_field(obj, "tool_name", 64)
    tool_input = obj.get("tool_input")
    if name == "SessionStart":
        source = str_field(obj, "source", 16)
        if source is not None and source not in SESSION_SOURCES:
            return RouterEvent(Kind.INVALID, root, scope_reason="session_source_unknown", host=HOST)
        return RouterEvent(Kind.SESSION_START, root, host=HOST)
    if name == "UserPromptSubmit":
        return RouterEvent(Kind.PROMPT_SUBMITTED, root, host=HOST)
    if name == "PostToolUse" and tool in FILE_TOOLS:
        return file_changed_event(
            tool_input,
            FILE_TOOLS[tool],
            root,
            HOST,
            no_root="project_root_undetermined",
            bad_input="tool_input_wrong_type",
        )
    if name == "PostToolUseFailure" and tool in FILE_TOOLS:
        return RouterEvent(Kind.WRITE_FAILED, root, host=HOST)
    if name == "PreToolUse" and tool in SHELL_TOOLS:
        return shell_event(obj, tool_input, root, HOST)
    if name == "PreToolUse" and tool in FILE_TOOLS:
        return edit_pending_event(tool_input, FILE_TOOLS[tool], root, HOST)
    if name in STOP_EVENTS:
        return stop_event(obj, root, HOST)
    return RouterEvent(Kind.IGNORED, root, host=HOST)


def _before_tool(res: RouteResult) -> dict[str, Any]:
    hso: dict[str, Any] = {"hookEventName": "PreToolUse"}
    if res.block:
        hso[_REFUSE[0]] = _REFUSE[1]
        hso["permissionDecisionReason"] = res.context or GATE_REFUSED
    elif res.context:
        hso["additionalContext"] = res.context
    return {"hookSpecificOutput": hso}


SHAPE = OutputShape("PreToolUse", STOP_EVENTS, CONTEXT_EVENTS, _CONTINUE, _before_tool)


def to_output(name: str, res: RouteResult) -> dict[str, Any]:
    """The Claude Code hook output for `res` (the SDK's SyncHookJSONOutput shape)."""
    return render_output(SHAPE, name, res)


SPEC = HostSpec(HOST, "PreToolUse", to_event, to_output, PROJECT_ENV)


def run(
    data: bytes, env: Mapping[str, str] | None = None, services: Services | None = None
) -> tuple[int, bytes]:
    """Handle one Claude Code event (bytes as read from stdin): (exit code, stdout)."""
    return handle(SPEC, data, env, services)
