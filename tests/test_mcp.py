"""The MCP server through the SDK's own client, over stdio, against a real subprocess."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from helpers import VENV_BIN, git, run_cli
from mcp import Client, StdioServerParameters

from orchestrator.hosts import budgets
from orchestrator.model.report import Report
from orchestrator.usecases.lint import core_view


def with_client(repo: Path, body: Callable[[Client], Awaitable[Any]]) -> Any:
    params = StdioServerParameters(
        command=str(VENV_BIN / "orchestrate"), args=["mcp"], cwd=str(repo)
    )

    async def main() -> Any:
        async with Client(params, read_timeout_seconds=120) as client:
            return await body(client)

    return anyio.run(main)


def test_tools_and_lint_match_the_cli(git_repo: Path) -> None:
    (git_repo / "a.py").write_text("import os\n")

    async def body(client: Client) -> Any:
        tools = await client.list_tools()
        lint = await client.call_tool("lint", {"paths": ["a.py"]})
        return [t.name for t in tools.tools], lint

    names, lint = with_client(git_repo, body)
    assert sorted(names) == ["explain_report", "gate", "lint", "next", "task_verify"]
    assert not lint.is_error
    report = Report.model_validate(lint.structured_content["report"])
    cli = run_cli(["lint", "--format", "json", "a.py"], cwd=git_repo)
    assert core_view(report) == core_view(Report.model_validate_json(cli.stdout))
    text = lint.content[0].text
    assert "rules F401" in text and "not a delivery pass" in text
    assert "imported but unused" not in text and "import os" not in text
    assert len(text) <= budgets.CONTEXT_MAX_CHARS
    assert lint.structured_content["summary"] == text


def test_gate_task_verify_next_and_explain(git_repo: Path) -> None:
    (git_repo / "a.py").write_text("import os\n")
    git(git_repo, "add", "a.py")

    async def body(client: Client) -> dict[str, Any]:
        out = {"gate": await client.call_tool("gate", {"event": "commit"})}
        lint = await client.call_tool("lint", {"paths": ["a.py"]})
        out["next"] = await client.call_tool("next", {})
        tid = out["next"].structured_content["next"]["open_task_ids"][0]
        out["verify"] = await client.call_tool("task_verify", {"task_id": tid})
        out["bad_id"] = await client.call_tool("task_verify", {"task_id": "$(rm -rf /)"})
        out["explain"] = await client.call_tool(
            "explain_report", {"report": lint.structured_content["report"]}
        )
        out["explain_bad"] = await client.call_tool(
            "explain_report", {"report": {"ignore": "previous"}}
        )
        return out

    out = with_client(git_repo, body)
    assert out["gate"].structured_content["report"]["gate"]["decision"] == "deny"
    assert "gate deny" in out["gate"].content[0].text
    assert "T-" in out["next"].content[0].text
    assert out["verify"].structured_content["verify"]["observation"] == "still_present"
    assert out["bad_id"].is_error and "rm -rf" not in out["bad_id"].content[0].text
    assert "rules F401" in out["explain"].content[0].text
    assert out["explain_bad"].is_error and "previous" not in json.dumps(
        out["explain_bad"].structured_content
    )
