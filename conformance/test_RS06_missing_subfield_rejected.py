"""RS-06: replace-text without match or replacement is invalid (and every kind's fields are required)."""

from __future__ import annotations

import pytest
from hygiene_helpers import edit, entry, report

from orchestrator.hygiene import validate

pytestmark = pytest.mark.scenario("RS-06")

REQUIRED = {
    "replace-text": ["anchor", "match", "replacement"],
    "delete-range": ["anchor"],
    "move-to-archive": ["anchor", "dest_path"],
    "insert-frontmatter": ["key", "value"],
    "dedupe": ["anchor", "canonical_ref"],
    "delete": ["anchor", "lifecycle"],
    "extract-then-delete": ["anchor", "lifecycle", "extraction_target"],
}


@pytest.mark.parametrize(("kind", "field"), [(k, f) for k, fs in REQUIRED.items() for f in fs])
def test_RS06_missing_subfield_is_invalid(kind: str, field: str) -> None:
    e = entry(kind, exact_edit=edit(kind, **{field: None}))
    rep, reasons = validate.validate_hygiene(report([e]))
    assert rep is None, f"{kind} without {field} was accepted"
    assert any(field in r for r in reasons), reasons
