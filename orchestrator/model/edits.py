"""The one edit model shared by lint fixes and repository hygiene.

`exact_edit` is a closed set of seven kinds, each with its required sub-fields
(seed 000, "Exact-Edit Kind Is a Closed Enum"). `derive_safety_tier` is the one
and only place a safety tier is computed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.plugin import _loader as _pydantic_plugins

# orchestrate's models (built here first) answer to no third-party pydantic plugin:
# without this, building the first model reads every installed distribution's entry
# points to look for one, on every start (PYDANTIC_DISABLE_PLUGINS, without putting
# it in the environment every tool inherits).
if getattr(_pydantic_plugins, "_plugins", {}) is None:
    _pydantic_plugins._plugins = {}

OpType = Literal["deterministic", "generative"]
SafetyTier = Literal["auto", "confirm"]
Lifetime = Literal["keep", "temporary", "delete-once-served"]
# What the apply step finds live that a report (untrusted) cannot vouch for; any one of
# them makes the op ask first (docs/hygiene.md, "The clean").
ApplyDoubt = Literal[
    "rulebook_invalid",  # the scope rule cannot be checked: the hygiene rulebook is invalid
    "rule_unproven",  # the live rulebook does not prove a lifecycle op may go
    "generated",  # the edited file says it is generated
    "not_tracked_clean",  # the run requires a tracked, clean path and this one is not
]

EDIT_KINDS = (
    "delete-range",
    "move-to-archive",
    "insert-frontmatter",
    "replace-text",
    "dedupe",
    "delete",
    "extract-then-delete",
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Anchor(_Strict):
    """A 1-based inclusive line span. `whole` marks a full-file / whole-directory anchor."""

    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    whole: bool = False

    @model_validator(mode="after")
    def _ordered(self) -> Anchor:
        if self.end_line < self.start_line:
            raise ValueError("anchor end_line is before start_line")
        return self


class Lifecycle(_Strict):
    """Why a path may go: which rule matched, its lifetime, and what proves it is served."""

    rule_ref: str = Field(min_length=1)
    lifetime: Lifetime
    served_when_path: str | None = None
    served_when: str | None = None

    @model_validator(mode="after")
    def _served_fields(self) -> Lifecycle:
        both = self.served_when_path is not None and self.served_when is not None
        if both:
            raise ValueError("lifecycle carries both served_when_path and served_when")
        if self.lifetime == "delete-once-served" and (
            self.served_when_path is None and self.served_when is None
        ):
            raise ValueError("delete-once-served lifecycle needs served_when_path or served_when")
        if self.lifetime != "delete-once-served" and not (
            self.served_when_path is None and self.served_when is None
        ):
            raise ValueError(f"a {self.lifetime} lifecycle carries no served field")
        return self


class DeleteRange(_Strict):
    kind: Literal["delete-range"]
    anchor: Anchor


class MoveToArchive(_Strict):
    kind: Literal["move-to-archive"]
    anchor: Anchor
    dest_path: str = Field(min_length=1)


class InsertFrontmatter(_Strict):
    kind: Literal["insert-frontmatter"]
    key: str = Field(min_length=1)
    value: str


class ReplaceText(_Strict):
    """Replace `match` (the exact text of the anchored span, or a substring of it)."""

    kind: Literal["replace-text"]
    anchor: Anchor
    match: str
    replacement: str
    # Optional precise columns (1-based, end exclusive) for lint fixes.
    start_column: int | None = Field(default=None, ge=1)
    end_column: int | None = Field(default=None, ge=1)


class Dedupe(_Strict):
    kind: Literal["dedupe"]
    anchor: Anchor
    canonical_ref: str = Field(min_length=1)


class Delete(_Strict):
    kind: Literal["delete"]
    anchor: Anchor
    lifecycle: Lifecycle


class ExtractThenDelete(_Strict):
    kind: Literal["extract-then-delete"]
    anchor: Anchor
    lifecycle: Lifecycle
    extraction_target: Literal["repo-durable", "cross-repo"]
    target_document: str | None = None

    @model_validator(mode="after")
    def _target(self) -> ExtractThenDelete:
        if self.extraction_target == "repo-durable" and not self.target_document:
            raise ValueError("repo-durable extraction needs a target_document")
        return self


ExactEdit = Annotated[
    DeleteRange
    | MoveToArchive
    | InsertFrontmatter
    | ReplaceText
    | Dedupe
    | Delete
    | ExtractThenDelete,
    Field(discriminator="kind"),
]

#: Inherent (is_destructive, is_reversible) per kind. Lifecycle kinds are
#: destructive; their reversibility depends on git history, so their tier comes
#: from the lifecycle evidence and the live git state instead.
KIND_CHARACTER: dict[str, tuple[bool, bool]] = {
    "delete-range": (True, False),
    "move-to-archive": (False, True),
    "insert-frontmatter": (False, True),
    "replace-text": (False, True),
    "dedupe": (False, True),
    "delete": (True, False),
    "extract-then-delete": (True, False),
}

LIFECYCLE_KINDS = frozenset({"delete", "extract-then-delete"})


@dataclass(frozen=True)
class LifecycleEvidence:
    """What the tier derivation needs to know about a lifecycle op.

    `scanner_proven` is true only for a satisfied served_when_path or a temporary-tier
    age / retain-recent computation; a served_when (free text) is classifier-judged.
    """

    scanner_proven: bool
    tracked: bool
    clean: bool


@dataclass(frozen=True)
class PlacementEvidence:
    """Where a span edit's text lives, for the hygiene scope rule (docs/hygiene.md).

    `published`: the edited file, or the file a dedupe keeps its copy in, is a page read
    on its own (site sources, docs folders, community-health files) or a generated file.
    `kept_elsewhere`: a dedupe keeps its copy in another document, and the two are not
    both hygiene-managed (notes, plans, scratch: the rulebook's temporary and
    delete-once-served families).
    """

    published: bool
    kept_elsewhere: bool


def derive_safety_tier(
    op_type: str,
    is_destructive: bool,
    is_reversible: bool,
    lifecycle: LifecycleEvidence | None = None,
    placement: PlacementEvidence | None = None,
    doubts: frozenset[ApplyDoubt] = frozenset(),
) -> SafetyTier:
    """Return the safety tier of an op. The single source of truth for tiers.

    Never returns "auto" for a generative op, for a destructive or irreversible
    non-lifecycle op, for a lifecycle op that is not scanner-proven on a tracked,
    clean path, for a span edit whose placement touches a published page or keeps
    its copy in another document, or for an op the apply step has any doubt about
    (`doubts`). Unknown op types derive to "confirm".
    """
    if doubts or op_type != "deterministic":
        return "confirm"
    if placement is not None and (placement.published or placement.kept_elsewhere):
        return "confirm"
    if lifecycle is not None:
        if lifecycle.scanner_proven and lifecycle.tracked and lifecycle.clean:
            return "auto"
        return "confirm"
    if is_destructive or not is_reversible:
        return "confirm"
    return "auto"


def tier_for_edit(
    op_type: str,
    kind: str,
    lifecycle: LifecycleEvidence | None = None,
    placement: PlacementEvidence | None = None,
    doubts: frozenset[ApplyDoubt] = frozenset(),
) -> SafetyTier:
    """Derive the tier of an exact edit from its kind's inherent character (and, for a
    dedupe, where its copy is kept: without that evidence a dedupe is never auto); any
    of the apply step's `doubts` makes it "confirm"."""
    destructive, reversible = KIND_CHARACTER[kind]
    if kind in LIFECYCLE_KINDS:
        # A lifecycle op without evidence can never be auto.
        lifecycle = lifecycle or LifecycleEvidence(scanner_proven=False, tracked=False, clean=False)
    else:
        lifecycle = None
    if kind == "dedupe" and placement is None:
        placement = PlacementEvidence(published=False, kept_elsewhere=True)
    return derive_safety_tier(op_type, destructive, reversible, lifecycle, placement, doubts)


def tier_for_fix(
    op_type: str | None, kind: str, is_destructive: bool | None, is_reversible: bool | None
) -> SafetyTier:
    """The tier of a lint fix: its edit kind's inherent character combined with what the
    checker says of this fix, each on its conservative side.

    A fix is destructive when its kind is or the checker says so (an absent claim counts
    as destructive), and reversible only when its kind is and the checker says so. So a
    checker can make a fix safer to ask about, never safer to apply than its kind allows.
    """
    kind_destructive, kind_reversible = KIND_CHARACTER[kind]
    destructive = kind_destructive or is_destructive is not False
    reversible = kind_reversible and is_reversible is True
    if kind in LIFECYCLE_KINDS:
        # A lint fix carries no lifecycle evidence: a delete it proposes always asks.
        return tier_for_edit(op_type or "deterministic", kind)
    return derive_safety_tier(op_type or "deterministic", destructive, reversible)
