"""Unit tests of undo-journal validation (hygiene/journal_check) on synthetic journals."""

from __future__ import annotations

from pathlib import Path

from orchestrator.hygiene.journal_check import MAX_PROBLEMS, image_problems, journal_problems

BLOB = "a" * 64


def _journal(change: dict[str, object]) -> dict[str, object]:
    return {"records": [{"op_id": "op1", "kind": "delete-range", "changes": [change]}]}


def test_a_well_formed_journal_has_no_problems(tmp_path: Path) -> None:
    (tmp_path / BLOB).write_bytes(b"before")
    change = {
        "path": "doc.md",
        "after": "file:" + "b" * 64,
        "before": {"type": "file", "mode": 0o644, "blob": BLOB},
    }
    assert journal_problems(_journal(change), tmp_path) == []
    assert image_problems("x", {"type": "absent"}, tmp_path) == []
    assert image_problems("x", {"type": "symlink", "target": "t"}, tmp_path) == []


def test_unsafe_paths_digests_and_images_are_each_named(tmp_path: Path) -> None:
    change = {"path": "../escape", "after": "nonsense", "before": {"type": "file", "mode": -1}}
    problems = journal_problems(_journal(change), tmp_path)
    assert any(p.startswith("records.0.changes.0.path: unsafe path") for p in problems)
    assert "records.0.changes.0.after: not a state digest" in problems
    assert "records.0.changes.0.before.mode: not permission bits" in problems
    assert image_problems("x", {"type": "pipe"}, tmp_path) == [
        "x.type: not one of absent, symlink, file, dir"
    ]


def test_a_journal_that_is_not_one_is_refused_and_problems_are_bounded(tmp_path: Path) -> None:
    assert journal_problems([], tmp_path) == ["not a journal (no records list)"]
    assert journal_problems({"records": [], "undone": "yes"}, tmp_path) == [
        "undone: not true or false"
    ]
    many = {"records": ["bad"] * (MAX_PROBLEMS + 5)}
    assert len(journal_problems(many, tmp_path)) == MAX_PROBLEMS
