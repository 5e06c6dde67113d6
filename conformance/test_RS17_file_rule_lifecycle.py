"""RS-17: a temporary file-rule match carries lifecycle{rule_ref, lifetime: temporary}, no served field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hygiene_helpers import commit_all

from orchestrator.hygiene import service

pytestmark = pytest.mark.scenario("RS-17")


def test_RS17_temporary_lifecycle_shape(git_repo: Path) -> None:
    (git_repo / "x.bak").write_text("old\n")
    commit_all(git_repo)
    out = git_repo / "r.json"
    service.write_report(service.check(git_repo).report, out)
    data = json.loads(out.read_text())
    (item,) = data["shortlist"]
    assert item["path"] == "x.bak"
    assert item["lifecycle"] == {"rule_ref": "merge-leftovers", "lifetime": "temporary"}
    (e,) = data["entries"]
    assert e["lifecycle"] == item["lifecycle"] == e["exact_edit"]["lifecycle"]
