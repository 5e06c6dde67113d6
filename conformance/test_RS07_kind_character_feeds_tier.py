"""RS-07: delete-range is destructive and irreversible, so its derived tier is confirm."""

from __future__ import annotations

import pytest
from hygiene_helpers import entry, report

from orchestrator.hygiene import validate
from orchestrator.model.edits import KIND_CHARACTER, tier_for_edit

pytestmark = pytest.mark.scenario("RS-07")


def test_RS07_delete_range_is_confirm() -> None:
    assert KIND_CHARACTER["delete-range"] == (True, False)
    assert tier_for_edit("deterministic", "delete-range") == "confirm"
    e = entry("delete-range")
    assert (e["is_destructive"], e["is_reversible"], e["safety_tier"]) == (True, False, "confirm")
    assert validate.validate_hygiene(report([e]))[0] is not None


def test_RS07_recorded_flags_and_tier_must_match_the_kind() -> None:
    lying_tier = entry("delete-range", safety_tier="auto")
    rep, reasons = validate.validate_hygiene(report([lying_tier]))
    assert rep is None and any("safety_tier" in r for r in reasons)
    lying_flags = entry(
        "delete-range", is_destructive=False, is_reversible=True, safety_tier="auto"
    )
    rep, reasons = validate.validate_hygiene(report([lying_flags]))
    assert rep is None and any("is_destructive" in r for r in reasons)
