"""Every hook a plugin can implement, in one module, grouped by phase.

All hook names start with ``orchestrate_``; the plugin manager refuses unknown ones
(`check_pending`), so a misspelt hook fails loudly. Plugins register through the
``orchestrate`` entry-point group, built-ins included.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from orchestrator.model.report import Report

PROJECT = "orchestrate"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@dataclass(frozen=True)
class ReportFormat:
    """A report format a plugin adds to `--format`: its name, renderer and one-line help.

    `render` turns a finished report into the whole text to print (or write with
    `--output`); it must not change the report. The names ``human``, ``json`` and
    ``sarif`` are built in and cannot be taken.
    """

    name: str
    render: Callable[[Report], str]
    description: str


# ---------------------------------------------------------------------------
# Discovery: what a plugin offers
# ---------------------------------------------------------------------------


@hookspec
def orchestrate_checkers() -> list[Any]:
    """Return the checkers this plugin provides.

    Called once per run when the plugin host builds its checker set. Each element
    must satisfy `orchestrator.api.Checker`. Every plugin's list is collected
    (not firstresult). Returning None or [] means "no checkers from this plugin".
    An element that does not satisfy the protocol is reported as a plugin failure.
    """


# ---------------------------------------------------------------------------
# Presentation: how a finished report can be printed
# ---------------------------------------------------------------------------


@hookspec
def orchestrate_report_formats() -> list[ReportFormat]:
    """Return the report formats this plugin adds to `--format`.

    Called only when a command is asked for a format that is not built in (human,
    json, sarif print without loading any plugin). Each element must be an
    `orchestrator.api.ReportFormat`. Every plugin's list is collected (not
    firstresult). Returning None or [] means "no formats from this plugin". A plugin
    whose list holds something else, a built-in name, or a name another plugin
    already offers has all its formats refused, with the reason shown to the user.
    """


@hookspec(firstresult=True)
def orchestrate_rule_docs(
    checker: str, tool_path: str | None, tool_version: str | None
) -> dict[str, Any] | None:
    """Return what `checker`'s tool says about its rules, for SARIF's rule descriptors.

    Called only while a SARIF log is rendered, once per checker with findings, with the
    tool path and version its scopes recorded. The answer is a dict with an optional
    `information_uri` (the tool's home page) and `rules`: rule code -> `name`,
    `short_description` and `help_uri` (each optional). The first non-None answer is
    used (firstresult); None means "nothing to add" (the finding's own words are used).
    """


# ---------------------------------------------------------------------------
# Hygiene: judgement and generation for `orchestrate check` / `orchestrate clean`
# ---------------------------------------------------------------------------


@hookspec
def orchestrate_hygiene_rules() -> list[dict[str, Any]]:
    """Return extra hygiene rules (same shape as the rulebook's entries).

    Called when `orchestrate check` loads its rulebook; all lists are concatenated
    after the project's own rules. None means no extra rules.
    """


@hookspec(firstresult=True)
def orchestrate_classify(entry: dict[str, Any], project_root: str) -> dict[str, Any] | None:
    """Judge a shortlist entry whose lifecycle needs judgement (a `served_when` text).

    Called once per classifier-pending entry during `orchestrate check`. The first
    non-None result wins: a dict with ``served`` (bool) and ``rationale`` (str).
    None means "no opinion": the entry stays classifier-pending and derives to confirm.
    """


@hookspec(firstresult=True)
def orchestrate_generate(entry: dict[str, Any], project_root: str) -> dict[str, Any] | None:
    """Carry out a generative op at clean time (a prose transformation).

    Called by `orchestrate clean` for an approved generative entry. The first
    non-None result wins: a dict with ``path`` and ``content`` (the new text).
    None means no generator is configured: the op is reported "not applied".
    """
