"""The stable public module for plugin authors: import from here, nowhere else.

Everything a checker plugin needs is re-exported here: the `Checker` protocol and
its records (`FileTarget`, `Batch`, `CheckerPlan`, `RunContext`, `FileOutcome`,
`Probe`), the shared process ladder (`outcome_from`), finding records and helpers,
the vocabulary enums, the bounded process runner, the `hookimpl` marker, and
`ReportFormat` for a plugin that adds a `--format` (hook `orchestrate_report_formats`),
and where orchestrate's managed (pinned) tools are installed (`managed_tool_homes`)
with the command that installs one (`managed_install_hint`), and whether this process
is a long-lived one that may keep a helper warm (`is_resident`, `at_resident_exit`),
and orchestrate's folder in the user's cache folder with the atomic writer a plugin's
own cache uses (`user_cache_root`, `atomic_write`).

A checker that runs one command-line tool subclasses `CommandChecker` (declarations
and one `parse` method; the base finds the tool, probes its version, batches, runs
under the deadline and output budget, maps process facts to outcomes and gives the
reuse identity; `CommandTool` is the tool it found). A checker that needs no code at all
is a recipe: TOML data (`Recipe`, `parse_recipe`, `RecipeError`) that the one factory
`recipe_checker` turns into a `CommandChecker` (`RecipeChecker`); `recipe_checkers`
reads every recipe a package ships and `recipe_hook` is such a plugin's whole hook. The helpers it is made of are
public too, for a checker that needs its own shape: tool lookup (`find_tool`,
`find_on_path`, `interpreter_bin_dir`, `is_executable`), version probes cached per
tool stamp (`probe_version`, `VersionProbe`, `PROBE_SECONDS`, `tool_version`,
`cached_version`, `remember_version`) and config files (`folders_up`, `root_configs`,
`digest_files`).

Internal modules (``orchestrator.core.*``, ``orchestrator.procs``...) may move or
change between releases; the names below do not. `API_VERSION` follows the report's
`SCHEMA_VERSION`: a name that has to change keeps working under its old name for one
minor version with a `DeprecationWarning` (see `_DEPRECATED`), and the change is
written in the CHANGELOG.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

from orchestrator import __version__ as ORCHESTRATE_VERSION
from orchestrator.checkers.command import CommandChecker, CommandTool
from orchestrator.checkers.configs import digest_files, folders_up, root_configs
from orchestrator.checkers.recipe import RecipeChecker, recipe_checker, recipe_checkers, recipe_hook
from orchestrator.checkers.recipe_format import Recipe, RecipeError, parse_recipe
from orchestrator.checkers.recipe_output import local_path
from orchestrator.checkers.tools import (
    PROBE_SECONDS,
    VersionProbe,
    cached_version,
    find_on_path,
    find_tool,
    interpreter_bin_dir,
    is_executable,
    probe_version,
    remember_version,
    tool_refusal,
    tool_version,
)
from orchestrator.core.hookspecs import ReportFormat, hookimpl
from orchestrator.core.plugin_host import PluginDeclarationWarning
from orchestrator.core.reuse import ReuseIdentity
from orchestrator.deadline import Deadline
from orchestrator.managed_tools import homes as managed_tool_homes
from orchestrator.managed_tools import install_hint as managed_install_hint
from orchestrator.model.checker import (
    MAX_FILE_BYTES,
    MAX_PARSE_BYTES,
    Batch,
    Checker,
    CheckerPlan,
    FileOutcome,
    FileTarget,
    Probe,
    RunContext,
    bounded_message,
    one_line,
    outcome_for_all,
    settled_plan,
)
from orchestrator.model.edits import Anchor, ReplaceText, derive_safety_tier
from orchestrator.model.languages import HEAD_BYTES, detect, display_name, grammar_info, needs_head
from orchestrator.model.languages import manifest as grammar_manifest
from orchestrator.model.outcomes import (
    NO_OUTPUT,
    ProcessFailure,
    Unparsable,
    outcome_from,
    process_failure,
)
from orchestrator.model.report import SCHEMA_VERSION, Finding, ToolIdentity, fingerprint
from orchestrator.procs import DEFAULT_OUTPUT_BUDGET, ProcResult, run_bounded
from orchestrator.resident import at_exit as at_resident_exit
from orchestrator.resident import is_resident
from orchestrator.statmemo import StatMemo
from orchestrator.toolstamp import ToolStamp, tool_stamp
from orchestrator.vocab import Purpose, ScopeStatus, Severity, SyntaxEvidence, SyntaxStatus, Tier
from orchestrator.workspace import atomic_write, user_cache_root

#: The version of this public surface; it moves with the report schema.
API_VERSION = SCHEMA_VERSION

__all__ = [
    "API_VERSION",
    "DEFAULT_OUTPUT_BUDGET",
    "HEAD_BYTES",
    "MAX_FILE_BYTES",
    "MAX_PARSE_BYTES",
    "NO_OUTPUT",
    "ORCHESTRATE_VERSION",
    "PROBE_SECONDS",
    "SCHEMA_VERSION",
    "Anchor",
    "Batch",
    "Checker",
    "CheckerPlan",
    "CommandChecker",
    "CommandTool",
    "Deadline",
    "FileOutcome",
    "FileTarget",
    "Finding",
    "PluginDeclarationWarning",
    "Probe",
    "ProcResult",
    "ProcessFailure",
    "Purpose",
    "Recipe",
    "RecipeChecker",
    "RecipeError",
    "ReplaceText",
    "ReportFormat",
    "ReuseIdentity",
    "RunContext",
    "ScopeStatus",
    "Severity",
    "StatMemo",
    "SyntaxEvidence",
    "SyntaxStatus",
    "Tier",
    "ToolIdentity",
    "ToolStamp",
    "Unparsable",
    "VersionProbe",
    "at_resident_exit",
    "atomic_write",
    "bounded_message",
    "cached_version",
    "derive_safety_tier",
    "detect",
    "digest_files",
    "display_name",
    "find_on_path",
    "find_tool",
    "fingerprint",
    "folders_up",
    "grammar_info",
    "grammar_manifest",
    "hookimpl",
    "interpreter_bin_dir",
    "is_executable",
    "is_resident",
    "local_path",
    "managed_install_hint",
    "managed_tool_homes",
    "needs_head",
    "one_line",
    "outcome_for_all",
    "outcome_from",
    "parse_recipe",
    "probe_version",
    "process_failure",
    "recipe_checker",
    "recipe_checkers",
    "recipe_hook",
    "remember_version",
    "root_configs",
    "run_bounded",
    "settled_plan",
    "tool_refusal",
    "tool_stamp",
    "tool_version",
    "user_cache_root",
]

#: Old public name -> (module, current name). A renamed export stays reachable here,
#: with a warning, for one minor version after the rename. Empty: nothing renamed yet.
_DEPRECATED: dict[str, tuple[str, str]] = {}


def __getattr__(name: str) -> Any:
    """Resolve a deprecated public name, warning once per use; else AttributeError."""
    target = _DEPRECATED.get(name)
    if target is None:
        raise AttributeError(f"module 'orchestrator.api' has no attribute {name!r}")
    module, current = target
    warnings.warn(
        f"orchestrator.api.{name} is deprecated; use orchestrator.api.{current}",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(module), current)
