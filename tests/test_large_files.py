"""Large files: a file the in-process syntax parse would need hundreds of megabytes for
is refused before it is read in full, honestly: a `not_run` scope naming the limit and
the setting that moves it (issue 14, item 5). Asserts the scope, not time or memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli

from orchestrator.api import MAX_PARSE_BYTES

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


def _json_of_size(size: int) -> str:
    """A valid JSON array of at least `size` bytes."""
    item = '{"id": 1, "v": [1, 2, 3]}'
    count = size // (len(item) + 2) + 1
    return "[" + ", ".join([item] * count) + "]\n"


def _scope(root: Path, name: str, *extra: str) -> dict:
    proc = run_cli(["lint", name, "--no-tasks", "--format", "json", *extra], cwd=root)
    assert proc.returncode in (0, 1, 3), proc.stderr
    report = json.loads(proc.stdout)
    (scope,) = [s for s in report["scopes"] if s["path"] == name]
    return scope


def test_a_file_over_the_parse_limit_is_not_run_with_the_limit_named(tmp_path: Path) -> None:
    (tmp_path / "big.json").write_text(_json_of_size(MAX_PARSE_BYTES + 1))
    (tmp_path / "small.json").write_text(_json_of_size(1000))
    big = _scope(tmp_path, "big.json")
    assert big["checker"] == "treesitter"
    assert big["status"] == "not_run"
    assert str(MAX_PARSE_BYTES) in big["reason"] and "max_parse_bytes" in big["reason"]
    assert _scope(tmp_path, "small.json")["status"] == "checked"


def test_the_parse_limit_is_a_setting(tmp_path: Path) -> None:
    (tmp_path / "big.json").write_text(_json_of_size(MAX_PARSE_BYTES + 1))
    (tmp_path / "mid.json").write_text(_json_of_size(5000))
    (tmp_path / "orchestrate.toml").write_text(f"max_parse_bytes = {4 * MAX_PARSE_BYTES}\n")
    assert _scope(tmp_path, "big.json")["status"] == "checked"
    (tmp_path / "orchestrate.toml").write_text("max_parse_bytes = 4096\n")
    mid = _scope(tmp_path, "mid.json")
    assert mid["status"] == "not_run" and "4096" in mid["reason"]


def test_a_parse_limit_out_of_range_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{}\n")
    (tmp_path / "orchestrate.toml").write_text("max_parse_bytes = 0\n")
    proc = run_cli(["lint", "a.json", "--no-tasks"], cwd=tmp_path)
    assert proc.returncode == 2
    assert "max_parse_bytes" in proc.stderr
