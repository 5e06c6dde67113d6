"""Hostile reports: a clean re-derives what a report claims before it acts unasked.

Each test failed on the code before its fix (the docstring says what happened).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import run_cli
from hygiene_helpers import by_id, clean, commit_all, digest, edit, entry, report, settle

from orchestrator.hygiene import service
from orchestrator.model.report import utc_now

PARA = (
    "This paragraph is long enough to count as a duplicate paragraph in one document;"
    " it has well over one hundred and twenty characters.\nIt has a second line too.\n"
)
REPEATED = "# Title\n\n" + PARA + "\nSomething else.\n\n" + PARA
WHOLE = {"start_line": 1, "end_line": 1, "whole": True}


def _check(root: Path) -> dict:
    return service.report_json(service.check(root).report)


def _no_prompt(*_a: object) -> bool:
    raise AssertionError("this op must not be applied without asking")


# ---- a hostile lifecycle claim ----------------------------------------------------


def test_a_report_cannot_auto_delete_a_file_no_rule_owns(git_repo: Path) -> None:
    """Failed before: a report claiming `merge-leftovers` (scanner-proven) for
    src/main.py deleted it without a prompt; nothing in the live rulebook matches it."""
    src = git_repo / "src" / "main.py"
    src.parent.mkdir()
    src.write_text("print(1)\n")
    commit_all(git_repo)
    lifecycle = {"rule_ref": "merge-leftovers", "lifetime": "temporary"}
    e = entry(
        "delete",
        "src/main.py",
        exact_edit=edit("delete", anchor=WHOLE, lifecycle=lifecycle),
        evidence={"scanner_proven": True, "tracked": True, "clean": True},
        anchor_digest=digest(src),
    )
    assert e["safety_tier"] == "auto"
    settle()
    res = by_id(clean(git_repo, report([e], generated_at=utc_now(), root=str(git_repo))))
    assert res[e["id"]].status == "pending"
    assert "rulebook" in res[e["id"]].reason
    assert src.read_text() == "print(1)\n"


def test_a_report_cannot_auto_delete_an_unserved_plan(git_repo: Path) -> None:
    """Failed before: the plans rule owns plans/a.md, but its .done marker does not
    exist; a report claiming it scanner-proven deleted it without a prompt."""
    plan = git_repo / "plans" / "a.md"
    plan.parent.mkdir()
    plan.write_text("# A\n")
    commit_all(git_repo)
    e = entry(
        "delete",
        "plans/a.md",
        exact_edit=edit("delete", anchor=WHOLE),
        evidence={"scanner_proven": True, "tracked": True, "clean": True},
        anchor_digest=digest(plan),
    )
    settle()
    res = by_id(clean(git_repo, report([e], generated_at=utc_now(), root=str(git_repo))))
    assert res[e["id"]].status == "pending"
    assert plan.exists()


def test_a_proven_delete_from_check_still_applies(git_repo: Path) -> None:
    (git_repo / "plans").mkdir()
    (git_repo / "plans" / "a.md").write_text("# A\n")
    (git_repo / "plans" / "a.done").write_text("")
    (git_repo / "x.orig").write_text("left over\n")
    commit_all(git_repo)
    rep = _check(git_repo)
    settle()
    res = clean(git_repo, rep, prompt=_no_prompt)
    assert {r.path: r.status for r in res.results} == {
        "plans/a.md": "applied",
        "x.orig": "applied",
    }


# ---- a hostile span edit on a published page --------------------------------------


@pytest.mark.parametrize("kind", ["replace-text", "move-to-archive"])
def test_a_report_cannot_auto_edit_a_published_page(git_repo: Path, kind: str) -> None:
    """Failed before: a report's auto replace-text (arbitrary replacement) or
    move-to-archive on README.md ran without a prompt; only dedupes were re-derived."""
    readme = git_repo / "README.md"
    readme.write_text("old text\nsecond\n")
    commit_all(git_repo)
    e = entry(kind, "README.md", anchor_digest=digest(readme, 1, 2))
    assert e["safety_tier"] == "auto"
    settle()
    res = by_id(clean(git_repo, report([e], generated_at=utc_now(), root=str(git_repo))))
    assert res[e["id"]].status == "pending"
    assert "published page" in res[e["id"]].reason
    assert readme.read_text() == "old text\nsecond\n"


def test_a_report_cannot_auto_archive_into_a_published_page(git_repo: Path) -> None:
    """Failed before: a move-to-archive from a plain file appended to docs/index.md."""
    (git_repo / "docs").mkdir()
    (git_repo / "docs" / "index.md").write_text("# Site\n")
    work = git_repo / "work.md"
    work.write_text("old text\nsecond\n")
    commit_all(git_repo)
    mv = edit("move-to-archive", dest_path="docs/index.md")
    e = entry("move-to-archive", "work.md", exact_edit=mv, anchor_digest=digest(work, 1, 2))
    settle()
    res = by_id(clean(git_repo, report([e], generated_at=utc_now(), root=str(git_repo))))
    assert res[e["id"]].status == "pending"
    assert (git_repo / "docs" / "index.md").read_text() == "# Site\n"


def test_a_plain_replace_text_still_applies(git_repo: Path) -> None:
    doc = git_repo / "doc.md"
    doc.write_text("title\nold text\n")
    commit_all(git_repo)
    rt = edit("replace-text", anchor={"start_line": 2, "end_line": 2})
    e = entry("replace-text", "doc.md", exact_edit=rt, anchor_digest=digest(doc, 2, 2))
    settle()
    res = by_id(clean(git_repo, report([e], generated_at=utc_now()), prompt=_no_prompt))
    assert res[e["id"]].status == "applied"


def test_a_report_cannot_redirect_an_extraction_into_a_published_page(git_repo: Path) -> None:
    """Failed before: the rulebook extracts served plans into docs/decisions.md; a report
    naming README.md as the target_document appended the plan to the README unasked."""
    (git_repo / "pyproject.toml").write_text(
        "[[tool.orchestrate.hygiene.rules]]\n"
        'id = "plans"\nglob = "plans/*.md"\nlifetime = "delete-once-served"\n'
        'served_when_path = "{dir}/{stem}.done"\naction = "extract-then-delete"\n'
        'extraction_target = "repo-durable"\ntarget_document = "docs/decisions.md"\n'
    )
    plan = git_repo / "plans" / "a.md"
    plan.parent.mkdir()
    plan.write_text("# A\n")
    (git_repo / "plans" / "a.done").write_text("")
    (git_repo / "README.md").write_text("# Project\n")
    commit_all(git_repo)
    ext = edit("extract-then-delete", anchor=WHOLE, target_document="README.md")
    e = entry(
        "extract-then-delete",
        "plans/a.md",
        exact_edit=ext,
        evidence={"scanner_proven": True, "tracked": True, "clean": True},
        anchor_digest=digest(plan),
    )
    assert e["safety_tier"] == "auto"
    settle()
    res = by_id(clean(git_repo, report([e], generated_at=utc_now(), root=str(git_repo))))
    assert res[e["id"]].status == "pending"
    assert (git_repo / "README.md").read_text() == "# Project\n" and plan.exists()


def test_a_dedupe_never_keeps_its_copy_in_a_file_the_run_deletes(git_repo: Path) -> None:
    """Failed before: a report removing a section of notes/b.md because notes/z.md
    keeps it, and deleting the served notes/z.md, left the text in neither (the dedupe
    ran first: b sorts before z)."""
    section = "## Decision\n\nWe use X.\nBecause of Y.\n"
    notes = git_repo / "notes"
    notes.mkdir()
    (notes / "b.md").write_text("# B\n\n" + section)
    (notes / "z.md").write_text("# Z\n\n" + section)
    (notes / "z.done").write_text("")
    commit_all(git_repo)
    rep = service.report_json(service.check(git_repo).report)
    assert [(e["path"], e["safety_tier"]) for e in rep["entries"]] == [("notes/z.md", "auto")]
    dd = edit("dedupe", anchor={"start_line": 3, "end_line": 6}, canonical_ref="notes/z.md#L3-L6")
    ev = {"scanner_proven": True, "placement_rule": "dedupe-scope", "kept_in": "hygiene-managed"}
    e = entry(
        "dedupe",
        "notes/b.md",
        exact_edit=dd,
        evidence=ev,
        anchor_digest=digest(notes / "b.md", 3, 6),
    )
    assert e["safety_tier"] == "auto"
    rep["entries"].append(e)
    settle()
    res = by_id(clean(git_repo, rep))
    assert res[e["id"]].status == "skipped"
    assert "We use X." in (notes / "b.md").read_text()


@pytest.mark.e2e
@pytest.mark.parametrize("kind", ["dedupe", "move-to-archive"])
def test_a_fifo_as_kept_copy_or_archive_does_not_hang_clean(git_repo: Path, kind: str) -> None:
    """Failed before: the scope rule opened a dedupe's kept copy (or a move's archive) to
    look for a generated marker; a FIFO there blocked clean for ever."""
    doc = git_repo / "doc.md"
    doc.write_text("old text\nsecond\n")
    commit_all(git_repo)
    os.mkfifo(git_repo / "k.md")
    over = {"canonical_ref": "k.md#L1-L2"} if kind == "dedupe" else {"dest_path": "k.md"}
    ev = {"scanner_proven": True, "placement_rule": "dedupe-scope", "kept_in": "hygiene-managed"}
    e = entry(
        kind,
        "doc.md",
        exact_edit=edit(kind, **over),
        evidence=ev if kind == "dedupe" else None,
        anchor_digest=digest(doc, 1, 2),
    )
    settle()
    path = git_repo / "report.json"
    path.write_text(json.dumps(report([e], generated_at=utc_now(), root=str(git_repo))))
    proc = run_cli(["clean", str(path), "--no-input"], cwd=git_repo, timeout=30)
    assert proc.returncode == 1, proc.stderr
    assert doc.read_text() == "old text\nsecond\n"


def test_a_fifo_named_gitattributes_does_not_block_the_scope_rule(tmp_path: Path) -> None:
    """Failed before: the scope rule and the generated-file check read the root
    .gitattributes whole; a FIFO there blocked them for ever. (git itself still blocks
    on such a FIFO: see docs/hygiene.md.)"""
    import threading

    from orchestrator.hygiene import apply as engine
    from orchestrator.hygiene import rulebook
    from orchestrator.hygiene.placement import Placement

    (tmp_path / "doc.md").write_text("# Doc\n")
    os.mkfifo(tmp_path / ".gitattributes")
    got: list[object] = []

    def probe() -> None:
        place = Placement(tmp_path, rulebook.build_config({}))
        got.append((place.generated("doc.md"), engine.generated_file(tmp_path, "doc.md")))

    worker = threading.Thread(target=probe, daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert got == [(None, False)]


def test_the_summary_counts_what_clean_will_do_not_what_the_report_claims(git_repo: Path) -> None:
    """Failed before: the summary counted a report's recorded tiers, so a claimed auto
    delete the live rulebook does not prove was announced as 'auto (without a prompt)'."""
    src = git_repo / "main.py"
    src.write_text("print(1)\n")
    commit_all(git_repo)
    lifecycle = {"rule_ref": "merge-leftovers", "lifetime": "temporary"}
    e = entry(
        "delete",
        "main.py",
        exact_edit=edit("delete", anchor=WHOLE, lifecycle=lifecycle),
        evidence={"scanner_proven": True, "tracked": True, "clean": True},
        anchor_digest=digest(src),
    )
    settle()
    path = git_repo / ".orchestrate" / "runs" / "r.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(report([e], generated_at=utc_now(), root=str(git_repo))))
    announced: list[object] = []
    from orchestrator.hygiene import apply as engine

    res = service.clean(git_repo, path, engine.Options(dry_run=True, announce=announced.append))
    assert [(r.tier, r.rule) for r in res.summary] == [("confirm", "merge-leftovers")]
    assert announced == [res.summary]
