"""The router's deadlines fit inside every shipped host hook's timeout with room to
answer: a hook that is still running when its host gives up answers nothing (the
host then runs the command, or fails the turn), so each event's deadline plus the
answer margin must stay below the timeout each config in hooks/ gives that event."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.core.run import GRACE_S
from orchestrator.hosts import budgets as B
from orchestrator.procs import KILL_SETTLE_SECONDS

HOOKS = Path(__file__).resolve().parent.parent / "hooks"
#: Each shipped host config and the unit of its timeouts (per second).
CONFIGS = {
    "claude-code/hooks.json": 1,
    "claude-code/settings.json": 1,
    "codex/hooks.json": 1,
    "gemini/settings.json": 1000,  # Gemini CLI counts milliseconds
}
#: Host event -> the router's deadline for it (the pre-tool gate, the edit feedback).
DEADLINES = {
    "PreToolUse": B.GATE_DEADLINE_S,
    "BeforeTool": B.GATE_DEADLINE_S,
    "PostToolUse": B.FAST_DEADLINE_S,
    "AfterTool": B.FAST_DEADLINE_S,
}


def _timeouts(rel: str) -> dict[str, list[float]]:
    """Host event -> the timeouts (seconds) of its `orchestrate hook` entries."""
    hooks = json.loads((HOOKS / rel).read_text())["hooks"]
    out: dict[str, list[float]] = {}
    for event, groups in hooks.items():
        for group in groups:
            for h in group["hooks"]:
                if h["command"].startswith("orchestrate hook "):
                    out.setdefault(event, []).append(h["timeout"] / CONFIGS[rel])
    return out


def test_every_shipped_hook_config_is_checked_here() -> None:
    shipped = sorted(p.relative_to(HOOKS).as_posix() for p in HOOKS.glob("*/*.json"))
    assert shipped == sorted(CONFIGS)


@pytest.mark.parametrize("rel", sorted(CONFIGS))
def test_each_deadline_plus_the_answer_margin_is_below_the_host_timeout(rel: str) -> None:
    timeouts = _timeouts(rel)
    gate_events = [e for e in ("PreToolUse", "BeforeTool") if e in timeouts]
    assert gate_events, f"{rel}: no pre-tool gate entry"
    for event, deadline in DEADLINES.items():
        for timeout in timeouts.get(event, []):
            assert deadline + B.ANSWER_MARGIN_S <= timeout, (rel, event, deadline, timeout)


def test_the_margin_covers_the_last_kill_and_the_test_override_cannot_lengthen() -> None:
    # After the deadline a hung checker's tree may take KILL_SETTLE_SECONDS to die and
    # the run waits GRACE_S for its batch; start-up and rendering need the rest.
    assert B.ANSWER_MARGIN_S >= KILL_SETTLE_SECONDS + GRACE_S + 5.0
    assert B.gate_deadline_s({B.GATE_DEADLINE_ENV: str(B.GATE_DEADLINE_S * 10)}) == (
        B.GATE_DEADLINE_S
    )


def test_the_gate_keeps_a_reserve_past_the_checkers_at_the_hook_deadline() -> None:
    from orchestrator.usecases.gate import FINISH_RESERVE_MIN_S, finish_reserve

    assert FINISH_RESERVE_MIN_S > GRACE_S
    assert finish_reserve(B.GATE_DEADLINE_S) >= KILL_SETTLE_SECONDS + GRACE_S


@pytest.mark.parametrize("knob", [None, "1"])
@pytest.mark.parametrize("event", ["edit", "shell_write"])
def test_the_protected_place_lookups_keep_within_the_events_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, knob: str | None, event: str
) -> None:
    """The git lookups that tell whether an edit, or a shell command's write, lands in a
    protected place are bounded by GIT_LOOKUP_DEADLINE_S and by the pre-tool event's own
    deadline (so the test-only shorter gate deadline reaches them: they were a separate
    5-second clock)."""
    from orchestrator.deadline import GIT_LOOKUP_DEADLINE_S
    from orchestrator.hosts.events import Kind, RouterEvent
    from orchestrator.hosts.router import route
    from orchestrator.usecases import pretool

    if knob is None:
        monkeypatch.delenv(B.GATE_DEADLINE_ENV, raising=False)
    else:
        monkeypatch.setenv(B.GATE_DEADLINE_ENV, knob)
    bounds: list[float] = []

    def places(where: Path, deadline: object) -> dict:
        bounds.append(deadline.remaining())  # type: ignore[attr-defined]
        return {}

    monkeypatch.setattr(pretool, "git_places", places)
    if event == "edit":
        ev = RouterEvent(Kind.EDIT_PENDING, tmp_path, target=str(tmp_path / "a.txt"))
    else:
        ev = RouterEvent(Kind.SHELL_COMMAND, tmp_path, command="echo x > a.txt", shell_cwd=tmp_path)
    route(ev)
    assert bounds, "no protected-place lookup ran"
    limit = GIT_LOOKUP_DEADLINE_S if knob is None else float(knob)
    assert all(0.0 < b <= limit for b in bounds), bounds
    if knob is None:
        assert max(bounds) > GIT_LOOKUP_DEADLINE_S - 1.0, bounds  # production: unchanged
