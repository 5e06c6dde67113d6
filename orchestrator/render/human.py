"""Human presentation: a status summary, findings grouped by file, a one-line verdict.

The verdict never says everything passed when any scope was not `checked`. Every text
from outside (paths, checker and rule names, tool messages, reasons, hints, notes)
goes through `safetext.printable` and into a rich `Text`, never markup: a file named
`[red]x` prints as `[red]x`, an ESC or a newline in a name prints as an escape.
"""

from __future__ import annotations

from collections import defaultdict

from rich.console import Console
from rich.table import Table
from rich.text import Text

from orchestrator.decisions.coverage import unchecked
from orchestrator.decisions.findings import is_confirmed_syntax
from orchestrator.model.report import Report, rule_label
from orchestrator.safetext import printable as p
from orchestrator.vocab import GateDecision, ScopeStatus

_STYLE = {
    ScopeStatus.CHECKED: "green",
    ScopeStatus.UNSUPPORTED: "dim",
    ScopeStatus.UNSAFE: "red",
    ScopeStatus.TOOL_ERROR: "red",
    ScopeStatus.TIMED_OUT: "red",
}


def verdict(report: Report) -> str:
    """One honest line: findings, then coverage, then the gate when one was evaluated."""
    not_checked = len(unchecked(report))
    checked = len(report.scopes) - not_checked
    files = len({f.path for f in report.findings})
    parts = []
    if report.findings:
        cands = sum(1 for f in report.findings if f.candidate)
        parts.append(
            f"{len(report.findings)} finding(s) in {files} file(s)"
            + (f", {cands} of them syntax candidates" if cands else "")
        )
    else:
        parts.append(f"no findings in {checked} checked scope(s)")
    if not_checked:
        parts.append(f"{not_checked} scope(s) NOT checked (see coverage)")
    elif not report.scopes:
        parts.append("nothing was checked (NOT checked: no file in scope)")
    if report.coverage.syntax_only_files:
        parts.append(f"{report.coverage.syntax_only_files} file(s) had syntax checks only")
    if report.plugin_failures:
        parts.append(f"{len(report.plugin_failures)} plugin(s) failed to load")
    if report.gate.decision != GateDecision.NOT_EVALUATED:
        parts.append(f"gate: {report.gate.decision}")
    else:
        parts.append("delivery gate not evaluated")
    return "; ".join(parts)


def render(report: Report, console: Console) -> None:
    """Print the report for a person."""
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

    gaps = unchecked(report)
    if gaps:
        console.print(Text("not checked:", style="bold"))
        for s in gaps[:200]:
            line = Text(f"  {p(s.path)}  ")
            line.append(f"{p(s.checker)} {s.status}", style=_STYLE.get(s.status, "yellow"))
            if s.reason:
                line.append(f"  {p(s.reason)}", style="dim")
            if s.hint:
                line.append(f"  hint: {p(s.hint)}", style="cyan")
            console.print(line)
        if len(gaps) > 200:
            console.print(f"  ... and {len(gaps) - 200} more (use --format json for all)")

    by_file = defaultdict(list)
    for f in report.findings:
        by_file[f.path].append(f)
    for path in sorted(by_file):
        console.print(Text(p(path), style="bold underline"))
        for f in by_file[path]:
            pos = f"{f.line or '-'}:{f.column or '-'}" if f.column else f"{f.line or '-'}"
            line = Text(f"  {pos:>8}  ")
            line.append(
                p(rule_label(f.checker, f.rule)),
                style="red" if f.severity == "error" else "yellow",
            )
            if f.candidate:
                line.append(" (syntax candidate)", style="dim")
            elif is_confirmed_syntax(f):
                line.append(" (syntax error, confirmed)", style="red")
            line.append(f"  {p(f.message)}")
            if f.safety_tier:
                line.append(f"  [fix: {f.safety_tier}]", style="cyan")
            console.print(line)
    for pf in report.plugin_failures:
        console.print(Text(f"plugin {p(pf.name)} failed to load: {p(pf.reason)}", style="red"))
    for note in report.notes:
        console.print(Text(f"note: {p(note)}", style="dim"))
    for r in report.gate.reasons:
        console.print(Text(f"gate: {p(r)}", style="bold"))
    for r in report.gate.recovery:
        console.print(Text(f"to recover: {p(r)}", style="cyan"))
    console.print(Text(verdict(report), style="bold"))
