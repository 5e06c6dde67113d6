"""The hygiene rulebook: file and directory rules, a built-in default, project config.

A project configures hygiene in ``[tool.orchestrate.hygiene]`` (pyproject.toml) or
``[hygiene]`` (orchestrate.toml)::

    [tool.orchestrate.hygiene]
    mode = "extend"            # "extend" the default rulebook (default) or "replace" it
    scope_globs = ["**/*"]
    excluded_dirs = ["vendor"] # added to the built-in exclusions
    conventions = "conventions.json"

    [[tool.orchestrate.hygiene.rules]]
    id = "plans"
    type = "file"              # or "directory": one aggregate entry per matched directory
    glob = "plans/*.md"
    lifetime = "delete-once-served"
    served_when_path = "{dir}/{stem}.done"   # or served_when = "free text" (needs judgement)

A project rule with the id of a default rule replaces it. Rules are tried in order;
the first rule that matches a path owns it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from orchestrator.model.edits import Lifecycle, Lifetime

BUILTIN_EXCLUDED_DIRS = (
    ".git",
    ".orchestrate",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
    ".tox",
)


class Rule(BaseModel):
    """One rulebook rule. Placeholders in served_when_path: {path} {dir} {name} {stem}."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    type: Literal["file", "directory"] = "file"
    glob: str | list[str]
    lifetime: Lifetime
    served_when_path: str | None = None
    served_when: str | None = None
    retain_recent: int = Field(default=0, ge=0)
    max_age_days: float | None = Field(default=None, ge=0)
    action: Literal["delete", "extract-then-delete"] = "delete"
    extraction_target: Literal["repo-durable", "cross-repo"] | None = None
    target_document: str | None = None
    #: A condition on the file's content the scan checks before proposing anything:
    #: `checklist-done` - it holds a Markdown checklist and every item is checked off.
    only_if: Literal["checklist-done"] | None = None
    description: str = ""

    @model_validator(mode="after")
    def _consistent(self) -> Rule:
        # The lifecycle object enforces "exactly one served field for delete-once-served".
        self.lifecycle()
        if self.lifetime == "temporary" and self.max_age_days is None:
            raise ValueError(f"temporary rule {self.id!r} needs max_age_days")
        if self.action == "extract-then-delete":
            if self.type == "directory":
                raise ValueError(f"rule {self.id!r}: extract-then-delete works on files only")
            if self.extraction_target is None:
                raise ValueError(f"rule {self.id!r}: extract-then-delete needs extraction_target")
            if self.extraction_target == "repo-durable" and not self.target_document:
                raise ValueError(f"rule {self.id!r}: repo-durable needs target_document")
        return self

    @property
    def globs(self) -> list[str]:
        return [self.glob] if isinstance(self.glob, str) else list(self.glob)

    def lifecycle(self) -> Lifecycle:
        """The lifecycle object every match of this rule carries (mirrors the rule)."""
        return Lifecycle(
            rule_ref=self.id,
            lifetime=self.lifetime,
            served_when_path=self.served_when_path,
            served_when=self.served_when,
        )


#: Test data is not a leftover: a fixture folder may hold *.orig, *.rej or *.log on purpose.
_NOT_TEST_DATA = ["!**/tests/**", "!**/test/**", "!**/testdata/**", "!**/fixtures/**"]

DEFAULT_RULES: tuple[dict[str, Any], ...] = (
    {
        "id": "merge-leftovers",
        "glob": ["*.orig", "*.rej", "*.bak", *_NOT_TEST_DATA],
        "lifetime": "temporary",
        "max_age_days": 0,
        "description": "leftovers of merges, patches and editors",
    },
    {
        "id": "editor-leftovers",
        "glob": ["*.swp", "*.swo", ".*.swp", "*~", ".#*", "#*#", ".DS_Store", *_NOT_TEST_DATA],
        "lifetime": "temporary",
        "max_age_days": 1,
        "description": "editor swap and backup files, a day after the editor last wrote them",
    },
    {
        "id": "stray-logs",
        "glob": ["*.log", "npm-debug.log*", "yarn-error.log*", "yarn-debug.log*", *_NOT_TEST_DATA],
        "lifetime": "temporary",
        "max_age_days": 1,
        "description": "stray log files outside test data",
    },
    {
        "id": "plans",
        "glob": [
            "plans/*.md",
            "docs/plans/*.md",
            "**/plans/*.md",
            "**/notes/*.md",
            "PLAN.md",
            "NOTES.md",
            "*.plan.md",
        ],
        "lifetime": "delete-once-served",
        "served_when_path": "{dir}/{stem}.done",
        "description": "a plan or notes file is served once its .done marker exists",
    },
    {
        "id": "todo-done",
        "glob": ["TODO.md", "TODO.markdown", "TODO", "*.todo.md"],
        "lifetime": "delete-once-served",
        "served_when": "every item of its checklist is checked off and recorded elsewhere",
        "only_if": "checklist-done",
        "description": "a TODO checklist whose items are all checked off",
    },
    {
        "id": "scratch",
        "type": "directory",
        "glob": ["scratch/*", "tmp/scratch/*"],
        "lifetime": "temporary",
        "retain_recent": 1,
        "max_age_days": 14,
        "description": "scratch folders: the most recent is kept, others go after 14 days",
    },
    {
        "id": "session-logs",
        "glob": ["sessions/*.md", "*.session.md"],
        "lifetime": "delete-once-served",
        "served_when": "the session's decisions are recorded in a durable document or commit",
        "description": "agent session logs",
    },
    {
        "id": "stale-reports",
        "glob": ["reports/*.html", "reports/*.json", "*.report.json"],
        "lifetime": "temporary",
        "max_age_days": 30,
        "description": "generated reports older than 30 days",
    },
)

#: Pages read on their own: community-health files, docs folders, site sources.
DEFAULT_PUBLISHED = [
    ".github/",
    ".gitlab/",
    "docs/",
    "doc/",
    "_docs/",
    "_posts/",
    "_drafts/",
    "_pages/",
    "_includes/",
    "_layouts/",
    "site/",
    "website/",
    "content/",
    "README*",
    "CODE_OF_CONDUCT*",
    "CONDUCT*",
    "CONTRIBUTING*",
    "SECURITY*",
    "SUPPORT*",
    "GOVERNANCE*",
    "FUNDING*",
    "CHANGELOG*",
    "CHANGES*",
    "HISTORY*",
    "NEWS*",
    "LICENSE*",
    "AUTHORS*",
    "index.md",
    "index.markdown",
]


#: Release notes: the same entry under several releases is how they are written.
DEFAULT_REPEATS = [
    "CHANGELOG*",
    "CHANGES*",
    "HISTORY*",
    "NEWS*",
    "RELEASE*",
    "changelog*",
    "changes*",
    "history*",
    "news*",
    "release-notes*",
    "changelog.d/",
    "newsfragments/",
]


class DedupeScope(BaseModel):
    """The rule deciding where a duplicated span may be removed (docs/hygiene.md).

    A dedupe keeps the first copy and removes the later one. It may derive to auto only
    when both copies are in the same file, or both files are hygiene-managed (a rule of
    the temporary or delete-once-served family owns each), and neither is a published
    page. Another pair of documents each has its own readers: `cross_document` says
    whether such a pair is proposed (confirm) or not at all; `published_copies` the same
    when one side is a published page (default: not proposed). Its evidence goes into
    each dedupe entry (`evidence.placement_rule`, `kept_in`, `published`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = "dedupe-scope"
    published_globs: list[str] = Field(default_factory=lambda: list(DEFAULT_PUBLISHED))
    #: Documents whose repeats are by design (a changelog repeats a backported entry
    #: under each release): no dedupe is proposed in them, nor kept in them.
    repeats_by_design: list[str] = Field(default_factory=lambda: list(DEFAULT_REPEATS))
    cross_document: Literal["confirm", "skip"] = "confirm"
    published_copies: Literal["confirm", "skip"] = "skip"


#: Where a site generator needs front matter: a post without it is copied as is.
DEFAULT_FRONTMATTER_REQUIRED = ["**/_posts/*.md", "**/_posts/*.markdown", "**/_drafts/*.md"]


class HygieneConfig(BaseModel):
    """The effective hygiene configuration: rules, scope, exclusions, conventions file."""

    model_config = ConfigDict(extra="forbid")

    rules: list[Rule]
    scope_globs: list[str] = Field(default_factory=lambda: ["**/*"])
    excluded_dirs: list[str] = Field(default_factory=lambda: list(BUILTIN_EXCLUDED_DIRS))
    conventions: str = "conventions.json"
    dedupe_sections: bool = True
    dedupe_scope: DedupeScope = Field(default_factory=DedupeScope)
    frontmatter_required: list[str] = Field(
        default_factory=lambda: list(DEFAULT_FRONTMATTER_REQUIRED)
    )


class RulebookError(ValueError):
    """The project's hygiene configuration is invalid (a usage error, exit 2)."""


def _project_table(root: Path) -> dict[str, Any]:
    from orchestrator.core.config import load_config as load_project_config

    table = load_project_config(root).get("hygiene", {})
    if not isinstance(table, dict):
        raise RulebookError("hygiene configuration must be a table")
    return table


def build_config(
    table: dict[str, Any], extra_rules: Sequence[dict[str, Any]] = ()
) -> HygieneConfig:
    """Merge the default rulebook, the project table and plugin rules into one config."""
    table = dict(table)
    mode = table.pop("mode", "extend")
    if mode not in ("extend", "replace"):
        raise RulebookError(f"hygiene.mode must be 'extend' or 'replace', not {mode!r}")
    project_rules = table.pop("rules", [])
    extra_excluded = table.pop("excluded_dirs", [])
    merged: dict[str, dict[str, Any]] = {}
    if mode == "extend":
        merged = {r["id"]: r for r in DEFAULT_RULES}
    for raw in [*project_rules, *(extra_rules or [])]:
        if not isinstance(raw, dict) or "id" not in raw:
            raise RulebookError(f"hygiene rule without an id: {raw!r:.120}")
        merged.pop(str(raw["id"]), None)  # a redefinition moves to the project's place
        merged[str(raw["id"])] = raw
    try:
        rules = [Rule.model_validate(r) for r in merged.values()]
        cfg = HygieneConfig(rules=rules, **table)
    except ValidationError as exc:
        raise RulebookError(_one_line(exc)) from exc
    cfg.excluded_dirs = sorted({*cfg.excluded_dirs, *BUILTIN_EXCLUDED_DIRS, *extra_excluded})
    return cfg


def load_config(root: Path, extra_rules: Sequence[dict[str, Any]] = ()) -> HygieneConfig:
    """The hygiene configuration of the project at `root` (defaults when none)."""
    return build_config(_project_table(root), list(extra_rules))


def _one_line(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(x) for x in err["loc"])
        parts.append(f"{loc}: {err['msg']}" if loc else err["msg"])
    return "invalid hygiene rulebook: " + "; ".join(parts)
