"""A report -> the diagnostics of one editor buffer: findings and the coverage note."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace import TextDocument

from orchestrator.decisions.coverage import is_checked, is_failed_check
from orchestrator.decisions.findings import is_blocking
from orchestrator.model.report import Finding, Report, Scope, rule_label
from orchestrator.render.columns import codepoint_column, column_unit
from orchestrator.safetext import printable
from orchestrator.vocab import ScopeStatus, Severity, Tier

SOURCE = "orchestrate"
#: The code of the one coverage diagnostic a file gets when it was not fully judged.
COVERAGE_CODE = "coverage"
#: What to do about a gap when its checker gave no hint of its own.
NEXT_STEP = {
    ScopeStatus.MISSING: "install the tool (orchestrate tools install) or name its path in "
    "the user config's [tools] (or ORCHESTRATE_TOOL_<NAME>)",
    ScopeStatus.CONFIGURATION_REQUIRED: "add the tool's configuration to the project",
    ScopeStatus.TIMED_OUT: "save again to retry; a slow tool needs a longer --timeout",
    ScopeStatus.TOOL_ERROR: "the tool failed: run `orchestrate lint --feedback` on the file "
    "to see why",
    ScopeStatus.PARTIAL: "the tool gave only part of its output: save again to retry",
    ScopeStatus.UNSUPPORTED: "no checker knows this language: add a plugin for it",
}


def severity_of(f: Finding) -> types.DiagnosticSeverity:
    """Blocking findings are errors, other confirmed ones warnings (info stays
    information); syntax candidates are information (hints when only informative)."""
    if f.candidate:
        if f.severity == Severity.INFO:
            return types.DiagnosticSeverity.Hint
        return types.DiagnosticSeverity.Information
    if is_blocking(f):
        return types.DiagnosticSeverity.Error
    if f.severity == Severity.INFO:
        return types.DiagnosticSeverity.Information
    return types.DiagnosticSeverity.Warning


def _range(doc: TextDocument, f: Finding) -> types.Range:
    """The finding's span in the client's position units (the negotiated position
    encoding, UTF-16 by default): the tool's span, else one character at its column,
    else its whole line (clamped to the buffer). The tool's columns count in its own
    unit (render/columns.column_unit); they are read against the buffer's own lines,
    the text the tool judged, not the file on disk."""
    lines = list(doc.lines) or [""]
    unit = column_unit(f)

    def text(n: int) -> str:
        return lines[n].rstrip("\r\n")

    def width(n: int) -> int:
        return len(text(n))

    line = min(max((f.line or 1) - 1, 0), len(lines) - 1)
    start = codepoint_column(text(line), f.column, unit) if f.column else 1
    col = min(max(start - 1, 0), width(line))
    if f.end_line or f.end_column:
        end_line = min(max((f.end_line or f.line or 1) - 1, line), len(lines) - 1)
        if f.end_column:
            end_col = codepoint_column(text(end_line), f.end_column, unit) - 1
        else:
            end_col = width(end_line)
        end_col = min(max(end_col, 0), width(end_line))
        if end_line == line:
            end_col = max(end_col, col)
    elif f.column:
        end_line, end_col = line, min(col + 1, width(line))
    else:
        end_line, end_col = line, width(line)
    span = types.Range(
        start=types.Position(line=line, character=col),
        end=types.Position(line=end_line, character=end_col),
    )
    return doc.position_codec.range_to_client_units(lines, span)


def finding_diagnostic(doc: TextDocument, f: Finding) -> types.Diagnostic:
    """One finding as a diagnostic; its fingerprint rides in `data` for code actions."""
    tier = "candidate, " if f.candidate else ""
    return types.Diagnostic(
        range=_range(doc, f),
        message=printable(f.message or f.rule),
        severity=severity_of(f),
        code=printable(rule_label(f.checker, f.rule)),
        source=f"{SOURCE} ({tier}{printable(f.checker)})",
        data={"fingerprint": f.fingerprint},
    )


def _gap_line(s: Scope) -> str:
    """One not-checked scope: checker, status, reason, and what to do."""
    text = f"{s.checker}: {s.status}"
    if s.reason:
        text += f" ({s.reason})"
    step = s.hint or NEXT_STEP.get(s.status)
    if step:
        text += f"; {step}"
    return printable(text)


def coverage_note(scopes: Sequence[Scope]) -> str | None:
    """What a file's scopes leave unjudged, in one text; None when a native checker
    judged it and every planned check finished. Policy scans are not the file's
    checker and do not count either way."""
    own = [s for s in scopes if s.tier != Tier.POLICY]
    native = any(is_checked(s) and s.tier == Tier.NATIVE for s in own)
    syntax = any(is_checked(s) and s.tier == Tier.FALLBACK for s in own)
    gaps = [s for s in own if not is_checked(s)]
    if native and not gaps:
        return None
    if not own:
        return "orchestrate: not checked: no checker was planned for this file"
    if native:
        head = "orchestrate: checked, with gaps"
    elif syntax:
        language = next((s.language for s in own if s.language), None) or "this language"
        head = (
            "orchestrate: syntax only: no native checker judged this file; its findings "
            f"are unconfirmed candidates. For a native verdict, install a checker plugin "
            f"for {printable(language)} (orchestrate plugins lists the loaded ones)"
        )
    else:
        head = "orchestrate: not checked"
    return "\n".join([head, *(_gap_line(s) for s in gaps)])


def coverage_diagnostic(note: str) -> types.Diagnostic:
    """The one information diagnostic at the top of a file that says what was not judged."""
    top = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
    )
    return types.Diagnostic(
        range=top,
        message=note,
        severity=types.DiagnosticSeverity.Information,
        code=COVERAGE_CODE,
        source=SOURCE,
    )


def scopes_of(report: Report, rel: str) -> list[Scope]:
    """The report rows of file `rel`."""
    return [s for s in report.scopes if s.path == rel]


def failed_of(report: Report, rel: str) -> list[Scope]:
    """The planned checks of `rel` that started and did not finish (a crash, a hang)."""
    return [s for s in scopes_of(report, rel) if is_failed_check(s)]


def buffer_diagnostics(report: Report, rel: str, doc: TextDocument) -> list[types.Diagnostic]:
    """Every diagnostic of file `rel`: the coverage note first (when the file was not
    fully judged), then its findings in report order."""
    out: list[types.Diagnostic] = []
    note = coverage_note(scopes_of(report, rel))
    if note:
        out.append(coverage_diagnostic(note))
    out += [finding_diagnostic(doc, f) for f in report.findings if f.path == rel]
    return out


def fault_diagnostic(fault: str) -> types.Diagnostic:
    """The coverage diagnostic of a buffer whose check did not produce a report."""
    return coverage_diagnostic(f"orchestrate: not checked: the run failed ({fault})")
