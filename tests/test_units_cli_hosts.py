"""`orchestrate hook HOST` called in process (cli/hosts.py through cli.main.main and the
outer guard, hosts/guard.py): a recorded real event on stdin, the host's answer on file
descriptor 1, in real git repositories with real Ruff; and the guard's constant answers
when the adapter faults. The real host CLIs drive the same hooks end-to-end
(tests/hosts_e2e)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import git, new_repo
from host_contracts import encode, payload

from orchestrator.cli.main import main
from orchestrator.hosts import guard, intake
from orchestrator.vocab import ExitCode


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository that is the host's project (cwd and the hosts' project variables)."""
    path = new_repo(tmp_path / "project")
    monkeypatch.chdir(path)
    for var in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"):
        monkeypatch.setenv(var, str(path))
    return path


def _hook(monkeypatch: pytest.MonkeyPatch, host: str, event: dict[str, Any] | bytes) -> int:
    data = event if isinstance(event, bytes) else encode(event)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    return main(["hook", host])


def _context(obj: dict[str, Any]) -> str:
    hso = obj.get("hookSpecificOutput") or {}
    return str(
        hso.get("additionalContext")
        or hso.get("permissionDecisionReason")
        or obj.get("reason")
        or obj.get("systemMessage")
        or ""
    )


def test_a_claude_code_write_gets_feedback_on_stdout(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    src = "import os\n"
    (repo / "a.py").write_text(src)
    event = payload(
        "claude-code",
        "PostToolUse.Write",
        cwd=str(repo),
        tool_input={"file_path": str(repo / "a.py"), "content": src},
        tool_response={"filePath": str(repo / "a.py"), "content": src},
    )
    assert _hook(monkeypatch, "claude-code", event) == 0
    out = capfd.readouterr().out
    text = _context(json.loads(out))
    assert "rules F401" in text and "not a delivery pass" in text
    assert "imported but unused" not in out  # the tool's free text is never forwarded


def test_a_claude_code_commit_of_a_blocking_index_is_denied(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    (repo / "bad.py").write_text("import os\n")
    git(repo, "add", "bad.py")
    event = payload("claude-code", "PreToolUse.Bash", cwd=str(repo))
    assert _hook(monkeypatch, "claude-code", event) == 0
    obj = json.loads(capfd.readouterr().out)
    assert obj["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "gate" in _context(obj)


def test_a_gemini_session_start_is_read_only_discovery(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    assert _hook(monkeypatch, "gemini", payload("gemini", "SessionStart", cwd=str(repo))) == 0
    text = _context(json.loads(capfd.readouterr().out))
    assert "read-only discovery (no lint ran)" in text
    assert not (repo / ".orchestrate").exists()


def test_a_codex_shell_command_that_delivers_nothing_is_not_refused(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    event = payload("codex", "PreToolUse.Bash", cwd=str(repo), tool_input={"command": "ls -la"})
    assert _hook(monkeypatch, "codex", event) == 0
    out = capfd.readouterr().out
    assert "deny" not in out


@pytest.mark.parametrize("host", sorted(guard.REFUSALS))
def test_a_fault_on_a_before_tool_event_is_the_hosts_constant_refusal(
    host: str, repo: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    def fake_respond(*args: object) -> tuple[int, bytes]:
        raise RuntimeError("fake adapter fault")

    monkeypatch.setattr(intake, "respond", fake_respond)
    name = "BeforeTool.run_shell_command" if host == "gemini" else "PreToolUse.Bash"
    assert _hook(monkeypatch, host, payload(host, name, cwd=str(repo))) == guard.REFUSAL_EXIT
    out = capfd.readouterr()
    assert out.out.encode() == guard.REFUSALS[host]
    assert out.err == guard.FAULT_REASON + "\n"


def test_a_fault_on_another_event_is_said_and_never_blocks(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    def fake_respond(*args: object) -> tuple[int, bytes]:
        raise RuntimeError("fake adapter fault")

    monkeypatch.setattr(intake, "respond", fake_respond)
    event = payload("claude-code", "SessionStart", cwd=str(repo))
    assert _hook(monkeypatch, "claude-code", event) == 0
    out = capfd.readouterr().out
    assert out.encode() == guard.FAULT_NOTE and "nothing was verified" in out


def test_an_unknown_host_is_a_usage_error(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    assert _hook(monkeypatch, "vim", b"{}") == ExitCode.USAGE
    assert "invalid choice: 'vim'" in capfd.readouterr().err


def test_mcp_and_hook_are_registered_with_their_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: orchestrate mcp [-h]")
    assert main(["hook", "--help"]) == 0
    out = capsys.readouterr().out
    assert all(host in out for host in guard.REFUSALS)
