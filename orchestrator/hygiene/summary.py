"""What a clean is about to change, per tier and per rule: counted before anything runs.

Counts come from the report's own entries (already validated): the rule is the
lifecycle's `rule_ref`, the scope rule of a dedupe, else the edit kind;
lines are the anchored span (a whole file: its lines at check time).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from orchestrator.hygiene.hygiene_report import Entry


@dataclass(frozen=True)
class Row:
    """One tier x rule line of the summary."""

    tier: str
    rule: str
    ops: int
    files: int
    lines: int


def rule_of(entry: Entry) -> str:
    """The rule an entry comes from: its lifecycle rule, the scope rule of a dedupe,
    or else its edit kind."""
    if entry.lifecycle is not None:
        return entry.lifecycle.rule_ref
    kind = entry.exact_edit.kind if entry.exact_edit is not None else "generative"
    if kind == "dedupe" and entry.evidence is not None and entry.evidence.placement_rule:
        return entry.evidence.placement_rule
    return kind


def lines_changed(entry: Entry) -> int:
    """How many lines the entry removes or rewrites (1 for a front matter insert)."""
    anchor = getattr(entry.exact_edit, "anchor", None)
    if anchor is None:
        return 1
    return anchor.end_line - anchor.start_line + 1


def plan_summary(entries: Sequence[Entry]) -> list[Row]:
    """Rows sorted auto first, then by rule: ops, distinct files, lines."""
    groups: dict[tuple[str, str], list[Entry]] = {}
    for e in entries:
        groups.setdefault((e.safety_tier, rule_of(e)), []).append(e)
    rows = [
        Row(tier, rule, len(es), len({e.path for e in es}), sum(lines_changed(e) for e in es))
        for (tier, rule), es in groups.items()
    ]
    return sorted(rows, key=lambda r: (r.tier != "auto", r.rule))
