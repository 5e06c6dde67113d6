"""The fast tier spawns no orchestrate: a test that does belongs to the e2e tier.

The suite has two tiers (README "Tests"): the fast tier (`pytest -m "not e2e"`) calls
orchestrate's use cases, decisions and checkers in process; the end-to-end tier (marker
`e2e`) runs orchestrate as a user's machine does: its console script or `python -m
orchestrator`, a host CLI, an editor, a wheel or venv build. Real tools (Ruff, ESLint,
Ruby, git) run in both.

A shell's `-c` script (`bash -c "orchestrate lint | jq ."`, as a test runs a command
the docs show) is read too: each of its commands is looked at the same way.

`install()` wraps `subprocess.Popen.__init__` (which `subprocess.run`, `check_output`
and orchestrate's own `procs.run_bounded` all go through) and records each spawn of
such a program. The root conftest fails the test phase of a test not marked `e2e` that
spawned one, naming it. With `ORCHESTRATE_TIER_AUDIT=FILE` it appends the test's id to
FILE instead (to find the tests to mark).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

#: Programs whose run is an end-to-end run of orchestrate (or of a host or an editor).
PROGRAMS = frozenset(
    {"orchestrate", "claude", "codex", "gemini", "nvim", "pre-commit", "pipx", "lintrunner"}
)
#: `python -m X` of these is the same.
MODULES = ("orchestrator", "pip", "build", "venv", "pre_commit")


#: Shells whose `-c` script is read for the commands it starts.
SHELLS = frozenset({"sh", "bash", "dash", "zsh"})
#: What separates the commands of a shell script (a rough split: enough to find the
#: word each command starts with).
_COMMAND_BREAKS = re.compile(r"\$\(|[;&|()`\n]")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _script_spawns(script: str) -> str | None:
    """The end-to-end program a shell script starts (the first word of one of its
    commands, after variable assignments and `exec` / `env`), or None."""
    for command in _COMMAND_BREAKS.split(script):
        words = [w for w in command.split() if not _ASSIGNMENT.match(w)]
        while words and words[0] in ("exec", "env", "command", "time"):
            words = words[1:]
        if words and (what := spawns_orchestrate(words)) is not None:
            return what
    return None


@dataclass
class State:
    spawned: list[str] = field(default_factory=list)


STATE = State()


def spawns_orchestrate(args: Any) -> str | None:
    """The program of `args` (a Popen argv or shell string) when it is an end-to-end run,
    else None."""
    if isinstance(args, str | bytes | os.PathLike):
        argv = str(os.fsdecode(args)).split()
    elif isinstance(args, Sequence):
        argv = [os.fsdecode(a) if isinstance(a, bytes | os.PathLike) else str(a) for a in args]
    else:
        return None
    if not argv:
        return None
    name = PurePath(argv[0]).name
    if name in PROGRAMS:
        return name
    if name in SHELLS and "-c" in argv[1:-1]:
        return _script_spawns(argv[argv.index("-c", 1) + 1])
    if name.startswith("python"):
        for i, word in enumerate(argv[1:-1], 1):
            if word == "-m" and argv[i + 1].split(".")[0] in MODULES:
                return f"python -m {argv[i + 1]}"
            if word == "-c" and "orchestrator" in argv[i + 1]:
                return "python -c (imports orchestrator)"
    return None


def install() -> None:
    """Wrap Popen once so every spawn is looked at."""
    real = subprocess.Popen.__init__
    if getattr(real, "_tier_guard", False):
        return

    def init(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
        what = spawns_orchestrate(args)
        if what is not None:
            STATE.spawned.append(what)
        real(self, args, *rest, **kwargs)

    init._tier_guard = True  # type: ignore[attr-defined]
    subprocess.Popen.__init__ = init  # type: ignore[method-assign]


def take() -> list[str]:
    """The end-to-end programs spawned since the last call."""
    out, STATE.spawned[:] = list(STATE.spawned), []
    return out
