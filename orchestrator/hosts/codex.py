"""Codex CLI adapter: `orchestrate hook codex`, the event JSON on stdin.

Same router as the other hosts; Codex's own output shape, kept valid under both the
strict published schemas and older releases: no null values, no `ask`, a non-blank
`reason` with every `decision: block`, never `suppressOutput: true` on PostToolUse.

Codex edits files through shell commands and `apply_patch`, whose target paths are
free text: those writes have an undeterminable path, so the changed scope is
re-determined from git and the result is marked incomplete (CG-18).
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

HOST = "codex"
FILE_TOOLS = {"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path"}
UNKNOWN_WRITE_TOOLS = ("apply_patch", "Bash", "exec_command", "shell")
SHELL_TOOLS = ("Bash", "exec_command", "shell")
CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse")
#: What this host's hooks cannot refuse, said at session start (hooks/__protocol__.md).
GAP = (
    "Not judged before it runs: apply_patch (its target paths are free text), so an "
    "apply_patch on git's folder, the hooks or orchestrate's configuration is not refused "
    "here; the installed git hooks and CI still judge what it commits"
)
_REFUSE = HOST_REFUSAL[Protocol.CODEX]
_CONTINUE = HOST_CONTINUE[Protocol.CODEX]


def _command(tool_input: object) -> object:
    """The shell command as the tool input holds it: text, or the argv list of Codex's
    `shell` tool (read, never joined, echoed or executed); "" when absent. Anything
    else is passed on for the analyser to refuse."""
    if not isinstance(tool_input, dict):
        return ""
    for key in ("command", "cmd"):
        value = tool_input.get(key)
        if value is not None:
            return tuple(value) if isinstance(value, list) else value
    return ""


def to_event(obj: dict[str, Any], env: Mapping[str, str]) -> RouterEvent:
    """Map a Codex event to the router's vocabulary."""
    name = event_name(obj)
    root = root_of(obj, env, ())
    tool = str_field(obj, "tool_name", 64)
    tool_input = obj.get("tool_input")
    if name == "SessionStart":
        return RouterEvent(Kind.SESSION_START, root, host=HOST, host_gap=GAP)
    if name == "UserPromptSubmit":
        return RouterEvent(Kind.PROMPT_SUBMITTED, root, host=HOST)
    if name == "PostToolUse" and tool in FILE_TOOLS:
        return file_changed_event(tool_input, FILE_TOOLS[tool], root, HOST)
    if name == "PostToolUse" and tool in UNKNOWN_WRITE_TOOLS:
        if tool in SHELL_TOOLS and _command(tool_input) in ("", ()):
            return RouterEvent(Kind.IGNORED, root, host=HOST)
        return RouterEvent(
            Kind.WRITE_UNKNOWN, root, scope_reason="write_path_undeterminable", host=HOST
        )
    if name == "PreToolUse" and tool in SHELL_TOOLS:
        return shell_event(obj, tool_input, root, HOST, _command(tool_input))
    if name == "PreToolUse" and tool in FILE_TOOLS:
        return edit_pending_event(tool_input, FILE_TOOLS[tool], root, HOST)
    if name == "Stop":
        return stop_event(obj, root, HOST)
    return RouterEvent(Kind.IGNORED, root, host=HOST)


def _before_tool(res: RouteResult) -> dict[str, Any]:
    # Only a refusal: Codex's PreToolUse output has no context field.
    if not res.block:
        return {}
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            _REFUSE[0]: _REFUSE[1],
            "permissionDecisionReason": res.context or GATE_REFUSED,
        }
    }


SHAPE = OutputShape("PreToolUse", ("Stop",), CONTEXT_EVENTS, _CONTINUE, _before_tool)


def to_output(name: str, res: RouteResult) -> dict[str, Any]:
    """The Codex hook output for `res` (valid against the published output schemas)."""
    return render_output(SHAPE, name, res)


SPEC = HostSpec(HOST, "PreToolUse", to_event, to_output)


def run(
    data: bytes, env: Mapping[str, str] | None = None, services: Services | None = None
) -> tuple[int, bytes]:
    """Handle one Codex event (bytes as read from stdin): (exit code, stdout)."""
    return handle(SPEC, data, env, services)
