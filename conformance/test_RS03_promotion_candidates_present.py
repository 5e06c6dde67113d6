"""RS-03: promotion_candidates is always present, possibly empty."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hygiene_helpers import commit_all, report

from orchestrator.hygiene import service, validate

pytestmark = pytest.mark.scenario("RS-03")


def test_RS03_empty_array_not_omitted(git_repo: Path) -> None:
    (git_repo / "x.bak").write_text("backup\n")
    commit_all(git_repo)
    res = service.check(git_repo)
    out = git_repo / "r.json"
    service.write_report(res.report, out)
    data = json.loads(out.read_text())
    assert "promotion_candidates" in data
    assert data["promotion_candidates"] == []


def test_RS03_report_without_the_array_is_invalid() -> None:
    data = report([])
    del data["promotion_candidates"]
    rep, reasons = validate.validate_hygiene(data)
    assert rep is None and any("promotion_candidates" in r for r in reasons)
