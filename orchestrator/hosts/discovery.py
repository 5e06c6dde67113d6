"""Read-only discovery for session start: which checkers are configured, missing, or
need configuration. No checker runs, no subprocess starts, nothing is written.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from orchestrator.hosts.budgets import safe_checker

# Per known checker: the tool's file name, where the project configures it, and
# whether a run without any configuration is meaningful (Ruff has defaults; ESLint 9
# refuses to run without a flat config).
_KNOWN: dict[str, tuple[str, tuple[str, ...], bool]] = {
    "ruff": ("ruff", ("ruff.toml", ".ruff.toml", "pyproject.toml:[tool.ruff"), True),
    "eslint": (
        "eslint",
        ("eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts"),
        False,
    ),
    "ruby": ("ruby", (), True),
}


@dataclass(frozen=True)
class CheckerState:
    """One checker's discovered state: configured | defaults | missing |
    configuration_required | available (a plugin we know nothing more about)."""

    name: str
    state: str


def _find(tool: str, root: Path) -> bool:
    dirs = [root / "node_modules" / ".bin", Path(sys.executable).parent]
    if tool == "eslint":
        # The pinned ESLint the set-up installs is what the checker falls back to.
        try:
            from orchestrate_plugins.eslint_checker import managed_home

            dirs.append(managed_home() / "node_modules" / ".bin")
        except ImportError:
            pass
    for d in dirs:
        cand = d / tool
        if cand.is_file() and os.access(cand, os.X_OK):
            return True
    path = os.pathsep.join(
        e for e in os.environ.get("PATH", "").split(os.pathsep) if e and os.path.isabs(e)
    )
    return shutil.which(tool, path=path) is not None


def _configured(root: Path, markers: tuple[str, ...]) -> bool:
    for marker in markers:
        name, _, needle = marker.partition(":")
        path = root / name
        try:
            if not path.is_file():
                continue
            if not needle:
                return True
            with open(path, "rb") as fh:
                if needle.encode() in fh.read(256 * 1024):
                    return True
        except OSError:
            continue
    return False


def discover(root: Path, checker_names: list[str]) -> list[CheckerState]:
    """The state of each loaded checker for `root`, sorted by name."""
    out: list[CheckerState] = []
    for name in sorted(set(checker_names)):
        known = _KNOWN.get(name)
        if known is None:
            out.append(CheckerState(safe_checker(name), "available"))
            continue
        tool, markers, has_defaults = known
        if not _find(tool, root):
            out.append(CheckerState(name, "missing"))
        elif _configured(root, markers):
            out.append(CheckerState(name, "configured"))
        else:
            out.append(CheckerState(name, "defaults" if has_defaults else "configuration_required"))
    return out


def loaded_checker_names() -> tuple[list[str], int]:
    """Names of the checkers the plugin host loads, and how many plugins failed."""
    from orchestrator.core.plugin_host import load

    ps = load()
    return [c.name for c in ps.checkers()], len(ps.failed)
