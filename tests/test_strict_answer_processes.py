"""How many git processes an agent's `git commit` costs before it runs.

Every pre-tool answer is a new process whose git calls are most of its time. The
counts here are what the answer needs: where the repository is, one reading of the
drivers per full runner (the preparation of a commit with nothing to replay asks with a
query runner, which reads none), one listing of the index per runner
(`objects.read_index`). A change that asks git again for what a runner already read
fails here, naming every call.
"""

from __future__ import annotations

import collections
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from helpers import new_repo

from orchestrator.core import plugin_host
from orchestrator.git import runner
from orchestrator.hosts import guard

#: What a plain `git commit` of one staged file costs today (34 before the index was
#: listed once per runner and the preparation asked with a query runner).
MOST = 24


@pytest.fixture
def calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> collections.Counter[str]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    seen: collections.Counter[str] = collections.Counter()
    real = runner.run_bounded

    def counting(argv: Any, **kw: Any) -> Any:
        words = [a for a in argv[1:] if not a.startswith("-c") and "=" not in a]
        seen[" ".join(w for w in words if len(w) < 40)] += 1  # no object ids
        return real(argv, **kw)

    monkeypatch.setattr(runner, "run_bounded", counting)
    return seen


def _answer(repo: Path) -> dict[str, Any]:
    event = {
        "session_id": "s",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git commit -q -m x"},
    }
    env = {"PATH": os.environ["PATH"], "CLAUDE_PROJECT_DIR": str(repo), "HOME": str(repo)}
    plugin_host.forget_searched()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        data = io.BufferedReader(io.BytesIO(json.dumps(event).encode()))
        code = guard.answer("claude-code", data, env, out_fd=out.fileno(), err_fd=err.fileno())
        out.seek(0)
        assert code == 0
        return json.loads(out.read())


def test_a_plain_commit_is_judged_with_few_git_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, calls: collections.Counter[str]
) -> None:
    repo = new_repo(tmp_path / "repo", {"ok.py": "VALUE = 1\n"})
    monkeypatch.chdir(repo)
    _answer(repo)  # imports and first-run work out of the count
    calls.clear()
    answer = _answer(repo)
    assert "allow" in json.dumps(answer), answer
    listed = "\n".join(f"{n} git {k}" for k, n in calls.most_common())
    assert calls["ls-files -s -z"] == 1, listed  # the gate's runner lists the index once
    # Two full runners (the policy read and the gate) read the drivers, the query runner
    # of the preparation does not.
    drivers = [k for k in calls if k.startswith("config -z --get-regexp")]
    assert [calls[k] for k in drivers] == [2], listed
    assert sum(calls.values()) <= MOST, listed


def test_a_runner_that_cannot_read_the_drivers_is_the_gates_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no driver read at the preparation of a plain commit, the first full runner
    is the policy read's: its failure still refuses as the gate's internal fault (as
    before, when the preparation's runner raised it), never as a policy change git
    could not name."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    repo = new_repo(tmp_path / "repo", {"ok.py": "VALUE = 1\n"})
    monkeypatch.chdir(repo)

    def unread(*_a: object, **_k: object) -> list:
        raise runner.GitError("git config: listing over budget (injected)")

    monkeypatch.setattr(runner, "_drivers_of", unread)
    out = _answer(repo)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny", out
    reason = out["permissionDecisionReason"]
    assert "internal fault" in reason and "policy" not in reason, reason
