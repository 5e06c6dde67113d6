"""The finalize pass: derive every tier and compute promotion_candidates. No hook, no model.

Input is the report itself plus conventions.json; nothing else is consulted, so the
result is the same however often it runs (RS-21).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from orchestrator.hygiene import dedupe
from orchestrator.hygiene.hygiene_report import Entry, Evidence, HygieneReport, PromotionCandidate
from orchestrator.model.edits import (
    LIFECYCLE_KINDS,
    ApplyDoubt,
    LifecycleEvidence,
    PlacementEvidence,
    SafetyTier,
    derive_safety_tier,
    tier_for_edit,
)

MAX_CONVENTIONS_BYTES = 1024 * 1024


class Convention(BaseModel):
    """One conventions.json entry: a named practice, its pitch, the rules it serves."""

    model_config = ConfigDict(extra="ignore")

    name: str = Field(min_length=1, max_length=200)
    pitch: str = Field(max_length=500)
    applies_to: list[str] = Field(default_factory=list)  # rule ids
    adopted: bool = False


def load_conventions(path: Path) -> tuple[list[Convention], str | None]:
    """Conventions from `path` (a JSON list, or {"conventions": [...]}); missing = none.

    Returns (conventions, problem); a malformed file yields no conventions and a reason.
    """
    try:
        if not path.is_file():
            return [], None
        if path.stat().st_size > MAX_CONVENTIONS_BYTES:
            return [], f"{path.name}: larger than {MAX_CONVENTIONS_BYTES} bytes"
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return [], f"{path.name}: {type(exc).__name__}"
    if isinstance(data, dict):
        data = data.get("conventions", [])
    if not isinstance(data, list):
        return [], f"{path.name}: expected a list of conventions"
    try:
        return [Convention.model_validate(c) for c in data], None
    except ValidationError as exc:
        return [], f"{path.name}: {exc.error_count()} invalid convention(s)"


def lifecycle_evidence(evidence: Evidence | None) -> LifecycleEvidence:
    """The derivation's view of recorded evidence; a classifier verdict never proves."""
    if evidence is None:
        return LifecycleEvidence(scanner_proven=False, tracked=False, clean=False)
    return LifecycleEvidence(
        scanner_proven=evidence.scanner_proven and evidence.classifier == "not_needed",
        tracked=evidence.tracked,
        clean=evidence.clean,
    )


def placement_evidence(entry: Entry, evidence: Evidence | None = None) -> PlacementEvidence | None:
    """The derivation's view of a span edit's placement (the dedupe-scope rule).

    For a dedupe, "same file" is read from the entry itself (path and canonical_ref),
    never from the record; "both hygiene-managed" and "published" are recorded evidence,
    which the apply engine re-derives from the live rulebook before it acts. A dedupe
    that records no placement counts as kept in another document.
    """
    edit = entry.exact_edit
    ev = evidence if evidence is not None else entry.evidence
    published = bool(ev is not None and ev.published)
    if edit is not None and edit.kind == "dedupe":
        ref = dedupe.parse_ref(edit.canonical_ref)
        same_file = ref is not None and ref[0] == entry.path
        managed = ev is not None and ev.kept_in == "hygiene-managed"
        return PlacementEvidence(published=published, kept_elsewhere=not (same_file or managed))
    if published:
        return PlacementEvidence(published=True, kept_elsewhere=False)
    return None


def entry_tier(
    entry: Entry, evidence: Evidence | None = None, doubts: frozenset[ApplyDoubt] = frozenset()
) -> SafetyTier:
    """The tier of an entry, by the one derivation function (`evidence` overrides the
    record; `doubts` are what the apply step found live)."""
    edit = entry.exact_edit
    if edit is None:
        return derive_safety_tier(
            entry.op_type, entry.is_destructive, entry.is_reversible, doubts=doubts
        )
    if edit.kind in LIFECYCLE_KINDS:
        ev = evidence if evidence is not None else entry.evidence
        if entry.lifecycle is not None and entry.lifecycle.served_when is not None:
            ev = (ev or Evidence()).model_copy(update={"scanner_proven": False})
        return tier_for_edit(entry.op_type, edit.kind, lifecycle_evidence(ev), doubts=doubts)
    return tier_for_edit(
        entry.op_type, edit.kind, placement=placement_evidence(entry, evidence), doubts=doubts
    )


def promotion_candidates(
    report: HygieneReport, conventions: list[Convention]
) -> list[PromotionCandidate]:
    """One candidate per classifier-judged shortlist item x applicable unadopted convention."""
    out: dict[tuple[str, str], PromotionCandidate] = {}
    judged = [(i.path, i.lifecycle) for i in report.shortlist]
    judged += [(e.path, e.lifecycle) for e in report.entries if e.lifecycle is not None]
    for path, lifecycle in judged:
        if lifecycle is None or lifecycle.served_when is None:
            continue
        for conv in conventions:
            if conv.adopted or lifecycle.rule_ref not in conv.applies_to:
                continue
            out[(path, conv.name)] = PromotionCandidate(
                path=path, convention=conv.name, pitch=conv.pitch
            )
    return [out[k] for k in sorted(out)]


def finalize(report: HygieneReport, conventions: list[Convention]) -> HygieneReport:
    """Derive every entry's tier and set promotion_candidates (always a list)."""
    entries = [e.model_copy(update={"safety_tier": entry_tier(e)}) for e in report.entries]
    done = report.model_copy(update={"entries": entries})
    return done.model_copy(update={"promotion_candidates": promotion_candidates(done, conventions)})
