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


def _rulebook(repo: Path, glob: str, target: str, document: str | None = None) -> None:
    # A clean applies an unasked lifecycle op only when the live rulebook owns the path
    # with that very rule: the project's rulebook says "extract, then delete".
    doc = f'target_document = "{document}"\n' if document else ""
    (repo / "pyproject.toml").write_text(
        "[[tool.orchestrate.hygiene.rules]]\n"
        f'id = "plans"\nglob = "{glob}"\nlifetime = "delete-once-served"\n'
        'served_when_path = "{dir}/{stem}.done"\naction = "extract-then-delete"\n'
        f'extraction_target = "{target}"\n{doc}'
    )


def _proven(repo: Path, rel: str, **over: object) -> dict:
    ev = {"scanner_proven": True, "tracked": True, "clean": True}
    return entry(K, rel, exact_edit=edit(K, **over), evidence=ev, anchor_digest=digest(repo / rel))


def test_RS09_extracts_first_then_deletes(git_repo: Path) -> None:
    (git_repo / "plans").mkdir()
    (git_repo / "plans" / "a.md").write_text("# Plan A\nDecision: use X.\n")
    (git_repo / "plans" / "a.done").write_text("")
    _rulebook(git_repo, "plans/*.md", "repo-durable", "docs/decisions.md")
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
    (git_repo / "log.done").write_text("")
    _rulebook(git_repo, "log.md", "cross-repo")
    commit_all(git_repo)
    e = _proven(git_repo, "log.md", extraction_target="cross-repo", target_document=None)
    settle()
    res = by_id(clean(git_repo, report([e], generated_at=utc_now())))[e["id"]]
    assert res.status == "not_applied" and "nothing deleted" in res.reason
    assert (git_repo / "log.md").read_text() == "only here\n"
