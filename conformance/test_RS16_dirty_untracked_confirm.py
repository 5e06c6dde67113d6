"""RS-16: dirty or untracked paths are confirm even when proven; auto is re-verified at apply time."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import git
from hygiene_helpers import age, clean, commit_all

from orchestrator.hygiene import service

pytestmark = pytest.mark.scenario("RS-16")


def test_RS16_dirty_and_untracked_derive_to_confirm(git_repo: Path) -> None:
    (git_repo / "a.orig").write_text("merge\n")
    commit_all(git_repo)
    (git_repo / "a.orig").write_text("merge, edited\n")  # dirty
    (git_repo / "b.rej").write_text("reject\n")  # untracked
    age(git_repo / "a.orig", 2)
    age(git_repo / "b.rej", 2)
    rep = service.check(git_repo).report
    got = {
        e.path: (e.evidence.scanner_proven, e.evidence.tracked, e.evidence.clean, e.safety_tier)
        for e in rep.entries
    }
    assert got == {
        "a.orig": (True, True, False, "confirm"),
        "b.rej": (True, False, False, "confirm"),
    }
    res = clean(git_repo, service.report_json(rep))
    assert {r.status for r in res.results} == {"pending"}
    assert (git_repo / "a.orig").read_text() == "merge, edited\n"
    assert (git_repo / "b.rej").read_text() == "reject\n"


def test_RS16_auto_verdict_reverified_against_live_git(git_repo: Path) -> None:
    (git_repo / "plans").mkdir()
    (git_repo / "plans" / "a.md").write_text("# A\n")
    (git_repo / "plans" / "a.done").write_text("")
    commit_all(git_repo)
    rep = service.check(git_repo).report
    (e,) = rep.entries
    assert e.safety_tier == "auto"
    git(git_repo, "rm", "-q", "--cached", "plans/a.md")  # untracked now; bytes and mtime unchanged
    res = clean(git_repo, service.report_json(rep))
    (r,) = res.results
    assert (r.status, r.tier) == ("pending", "confirm")
    assert "downgraded to confirm" in r.reason
    assert (git_repo / "plans" / "a.md").read_text() == "# A\n"
