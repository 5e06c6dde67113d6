"""Line formats for CI logs, problem matchers and editors: github, concise, jsonl.

- `github`: GitHub Actions workflow commands (`::error file=...,line=...::message`),
  one per finding, one `::notice::` per group of scopes that were not checked, and,
  when a gate was evaluated, one annotation with its reasons and recovery steps.
  Every value is escaped as the runner reads it (data: `%`, CR, LF; properties also
  `:` and `,`), and other control characters are shown as escapes, so neither a file
  name nor a tool message can end a command early or start a forged one.
- `concise`: `path:line:col: severity rule message`, one line per finding (the form
  problem matchers, nvim-lint, ALE and Emacs compilation mode read), then one line per
  coverage gap group, the gate's reasons (`gate: ...`) and the verdict; text is escaped as the human view escapes it,
  and a `:` followed by a digit is written `\\x3a` so that no path, reason or message
  can pass for a position.
- `jsonl`: one JSON object per line: each finding (`"type": "finding"`), each scope
  that was not checked (`"type": "not_checked"`), then one `"type": "summary"`;
  ASCII only, and a `##[` in a value is written `#\\u0023[` (`safetext.json_inert`).

All three read the report's records as they are (model dumps, not field lists), so a
field added to a finding or a scope reaches JSONL without a change here.
"""

from __future__ import annotations

import json
import re
from typing import Any

from orchestrator.model.report import Finding, Report, rule_label
from orchestrator.render.gaps import collapsed, gap_groups, listed, nothing_count, nothing_text
from orchestrator.render.levels import level, word
from orchestrator.safetext import json_inert, printable
from orchestrator.vocab import BaselineState, GateDecision

#: A finding's display level -> the workflow command GitHub shows it as.
_GITHUB_COMMAND = {"error": "error", "warning": "warning", "note": "notice"}
#: Gate decisions shown as a notice; every other evaluated decision is an error.
_PASSING = frozenset({GateDecision.ALLOW, GateDecision.NOT_APPLICABLE})
_KEEP = frozenset("\r\n")
_DIGIT_COLON = re.compile(r":(?=\d)")


def _inert(text: str) -> str:
    """`text` with every non-printable character but CR and LF shown as an escape."""
    if text.isprintable():
        return text
    return "".join(ch if ch in _KEEP else printable(ch) for ch in text)


def escape_data(text: str) -> str:
    """A workflow command's message: `%`, CR and LF percent-encoded as the runner
    decodes them, other control characters shown as escapes."""
    return _inert(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: as `escape_data`, plus `:` and `,`, so a
    value cannot close the property list or start another property."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(name: str, props: dict[str, object], message: str) -> str:
    plist = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items() if v is not None)
    return f"::{name}{' ' + plist if plist else ''}::{escape_data(message)}"


def _marks(f: Finding) -> str:
    """What a finding is besides its rule: a syntax candidate, or unchanged against
    `--new-from-rev` (there before the change, not blocking)."""
    marks = " (syntax candidate)" if f.candidate else ""
    if f.baseline_state == BaselineState.UNCHANGED:
        marks += " (unchanged)"
    return marks


def _title(f: Finding) -> str:
    return rule_label(f.checker, f.rule) + _marks(f)


#: GitHub shows at most this many annotations of each level (error, warning, notice) per
#: step, and 50 per job; past them it drops the rest without a word. The format keeps one
#: slot of each level for the gate's annotation and the summary of what was cut.
GITHUB_PER_LEVEL = 10
GITHUB_PER_JOB = 50


def _github_annotations(report: Report) -> list[tuple[str, dict[str, object], str]]:
    """Every annotation of the report, in order: findings, gap groups, nothing-to-check."""
    out: list[tuple[str, dict[str, object], str]] = []
    for f in listed(report.findings, collapsed(report)):
        props: dict[str, object] = {"file": f.path, "line": f.line}
        if f.line:
            props |= {"col": f.column, "endLine": f.end_line}
            if f.end_line:
                props["endColumn"] = f.end_column
        props["title"] = _title(f)
        # A finding there before the change (`--new-from-rev`) is a notice: it does not block.
        unchanged = f.baseline_state == BaselineState.UNCHANGED
        out.append(
            ("notice" if unchanged else _GITHUB_COMMAND[level(f)], props, f.message or f.rule)
        )
    for g in gap_groups(report):
        props = {"file": g.paths[0] if g.count == 1 else None, "title": "orchestrate: not checked"}
        out.append(("notice", props, g.text()))
    if nothing := nothing_count(report):
        out.append(("notice", {"title": "orchestrate: nothing to check"}, nothing_text(nothing)))
    return out


def github(report: Report) -> str:
    """The report as GitHub Actions workflow commands, then the verdict as a plain line.

    Within GitHub's limits (`GITHUB_PER_LEVEL` of each level per step): the first
    annotations of each level up to one below the limit, the gate's annotation, and, when
    any was cut, one summary annotation saying how many of each and where the whole report
    is. Nothing is cut silently."""
    from orchestrator.render.human import verdict

    gate = _gate_lines(report)
    gate_level = "notice" if report.gate.decision in _PASSING else "error"
    shown: dict[str, int] = {}
    cut: dict[str, int] = {}
    out = []
    for name, props, message in _github_annotations(report):
        if shown.get(name, 0) >= GITHUB_PER_LEVEL - 1:
            cut[name] = cut.get(name, 0) + 1
            continue
        shown[name] = shown.get(name, 0) + 1
        out.append(_command(name, props, message))
    if gate:
        title = f"orchestrate gate: {report.gate.decision}"
        out.append(_command(gate_level, {"title": title}, "\n".join(gate)))
    if cut:
        counts = ", ".join(f"{cut[k]} {k}" for k in ("error", "warning", "notice") if k in cut)
        message = (
            f"{sum(cut.values())} more annotations not shown ({counts}): GitHub shows at most "
            f"{GITHUB_PER_LEVEL} of each level per step and {GITHUB_PER_JOB} per job. The whole "
            "report: run with --format sarif --output FILE (code scanning) or --format json"
        )
        out.append(_command("warning", {"title": "orchestrate: annotations cut"}, message))
    out.append(escape_data(verdict(report)))
    return "\n".join(out) + "\n"


def _gate_lines(report: Report) -> list[str]:
    """An evaluated gate's reasons and recovery steps, raw; none when not evaluated."""
    if report.gate.decision == GateDecision.NOT_EVALUATED:
        return []
    return [*report.gate.reasons, *(f"to recover: {r}" for r in report.gate.recovery)]


def _concise_text(text: object) -> str:
    return _DIGIT_COLON.sub(r"\\x3a", printable(text))


def concise_line(f: Finding) -> str:
    """`path:line:col: severity rule message` for one finding (line and column 1 when
    the tool gave none)."""
    marks = _marks(f).strip()
    message = (marks + " " if marks else "") + (f.message or f.rule)
    return (
        f"{_concise_text(f.path)}:{f.line or 1}:{f.column or 1}: {word(f)} "
        f"{_concise_text(rule_label(f.checker, f.rule)).replace(' ', chr(92) + 'x20')} "
        f"{_concise_text(message)}"
    )


def concise(report: Report) -> str:
    """One line per finding, one per gap group (`not checked: ...`), then the verdict."""
    from orchestrator.render.human import verdict

    out = [concise_line(f) for f in listed(report.findings, collapsed(report))]
    out += [f"not checked: {_concise_text(g.text())}" for g in gap_groups(report)]
    if nothing := nothing_count(report):
        out.append(_concise_text(nothing_text(nothing)))
    out += [f"gate: {_concise_text(r)}" for r in _gate_lines(report)]
    out.append(_concise_text(verdict(report)))
    return "\n".join(out) + "\n"


def _json_line(obj: dict[str, Any]) -> str:
    return json_inert(json.dumps(obj, ensure_ascii=True, separators=(",", ":")))


def jsonl(report: Report) -> str:
    """One JSON object per finding and per not-checked scope, then a summary object."""
    from orchestrator.decisions.coverage import unchecked

    gaps = unchecked(report)
    out = [_json_line({"type": "finding", **f.model_dump(mode="json")}) for f in report.findings]
    out += [_json_line({"type": "not_checked", **s.model_dump(mode="json")}) for s in gaps]
    summary = report.model_dump(mode="json", exclude={"scopes", "findings"})
    summary |= {"findings": len(report.findings), "not_checked": len(gaps)}
    out.append(_json_line({"type": "summary", **summary}))
    return "\n".join(out) + "\n"


__all__ = ["concise", "concise_line", "escape_data", "escape_property", "github", "jsonl"]
