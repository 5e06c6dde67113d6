"""A checker that hangs at a strict gate is killed at its share of the gate's one
deadline and recorded `timed_out`: the gate keeps the time for its own git reads and
answers incomplete (exit 3, or a host hook's deny) naming the checker and the
toolchain, never an internal git fault. Real git repositories, the real CLI, fake
Ruffs (scripts written here) for the fault.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from gate_support import clean_env, orchestrate
from helpers import new_repo, run_cli
from host_contracts import check_claude, check_codex, check_gemini, payload

from orchestrator.deadline import Deadline
from orchestrator.hosts import budgets

#: Generous slack on every wall-time bound below (start-up on a loaded machine).
SLACK_S = 20.0
#: The fakes: one that never answers at all, one that tells its version and then
#: hangs on the check (with a helper in its process group that hangs too).
NEVER_RETURNS = 'echo $$ >> "{pids}"\nexec sleep 1000\n'
HANGS_ON_CHECK = (
    'case "$1" in --version) echo "ruff 0.6.0"; exit 0;; esac\n'
    'sleep 1000 &\necho $! >> "{pids}"\necho $$ >> "{pids}"\nexec sleep 1000\n'
)


def _fake_ruff(tmp_path: Path, name: str, body: str) -> tuple[Path, Path]:
    """A fake Ruff at tmp_path/name recording the pids of its processes; and that file."""
    pids = tmp_path / f"{name}.pids"
    fake = tmp_path / name
    fake.write_text("#!/bin/sh\n" + body.format(pids=pids))
    fake.chmod(0o755)
    return fake, pids


def _setup(tmp_path: Path, fake: Path) -> tuple[Path, dict[str, str]]:
    """A repository with a staged .py file and a Ruff config, and the environment
    whose user-level config points the gate at `fake`."""
    homes = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    cfg = Path(homes["XDG_CONFIG_HOME"]) / "orchestrate" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text(f'[tools]\nruff = "{fake}"\n')
    files = {"pyproject.toml": "[tool.ruff]\nline-length = 100\n", "a.py": "x = 1\n"}
    repo = new_repo(tmp_path / "r", files)
    return repo.resolve(), clean_env(**homes)


def _alive(pids: Path) -> list[int]:
    """The fake's recorded processes that still run (a zombie waiting for its reaper
    counts as ended)."""
    out = []
    for pid in (int(p) for p in (pids.read_text().split() if pids.exists() else [])):
        try:
            os.kill(pid, 0)
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except ProcessLookupError:
            continue
        except OSError:
            state = "?"  # no /proc: it exists, so it counts as running
        if state != "Z":
            out.append(pid)
    return out


def test_the_reserve_is_a_bounded_share_of_the_deadline() -> None:
    from orchestrator.usecases.gate import finish_reserve

    assert finish_reserve(100.0) == pytest.approx(10.0)
    assert finish_reserve(6.0) == pytest.approx(1.0)  # the floor
    assert finish_reserve(1.0) == pytest.approx(0.5)  # never more than half
    assert finish_reserve(3600.0) == pytest.approx(15.0)  # the cap
    whole = Deadline.after(10.0)
    assert whole.short_of(4.0).at == pytest.approx(whole.at - 4.0)
    assert whole.short_of(60.0).expired()  # never before it started, expired at once
    assert whole.within(2.0).at <= whole.at and whole.within(60.0).at == whole.at


@pytest.mark.e2e
@pytest.mark.parametrize("kind", ["never-returns", "hangs-on-check"])
def test_a_hung_checker_at_the_commit_gate_is_timed_out_not_a_git_fault(
    tmp_path: Path, kind: str
) -> None:
    body = NEVER_RETURNS if kind == "never-returns" else HANGS_ON_CHECK
    fake, pids = _fake_ruff(tmp_path, f"fake-ruff-{kind}", body)
    repo, env = _setup(tmp_path, fake)
    timeout = 6.0
    start = time.monotonic()
    res = orchestrate(repo, "gate", "commit", "--timeout", str(timeout), env=env)
    elapsed = time.monotonic() - start
    out = res.stdout + res.stderr
    assert res.returncode == 3, out  # incomplete, never 4 "internal fault (GitError ...)"
    assert "internal fault" not in out and "GitError" not in out, out
    assert "ruff: timed_out" in out, out
    assert "restore the toolchain" in out, out
    assert elapsed < timeout + SLACK_S, elapsed  # an upper bound only
    assert pids.exists() and _alive(pids) == [], "the fake's process group outlived the gate"


@pytest.mark.e2e
def test_a_hung_checker_is_named_timed_out_in_the_json_report(tmp_path: Path) -> None:
    fake, _pids = _fake_ruff(tmp_path, "fake-ruff-hangs-on-check", HANGS_ON_CHECK)
    repo, env = _setup(tmp_path, fake)
    res = orchestrate(repo, "gate", "commit", "--timeout", "6", "--format", "json", env=env)
    assert res.returncode == 3, res.stdout + res.stderr
    report = json.loads(res.stdout)
    ruff = [s for s in report["scopes"] if s["checker"] == "ruff"]
    assert [s["status"] for s in ruff] == ["timed_out"], ruff
    secrets = [s for s in report["scopes"] if s["checker"] == "secrets"]
    assert secrets and all(s["status"] == "checked" for s in secrets), secrets
    assert report["gate"]["decision"] == "incomplete"
    assert report["request"]["timeout_s"] == 6  # the gate's deadline, not the checkers' share


HOSTS = {
    "claude-code": ("PreToolUse.Bash", check_claude),
    "codex": ("PreToolUse.Bash", check_codex),
    "gemini": ("BeforeTool.run_shell_command", check_gemini),
}


def _denial(host: str, obj: dict) -> str:  # type: ignore[type-arg]
    """The refusal text of a host's answer ("" when it did not refuse)."""
    if host == "gemini":
        return obj["reason"] if obj.get("decision") == "deny" else ""
    hso = obj.get("hookSpecificOutput") or {}
    return (
        hso.get("permissionDecisionReason", "") if hso.get("permissionDecision") == "deny" else ""
    )


@pytest.mark.e2e
@pytest.mark.parametrize("host", sorted(HOSTS))
def test_the_pre_tool_hook_answers_a_hung_checker_before_its_deadline(
    tmp_path: Path, host: str
) -> None:
    fake, pids = _fake_ruff(tmp_path, "fake-ruff-hangs-on-check", HANGS_ON_CHECK)
    repo, env = _setup(tmp_path, fake)
    deadline = 6.0
    env[budgets.GATE_DEADLINE_ENV] = str(deadline)
    name, check = HOSTS[host]
    event = payload(host, name, cwd=str(repo), tool_input={"command": "git commit -m x"})
    start = time.monotonic()
    # The hook must answer within its deadline plus the margin the host timeout leaves;
    # the runner's own timeout is only a backstop (the real deadline is 100 s).
    res = run_cli(
        ["hook", host],
        repo,
        env=env,
        stdin=json.dumps(event),
        timeout=deadline + budgets.ANSWER_MARGIN_S + SLACK_S,
        inherit_env=False,
    )
    elapsed = time.monotonic() - start
    obj = check(event["hook_event_name"], res.returncode, res.stdout.encode())
    text = _denial(host, obj)
    assert "strict commit gate: incomplete" in text, (obj, res.stderr)
    assert "ruff: timed_out" in text and "restore the toolchain" in text, text
    assert "internal fault" not in text, text
    assert elapsed < deadline + budgets.ANSWER_MARGIN_S, elapsed  # an upper bound only
    assert _alive(pids) == [], "the fake's process group outlived the hook"


@pytest.mark.parametrize("value", [None, "0", "-1", "1e9", "inf", "nan", "soon", ""])
def test_the_test_deadline_never_lengthens_the_gate(value: str | None) -> None:
    env = {} if value is None else {budgets.GATE_DEADLINE_ENV: value}
    assert budgets.gate_deadline_s(env) == budgets.GATE_DEADLINE_S


def test_the_test_deadline_shortens_the_gate() -> None:
    assert budgets.gate_deadline_s({budgets.GATE_DEADLINE_ENV: "5"}) == 5.0
