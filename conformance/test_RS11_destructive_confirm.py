"""RS-11: an op that removes information kept nowhere else derives to confirm, whatever the op_type."""

from __future__ import annotations

from pathlib import Path

import pytest
from hygiene_helpers import by_id, clean, commit_all, digest, edit, entry, report, settle

from orchestrator.model.edits import derive_safety_tier
from orchestrator.model.report import utc_now

pytestmark = pytest.mark.scenario("RS-11")


@pytest.mark.parametrize("op_type", ["deterministic", "generative"])
@pytest.mark.parametrize("reversible", [True, False])
def test_RS11_destructive_is_confirm(op_type: str, reversible: bool) -> None:
    assert derive_safety_tier(op_type, True, reversible) == "confirm"


def test_RS11_delete_range_waits_for_approval(git_repo: Path) -> None:
    doc = git_repo / "doc.md"
    doc.write_text("keep\ndrop\n")
    commit_all(git_repo)
    dr = edit("delete-range", anchor={"start_line": 2, "end_line": 2})
    e = entry("delete-range", "doc.md", exact_edit=dr, anchor_digest=digest(doc, 2, 2))
    settle()
    rep = report([e], generated_at=utc_now())
    res = by_id(clean(git_repo, rep))[e["id"]]
    assert (res.status, res.tier) == ("pending", "confirm")
    assert doc.read_text() == "keep\ndrop\n"
    res = by_id(clean(git_repo, rep, approve=frozenset({e["id"]})))[e["id"]]
    assert res.status == "applied"
    assert doc.read_text() == "keep\n"
