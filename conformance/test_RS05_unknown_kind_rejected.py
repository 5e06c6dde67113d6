"""RS-05: a kind outside the closed set of seven makes the report invalid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli
from hygiene_helpers import entry, report

from orchestrator.hygiene import validate

pytestmark = pytest.mark.scenario("RS-05")


@pytest.mark.parametrize("kind", ["rename", "Delete", "delete_range", ""])
def test_RS05_unknown_kind_is_invalid(kind: str) -> None:
    e = entry("delete-range")
    e["exact_edit"]["kind"] = kind
    rep, reasons = validate.validate_hygiene(report([e]))
    assert rep is None and any("exact_edit" in r for r in reasons)


@pytest.mark.e2e
def test_RS05_cli_validate_and_clean_refuse(tmp_path: Path) -> None:
    e = entry("delete-range")
    e["exact_edit"]["kind"] = "shred"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(report([e])))
    proc = run_cli(["report", "validate", str(bad)], cwd=tmp_path)
    assert proc.returncode == 2 and "invalid" in proc.stdout and "shred" in proc.stdout
    proc = run_cli(["clean", str(bad), "--root", str(tmp_path)], cwd=tmp_path)
    assert proc.returncode == 2 and "refusing an invalid report" in proc.stderr
