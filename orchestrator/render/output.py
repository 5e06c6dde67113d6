"""Writing a finished report or gate result: the shared output of every presenter.

Presenters (cli/, the legacy git gate) pick a format; this module renders it on
stdout or atomically into a file. Nothing here decides anything.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.render.formats import BUILTIN, ReportFormat, resolve
from orchestrator.safetext import json_inert, printable
from orchestrator.vocab import GateDecision
from orchestrator.workspace import atomic_write

if TYPE_CHECKING:  # annotations only: the CLI must start without pydantic
    from orchestrator.model.report import Report

#: The built-in format names, in the order `--help` lists them.
FORMATS = tuple(BUILTIN)
HEADLINE = {
    GateDecision.ALLOW: "allow: required coverage complete, no blocking finding",
    GateDecision.DENY: "deny: blocking findings (delivery blocked)",
    GateDecision.INCOMPLETE: "incomplete: required evidence is missing (delivery blocked)",
    GateDecision.NOT_APPLICABLE: "not applicable: nothing to check",
    GateDecision.NOT_EVALUATED: "not evaluated: no certification issued",
}
#: The legacy-v1 headline of each outcome, by what the old protocol does with it: exit 2
#: blocks; exit 0 passes or fails open, and then says why nothing was certified. A strict
#: headline ("incomplete ... (delivery blocked)") never stands over a legacy exit 0.
LEGACY_BLOCKED = {
    GateDecision.DENY: "blocked (exit 2): blocking findings",
    GateDecision.INCOMPLETE: (
        "blocked (exit 2): blocking findings, and required evidence is missing too "
        "(nothing was certified)"
    ),
    GateDecision.NOT_EVALUATED: (
        "blocked (exit 2): the secret scan found sensitive content (it is never skipped); "
        "the language gate was skipped, not certified"
    ),
}
LEGACY_OPEN = {
    GateDecision.ALLOW: "pass (exit 0): required coverage complete, no blocking finding",
    GateDecision.NOT_APPLICABLE: "not applicable (exit 0): nothing to check",
    GateDecision.INCOMPLETE: (
        "UNVERIFIED (exit 0): required evidence is missing; legacy-v1 fails open, "
        "nothing was certified"
    ),
    GateDecision.NOT_EVALUATED: "skipped, not certified (exit 0): the language gate was skipped",
}
_LEGACY_BLOCKED_OTHER = "blocked (exit 2): blocking findings"
_LEGACY_OPEN_OTHER = "UNVERIFIED (exit 0): legacy-v1 fails open, nothing was certified"


def legacy_headline(decision: GateDecision | str, *, block: bool) -> str:
    """The legacy-v1 headline of a gate `decision` whose outcome `block`s (exit 2) or not
    (exit 0): "blocked" only with exit 2; with exit 0 "pass", "not applicable",
    "skipped, not certified" or "UNVERIFIED", never a certification."""
    if block:
        return LEGACY_BLOCKED.get(GateDecision(decision), _LEGACY_BLOCKED_OTHER)
    return LEGACY_OPEN.get(GateDecision(decision), _LEGACY_OPEN_OTHER)


#: The report's long lists, written row by row.
_STREAMED = ("scopes", "findings")


def json_chunks(report: Report) -> Iterator[bytes]:
    """The JSON format's bytes (the report's `model_dump_json(indent=2)` and a newline,
    made inert as `safetext.json_inert` does), in pieces: the scopes and findings one
    row at a time. At 10,000 files the whole text (12 MB) and the serialiser's growing
    buffer were the largest part of the peak memory. A row's own lines are indented by
    its depth; JSON strings hold no raw newline, so re-indenting by line is exact. A
    `##[` lies inside one string, so inside one piece: each piece is made inert alone."""
    for chunk in _raw_json_chunks(report):
        yield chunk.replace(b"##[", b"#\\u0023[") if b"##[" in chunk else chunk


def _raw_json_chunks(report: Report) -> Iterator[bytes]:
    shell = report.model_copy(update={key: [] for key in _STREAMED})
    text = shell.__pydantic_serializer__.to_json(shell, indent=2)
    for name in _STREAMED:
        marker = b'\n  "' + name.encode() + b'": []'
        head, found, text = text.partition(marker)
        if not found:  # pragma: no cover - every report has both lists
            raise AssertionError(f"report JSON without {name}")
        yield head
        rows = getattr(report, name)
        if not rows:
            yield marker
            continue
        yield marker[:-1] + b"\n"
        for i, row in enumerate(rows):
            one = row.__pydantic_serializer__.to_json(row, indent=2)
            yield (b",\n" if i else b"") + b"    " + one.replace(b"\n", b"\n    ")
        yield b"\n  ]"
    yield text + b"\n"


def emit_statistics(report: Report, fmt: str | ReportFormat) -> None:
    """Print the time each checker took (`lint --statistics`): on stdout after the
    human report, else on stderr, so a machine format's stdout stays one document."""
    from rich.console import Console

    from orchestrator.render.human import statistics

    human = fmt == "human" or (isinstance(fmt, ReportFormat) and fmt.name == "human")
    statistics(report, Console(highlight=False, soft_wrap=True, stderr=not human))


def emit_report(report: Report, fmt: str | ReportFormat, output: str | None) -> None:
    """Present the report in `fmt` (a format or its name), on stdout or atomically into `output`.

    A name that is neither built in nor offered by a plugin raises UsageError.
    """
    if fmt == "human" and output is None:
        # The live console: terminal width and colours, unlike the 120-column text.
        from rich.console import Console

        from orchestrator.render.human import render

        render(report, Console(highlight=False, soft_wrap=True))
        return
    chosen = fmt if isinstance(fmt, ReportFormat) else resolve(fmt)
    chunks = _streamed(chosen, report)
    if chunks is not None:
        buffer = getattr(sys.stdout, "buffer", None)
        if output:
            atomic_write(Path(output), chunks)
        elif buffer is None:  # a text-only stream (a caller's StringIO)
            sys.stdout.write(b"".join(chunks).decode("utf-8"))
        else:
            sys.stdout.flush()
            for chunk in chunks:
                buffer.write(chunk)
            buffer.flush()
        return
    text = chosen.render(report)
    if output:
        atomic_write(Path(output), (text.rstrip("\n") + "\n").encode("utf-8"))
    else:
        sys.stdout.write(text.rstrip("\n") + "\n")


def _streamed(chosen: ReportFormat, report: Report) -> Iterator[bytes] | None:
    """The bytes of a format written piece by piece (JSON, SARIF), or None."""
    if chosen is BUILTIN["json"]:
        return json_chunks(report)
    if chosen is BUILTIN["sarif"]:
        return sarif_bytes(report)
    return None


def sarif_bytes(report: Report) -> Iterator[bytes]:
    """The SARIF format's bytes (its text, made inert, and a newline) in pieces; a
    `##[` lies inside one string, so inside one piece."""
    from orchestrator.render.sarif import sarif_chunks

    for chunk in sarif_chunks(report):
        yield json_inert(chunk).encode("utf-8")
    yield b"\n"


#: Longest tool message shown in a gate's text (one line, escaped, then clipped).
GATE_MESSAGE_CHARS = 200


def _is_finding_reason(reason: str) -> bool:
    """A reason that lists one blocking finding by id (decisions/gate.evaluate_gate)."""
    return reason.startswith("finding: ") or (
        reason.startswith("... and ") and reason.endswith(" more finding(s)")
    )


def _finding_lines(report: Report) -> list[str]:
    """The blocking findings the gate lists, each `path:line:col: severity rule message`
    (escaped, the message clipped), and how many more there are."""
    from orchestrator.decisions.findings import blocking_findings
    from orchestrator.decisions.gate import MAX_LISTED
    from orchestrator.render.lines import concise_line

    blocking = blocking_findings(report)
    lines = []
    for f in blocking[:MAX_LISTED]:
        text = concise_line(f)
        clip = len(text) - len(printable(f.message)) + GATE_MESSAGE_CHARS
        lines.append(f"  - {text[:clip]}{'…' if len(text) > clip else ''}")
    if len(blocking) > MAX_LISTED:
        lines.append(f"  - ... and {len(blocking) - MAX_LISTED} more finding(s)")
    return lines


def gate_text(
    report: Report, label: str, messages: bool = False, headline: str | None = None
) -> str:
    """A short human summary of a gate: decision, reasons, recovery, notes. Each reason,
    step and note is one line: the paths in them are escaped. With `messages`, the
    blocking findings are listed with their tool message (escaped, clipped to
    GATE_MESSAGE_CHARS) instead of by id only; without, no tool free text is shown.
    `headline` replaces the strict gate's headline of the decision (legacy-v1 has its
    own, `legacy_headline`)."""
    head = headline or HEADLINE.get(report.gate.decision, report.gate.decision)
    lines = [f"orchestrate {label}: {head}"]
    lines.append(
        f"  surface: {printable(report.request.surface)}"
        + (f" at {printable(report.request.revision[:12])}" if report.request.revision else "")
        + f", {report.scan.files_scanned} file(s)"
    )
    reasons = report.gate.reasons
    if messages:
        reasons = [r for r in reasons if not _is_finding_reason(r)]
    lines += [f"  - {printable(r)}" for r in reasons]
    if messages:
        lines += _finding_lines(report)
    if report.gate.recovery:
        lines.append("  to recover:")
        lines += [f"  * {printable(r)}" for r in report.gate.recovery]
    lines += [f"  note: {printable(n)}" for n in report.notes]
    return "\n".join(lines) + "\n"


def emit_gate(
    report: Report,
    fmt: str | ReportFormat,
    output: str | None,
    label: str,
    extra: Sequence[str] = (),
    messages: bool = False,
    headline: str | None = None,
) -> None:
    """Print a gate in `fmt` (human summary, or the report in any other format); each of
    the `extra` lines is escaped like the summary; `messages` and `headline` as in
    `gate_text`."""
    if fmt == "human" and output is None:
        text = gate_text(report, label, messages, headline)
        text += "".join(f"  {printable(x)}\n" for x in extra)
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    emit_report(report, fmt, output)


__all__ = [
    "FORMATS",
    "HEADLINE",
    "LEGACY_BLOCKED",
    "LEGACY_OPEN",
    "emit_gate",
    "emit_report",
    "gate_text",
    "legacy_headline",
]
