"""The report formats `--format` accepts: the built-in table and the plugins' additions.

Built-in names (human, json, sarif, github, concise, jsonl, rdjson) resolve from the table below without loading any
plugin, so the common path stays fast. Any other name loads the plugins and asks
their `orchestrate_report_formats` hook; a plugin may add names, never replace a
built-in one (see `PluginSet.report_formats`: such a plugin's formats are refused and
the reason is shown with the usage error). The JSON formats go through
`safetext.json_inert`, so a value cannot be a workflow command in a CI log.
"""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from typing import TYPE_CHECKING

from orchestrator.core.hookspecs import ReportFormat
from orchestrator.errors import UsageError
from orchestrator.safetext import json_inert

if TYPE_CHECKING:  # annotations only: the CLI must start without pydantic
    from orchestrator.model.report import Report


def _human_text(report: Report) -> str:
    from rich.console import Console

    from orchestrator.render.human import render

    buf = StringIO()
    render(report, Console(file=buf, no_color=True, width=120))
    return buf.getvalue()


def _json_text(report: Report) -> str:
    return json_inert(report.model_dump_json(indent=2))


def _sarif_text(report: Report) -> str:
    from orchestrator.render.sarif import sarif_chunks

    return json_inert("".join(sarif_chunks(report)))


def _rdjson_text(report: Report) -> str:
    from orchestrator.render.rdjson import rdjson

    return json_inert(rdjson(report))


def _line_format(name: str) -> Callable[[Report], str]:
    def render(report: Report) -> str:
        from orchestrator.render import lines

        return getattr(lines, name)(report)  # type: ignore[no-any-return]

    return render


BUILTIN: dict[str, ReportFormat] = {
    f.name: f
    for f in (
        ReportFormat("human", _human_text, "the readable summary (the default)"),
        ReportFormat("json", _json_text, "the standard report, as JSON"),
        ReportFormat("sarif", _sarif_text, "SARIF 2.1.0 for code-scanning tools"),
        ReportFormat("github", _line_format("github"), "GitHub Actions annotations"),
        ReportFormat("concise", _line_format("concise"), "path:line:col: severity rule message"),
        ReportFormat("jsonl", _line_format("jsonl"), "one JSON object per finding and gap"),
        ReportFormat("rdjson", _rdjson_text, "reviewdog's Diagnostic Format (pull-request review)"),
    )
}


def resolve(name: str) -> ReportFormat:
    """The format called `name`: a built-in one without loading plugins, else a plugin's.

    Raises UsageError (exit 2) naming every known format, and any plugin whose formats
    were refused, when no built-in or plugin format has that name.
    """
    if name in BUILTIN:
        return BUILTIN[name]
    from orchestrator.core import plugin_host

    offered = plugin_host.load().report_formats(reserved=BUILTIN)
    if name in offered.formats:
        return offered.formats[name]
    known = ", ".join([*BUILTIN, *sorted(offered.formats)])
    refused = "".join(f"; plugin {f.name} refused: {f.reason}" for f in offered.refused)
    raise UsageError(f"unknown report format {name!r} (known: {known}){refused}")


__all__ = ["BUILTIN", "ReportFormat", "resolve"]
