"""The project's settings a presenter reads for itself (not for a lint run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def project_settings(root: Path) -> dict[str, Any]:
    """The project's validated orchestrate settings (core/config.load_config; {} when
    none), for the presenter's own keys: `progress` (the CLI's progress count) and the
    `[server]` table (the warm engine's idle timeout). A copy the caller owns; a bad
    configuration is a UsageError, as for any command."""
    from orchestrator.core.config import load_config

    return load_config(root)


__all__ = ["project_settings"]
