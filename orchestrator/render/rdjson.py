"""The report as reviewdog's Diagnostic Format (`--format rdjson`), so reviewdog posts
review comments with committable suggestions on a pull request.

One `DiagnosticResult`: `source` orchestrate, and a `Diagnostic` per finding with its
path, range, severity (`ERROR`, `WARNING`, `INFO`; a syntax candidate, and a finding
`--new-from-rev` found unchanged, is `INFO`), `source` the checker, `code` the rule
(with the tool's own rule URL when it gave one) and the tool's message. Positions are
1-based and their columns count UTF-8 bytes, as the format says: each finding's
columns are converted from its checker's unit with the flagged line read from the
project (kept as the tool gave them when the line cannot be read). An auto-tier fix
that replaces exact text from a known column becomes a `suggestion` (confirm-tier fixes never do: they
may change behaviour). Coverage gaps are not diagnostics (reviewdog places comments on
lines); the whole report is the JSON or SARIF format.
"""

from __future__ import annotations

import json
from typing import Any

from orchestrator.model.edits import ReplaceText
from orchestrator.model.report import Finding, Report
from orchestrator.render.columns import Utf16Columns, column_unit, utf8_column
from orchestrator.render.gaps import collapsed, listed
from orchestrator.render.levels import level
from orchestrator.vocab import BaselineState

_SEVERITY = {"error": "ERROR", "warning": "WARNING", "note": "INFO"}


class _Utf8(Utf16Columns):
    """Reads flagged lines as `Utf16Columns` does, and converts to UTF-8 bytes."""

    def utf8(self, path: str, line: int | None, column: int | None, unit: str) -> int | None:
        if not column:
            return None
        text = self._line(path, line)
        return column if text is None else utf8_column(text, column, unit)  # type: ignore[arg-type]


def _position(cols: _Utf8, f: Finding, line: int | None, column: int | None) -> dict[str, int]:
    pos: dict[str, int] = {}
    if line:
        pos["line"] = line
        if (col := cols.utf8(f.path, line, column, column_unit(f))) is not None:
            pos["column"] = col
    return pos


def _suggestion(cols: _Utf8, f: Finding) -> dict[str, Any] | None:
    """An auto-tier fix replacing the exact text `match` from its start column (1-based
    code points): the range ends where that text ends, counted on the text itself."""
    edit = f.exact_edit
    if f.safety_tier != "auto" or not isinstance(edit, ReplaceText):
        return None
    if edit.start_column is None:
        return None
    line = edit.anchor.start_line
    start = cols.utf8(f.path, line, edit.start_column, "codepoint")
    if start is None:
        return None
    *before, last = edit.match.split("\n")
    if before:
        end = {"line": line + len(before), "column": len(last.encode("utf-8")) + 1}
    else:
        end = {"line": line, "column": start + len(last.encode("utf-8"))}
    return {
        "range": {"start": {"line": line, "column": start}, "end": end},
        "text": edit.replacement,
    }


def diagnostic(cols: _Utf8, f: Finding) -> dict[str, Any]:
    """One finding as a reviewdog `Diagnostic`."""
    unchanged = f.baseline_state == BaselineState.UNCHANGED
    out: dict[str, Any] = {
        "message": f.message or f.rule,
        "location": {"path": f.path},
        "severity": "INFO" if unchanged else _SEVERITY[level(f)],
        "source": {"name": f.checker},
        "code": {"value": f.rule} | ({"url": f.help_uri} if f.help_uri else {}),
    }
    start = _position(cols, f, f.line, f.column)
    if start:
        rng: dict[str, Any] = {"start": start}
        end = _position(cols, f, f.end_line or (f.line if f.end_column else None), f.end_column)
        if end:
            rng["end"] = end
        out["location"]["range"] = rng
    if (s := _suggestion(cols, f)) is not None:
        out["suggestions"] = [s]
    return out


def rdjson_data(report: Report) -> dict[str, Any]:
    """The report as a reviewdog `DiagnosticResult` (JSON data)."""
    cols = _Utf8(report.scan.project_root)
    return {
        "source": {"name": "orchestrate"},
        "diagnostics": [diagnostic(cols, f) for f in listed(report.findings, collapsed(report))],
    }


def rdjson(report: Report) -> str:
    """The `DiagnosticResult` as JSON text."""
    return json.dumps(rdjson_data(report), indent=1, ensure_ascii=False) + "\n"


__all__ = ["diagnostic", "rdjson", "rdjson_data"]
