"""RS-19: a directory rule gives one aggregate entry, same lifecycle shape, path = the directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hygiene_helpers import age, commit_all

from orchestrator.hygiene import service

pytestmark = pytest.mark.scenario("RS-19")


def test_RS19_one_entry_for_the_directory(git_repo: Path) -> None:
    old = git_repo / "scratch" / "old"
    (old / "deep").mkdir(parents=True)
    (old / "a.txt").write_text("a\n")
    (old / "deep" / "b.bak").write_text("b\n")  # would match a file rule on its own
    (git_repo / "scratch" / "new").mkdir()
    (git_repo / "scratch" / "new" / "c.txt").write_text("c\n")
    commit_all(git_repo)
    age(old, 30)
    out = git_repo / "r.json"
    service.write_report(service.check(git_repo).report, out)
    data = json.loads(out.read_text())
    paths = [i["path"] for i in data["shortlist"]]
    assert paths == ["scratch/new", "scratch/old"]  # nothing inside is listed on its own
    (e,) = data["entries"]
    assert e["path"] == "scratch/old"
    assert e["exact_edit"]["kind"] == "delete" and e["exact_edit"]["anchor"]["whole"] is True
    assert e["lifecycle"] == {"rule_ref": "scratch", "lifetime": "temporary"}
    items = {i["path"]: i for i in data["shortlist"]}
    assert items["scratch/old"]["type"] == "directory"
    assert set(items["scratch/old"]["lifecycle"]) == set(items["scratch/new"]["lifecycle"])
