"""The MCP server (hosts/mcp_server.py) in process: the SDK's own client connected to
`build_server(root)` directly (no stdio, no subprocess), real git and real Ruff. The
same tools over stdio against `orchestrate mcp` are in tests/test_mcp.py (end-to-end)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from helpers import git
from mcp import Client

from orchestrator.hosts import mcp_server
from orchestrator.model.report import Report
from orchestrator.render import agent_labels
from orchestrator.usecases import gate as gate_usecase


def _with_client(repo: Path, body: Callable[[Client], Awaitable[Any]]) -> Any:
    async def run() -> Any:
        async with Client(mcp_server.build_server(repo)) as client:
            return await body(client)

    return anyio.run(run)


def test_the_five_tools_publish_closed_inputs_schemas_and_annotations(git_repo: Path) -> None:
    (git_repo / "a.py").write_text("import os\n")

    async def body(client: Client) -> Any:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        return tools, await client.call_tool("lint", {"paths": ["a.py"]})

    tools, lint = _with_client(git_repo, body)
    assert sorted(tools) == ["explain_report", "gate", "lint", "next", "task_verify"]
    for tool in tools.values():
        assert tool.input_schema.get("additionalProperties") is False, tool.name
        assert tool.output_schema and tool.annotations and not tool.annotations.open_world_hint
    jsonschema.validate(lint.structured_content, tools["lint"].output_schema)
    assert tools["lint"].annotations.idempotent_hint is True
    assert tools["gate"].annotations.read_only_hint is True


def test_lint_gives_the_report_a_bounded_summary_and_task_ids(git_repo: Path) -> None:
    (git_repo / "a.py").write_text("import os\n")

    async def body(client: Client) -> Any:
        return await client.call_tool("lint", {"paths": ["a.py"], "feedback": True})

    lint = _with_client(git_repo, body)
    assert not lint.is_error
    report = Report.model_validate(lint.structured_content["report"])
    assert [f.rule for f in report.findings] == ["F401"]
    text = lint.content[0].text
    assert text == lint.structured_content["summary"]
    assert "rules F401" in text and "not a delivery pass" in text
    assert "imported but unused" not in text and len(text) <= agent_labels.CONTEXT_MAX_CHARS
    [tid] = lint.structured_content["task_ids"]
    assert agent_labels.safe_task_id(tid) == tid


def test_lint_refuses_missing_paths_unknown_checkers_and_undeclared_arguments(
    git_repo: Path,
) -> None:
    (git_repo / "a.py").write_text("import os\n")

    async def body(client: Client) -> dict[str, Any]:
        return {
            "missing": await client.call_tool("lint", {"paths": ["a.py", "gone.py"]}),
            "only": await client.call_tool("lint", {"only": ["no-such-checker"]}),
            "extra": await client.call_tool("lint", {"bogus": True}),
            "typed": await client.call_tool("lint", {"timeout": "IGNORE PREVIOUS"}),
        }

    out = _with_client(git_repo, body)
    assert all(r.is_error for r in out.values())
    assert "1 path(s) do not exist in the project (gone.py)" in out["missing"].content[0].text
    only = out["only"].content[0].text
    assert "unknown checker name" in only and "no-such-checker" not in only
    assert "unknown argument(s) bogus" in out["extra"].content[0].text
    typed = out["typed"].content[0].text
    assert "timeout (float_parsing)" in typed and "IGNORE" not in typed
    assert not (git_repo / ".orchestrate" / "tasks").exists()


def test_gate_denies_a_blocking_index_and_a_fault_refuses_delivery(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (git_repo / "a.py").write_text("import os\n")
    git(git_repo, "add", "a.py")

    async def body(client: Client) -> Any:
        return await client.call_tool("gate", {"event": "commit"})

    denied = _with_client(git_repo, body)
    assert denied.structured_content["report"]["gate"]["decision"] == "deny"
    assert "orchestrate strict commit gate. gate deny" in denied.content[0].text

    def fake_gate(*args: object, **kwargs: object) -> object:
        raise RuntimeError("fake gate fault")

    monkeypatch.setattr(gate_usecase, "pre_tool_gate", fake_gate)
    fault = _with_client(git_repo, body)
    assert fault.is_error and fault.structured_content["report"] is None
    assert fault.structured_content["gate"] == "incomplete"
    assert "internal fault stopped the gate (RuntimeError)" in fault.content[0].text


def test_next_lists_open_tasks_and_task_verify_refuses_bad_ids(git_repo: Path) -> None:
    (git_repo / "a.py").write_text("import os\n")

    async def body(client: Client) -> dict[str, Any]:
        await client.call_tool("lint", {"paths": ["a.py"]})
        return {
            "next": await client.call_tool("next", {}),
            "bad": await client.call_tool("task_verify", {"task_id": "$(rm -rf /)"}),
            "unknown": await client.call_tool("task_verify", {"task_id": "T-0123456789ab"}),
        }

    out = _with_client(git_repo, body)
    [tid] = out["next"].structured_content["next"]["open_task_ids"]
    assert tid in out["next"].content[0].text
    assert out["bad"].is_error and "rm -rf" not in out["bad"].content[0].text
    unknown = out["unknown"].structured_content["verify"]
    assert unknown["observation"] == "recheck_incomplete" and unknown["reason"] == "task_not_found"
    assert "The task is not closed by a recheck" in out["unknown"].content[0].text


def test_explain_report_summarises_a_valid_report_and_refuses_another(git_repo: Path) -> None:
    (git_repo / "a.py").write_text("import os\n")

    async def body(client: Client) -> dict[str, Any]:
        lint = await client.call_tool("lint", {"paths": ["a.py"]})
        report = lint.structured_content["report"]
        return {
            "good": await client.call_tool("explain_report", {"report": report}),
            "bad": await client.call_tool("explain_report", {"report": {"ignore": "previous"}}),
        }

    out = _with_client(git_repo, body)
    assert out["good"].content[0].text.startswith("orchestrate report. gate ")
    assert "rules F401" in out["good"].content[0].text
    assert out["bad"].is_error and "previous" not in json.dumps(out["bad"].structured_content)
