"""Read-only discovery for session start: which checkers are configured, missing, or
need configuration. No checker runs, no subprocess starts, nothing is written.

What each checker knows about its own tool and configuration comes from the checker
itself (`Checker.probe`): this module keeps no table of tools or config names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from orchestrator.model.checker import probe_of
from orchestrator.render.agent_labels import safe_checker


@dataclass(frozen=True)
class CheckerState:
    """One checker's discovered state: configured | defaults | missing |
    configuration_required | available (a plugin we know nothing more about)."""

    name: str
    state: str


def probe_states(root: Path, checkers: Sequence[object]) -> list[CheckerState]:
    """The probed state of each checker for `root`, sorted by name (first one per name)."""
    by_name: dict[str, object] = {}
    for c in checkers:
        by_name.setdefault(str(getattr(c, "name", "")), c)
    out: list[CheckerState] = []
    for name in sorted(by_name):
        state = probe_of(by_name[name], root).state
        out.append(CheckerState(safe_checker(name) if state == "available" else name, state))
    return out


def discover(
    root: Path, checker_names: list[str], checkers: Sequence[object] | None = None
) -> list[CheckerState]:
    """The state of each named checker for `root`, sorted by name.

    `checkers` are the loaded checker objects (loaded here when not given); a name with
    no loaded checker is `available`.
    """
    if checkers is None:
        from orchestrator.usecases.agent import loaded_checkers

        checkers = loaded_checkers()[0]
    wanted = set(checker_names)
    known = probe_states(root, [c for c in checkers if getattr(c, "name", None) in wanted])
    seen = {getattr(c, "name", None) for c in checkers}
    extra = [CheckerState(safe_checker(n), "available") for n in wanted if n not in seen]
    return sorted(known + extra, key=lambda s: s.name)


def loaded_checker_names() -> tuple[list[str], int]:
    """Names of the checkers the plugin host loads, and how many plugins failed."""
    from orchestrator.usecases.agent import loaded_checkers

    checkers, failed = loaded_checkers()
    return [c.name for c in checkers], failed
