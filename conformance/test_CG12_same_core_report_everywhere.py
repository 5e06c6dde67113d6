"""CG-12: one project state with a violation (a staged secret) and incomplete evidence
(Ruff is configured to a path that does not exist), the same commit request through
the CLI (JSON), the MCP `gate` tool, the Claude Code PreToolUse hook, the installed git
pre-commit hook and `gate ci` on the resulting commit: the core report (findings,
scopes, gate decision) is identical; every strict entry blocks; save feedback stays
`not_evaluated` and never poses as a delivery pass."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from gate_support import SECRET_VALUE, clean_env, orchestrate, run
from helpers import VENV_BIN, new_repo, set_machine_tool
from host_contracts import check_claude, encode, payload
from mcp import Client, StdioServerParameters

from orchestrator.hosts import claude_code
from orchestrator.hosts.router import Services, _gate
from orchestrator.model.report import Report
from orchestrator.usecases.lint import core_view

pytestmark = [pytest.mark.e2e, pytest.mark.scenario("CG-12")]


def _project(tmp_path: Path) -> Path:
    set_machine_tool("ruff", "/nonexistent/bin/ruff")  # the machine's: ends with the test
    files = {
        "a.py": "x = 1\n",
        "config/.env": f"API_KEY={SECRET_VALUE}\n",
    }
    return new_repo(tmp_path / "proj", files, initial_commit=False)


def _mcp_gate(repo: Path) -> dict[str, Any]:
    params = StdioServerParameters(
        # The machine's tool paths (set_machine_tool) reach the server as they reach
        # the CLI: the MCP client passes only a few variables by default.
        command=str(VENV_BIN / "orchestrate"),
        args=["mcp"],
        cwd=str(repo),
        env=dict(os.environ),
    )

    async def main() -> dict[str, Any]:
        async with Client(params, read_timeout_seconds=180) as client:
            res = await client.call_tool("gate", {"event": "commit"})
            return res.structured_content["report"]

    return anyio.run(main)


def test_same_core_result_on_every_surface(tmp_path: Path) -> None:
    repo = _project(tmp_path)
    views: dict[str, dict[str, Any]] = {}

    cli = orchestrate(repo, "gate", "commit", "--format", "json")
    assert cli.returncode == 3  # incomplete outranks findings; both block
    views["cli"] = core_view(Report.model_validate_json(cli.stdout))

    views["mcp"] = core_view(Report.model_validate(_mcp_gate(repo)))

    seen: list[Report] = []

    def gate(kind: str, root: Path, timeout: float) -> Report:  # the real gate, recorded
        seen.append(_gate(kind, root, timeout))
        return seen[-1]

    pre = payload(
        "claude-code", "PreToolUse.Bash", cwd=str(repo), tool_input={"command": "git commit -m x"}
    )
    code, out = claude_code.run(encode(pre), {"CLAUDE_PROJECT_DIR": str(repo)}, Services(gate=gate))
    hook = check_claude("PreToolUse", code, out)
    assert hook["hookSpecificOutput"]["permissionDecision"] == "deny"
    reason = hook["hookSpecificOutput"]["permissionDecisionReason"]
    assert "incomplete" in reason and "secrets" in reason and SECRET_VALUE not in out.decode()
    views["claude-code hook"] = core_view(seen[0])

    assert orchestrate(repo, "install-hooks").returncode == 0
    hook_path = repo / ".git" / "hooks" / "pre-commit"
    installed = run(repo, str(hook_path), "--format", "json")
    assert installed.returncode != 0
    views["git hook"] = core_view(Report.model_validate_json(installed.stdout))
    blocked = run(repo, "git", "commit", "-q", "-m", "x")
    assert blocked.returncode != 0
    assert run(repo, "git", "rev-parse", "-q", "--verify", "HEAD").returncode != 0  # no commit

    # The same content as a commit, checked by CI.
    assert (
        run(repo, "git", "commit", "-q", "--no-verify", "-m", "x", env=clean_env()).returncode == 0
    )
    ci = orchestrate(repo, "gate", "ci", "--format", "json")
    assert ci.returncode == 3
    views["gate ci"] = core_view(Report.model_validate_json(ci.stdout))
    # CI judges the commit's message too (the commit gate cannot see it: commit-msg does).
    head = run(repo, "git", "rev-parse", "HEAD").stdout.strip()
    label = f"<commit {head[:12]} message>"
    message = [s for s in views["gate ci"]["scopes"] if s["path"] == label]
    assert [(s["checker"], s["status"]) for s in message] == [("secrets", "checked")]
    views["gate ci"]["scopes"].remove(message[0])

    reference = views["cli"]
    assert reference["gate"]["decision"] == "incomplete"
    assert any(f["checker"] == "secrets" for f in reference["findings"])
    assert any(s["status"] == "missing" and s["checker"] == "ruff" for s in reference["scopes"])
    for name, view in views.items():
        assert view == reference, f"{name} differs from the CLI's core report"

    # Save feedback on the same file: never a delivery verdict.
    save = orchestrate(repo, "lint", "--feedback", "--format", "json", "a.py")
    assert json.loads(save.stdout)["gate"]["decision"] == "not_evaluated"
    edit = payload(
        "claude-code",
        "PostToolUse.Write",
        cwd=str(repo),
        tool_input={"file_path": str(repo / "a.py")},
    )
    text = check_claude("PostToolUse", *claude_code.run(encode(edit), {}))["hookSpecificOutput"][
        "additionalContext"
    ]
    assert "delivery not_evaluated" in text and "coverage incomplete" in text
