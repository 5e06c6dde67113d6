"""The hygiene use cases `check` and `clean` (and `undo`): the entry cli/hygiene.py calls.

A thin layer: the hygiene package's service module does the work; this module
loads the plugins a presenter would otherwise load itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.hygiene import apply as engine
from orchestrator.hygiene import service


def _plugins() -> Any:
    from orchestrator.core import plugin_host

    return plugin_host.load()


def check(root: Path) -> service.CheckResult:
    """Scan `root` for hygiene candidates with the loaded plugins' rules."""
    return service.check(root, _plugins())


def clean(root: Path, report_path: Path, opts: engine.Options) -> service.CleanResult:
    """Apply the hygiene report at `report_path` under `opts`."""
    return service.clean(root, report_path, opts, _plugins())


def undo(root: Path, run_id: str) -> list[tuple[str, str, str]]:
    """Restore every change of the clean run `run_id`."""
    return service.undo(root, run_id)


__all__ = ["check", "clean", "undo"]
