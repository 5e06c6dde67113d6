"""Unit tests of the entry-point cache (core/entry_points) and the strict gate's machine
tools (core/tool_paths), in process."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.core import entry_points, tool_paths
from orchestrator.errors import UsageError


@pytest.fixture
def cache_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(entry_points, "user_cache_root", lambda: tmp_path)
    return tmp_path


def test_remembered_rows_are_read_back_under_the_same_key(cache_root: Path) -> None:
    key = entry_points.installed_key()
    assert key is not None
    rows = [("ruff", "orchestrate_plugins.ruff_checker", "orchestrate", "1.0")]
    assert entry_points.cached("orchestrate", key) is None
    entry_points.remember("orchestrate", key, rows)
    assert entry_points.cached("orchestrate", key) == rows
    assert entry_points.cached("orchestrate", [*key, "other"]) is None
    assert entry_points.cached("another-group", key) is None


def test_a_damaged_cache_file_is_a_miss(cache_root: Path) -> None:
    key = entry_points.installed_key()
    assert key is not None
    entry_points.remember("orchestrate", key, [])
    (cache_file,) = cache_root.glob("entry-points-*.json")
    cache_file.write_text('{"key": 1, "groups": {"orchestrate": [[1, 2]]}}')
    assert entry_points.cached("orchestrate", key) is None
    cache_file.write_text("{")
    assert entry_points.cached("orchestrate", key) is None


def test_machine_tools_are_the_user_config_absolute_paths_never_a_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "config.toml"
    monkeypatch.setattr(tool_paths, "user_config_path", lambda: user)
    assert tool_paths.machine_tools({}) == ({}, [])
    user.write_text('extra = 1\n[tools]\nruff = "/home/u/ruff"\nnode = "relative/node"\n')
    tools, notes = tool_paths.machine_tools({})
    assert tools == {"ruff": "/home/u/ruff"}
    assert len(notes) == 2 and "only [tools] is read" in notes[0] and "extra" in notes[0]
    assert "tools.node: not an absolute path" in notes[1]
    user.write_text("[tools\n")
    with pytest.raises(UsageError, match="cannot read the user configuration"):
        tool_paths.machine_tools({})
