"""The verdicts of the agent path: what an agent's event is answered with.

Pure functions of facts already read (a report, an analyser verdict, a changed-policy
list, a verify observation). The hosts' router asks these and only spells the answer;
none of them reads a file, runs git or a checker. A strict gate's own verdict stays in
the gate (decisions/gate.py); these are the verdicts the agent path adds around it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from orchestrator.decisions.coverage import is_complete
from orchestrator.vocab import GateDecision

if TYPE_CHECKING:  # annotations only: a hook must start without pydantic
    from orchestrator.model.report import Report

#: A file-edit tool aimed at git's folder, the hooks or orchestrate's configuration.
PROTECTED_EDIT_DECISION = GateDecision.DENY
#: A commit that changes the gate's own policy, whatever the gate found.
POLICY_CHANGE_DECISION = GateDecision.DENY
#: The reason word of edit feedback over the per-file budget: one batch check instead.
FAST_SCOPE_BUDGET_EXCEEDED = "fast_scope_budget_exceeded"
#: The verify observations that are a complete recheck by the original checker.
COMPLETE_OBSERVATIONS = frozenset({"still_present", "absent_unverified"})


def refused_decision(forbidden: bool) -> GateDecision:
    """A command refused before it ran: deny when the analyser found it forbidden (a
    gate bypass), else incomplete (it could not be read, so nothing was judged)."""
    return GateDecision.DENY if forbidden else GateDecision.INCOMPLETE


def refuses_policy_change(delivery_kind: str, policy_changes: Sequence[str]) -> bool:
    """Whether a delivery is refused for changing the gate's own policy: a commit that
    changes it is; a push may carry a person's policy commit, so it is only named."""
    return bool(policy_changes) and delivery_kind == "commit"


def is_incomplete(report: Report) -> bool:
    """Whether `report` counts as "coverage incomplete" to an agent: exactly when
    decisions.coverage does not call it complete."""
    return not is_complete(report)


def edit_incomplete(rescoped: bool, repair_rechecked: bool, report: Report | None) -> bool:
    """Whether edit feedback is incomplete: its scope was re-determined from git, some
    files got only their tasks' repair re-check, or the fast check's own report is
    incomplete."""
    return rescoped or repair_rechecked or (report is not None and is_incomplete(report))


def verify_complete(observation: str) -> bool:
    """Whether a `task verify` observation is a complete recheck (the task's original
    checker ran and said present or absent); anything else is incomplete."""
    return observation in COMPLETE_OBSERVATIONS


def source_check_word(incomplete: bool) -> str:
    """The source-check word of a check that ran: "incomplete" or "checked"."""
    return "incomplete" if incomplete else "checked"
