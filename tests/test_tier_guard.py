"""What the fast tier refuses to spawn (tests/tier_guard.py), unit by unit."""

from __future__ import annotations

import subprocess
import sys

import pytest
import tier_guard


@pytest.mark.parametrize(
    ("argv", "what"),
    [
        (["/x/.venv/bin/orchestrate", "lint"], "orchestrate"),
        ("orchestrate gate commit", "orchestrate"),
        ([sys.executable, "-m", "orchestrator", "lint"], "python -m orchestrator"),
        ([sys.executable, "-m", "orchestrator.cli", "hook", "codex"], "python -m orchestrator.cli"),
        (["python3", "-c", "import orchestrator.cli.main"], "python -c (imports orchestrator)"),
        ([sys.executable, "-m", "pip", "install", "x"], "python -m pip"),
        (["/usr/bin/nvim", "--headless"], "nvim"),
        (["node_modules/.bin/claude", "-p"], "claude"),
        ([b"/x/bin/codex", b"exec"], "codex"),
        (["bash", "-c", "orchestrate lint --help"], "orchestrate"),
        (["bash", "-c", "cd x && A=1 .venv/bin/orchestrate task list | jq ."], "orchestrate"),
        (["sh", "-e", "-c", "git add -A; exec orchestrate gate commit"], "orchestrate"),
        (["bash", "-c", "echo $(python -m orchestrator --version)"], "python -m orchestrator"),
    ],
)
def test_end_to_end_programs_are_recognised(argv: object, what: str) -> None:
    assert tier_guard.spawns_orchestrate(argv) == what


@pytest.mark.parametrize(
    "argv",
    [
        ["git", "commit", "-m", "orchestrate"],
        ["/x/ruff", "check", "orchestrator"],
        ["node", "eslint.js", "orchestrator.js"],
        [sys.executable, "-c", "print(1)"],
        [sys.executable, "scripts/fetch"],
        ["bash", "-c", "git commit -m orchestrate && echo orchestrate"],
        ["bash", "-c", "scripts/fetch --list"],
        ["bash", "script.sh", "-c"],
        [],
        None,
    ],
)
def test_the_tools_orchestrate_runs_are_not(argv: object) -> None:
    assert tier_guard.spawns_orchestrate(argv) is None


def test_a_spawn_is_recorded_for_the_test_that_made_it() -> None:
    tier_guard.take()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    assert tier_guard.take() == []
    with pytest.raises(OSError):  # recorded before it is started (here: it cannot be)
        subprocess.run(["/nonexistent/orchestrate", "lint"], check=False)
    assert tier_guard.take() == ["orchestrate"]
