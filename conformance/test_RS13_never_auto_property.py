"""RS-13: derive_safety_tier never returns auto for a generative or destructive op (property).

One function, no second path: tier_for_edit and the report's entries all go through it,
and the validator rejects any recorded tier the derivation does not give.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import parsed
from hygiene_helpers import entry, report
from hypothesis import given
from hypothesis import strategies as st

from orchestrator.hygiene import validate
from orchestrator.model.edits import (
    EDIT_KINDS,
    LIFECYCLE_KINDS,
    LifecycleEvidence,
    derive_safety_tier,
    tier_for_edit,
)

pytestmark = pytest.mark.scenario("RS-13")

op_types = st.sampled_from(["deterministic", "generative"]) | st.text(max_size=12)
evidence = st.none() | st.builds(LifecycleEvidence, st.booleans(), st.booleans(), st.booleans())


@given(op_types, st.booleans(), st.booleans(), evidence)
def test_RS13_never_auto_unless_everything_holds(
    op: str, destructive: bool, reversible: bool, ev
) -> None:
    tier = derive_safety_tier(op, destructive, reversible, ev)
    assert tier in ("auto", "confirm")
    if op != "deterministic":
        assert tier == "confirm"
    if ev is None and (destructive or not reversible):
        assert tier == "confirm"
    if ev is not None and not (ev.scanner_proven and ev.tracked and ev.clean):
        assert tier == "confirm"
    if tier == "auto":
        assert op == "deterministic"
        assert (ev is None and not destructive and reversible) or (
            ev is not None and ev.scanner_proven and ev.tracked and ev.clean
        )


@given(st.sampled_from(EDIT_KINDS), op_types, evidence)
def test_RS13_tier_for_edit_is_the_same_function(kind: str, op: str, ev) -> None:
    tier = tier_for_edit(op, kind, ev)
    if kind in LIFECYCLE_KINDS and ev is None:
        assert tier == "confirm"  # a lifecycle op without evidence is never auto


@given(
    st.sampled_from([*EDIT_KINDS, None]),
    st.sampled_from(["deterministic", "generative"]),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["auto", "confirm"]),
    st.fixed_dictionaries(
        {
            "scanner_proven": st.booleans(),
            "tracked": st.booleans(),
            "clean": st.booleans(),
            "classifier": st.sampled_from(["not_needed", "pending", "served", "not_served"]),
        }
    ),
)
def test_RS13_validator_accepts_only_the_derived_tier(
    kind, op, destructive, reversible, tier, ev
) -> None:
    e = entry(
        kind,
        op_type=op,
        evidence=ev,
        is_destructive=destructive,
        is_reversible=reversible,
        safety_tier=tier,
    )
    rep, _reasons = validate.validate_hygiene(report([e]))
    if rep is None:
        return
    (valid,) = rep.entries
    assert valid.safety_tier == tier
    if tier == "auto":
        assert (op == "deterministic" and not destructive and reversible) or kind in LIFECYCLE_KINDS
        if kind in LIFECYCLE_KINDS:
            assert ev["scanner_proven"] and ev["tracked"] and ev["clean"]
            assert ev["classifier"] == "not_needed"
            assert op == "deterministic"


def test_RS13_no_second_derivation_path() -> None:
    """No module but edits.py defines a tier-deriving function or writes a literal "auto" tier."""
    root = Path(__file__).resolve().parent.parent / "orchestrator"
    for path in root.rglob("*.py"):
        if path.name == "edits.py":
            continue
        tree = parsed(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                assert node.name != "derive_safety_tier", path
            if isinstance(node, ast.keyword) and node.arg == "safety_tier":
                assert not (isinstance(node.value, ast.Constant) and node.value.value == "auto"), (
                    path
                )
