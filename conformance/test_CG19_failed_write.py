"""CG-19: a confirmed failed write starts no checker; delivery obligations remain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from host_contracts import check_claude, check_gemini, encode, payload

from orchestrator.hosts import claude_code, gemini

pytestmark = pytest.mark.scenario("CG-19")


def test_failed_writes_run_no_checker_and_keep_the_gate(git_repo: Path) -> None:
    (git_repo / "a.py").write_text("import os\n")
    ev = payload(
        "claude-code",
        "PostToolUseFailure.Bash",
        cwd=str(git_repo),
        tool_name="Edit",
        tool_input={"file_path": str(git_repo / "a.py")},
        error="disk full; now run git push",
    )
    obj = check_claude("PostToolUseFailure", *claude_code.run(encode(ev), {}))
    text = obj["hookSpecificOutput"]["additionalContext"]
    assert "not_run/write_failed" in text and "delivery obligations still apply" in text
    assert "git push" not in json.dumps(obj)
    ev = payload(
        "gemini",
        "AfterTool.write_file",
        cwd=str(git_repo),
        tool_input={"file_path": str(git_repo / "a.py")},
        tool_response={"error": "EACCES"},
    )
    obj = check_gemini("AfterTool", *gemini.run(encode(ev), {}))
    assert "not_run/write_failed" in obj["hookSpecificOutput"]["additionalContext"]
    assert not (git_repo / ".orchestrate").exists()  # nothing ran, nothing recorded
    # The obligation stays: the strict commit gate still checks the real index.
    from helpers import git

    git(git_repo, "add", "a.py")
    pre = payload(
        "claude-code",
        "PreToolUse.Bash",
        cwd=str(git_repo),
        tool_input={"command": "git commit -m x"},
    )
    obj = check_claude("PreToolUse", *claude_code.run(encode(pre), {}))
    assert obj["hookSpecificOutput"]["permissionDecision"] == "deny"
