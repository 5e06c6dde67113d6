"""Human presentation: a status summary, the gaps grouped, one line per finding, a verdict.

Each finding line starts `path:line:col` (terminals make it a link) and names its
severity as a word; scopes that were not checked are grouped by checker, status,
reason and hint with a count; the verdict is one line of at most 100 columns.

The verdict never says everything passed when any scope was not `checked`. Every text
from outside (paths, checker and rule names, tool messages, reasons, hints, notes)
goes through `safetext.printable` and into a rich `Text`, never markup: a file named
`[red]x` prints as `[red]x`, an ESC or a newline in a name prints as an escape.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from orchestrator.decisions.coverage import COVERAGE_CLASSES, is_checked, language_coverage
from orchestrator.decisions.findings import is_confirmed_syntax
from orchestrator.model.report import Finding, Report, rule_label
from orchestrator.render.gaps import collapsed, gap_groups, listed, nothing_count, nothing_text
from orchestrator.render.levels import word
from orchestrator.safetext import printable as p
from orchestrator.vocab import BaselineState, GateDecision, ScopeStatus

_STYLE = {
    ScopeStatus.CHECKED: "green",
    ScopeStatus.UNSUPPORTED: "dim",
    ScopeStatus.UNSAFE: "red",
    ScopeStatus.TOOL_ERROR: "red",
    ScopeStatus.TIMED_OUT: "red",
}


#: The verdict is one line that fits this many columns (a terminal, a CI log line).
VERDICT_WIDTH = 100
_WORD_STYLE = {"error": "red", "warning": "yellow", "info": "cyan"}
_GROUPS_SHOWN = 50


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _unchecked(report: Report) -> int:
    """How many scopes are not evidence (decisions/coverage.unchecked), counted."""
    return sum(1 for s in report.scopes if not is_checked(s))


def _files(findings: Sequence[Finding]) -> int:
    """How many files the findings are in (rows read back from disk come sorted by
    path: counted without a set of them)."""
    if not getattr(findings, "path_ordered", False):
        return len({f.path for f in findings})
    files, last = 0, None
    for f in findings:
        if f.path != last:
            files, last = files + 1, f.path
    return files


def _finding_parts(report: Report) -> tuple[str, ...]:
    """The findings part of the verdict, longest form first: the count with the
    breakdown by severity word and the file count, without the file count, alone."""
    checked = len(report.scopes) - _unchecked(report)
    if not report.findings and not report.scopes:
        return ("nothing was checked",)
    if not report.findings and report.request.paths:
        # Files named or handed over (pre-commit passes batches, run in parallel and
        # printed one after another): the verdict names its own files, so a passing
        # batch printed last never reads as the verdict on every file.
        files = _files(report.scopes)  # type: ignore[arg-type]
        return (
            f"no findings in these {_n(files, 'file')} ({_n(checked, 'checked scope')})",
            f"no findings in these {_n(files, 'file')}",
        )
    if not report.findings:
        return (f"no findings in {_n(checked, 'checked scope')}",)
    kinds: dict[str, int] = defaultdict(int)
    for f in report.findings:
        kinds["candidate" if f.candidate else word(f)] += 1
    breakdown = ", ".join(
        _n(kinds[k], k) for k in ("error", "warning", "info", "candidate") if kinds.get(k)
    )
    files = _files(report.findings)
    count = _n(len(report.findings), "finding")
    return f"{count} ({breakdown}) in {_n(files, 'file')}", f"{count} ({breakdown})", count


def verdict(report: Report) -> str:
    """One honest line of at most VERDICT_WIDTH columns (for counts below 100,000):
    findings, then what was NOT checked, syntax-only files, plugin failures, the gate.
    It never reads as a pass when any scope was not `checked`."""
    rest = []
    nothing = nothing_count(report)
    if gaps := _unchecked(report) - nothing:
        rest.append((f"{_n(gaps, 'scope')} NOT checked", f"{gaps} NOT checked"))
    elif not report.scopes:
        rest.append(("NOT checked: no file in scope", "NOT checked: no file"))
    if nothing:
        # Files nobody lints (render/gaps.nothing_text says which): counted, not a gap.
        rest.append(
            (f"{nothing} unlintable file{'' if nothing == 1 else 's'}", f"{nothing} unlintable")
        )
    if n := report.coverage.syntax_only_files:
        rest.append((f"{_n(n, 'file')} syntax-only", f"{n} syntax-only"))
    if n := len(report.plugin_failures):
        rest.append((f"{_n(n, 'plugin')} failed to load", f"{n} failed to load"))
    decision = report.gate.decision
    gate = "gate not evaluated" if decision == GateDecision.NOT_EVALUATED else f"gate: {decision}"
    rest.append((gate, gate))
    forms = _finding_parts(report)
    candidates = [[f, *(r[0] for r in rest)] for f in forms]
    candidates.append([forms[-1], *(r[1] for r in rest)])
    lines = ["; ".join(c) for c in candidates]
    return next((ln for ln in lines if len(ln) <= VERDICT_WIDTH), lines[-1])


def _coverage_table(report: Report, console: Console) -> None:
    counts: dict[str, int] = defaultdict(int)
    for s in report.scopes:
        counts[str(s.status)] += 1
    table = Table(title="coverage", show_edge=False)
    table.add_column("status")
    table.add_column("scopes", justify="right")
    for status in ScopeStatus:
        if counts.get(str(status)):
            table.add_row(
                Text(str(status), style=_STYLE.get(status, "yellow")), str(counts[str(status)])
            )
    console.print(table)


#: The bar's width in cells, and its mark for each coverage class (decisions/coverage).
_BAR = 16
_MARKS = {"native": ("█", "green"), "syntax": ("▓", "cyan"), "candidates": ("░", "yellow")}
_LANGUAGES_SHOWN = 12


def _bar(row: dict[str, int]) -> Text:
    """One language's files as a bar of `_BAR` cells, each class in proportion (a class
    with any file gets at least one cell); what is left is "nothing"."""
    total = sum(row.values())
    bar = Text()
    used = 0
    for cls, (mark, style) in _MARKS.items():
        if row[cls]:
            cells = max(1, round(_BAR * row[cls] / total))
            cells = min(cells, _BAR - used)
            bar.append(mark * cells, style=style)
            used += cells
    bar.append("·" * (_BAR - used), style="dim")
    return bar


def _language_table(report: Report, console: Console) -> None:
    """Coverage per language: files, a bar, and the count in each class."""
    rows = language_coverage(report.scopes)
    if not rows or (len(rows) == 1 and all(r["native"] == sum(r.values()) for r in rows.values())):
        return  # nothing to compare: one language, all of it native lint
    table = Table(title="coverage by language", show_edge=False)
    table.add_column("language")
    table.add_column("files", justify="right")
    table.add_column("", no_wrap=True, min_width=_BAR)
    for cls in COVERAGE_CLASSES:
        table.add_column(cls, justify="right")
    for language, row in list(rows.items())[:_LANGUAGES_SHOWN]:
        counts = [str(row[c]) if row[c] else "-" for c in COVERAGE_CLASSES]
        table.add_row(p(language), str(sum(row.values())), _bar(row), *counts)
    console.print(table)
    if len(rows) > _LANGUAGES_SHOWN:
        more = len(rows) - _LANGUAGES_SHOWN
        console.print(f"  ... and {_n(more, 'more language')} (use --format json for all)")


def _gaps(report: Report, console: Console) -> None:
    """Not-checked scopes, one line per group: `checker status: N files (paths) — why`."""
    groups = gap_groups(report)
    if nothing := nothing_count(report):
        console.print(Text(nothing_text(nothing), style="dim"))
    if not groups:
        return
    total = sum(g.count for g in groups)
    console.print(Text(f"not checked ({_n(total, 'scope')}):", style="bold"))
    for g in groups[:_GROUPS_SHOWN]:
        line = Text("  ")
        line.append(p(g.headline()), style=_STYLE.get(ScopeStatus(g.status), "yellow"))
        line.append(f" {p(g.examples())}")
        if g.reason:
            line.append(f" — {p(g.reason)}", style="dim")
        if g.hint:
            line.append(f"; hint: {p(g.hint)}", style="cyan")
        if g.confirm and g.candidates:
            line.append(f"; confirm: {p(g.confirm)}", style="cyan")
        console.print(line)
    if len(groups) > _GROUPS_SHOWN:
        more = len(groups) - _GROUPS_SHOWN
        console.print(f"  ... and {_n(more, 'more group')} (use --format json for all)")


def finding_line(f: Finding) -> Text:
    """`path:line:col  severity  rule  message  [fix: tier]`: the location first, so a
    terminal can open it; the severity as a word, not only a colour."""
    pos = f"{p(f.path)}:{f.line or 1}" + (f":{f.column}" if f.column else "")
    sev = word(f)
    line = Text(f"{pos}  ")
    line.append(f"{sev:<7}", style=_WORD_STYLE[sev])
    line.append(f"  {p(rule_label(f.checker, f.rule))}", style="bold")
    if f.candidate:
        line.append(" (syntax candidate)", style="dim")
    elif is_confirmed_syntax(f):
        line.append(" (syntax error, confirmed)", style="red")
    if f.baseline_state == BaselineState.UNCHANGED:
        line.append(" (unchanged: there before the change, not blocking)", style="dim")
    # A tool's message may hold line breaks (the machine formats keep them); a person
    # reads one line per finding, so its lines are folded here, then escaped.
    line.append(f"  {p(' '.join(f.message.split()))}")
    if f.safety_tier:
        line.append(f"  [fix: {f.safety_tier}]", style="cyan")
    return line


def by_path(findings: Sequence[Finding]) -> Iterable[Finding]:
    """The findings sorted by path, line order kept (a stable sort); rows read back from
    disk (model/rows.py) already come in this order and are not held for a sort."""
    if getattr(findings, "path_ordered", False):
        return findings
    return sorted(findings, key=lambda f: f.path)


def statistics(report: Report, console: Console) -> None:
    """The time each checker cost the run (`lint --statistics`): files, reused files,
    batches and wall time, the costliest first; a checker name is printed escaped."""
    table = Table(title="time by checker", show_edge=False)
    for name, justify in (("checker", "left"), ("files", "right"), ("reused", "right")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    table.add_column("batches", justify="right")
    table.add_column("time", justify="right")
    for t in sorted(report.timings, key=lambda r: (-r.ms, r.checker)):
        table.add_row(p(t.checker), str(t.files), str(t.reused), str(t.batches), f"{t.ms} ms")
    if not report.timings:
        table.add_row("(no checker ran)", "", "", "", "")
    console.print(table)


def render(report: Report, console: Console) -> None:
    """Print the report for a person."""
    _coverage_table(report, console)
    _language_table(report, console)
    _gaps(report, console)
    for f in listed(by_path(report.findings), collapsed(report)):
        console.print(finding_line(f))
    for pf in report.plugin_failures:
        console.print(Text(f"plugin {p(pf.name)} failed to load: {p(pf.reason)}", style="red"))
    for note in report.notes:
        console.print(Text(f"note: {p(note)}", style="dim"))
    for r in report.gate.reasons:
        console.print(Text(f"gate: {p(r)}", style="bold"))
    for r in report.gate.recovery:
        console.print(Text(f"to recover: {p(r)}", style="cyan"))
    console.print(Text(verdict(report), style="bold"))
