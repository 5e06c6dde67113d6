"""RS-09: extract-then-delete needs extraction_target; repo-durable needs a target document."""

from __future__ import annotations

from pathlib import Path

import pytest
from hygiene_helpers import by_id, clean, commit_all, digest, edit, entry, report, settle

from orchestrator.hygiene import validate
from orchestrator.model.report import utc_now

pytestmark = pytest.mark.scenario("RS-09")
K = "extract-then-delete"


def _ok(**over: object) -> bool:
    return validate.validate_hygiene(report([entry(K, exact_edit=edit(K, **over))]))[0] is not None


def test_RS09_validation() -> None:
    assert _ok()
    assert _ok(extraction_target="cross-repo", target_document=None)
    assert not _ok(extraction_target=None)
    assert not _ok(extraction_target="somewhere")
    assert not _ok(extraction_target="repo-durable", target_document=None)


def _proven(repo: Path, rel: str, **over: object) -> dict:
    ev = {"scanner_proven": True, "tracked": True, "clean": True}
    return entry(K, rel, exact_edit=edit(K, **over), evidence=ev, anchor_digest=digest(repo / rel))


def test_RS09_extracts_first_then_deletes(git_repo: Path) -> None:
    (git_repo / "plans").mkdir()
    (git_repo / "plans" / "a.md").write_text("# Plan A\nDecision: use X.\n")
    (git_repo / "plans" / "a.done").write_text("")
    commit_all(git_repo)
    e = _proven(git_repo, "plans/a.md")
    assert e["safety_tier"] == "auto"
    settle()
    res = by_id(clean(git_repo, report([e], generated_at=utc_now())))[e["id"]]
    assert res.status == "applied", res.reason
    assert not (git_repo / "plans" / "a.md").exists()
    assert "Decision: use X." in (git_repo / "docs" / "decisions.md").read_text()


def test_RS09_no_extraction_no_delete(git_repo: Path) -> None:
    (git_repo / "log.md").write_text("only here\n")
    commit_all(git_repo)
    e = _proven(git_repo, "log.md", extraction_target="cross-repo", target_document=None)
    settle()
    res = by_id(clean(git_repo, report([e], generated_at=utc_now())))[e["id"]]
    assert res.status == "not_applied" and "nothing deleted" in res.reason
    assert (git_repo / "log.md").read_text() == "only here\n"
