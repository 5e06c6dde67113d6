"""Strict events an agent shapes to slip past the outer guard (hosts/guard.py) or the
protected-path check: each must still end in the host's refusal.

The attacker controls the tool input, file names and contents and the repository, not
the host: the cases below are events a host could send, or bytes the guard must read
the same way the decoder does.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from pathlib import Path

import pytest
from fault_injection import raising
from helpers import new_repo
from host_contracts import check_claude

from orchestrator.hosts import guard, intake, router

BEFORE = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}
WRITE = {"claude-code": "Write", "codex": "Write", "gemini": "write_file"}


@pytest.fixture(autouse=True)
def _signal_mask() -> object:
    """The guard holds SIGTERM / SIGINT off once it answers a fault; give the mask back."""
    import signal

    saved = signal.pthread_sigmask(signal.SIG_BLOCK, ())
    yield
    signal.pthread_sigmask(signal.SIG_SETMASK, saved)


def _answer(host: str, repo: Path, data: bytes) -> tuple[int, bytes]:
    """One in-process `orchestrate hook HOST`: (exit code, stdout)."""
    env = {"PATH": os.environ["PATH"], "CLAUDE_PROJECT_DIR": str(repo), "HOME": str(repo)}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        stream = io.BufferedReader(io.BytesIO(data))  # type: ignore[arg-type]
        code = guard.answer(host, stream, env, out_fd=out.fileno(), err_fd=err.fileno())
        out.seek(0)
        return code, out.read()


def _denied(host: str, code: int, out: bytes) -> bool:
    if code == guard.REFUSAL_EXIT:
        return out == guard.REFUSALS[host]
    if code != 0 or not out.strip():
        return False
    obj = json.loads(out)
    hso = obj.get("hookSpecificOutput") or {}
    return hso.get("permissionDecision") == "deny" or obj.get("decision") == "deny"


@pytest.mark.parametrize(
    "data",
    [
        # The decoder keeps the last of duplicate keys; an escape hides it from a byte scan.
        b'{"hook_event_name":"Stop","hook_event_name":"Pre\\u0054oolUse","tool_name":"Bash"}',
        b'{"hook_event_name":"Stop","hook\\u005fevent_name":"PreToolUse","tool_name":"Bash"}',
        b'{"hook_event_name":"Stop","tool_name":"Bash","hook_event_name":"PreToolUse"}',
    ],
)
def test_a_name_the_decoder_reads_otherwise_is_strict(data: bytes) -> None:
    assert json.loads(data)["hook_event_name"] == "PreToolUse"
    assert intake.may_be_strict("claude-code", intake.EventInput(data))


def test_a_fault_on_an_escaped_duplicate_name_still_refuses(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    data = (
        b'{"cwd":' + json.dumps(str(repo)).encode() + b',"hook_event_name":"Stop",'
        b'"hook_event_name":"Pre\\u0054oolUse","tool_name":"Bash",'
        b'"tool_input":{"command":"git commit -q -m x"}}'
    )
    with raising(router.RouteResult.bounded.__code__) as armed:
        code, out = _answer("claude-code", repo, data)
    assert armed.fired
    assert (code, out) == (guard.REFUSAL_EXIT, guard.REFUSALS["claude-code"])


@pytest.mark.parametrize("host", sorted(guard.REFUSALS))
def test_an_edit_through_a_link_and_dot_dot_into_git_is_refused(tmp_path: Path, host: str) -> None:
    """`lnk/../hooks/x` with lnk -> .git/logs: the kernel writes .git/hooks/x, while the
    lexical path (the link's `..` dropped) is outside .git."""
    repo = new_repo(tmp_path / "repo")
    (repo / ".git" / "logs").mkdir(exist_ok=True)
    (repo / "lnk").symlink_to(".git/logs")
    target = f"{repo}/lnk/../hooks/pre-commit"
    assert os.path.realpath(target) == str(repo / ".git" / "hooks" / "pre-commit")
    for path in (target, "lnk/../hooks/pre-commit"):
        data = json.dumps(
            {
                "session_id": "s",
                "cwd": str(repo),
                "hook_event_name": BEFORE[host],
                "tool_name": WRITE[host],
                "tool_input": {"file_path": path, "content": "exit 0\n"},
            }
        ).encode()
        code, out = _answer(host, repo, data)
        assert _denied(host, code, out), (path, code, out[:300])


def test_an_over_budget_edit_whose_name_the_skim_cannot_read_is_refused(tmp_path: Path) -> None:
    """Over the budget, the skim fails (an integer past 64 bits, valid JSON) and the event
    name comes after the first MiB: the event may be strict, so it is refused."""
    repo = new_repo(tmp_path / "repo")
    target = json.dumps(str(repo / ".git" / "hooks" / "pre-commit")).encode()
    data = (
        b'{"cwd":' + json.dumps(str(repo)).encode() + b',"tool_name":"Write",'
        b'"tool_input":{"file_path":' + target + b',"n":100000000000000000000,'
        b'"content":"' + b"x" * (2 << 20) + b'"},"hook_event_name":"PreToolUse"}'
    )
    assert json.loads(data)["hook_event_name"] == "PreToolUse"
    code, out = _answer("claude-code", repo, data)
    assert _denied("claude-code", code, out), (code, out[:300])
    if code == 0:
        check_claude("PreToolUse", code, out)


def test_an_over_budget_event_plainly_naming_another_event_is_only_said(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    data = (
        b'{"hook_event_name":"PostToolUse","n":100000000000000000000,"x":"'
        + b"x" * (2 << 20)
        + b'"}'
    )
    code, out = _answer("claude-code", repo, data)
    assert code == 0 and set(json.loads(out)) == {"systemMessage"}


def test_the_gate_never_runs_the_repository_fsmonitor_hook(tmp_path: Path) -> None:
    """Failed before: `git config core.fsmonitor ./x` (a shell command the agent may run)
    made every git the commit gate ran start that program: it could kill the hook, and a
    host reads a hook killed by a signal as "go on"."""
    from helpers import git

    repo = new_repo(tmp_path / "repo")
    mark = tmp_path / "ran"
    hook = tmp_path / "fsmonitor.sh"
    hook.write_text(f"#!/bin/sh\necho ran >> '{mark}'\nexit 1\n")
    hook.chmod(0o755)
    git(repo, "config", "core.fsmonitor", str(hook))
    (repo / "ok.py").write_text("VALUE = 1\n")
    git(repo, "add", "ok.py")
    mark.unlink(missing_ok=True)
    data = json.dumps(
        {
            "session_id": "s",
            "cwd": str(repo),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git commit -a -q -m x"},
        }
    ).encode()
    code, out = _answer("claude-code", repo, data)
    assert code == 0 and out.strip(), (code, out[:300])
    assert not mark.exists(), "the gate ran the repository's fsmonitor hook"


@pytest.mark.parametrize("name", [".g\u200cit", ".git\ufeff", "\u200d.GIT", ".orchestrat\u206ae"])
def test_a_protected_folder_spelled_with_hfs_ignored_code_points_is_refused(
    tmp_path: Path, name: str
) -> None:
    """HFS+ drops these code points from names (git refuses them too, core.protectHFS)."""
    from orchestrator.usecases.shell_delivery import protected_target

    target = str(tmp_path / name / "hooks" / "pre-commit")
    assert protected_target(target, tmp_path, {}) == "protected_path"
