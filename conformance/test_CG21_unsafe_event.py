"""CG-21: an event that cannot establish a safe edited file: scope undetermined, source
check not run, nothing guessed from free text, the hook's exit code claims nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from host_contracts import check_claude, encode, payload

from orchestrator.hosts import claude_code

pytestmark = pytest.mark.scenario("CG-21")


def _answer(repo: Path, data: bytes) -> dict:
    code, out = claude_code.run(data, {"CLAUDE_PROJECT_DIR": str(repo)})
    assert code == 0
    return json.loads(out)


def test_unsafe_events_are_not_checked(git_repo: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere.py").write_text("import os\n")
    (git_repo / "link.py").symlink_to(tmp_path / "elsewhere.py")
    (git_repo / "real.py").write_text("import os\n")
    free_text = f"the file I edited is {git_repo / 'real.py'}"
    cases = {
        "oversized": encode(
            payload("claude-code", "PostToolUse.Write", tool_input={"content": "x" * (1 << 20)})
        ),
        "wrong type": encode(
            payload(
                "claude-code", "PostToolUse.Write", cwd=str(git_repo), tool_input={"file_path": 7}
            )
        ),
        "missing": encode(
            payload(
                "claude-code",
                "PostToolUse.Write",
                cwd=str(git_repo),
                tool_input={"content": free_text},
                tool_response=free_text,
            )
        ),
        "escaping": encode(
            payload(
                "claude-code",
                "PostToolUse.Write",
                cwd=str(git_repo),
                tool_input={"file_path": str(tmp_path / "elsewhere.py")},
            )
        ),
        "symlink escape": encode(
            payload(
                "claude-code",
                "PostToolUse.Write",
                cwd=str(git_repo),
                tool_input={"file_path": str(git_repo / "link.py")},
            )
        ),
        "vanished": encode(
            payload(
                "claude-code",
                "PostToolUse.Write",
                cwd=str(git_repo),
                tool_input={"file_path": str(git_repo / "gone.py")},
            )
        ),
    }
    for what, data in cases.items():
        obj = _answer(git_repo, data)
        text = json.dumps(obj)
        assert "check not run" in text, what
        assert "real.py" not in text and "F401" not in text, what  # nothing guessed
        if what != "oversized":
            check_claude("PostToolUse", 0, json.dumps(obj).encode())
    assert not (git_repo / ".orchestrate").exists()
