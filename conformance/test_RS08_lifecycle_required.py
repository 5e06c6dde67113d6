"""RS-08: delete / extract-then-delete need lifecycle{rule_ref, lifetime, exactly one served field}."""

from __future__ import annotations

import pytest
from hygiene_helpers import LIFECYCLE, edit, entry, report

from orchestrator.hygiene import validate

pytestmark = pytest.mark.scenario("RS-08")
KINDS = ["delete", "extract-then-delete"]


def _valid(kind: str, lifecycle: object) -> bool:
    e = entry(kind, exact_edit=edit(kind, lifecycle=lifecycle))
    if lifecycle is None:
        e.pop("lifecycle", None)
    return validate.validate_hygiene(report([e]))[0] is not None


@pytest.mark.parametrize("kind", KINDS)
def test_RS08_exactly_one_served_field(kind: str) -> None:
    assert _valid(kind, LIFECYCLE)
    judged = {
        "rule_ref": "notes",
        "lifetime": "delete-once-served",
        "served_when": "merged upstream",
    }
    assert _valid(kind, judged)
    assert not _valid(kind, None)  # lifecycle omitted
    both = {**LIFECYCLE, "served_when": "merged upstream"}
    assert not _valid(kind, both)
    neither = {"rule_ref": "plans", "lifetime": "delete-once-served"}
    assert not _valid(kind, neither)
    assert not _valid(kind, {"lifetime": "temporary"})  # no rule_ref
    assert not _valid(kind, {"rule_ref": "x", "lifetime": "forever"})
