"""RS-18: a delete-once-served match via served_when_path omits served_when (never both)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hygiene_helpers import commit_all

from orchestrator.hygiene import service

pytestmark = pytest.mark.scenario("RS-18")


def test_RS18_served_when_path_only(git_repo: Path) -> None:
    (git_repo / "plans").mkdir()
    (git_repo / "plans" / "a.md").write_text("# A\n")
    (git_repo / "plans" / "b.md").write_text("# B\n")
    (git_repo / "plans" / "b.done").write_text("")
    (git_repo / "sessions").mkdir()
    (git_repo / "sessions" / "s.md").write_text("log\n")
    commit_all(git_repo)
    out = git_repo / "r.json"
    service.write_report(service.check(git_repo).report, out)
    data = json.loads(out.read_text())
    items = {i["path"]: i for i in data["shortlist"]}
    for path in ("plans/a.md", "plans/b.md"):
        lc = items[path]["lifecycle"]
        assert lc == {
            "rule_ref": "plans",
            "lifetime": "delete-once-served",
            "served_when_path": "{dir}/{stem}.done",
        }
    assert items["plans/a.md"]["status"] == "unserved"
    assert items["plans/b.md"]["status"] == "candidate"
    judged = items["sessions/s.md"]["lifecycle"]
    assert "served_when" in judged and "served_when_path" not in judged
