"""The hygiene report: the seed's envelope, shortlist items, entries, promotion candidates.

The top level is exactly schema_version, tool_version, generated_at (ISO-8601 UTC, the
check time), scan {project_root, scope_globs, excluded_dirs, files_scanned},
shortlist, entries and promotion_candidates - the last always present, maybe empty.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from orchestrator.model.edits import ExactEdit, Lifecycle, OpType, SafetyTier
from orchestrator.model.report import ScanInfo

SCHEMA_VERSION = "1.0"

ClassifierVerdict = Literal["not_needed", "pending", "served", "not_served"]
ShortlistStatus = Literal[
    "candidate",  # an entry proposes to remove it
    "retained",  # temporary, but recent or young enough
    "unserved",  # delete-once-served, its served_when_path does not exist yet
    "not_served",  # the classifier judged it not served
    "frozen",  # `hygiene: frozen` frontmatter keeps it
    "kept",  # a keep-lifetime rule owns it
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Evidence(_Model):
    """What the scan proved about a path, and what the classifier said (if asked)."""

    scanner_proven: bool = False
    tracked: bool = False
    clean: bool = False
    classifier: ClassifierVerdict = "not_needed"
    rationale: str | None = Field(default=None, max_length=500)
    served_by: str | None = None  # the resolved served_when_path that exists
    age_days: float | None = None
    # A span edit's placement (the rulebook's dedupe-scope rule, docs/hygiene.md):
    placement_rule: str | None = None
    kept_in: Literal["same-file", "hygiene-managed", "other-document"] | None = None
    published: bool | None = None  # the file (or the kept copy's) is a published page


class ShortlistItem(_Model):
    """One rule match: the path, its lifecycle object, and what the scan made of it."""

    path: str
    type: Literal["file", "directory"] = "file"
    lifecycle: Lifecycle
    status: ShortlistStatus
    evidence: Evidence = Field(default_factory=Evidence)
    entry_id: str | None = None


class Entry(_Model):
    """One proposed op. `safety_tier` is recorded, never trusted: it must equal the derivation."""

    id: str = Field(pattern=r"^[A-Za-z0-9_.:-]{1,64}$")
    path: str
    op_type: OpType
    exact_edit: ExactEdit | None = None  # absent only for a generative op
    instruction: str | None = Field(default=None, max_length=2000)  # generative ops
    is_destructive: bool
    is_reversible: bool
    safety_tier: SafetyTier
    lifecycle: Lifecycle | None = None
    evidence: Evidence | None = None
    anchor_digest: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    reason: str = ""


class HygieneScan(ScanInfo):
    """The scan object of a hygiene report. Seed 000 requires all four fields, so none has
    a default here (a lint report's scan, the shared ScanInfo, may omit them)."""

    scope_globs: list[str]
    excluded_dirs: list[str]
    files_scanned: int = Field(ge=0)


class PromotionCandidate(_Model):
    """A convention worth adopting for a classifier-judged entry (from conventions.json)."""

    path: str
    convention: str
    pitch: str


class HygieneReport(_Model):
    """The machine report of `orchestrate check` (seed 000, Top-Level Report Envelope)."""

    schema_version: str
    tool_version: str
    generated_at: str
    scan: HygieneScan
    shortlist: list[ShortlistItem]
    entries: list[Entry]
    promotion_candidates: list[PromotionCandidate]
