"""RS-10: deterministic + non-destructive + reversible derives to auto and applies without a prompt."""

from __future__ import annotations

from pathlib import Path

import pytest
from hygiene_helpers import by_id, clean, commit_all, digest, edit, entry, report, settle

from orchestrator.model.edits import derive_safety_tier
from orchestrator.model.report import utc_now

pytestmark = pytest.mark.scenario("RS-10")


def test_RS10_derivation() -> None:
    assert derive_safety_tier("deterministic", False, True) == "auto"
    for kind in ("move-to-archive", "insert-frontmatter", "replace-text", "dedupe"):
        assert entry(kind)["safety_tier"] == "auto", kind


def test_RS10_applied_without_a_prompt(git_repo: Path) -> None:
    doc = git_repo / "doc.md"
    doc.write_text("title\nold text\n")
    commit_all(git_repo)
    rt = edit("replace-text", anchor={"start_line": 2, "end_line": 2})
    e = entry("replace-text", "doc.md", exact_edit=rt, anchor_digest=digest(doc, 2, 2))

    def no_prompt(*_a: object) -> bool:
        raise AssertionError("an auto op must not prompt")

    settle()
    res = by_id(clean(git_repo, report([e], generated_at=utc_now()), prompt=no_prompt))[e["id"]]
    assert (res.status, res.tier) == ("applied", "auto")
    assert doc.read_text() == "title\nnew text\n"
