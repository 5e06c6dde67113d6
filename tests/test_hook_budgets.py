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
