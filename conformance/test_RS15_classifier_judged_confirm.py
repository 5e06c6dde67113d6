"""RS-15: a served_when (classifier-judged) lifecycle delete is confirm, whatever the git state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hygiene_helpers import clean, commit_all

from orchestrator.core import plugin_host
from orchestrator.core.hookspecs import hookimpl
from orchestrator.hygiene import service
from orchestrator.model.edits import LifecycleEvidence, tier_for_edit

pytestmark = pytest.mark.scenario("RS-15")


class _SaysServed:
    @hookimpl
    def orchestrate_classify(self, entry: dict[str, Any], project_root: str) -> dict[str, Any]:
        return {"served": True, "rationale": "decisions recorded"}


def test_RS15_judged_is_confirm_even_tracked_and_clean(git_repo: Path) -> None:
    (git_repo / "sessions").mkdir()
    (git_repo / "sessions" / "s1.md").write_text("log\n")
    commit_all(git_repo)
    for plugins, verdict in (
        (None, "pending"),
        (plugin_host.load(extra_modules=[("fake_classifier", _SaysServed())]), "served"),
    ):
        rep = service.check(git_repo, plugins).report
        (e,) = rep.entries
        assert e.lifecycle.served_when and e.evidence.tracked and e.evidence.clean
        assert (e.evidence.classifier, e.safety_tier) == (verdict, "confirm")
        res = clean(git_repo, service.report_json(rep))
        assert res.results[0].status == "pending"
        assert (git_repo / "sessions" / "s1.md").exists()


@pytest.mark.parametrize("kind", ["delete", "extract-then-delete"])
def test_RS15_tier_for_judged_evidence(kind: str) -> None:
    # The report maps a classifier verdict to scanner_proven=False before deriving.
    judged = LifecycleEvidence(scanner_proven=False, tracked=True, clean=True)
    assert tier_for_edit("deterministic", kind, judged) == "confirm"
