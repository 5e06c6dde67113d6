"""RS-02: clean uses generated_at as the reference of its per-op mtime guard."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hygiene_helpers import by_id, clean, commit_all, digest, edit, entry, report, settle

from orchestrator.model.report import utc_now

pytestmark = pytest.mark.scenario("RS-02")


def _fm_entry(path: Path, rel: str) -> dict:
    return entry("insert-frontmatter", rel, anchor_digest=digest(path))


def test_RS02_file_changed_after_check_is_skipped(git_repo: Path) -> None:
    doc = git_repo / "doc.md"
    doc.write_text("# doc\n")
    commit_all(git_repo)
    settle()
    rep = report([_fm_entry(doc, "doc.md")], generated_at=utc_now())
    settle()
    doc.write_text("# doc\n")  # same bytes, newer mtime: changed since check
    res = by_id(clean(git_repo, rep))["e-insert-frontmatter"]
    assert res.status == "skipped" and "changed since check" in res.reason
    assert doc.read_text() == "# doc\n"


def test_RS02_reference_time_is_the_report_generated_at(git_repo: Path) -> None:
    doc = git_repo / "doc.md"
    doc.write_text("# doc\n")
    commit_all(git_repo)
    old = time.time() - 3600
    os.utime(doc, (old, old))
    e = _fm_entry(doc, "doc.md")
    # A check "two hours ago" predates the file's mtime: skipped.
    early = report([e], generated_at="2000-01-01T00:00:00Z")
    assert by_id(clean(git_repo, early))[e["id"]].status == "skipped"
    # The same op with a check time after the mtime applies.
    settle()
    late = report([e], generated_at=utc_now())
    assert by_id(clean(git_repo, late))[e["id"]].status == "applied"
    assert doc.read_text().startswith("---\nhygiene: frozen\n---\n")


def test_RS02_anchor_content_must_still_match(git_repo: Path) -> None:
    doc = git_repo / "doc.md"
    doc.write_text("one\nold two\n")
    commit_all(git_repo)
    e = entry("replace-text", "doc.md", exact_edit=edit("replace-text"), anchor_digest="0" * 64)
    settle()
    res = by_id(clean(git_repo, report([e], generated_at=utc_now())))[e["id"]]
    assert res.status == "skipped" and "changed since check" in res.reason
    assert doc.read_text() == "one\nold two\n"
