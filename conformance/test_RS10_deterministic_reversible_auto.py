"""RS-10: deterministic + non-destructive + reversible derives to auto and applies without a prompt.

Recorded deviation (docs/hygiene.md, "Deviation from the design contract"): the seed's
dedupe example keeps its copy in another document. Two documents each read on their
own are not redundant, so that pair is at most confirm; the scenario's point (an exact
duplicate kept elsewhere in scope derives to auto) is kept with a same-document
duplicate and with a pair of hygiene-managed files.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hygiene_helpers import by_id, clean, commit_all, digest, edit, entry, report, settle

from orchestrator.model.edits import derive_safety_tier
from orchestrator.model.report import utc_now

pytestmark = pytest.mark.scenario("RS-10")

SECTION = "## Install\n\nRun `pip install orchestrate`.\nThen run `orchestrate check`.\n"
SAME_DOC = edit("dedupe", anchor={"start_line": 3, "end_line": 4}, canonical_ref="doc.md#L1-L2")
MANAGED = {"scanner_proven": True, "placement_rule": "dedupe-scope", "kept_in": "hygiene-managed"}


def _no_prompt(*_a: object) -> bool:
    raise AssertionError("an auto op must not prompt")


def test_RS10_derivation() -> None:
    assert derive_safety_tier("deterministic", False, True) == "auto"
    for kind in ("move-to-archive", "insert-frontmatter", "replace-text"):
        assert entry(kind)["safety_tier"] == "auto", kind
    assert entry("dedupe", exact_edit=SAME_DOC)["safety_tier"] == "auto"
    managed = edit("dedupe", canonical_ref="notes/a.md#L1-L2")
    assert entry("dedupe", "notes/b.md", exact_edit=managed, evidence=MANAGED)["safety_tier"] == (
        "auto"
    )


def test_RS10_cross_document_dedupe_is_not_auto() -> None:
    # The rule that restricts cross-document dedupe: the kept copy in another document
    # (not both hygiene-managed), or a published page on either side, is confirm.
    assert entry("dedupe", exact_edit=edit("dedupe"))["safety_tier"] == "confirm"
    published = {**MANAGED, "kept_in": "same-file", "published": True}
    assert entry("dedupe", exact_edit=SAME_DOC, evidence=published)["safety_tier"] == "confirm"


def test_RS10_applied_without_a_prompt(git_repo: Path) -> None:
    doc = git_repo / "doc.md"
    doc.write_text("title\nold text\n")
    commit_all(git_repo)
    rt = edit("replace-text", anchor={"start_line": 2, "end_line": 2})
    e = entry("replace-text", "doc.md", exact_edit=rt, anchor_digest=digest(doc, 2, 2))

    settle()
    res = by_id(clean(git_repo, report([e], generated_at=utc_now()), prompt=_no_prompt))[e["id"]]
    assert (res.status, res.tier) == ("applied", "auto")
    assert doc.read_text() == "title\nnew text\n"


def test_RS10_same_document_duplicate_applied_without_a_prompt(git_repo: Path) -> None:
    notes = git_repo / "design.md"
    notes.write_text("# Design\n\n" + SECTION + "\n## Later\n\nmore\n\n" + SECTION)
    commit_all(git_repo)
    proc_report = _check(git_repo)
    (e,) = [e for e in proc_report["entries"] if e["exact_edit"]["kind"] == "dedupe"]
    assert e["exact_edit"]["canonical_ref"] == "design.md#L3-L6"
    assert (e["safety_tier"], e["evidence"]["kept_in"]) == ("auto", "same-file")
    settle()
    res = by_id(clean(git_repo, proc_report, prompt=_no_prompt))[e["id"]]
    assert (res.status, res.tier) == ("applied", "auto")
    assert notes.read_text() == "# Design\n\n" + SECTION + "\n## Later\n\nmore\n\n"


def _check(root: Path) -> dict:
    from orchestrator.hygiene import service

    return service.report_json(service.check(root).report)
