"""RS-14: a satisfied served_when_path (or temporary age) on a tracked, clean path derives to auto."""

from __future__ import annotations

from pathlib import Path

import pytest
from hygiene_helpers import age, clean, commit_all

from orchestrator.hygiene import service
from orchestrator.model.edits import LifecycleEvidence, derive_safety_tier

pytestmark = pytest.mark.scenario("RS-14")


def test_RS14_derivation() -> None:
    ev = LifecycleEvidence(scanner_proven=True, tracked=True, clean=True)
    assert derive_safety_tier("deterministic", True, False, ev) == "auto"


def test_RS14_served_plan_and_old_scratch_are_auto_and_deleted(git_repo: Path) -> None:
    (git_repo / "plans").mkdir()
    (git_repo / "plans" / "a.md").write_text("# A\n")
    (git_repo / "plans" / "a.done").write_text("")
    (git_repo / "scratch" / "old").mkdir(parents=True)
    (git_repo / "scratch" / "old" / "n.txt").write_text("x\n")
    (git_repo / "scratch" / "new").mkdir()
    (git_repo / "scratch" / "new" / "n.txt").write_text("y\n")
    commit_all(git_repo)
    age(git_repo / "scratch" / "old", 40)
    rep = service.check(git_repo).report
    tiers = {e.path: e.safety_tier for e in rep.entries}
    assert tiers == {"plans/a.md": "auto", "scratch/old": "auto"}
    ev = {e.path: e.evidence for e in rep.entries}
    assert ev["plans/a.md"].served_by == "plans/a.done"
    out = clean(git_repo, service.report_json(rep))
    assert {r.path: r.status for r in out.results} == {
        "plans/a.md": "applied",
        "scratch/old": "applied",
    }
    assert not (git_repo / "plans" / "a.md").exists()
    assert not (git_repo / "scratch" / "old").exists()
    assert (git_repo / "scratch" / "new" / "n.txt").exists()
