"""decisions/agent: the verdicts the agent path adds around the strict gate, tested as
pure functions (no event, no repository, no subprocess)."""

from __future__ import annotations

import pytest

from orchestrator.decisions.agent import (
    POLICY_CHANGE_DECISION,
    PROTECTED_EDIT_DECISION,
    edit_incomplete,
    is_incomplete,
    refused_decision,
    refuses_policy_change,
    source_check_word,
    verify_complete,
)
from orchestrator.decisions.coverage import coverage_of
from orchestrator.decisions.exits import gate_blocks
from orchestrator.model.report import Report, ScanInfo, Scope
from orchestrator.vocab import GateDecision, ScopeStatus, Tier


def _report(*statuses: ScopeStatus) -> Report:
    scopes = [
        Scope(path=f"f{i}.py", checker="ruff", tier=Tier.NATIVE, language="python", status=st)
        for i, st in enumerate(statuses)
    ]
    report = Report(scan=ScanInfo(project_root="/p"), scopes=scopes)
    report.coverage = coverage_of(report.scopes, 0)
    return report


def test_a_forbidden_command_is_denied_and_an_unreadable_one_incomplete() -> None:
    assert refused_decision(forbidden=True) == GateDecision.DENY
    assert refused_decision(forbidden=False) == GateDecision.INCOMPLETE
    assert gate_blocks(refused_decision(True)) and gate_blocks(refused_decision(False))


def test_protected_edits_and_policy_changes_are_denied_and_block() -> None:
    assert PROTECTED_EDIT_DECISION == GateDecision.DENY
    assert POLICY_CHANGE_DECISION == GateDecision.DENY
    assert gate_blocks(PROTECTED_EDIT_DECISION) and gate_blocks(POLICY_CHANGE_DECISION)


@pytest.mark.parametrize(
    ("kind", "policy", "refused"),
    [
        ("commit", ["orchestrate.toml"], True),
        ("commit", [], False),
        # A push may carry a person's policy commit: named, never refused for it.
        ("push", ["orchestrate.toml"], False),
        ("push", [], False),
    ],
)
def test_only_a_commit_changing_the_policy_is_refused(
    kind: str, policy: list[str], refused: bool
) -> None:
    assert refuses_policy_change(kind, policy) is refused


def test_incomplete_is_exactly_not_complete_coverage() -> None:
    assert not is_incomplete(_report(ScopeStatus.CHECKED))
    assert is_incomplete(_report(ScopeStatus.CHECKED, ScopeStatus.TIMED_OUT))
    assert is_incomplete(_report(ScopeStatus.MISSING))
    # An empty run is never complete.
    assert is_incomplete(_report())


def test_edit_feedback_is_incomplete_when_rescoped_repaired_or_its_report_is() -> None:
    complete = _report(ScopeStatus.CHECKED)
    assert not edit_incomplete(False, False, complete)
    assert edit_incomplete(True, False, complete)
    assert edit_incomplete(False, True, complete)
    assert edit_incomplete(False, False, _report(ScopeStatus.TOOL_ERROR))
    # Only repair re-checks ran (no fast check): incomplete through the repair.
    assert edit_incomplete(False, True, None)
    assert not edit_incomplete(False, False, None)


@pytest.mark.parametrize(
    ("observation", "complete"),
    [
        ("still_present", True),
        ("absent_unverified", True),
        ("recheck_incomplete", False),
        ("unknown", False),
        ("", False),
    ],
)
def test_verify_is_complete_only_when_the_original_checker_observed(
    observation: str, complete: bool
) -> None:
    assert verify_complete(observation) is complete


def test_source_check_words() -> None:
    assert source_check_word(True) == "incomplete"
    assert source_check_word(False) == "checked"
