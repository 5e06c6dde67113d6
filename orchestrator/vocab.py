"""The product vocabularies: scope statuses, syntax statuses, gate decisions, exit codes.

These strings are contract (users, hosts and CI depend on them); see DESIGN.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum, StrEnum


class ScopeStatus(StrEnum):
    """Status of one file x checker scope."""

    CHECKED = "checked"
    PARTIAL = "partial"
    MISSING = "missing"
    CONFIGURATION_REQUIRED = "configuration_required"
    TOOL_ERROR = "tool_error"
    TIMED_OUT = "timed_out"
    UNSUPPORTED = "unsupported"
    UNQUALIFIED = "unqualified"
    UNSAFE = "unsafe"
    NOT_RUN = "not_run"


class SyntaxStatus(StrEnum):
    """Per-file result of the tree-sitter syntax fallback."""

    CLEAN = "clean"
    SUSPECTED_ISSUE = "suspected_issue"
    INCOMPLETE = "incomplete"
    UNSUPPORTED = "unsupported"


class BaselineState(StrEnum):
    """A finding against `--new-from-rev REV` (SARIF's `baselineState`): `unchanged`
    when its fingerprint is both at the merge-base with REV and at REV's tip (it does
    not block), else `new`. None when the run names no such revision."""

    NEW = "new"
    UNCHANGED = "unchanged"


class SyntaxEvidence(StrEnum):
    """Which evidence a fallback scope's syntax verdict rests on (a scope's `syntax_evidence`).

    `candidate`: the grammar's recovery nodes only (no exact parser, or it gave no
    verdict, or it is older than the language version the project declares);
    `confirmed`: the language's own parser rejects the file; `refuted`: it accepts it.
    """

    CANDIDATE = "candidate"
    CONFIRMED = "confirmed"
    REFUTED = "refuted"


class DetectedBy(StrEnum):
    """How a file's language was decided (a scope's `detected_by`)."""

    FILENAME = "filename"
    EXTENSION = "extension"
    SHEBANG = "shebang"
    HEURISTIC = "heuristic"
    CLASSIFIER = "classifier"


class GateDecision(StrEnum):
    """Decision of a delivery gate. Only strict delivery entries evaluate one."""

    ALLOW = "allow"
    DENY = "deny"
    INCOMPLETE = "incomplete"
    NOT_APPLICABLE = "not_applicable"
    NOT_EVALUATED = "not_evaluated"


class Severity(StrEnum):
    """Normalized finding severity; the tool's own value is kept beside it."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Tier(StrEnum):
    """Where a checker stands in the plan."""

    NATIVE = "native"  # the language's own tool (Ruff, ESLint, the Ruby parser)
    FALLBACK = "fallback"  # syntax-only tree-sitter grammars
    POLICY = "policy"  # language-independent checks (secrets) that run beside the others
    #: A recipe the project itself declares (checkers/project_recipes.py): it only adds
    #: findings, never takes a file from another tier, never counts as coverage.
    PROJECT = "project"


class Purpose(StrEnum):
    """Why a report was requested."""

    FEEDBACK = "feedback"
    DELIVERY = "delivery"


#: The committed findings baseline (`orchestrate baseline`, tasks/baseline.py); the
#: strict gates govern it like a config file and apply only the base's copy.
BASELINE_FILE = ".orchestrate-baseline.json"

#: How the reason of a refused scope begins when the file (or the folder holding it)
#: is there but cannot be read: core/selection.py writes these, the exit policy counts
#: them as a check the project asked for and did not get (decisions/coverage.py).
UNREADABLE_REASONS = ("cannot read", "cannot stat", "cannot resolve", "folder cannot be read")

#: The reasons of a file nobody lints: no checker, grammar or parser knows its language
#: (core/plan.py), or it is binary (core/selection.py). The readable formats count these
#: in one line instead of listing them (decisions/coverage.nothing_to_check).
NO_CHECKER_REASON = "no checker or grammar covers this file"
#: The checker name of the scopes refused before any checker ran (core/selection.py).
SELECTION_CHECKER = "orchestrate"
BINARY_REASON = "binary file (NUL bytes): not text"
#: A tracked symlink to a folder inside the project: git records only the link, and
#: Ruff and ESLint (flat config) do not walk through it; what it points at is checked
#: under its own paths, so the link itself has nothing to check (core/selection.py).
LINK_TO_FOLDER_REASON = "symlink to a folder: its files are checked under their own paths"

#: The most bytes of git's pre-push protocol (a pre-push hook's standard input) that
#: orchestrate accepts. Both ends of that contract use it: the hook's reader
#: (cli/stdin.py reads one byte more, to tell an overflow) and the parser that refuses
#: more (git/push.parse_push_lines); here, below both, neither imports the other.
MAX_PUSH_STDIN = 1024 * 1024


class ExitCode(IntEnum):
    """CLI exit codes; precedence cancelled > internal > incomplete > findings > pass."""

    PASS = 0
    FINDINGS = 1
    USAGE = 2
    INCOMPLETE = 3
    INTERNAL = 4
    CANCELLED = 130


#: Set by CI services that do not set `CI` (Jenkins, Azure Pipelines, TeamCity, AWS
#: CodeBuild, Bamboo); any non-empty value counts.
CI_MARKERS = (
    "JENKINS_URL",
    "TF_BUILD",
    "TEAMCITY_VERSION",
    "CODEBUILD_BUILD_ID",
    "bamboo_buildKey",
)


def under_ci(env: Mapping[str, str]) -> bool:
    """Whether `env` says a CI service runs us: `CI` set and not `0`, `false` or `no`,
    or a marker of a service that does not set `CI` (`CI_MARKERS`). The one rule the
    progress display and the warm engine's client both follow."""
    if env.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        return True
    return "CI" not in env and any(env.get(name, "").strip() for name in CI_MARKERS)
