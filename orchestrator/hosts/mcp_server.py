"""`orchestrate mcp`: the MCP server (official SDK 2.x, `MCPServer`) over stdio.

Tools: lint, gate, task_verify, next, explain_report. Each result carries the same
core report the CLI prints (structured content, unchanged) plus a bounded summary
(text content) built only from counts, vocabulary words, safe rule / task ids and
path labels: never a tool's free-text message, never source.

The project is the one the server was started in (git top level of its cwd); tool
arguments name paths inside it, and the core's path safety refuses the rest.

Each tool publishes an `outputSchema` (the report's JSON Schema inside the result's
envelope; the SDK checks every successful result against it) and annotations: `lint`
writes tasks (not destructive, idempotent), `task_verify` records an observation,
the others only read. An argument a tool does not declare is refused (`isError`),
never silently dropped; one of the wrong type is refused by name without echoing its
value; and a `lint` path that does not exist is `isError`, as it is
the CLI's usage error (exit 2).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from orchestrator import __version__
from orchestrator.decisions.agent import is_incomplete
from orchestrator.decisions.exits import FAULT_DECISION, mcp_is_error
from orchestrator.decisions.findings import is_blocking
from orchestrator.errors import UsageError
from orchestrator.model.report import Report
from orchestrator.render import agent_labels as L
from orchestrator.render.agent import FEEDBACK_ONLY, agent_fields, agent_lines, describe_scopes

INSTRUCTIONS = (
    "orchestrate checks code honestly: lint gives edit feedback (never a delivery pass); "
    "gate runs the strict commit / push / ci gate on the real git surface; task_verify "
    "re-checks one task with its original checker; next lists open tasks. Results carry "
    "the full report as structured content."
)


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")
    summary: str = Field(description="bounded, echo-free summary (the text content)")


class Suppression(BaseModel):
    """One suppression marker a change adds to a file."""

    model_config = ConfigDict(extra="forbid")
    path: str = Field(description="the file's bounded, escaped label")
    marker: str = Field(description="the marker, one of a fixed list (`# noqa`, ...)")
    count: int = Field(description="how many more the file holds than at HEAD")


class AgentFields(BaseModel):
    """What the edit feedback of a host says, as fields (render/agent.agent_fields)."""

    model_config = ConfigDict(extra="forbid")
    locations: list[str] = Field(description="`path:line[:column] rule`, blocking first")
    locations_not_shown: int = Field(description="findings left out by the budget")
    recheck: str = Field(description="the command to check these files again")
    recovery: list[str] = Field(description="fixed recovery phrases, one per kind of gap")
    suppressions_added: list[Suppression] = Field(description="markers the change adds")
    config_edited: list[str] = Field(description="checker config files the change edits")


class LintOutput(_Out):
    """The lint tool's structured content."""

    report: Report | None = Field(description="the standard report, as `lint --format json`")
    task_ids: list[str] = Field(default_factory=list, description="tasks recorded for findings")
    agent: AgentFields | None = Field(default=None, description="locations, advice, next step")


class GateOutput(_Out):
    """The gate tool's structured content (`gate` is set when a fault stopped it)."""

    report: Report | None = Field(description="the gate's report")
    gate: str | None = None


class VerifyOutput(_Out):
    """The task_verify tool's structured content."""

    verify: dict[str, Any] | None = Field(description="the observation of the recheck")


class NextOutput(_Out):
    """The next tool's structured content."""

    next: dict[str, Any] = Field(description="open tasks and the next step")


class ExplainOutput(_Out):
    """The explain_report tool's structured content."""

    report: Report | None = Field(description="the report handed in, validated")


#: Read-only tools, the one that writes tasks, and the one that records an observation.
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES_TASKS = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
RECORDS = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
_ARG_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,39}$")


def report_summary(report: Report, head: str, agent: Mapping[str, Any] | None = None) -> str:
    """A bounded, echo-free summary of `report`, with the `agent` fields' lines (the
    locations in what the budget leaves, the re-check command last)."""
    rules = L.safe_rule_ids(f.rule for f in report.findings)
    blocking = sum(1 for f in report.findings if is_blocking(f))
    parts = [
        head,
        f"gate {report.gate.decision}",
        f"files {report.scan.files_scanned}",
        f"scopes: {describe_scopes(report)}",
        f"findings {len(report.findings)} (blocking {blocking})"
        + (f"; rules {', '.join(rules)}" if rules else ""),
    ]
    if is_incomplete(report):
        parts.append("coverage incomplete")
    if agent is not None:
        rest = agent_lines(agent, 0)
        left = L.CONTEXT_MAX_CHARS - len(". ".join(parts + rest) + ".") - 4
        parts.extend(agent_lines(agent, left))
    return L.clamp(". ".join(parts) + ".")


def _result(structured: dict[str, Any], summary: str, error: bool = False) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=summary)],
        structured_content=structured,
        is_error=error,
    )


def _report_result(report: Report, head: str) -> CallToolResult:
    summary = report_summary(report, head)
    return _result({"report": report.model_dump(mode="json"), "summary": summary}, summary)


def lint_tool(
    root: Path,
    paths: list[str] | None,
    feedback: bool,
    only: list[str] | None,
    timeout: float | None,
) -> CallToolResult:
    """The lint tool: the lint use case under the feedback task policy, its report, safe
    task ids and the agent fields of edit feedback (for named paths, the suppressions
    and checker config edits they add over HEAD). Feedback only, never a delivery pass."""
    from orchestrator.usecases.agent import added_suppressions, edited_configs, tool_lint_request
    from orchestrator.usecases.lint import FEEDBACK_TASKS, deadline_for, missing_paths
    from orchestrator.usecases.lint import lint as lint_usecase

    missing = missing_paths(root, paths or [])
    if missing:
        text = L.clamp(
            f"orchestrate lint: refused as a usage error: {len(missing)} path(s) do not exist "
            f"in the project ({', '.join(L.path_label(m) for m in missing[:3])}); nothing ran."
        )
        return _result({"report": None, "summary": text}, text, error=mcp_is_error(fault=True))
    req = tool_lint_request(root, paths or [], feedback, only, deadline_for(timeout, feedback))
    try:
        done = lint_usecase(req, FEEDBACK_TASKS)
    except UsageError:
        # A bad argument (an unknown checker in `only`): refused, and not echoed back.
        text = (
            "orchestrate lint: refused as a usage error (an unknown checker name in only, "
            "or a bad argument); nothing ran. `orchestrate plugins` lists the checkers."
        )
        return _result({"report": None, "summary": text}, text, error=mcp_is_error(fault=True))
    task_ids = [t for t in done.task_ids if L.safe_task_id(t)]
    named = list(paths or [])
    added = added_suppressions(root, done.report) if named else {}
    agent = agent_fields(done.report, named, task_ids, added, edited_configs(root, named))
    summary = report_summary(done.report, f"orchestrate lint ({FEEDBACK_ONLY})", agent)
    structured = {
        "report": done.report.model_dump(mode="json"),
        "summary": summary,
        "task_ids": task_ids,
        "agent": agent,
    }
    return _result(structured, summary)


def unknown_arguments(arguments: dict[str, Any], declared: set[str]) -> CallToolResult | None:
    """An `isError` result naming (when the names are plain identifiers) the arguments a
    tool does not declare, and the ones it does; None when every argument is declared."""
    extra = sorted(set(arguments) - declared)
    if not extra:
        return None
    shown = [n for n in extra if _ARG_NAME.match(n)][:5]
    hidden = len(extra) - len(shown)
    names = ", ".join(shown) + (f" (+{hidden} not shown)" if hidden else "")
    text = (
        f"orchestrate: refused: unknown argument(s) {names}; this tool accepts "
        f"{', '.join(sorted(declared)) or 'no arguments'}. Nothing ran."
    )
    return _result({"summary": text}, text, error=mcp_is_error(fault=True))


def invalid_arguments(exc: ValidationError, declared: set[str]) -> CallToolResult:
    """An `isError` result for arguments that fail the tool's input schema, naming each
    declared argument that failed and pydantic's error type, never the value sent (the
    SDK's own message quotes it, and it would reach the agent's context as ours)."""
    failed = sorted(
        {
            f"{e['loc'][0]} ({e['type']})"
            for e in exc.errors()
            if e["loc"] and e["loc"][0] in declared and _ARG_NAME.match(str(e["type"]))
        }
    )
    shown = ", ".join(failed[:5]) or "an argument"
    text = L.clamp(
        f"orchestrate: refused: {shown} does not match the tool's input schema "
        f"(see its inputSchema); the value is not echoed. Nothing ran."
    )
    return _result({"summary": text}, text, error=mcp_is_error(fault=True))


class _StrictServer(MCPServer):
    """MCPServer that refuses a tool call naming an argument the tool does not declare
    (the SDK would drop it silently), and says so in the inputSchema; an argument of
    the wrong type is refused without its value (`invalid_arguments`)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            return await super().call_tool(name, arguments, context)
        declared = set(tool.parameters.get("properties", {}))
        refused = unknown_arguments(arguments or {}, declared)
        if refused is not None:
            return refused
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            # Only the SDK's argument check raises a plain ToolError caused by a
            # ValidationError; an output that fails its schema is an UnexpectedToolError.
            if isinstance(exc.__cause__, ValidationError) and not isinstance(
                exc, UnexpectedToolError
            ):
                return invalid_arguments(exc.__cause__, declared)
            raise

    def close_schemas(self) -> None:
        """Mark every tool's inputSchema `additionalProperties: false`."""
        for tool in self._tool_manager.list_tools():
            tool.parameters["additionalProperties"] = False


def gate_tool(root: Path, event: str, rev: str) -> CallToolResult:
    """The gate tool: the strict gate on the real git surface; a fault refuses delivery."""
    from orchestrator.usecases.gate import DEFAULT_TIMEOUT, pre_tool_gate

    try:
        report = pre_tool_gate(event, root, DEFAULT_TIMEOUT[event], rev=rev)
    except Exception as exc:  # noqa: BLE001 - CG-02: a fault is reported, delivery refused
        text = (
            f"orchestrate strict {event} gate: incomplete. An internal fault stopped the "
            f"gate ({type(exc).__name__[:40]}); delivery is refused until it runs."
        )
        return _result(
            {"report": None, "gate": str(FAULT_DECISION), "summary": text},
            text,
            error=mcp_is_error(fault=True),
        )
    return _report_result(report, f"orchestrate strict {event} gate")


def task_verify_tool(root: Path, task_id: str) -> CallToolResult:
    """The task_verify tool: one task re-checked by its original checker; never closed."""
    from orchestrator.usecases.tasks import verify

    tid = L.safe_task_id(task_id)
    if tid is None:
        text = "orchestrate task verify: not a task id (want T- and 12 hex digits); nothing ran."
        return _result({"verify": None, "summary": text}, text, error=mcp_is_error(fault=True))
    proj = verify(root, tid).projection()
    text = L.clamp(
        f"orchestrate task verify {tid}: {proj['observation']}"
        + (f" ({proj['reason']})" if proj.get("reason") else "")
        + f"; task status {proj.get('task_status')}. The task is not closed by a recheck."
    )
    return _result({"verify": proj, "summary": text}, text)


def next_tool(root: Path) -> CallToolResult:
    """The next tool: open tasks and the next step from local task facts only."""
    from orchestrator.tasks.nextstep import render_text
    from orchestrator.usecases.tasks import next_summary

    summary = next_summary(root)
    text = render_text(summary, L.CONTEXT_MAX_CHARS)
    return _result({"next": summary.to_dict(), "summary": text}, text)


def explain_tool(report: dict[str, Any]) -> CallToolResult:
    """The explain_report tool: a bounded summary of a report the caller hands in."""
    from pydantic import ValidationError

    try:
        parsed = Report.model_validate(report)
    except ValidationError as exc:
        text = f"orchestrate explain_report: not a valid report ({exc.error_count()} error(s))."
        return _result({"report": None, "summary": text}, text, error=mcp_is_error(fault=True))
    return _report_result(parsed, "orchestrate report")


def build_server(project_root: Path) -> MCPServer:
    """The server with its five tools, bound to `project_root`. Each handler only
    declares the tool's arguments and runs its `*_tool` function off the event loop."""
    root = project_root.resolve()
    server = _StrictServer(name="orchestrate", version=__version__, instructions=INSTRUCTIONS)

    async def in_thread(fn: Callable[[], CallToolResult]) -> CallToolResult:
        return await anyio.to_thread.run_sync(fn)

    @server.tool(
        description="Check files (default: the whole project). Feedback only, never a delivery pass.",
        annotations=WRITES_TASKS,
    )
    async def lint(
        paths: list[str] | None = None,
        feedback: bool = False,
        only: list[str] | None = None,
        timeout: float | None = None,
    ) -> Annotated[CallToolResult, LintOutput]:
        return await in_thread(lambda: lint_tool(root, paths, feedback, only, timeout))

    @server.tool(
        description="Strict delivery gate on the real git surface: the index, the push range, or a commit.",
        annotations=READ_ONLY,
    )
    async def gate(
        event: Literal["commit", "push", "ci"] = "commit", rev: str = "HEAD"
    ) -> Annotated[CallToolResult, GateOutput]:
        return await in_thread(lambda: gate_tool(root, event, rev))

    @server.tool(
        description="Re-check one task (T-xxxxxxxxxxxx) with its original checker. Never closes it.",
        annotations=RECORDS,
    )
    async def task_verify(task_id: str) -> Annotated[CallToolResult, VerifyOutput]:
        return await in_thread(lambda: task_verify_tool(root, task_id))

    @server.tool(
        name="next",
        description="Open tasks and the next step, from local task facts only.",
        annotations=READ_ONLY,
    )
    async def next_step() -> Annotated[CallToolResult, NextOutput]:
        return await in_thread(lambda: next_tool(root))

    @server.tool(
        description="Explain a report (as printed by `orchestrate lint --format json`): bounded summary.",
        annotations=READ_ONLY,
    )
    async def explain_report(report: dict[str, Any]) -> Annotated[CallToolResult, ExplainOutput]:
        return explain_tool(report)

    server.close_schemas()
    return server


def serve(project_root: Path | None = None) -> None:
    """Serve over stdio until the client closes the connection."""
    from orchestrator.usecases.agent import project_root_of

    root = project_root or project_root_of(Path.cwd())
    anyio.run(build_server(root).run_stdio_async)
