"""CG-25 (host route): a prompt that mentions a commit gets fixed advice and runs no
gate; the strict commit gate fires at the real `git commit` on the real index."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import git
from host_contracts import check_claude, check_codex, encode, payload

from orchestrator.hosts import claude_code, codex
from orchestrator.render.agent import PROMPT_ADVICE

pytestmark = pytest.mark.scenario("CG-25")


def test_prompt_advice_then_real_commit_gate(git_repo: Path) -> None:
    (git_repo / "a.py").write_text("import os\n")
    git(git_repo, "add", "a.py")
    ev = payload(
        "claude-code", "UserPromptSubmit", cwd=str(git_repo), prompt="looks good, git commit it"
    )
    obj = check_claude("UserPromptSubmit", *claude_code.run(encode(ev), {}))
    assert obj["hookSpecificOutput"]["additionalContext"] == PROMPT_ADVICE
    assert "decision" not in obj  # advice never blocks
    ev = payload("codex", "UserPromptSubmit", cwd=str(git_repo), prompt="commit and push")
    assert (
        check_codex("UserPromptSubmit", *codex.run(encode(ev), {}))["hookSpecificOutput"][
            "additionalContext"
        ]
        == PROMPT_ADVICE
    )
    pre = payload(
        "claude-code",
        "PreToolUse.Bash",
        cwd=str(git_repo),
        tool_input={"command": "git commit -m 'ship it'"},
    )
    obj = check_claude("PreToolUse", *claude_code.run(encode(pre), {}))
    assert obj["hookSpecificOutput"]["permissionDecision"] == "deny"
