"""Fixtures for tests/ (helpers live in tests/helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import git_repo, machine_tools_reset, write_files  # noqa: F401 - re-exported fixtures


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Private cache and config folders for the gate (in-process and in the CLI)."""
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return env
