"""RS-04: each kind carries its required fields; move-to-archive with anchor + dest_path is valid."""

from __future__ import annotations

from pathlib import Path

import pytest
from hygiene_helpers import by_id, clean, commit_all, digest, edit, entry, report, settle

from orchestrator.hygiene import validate
from orchestrator.model.edits import EDIT_KINDS
from orchestrator.model.report import utc_now

pytestmark = pytest.mark.scenario("RS-04")


@pytest.mark.parametrize("kind", EDIT_KINDS)
def test_RS04_every_kind_with_its_fields_validates(kind: str) -> None:
    given = entry(kind)
    rep, reasons = validate.validate_hygiene(report([given]))
    assert rep is not None and reasons == [], reasons
    (kept,) = rep.entries
    assert (kept.id, kept.path, kept.safety_tier) == (
        given["id"],
        given["path"],
        given["safety_tier"],
    )
    # The edit keeps its kind and every field it was given, value for value.
    edit_out = kept.exact_edit.model_dump(mode="json", exclude_none=True)
    assert edit_out["kind"] == kind
    for field, value in given["exact_edit"].items():
        if isinstance(value, dict):
            assert value.items() <= edit_out[field].items(), (field, edit_out[field])
        else:
            assert edit_out[field] == value, field


def test_RS04_move_to_archive_validates_and_applies(git_repo: Path) -> None:
    doc = git_repo / "notes.md"
    doc.write_text("# Notes\nold a\nold b\nkeep\n")
    commit_all(git_repo)
    mv = edit(
        "move-to-archive", anchor={"start_line": 2, "end_line": 3}, dest_path="archive/notes.md"
    )
    assert set(mv) == {"kind", "anchor", "dest_path"}
    e = entry("move-to-archive", "notes.md", exact_edit=mv, anchor_digest=digest(doc, 2, 3))
    assert e["safety_tier"] == "auto"
    settle()
    res = by_id(clean(git_repo, report([e], generated_at=utc_now())))[e["id"]]
    assert res.status == "applied", res.reason
    assert doc.read_text() == "# Notes\nkeep\n"
    assert (git_repo / "archive" / "notes.md").read_text() == "old a\nold b\n"


def test_RS04_move_to_archive_without_dest_path_is_invalid() -> None:
    e = entry("move-to-archive", exact_edit=edit("move-to-archive", dest_path=None))
    assert validate.validate_hygiene(report([e]))[0] is None
