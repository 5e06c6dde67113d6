"""Human (and JSON) presentation of check and clean results. Paths and reasons are shown
escaped (safetext.printable) and bounded; the JSON keeps the exact values."""

from __future__ import annotations

import os
import shlex
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from orchestrator.hygiene.apply import Outcome
from orchestrator.hygiene.hygiene_report import Entry, HygieneReport
from orchestrator.hygiene.summary import Row
from orchestrator.safetext import printable

_MAX_LABEL = 128


def label(text: str) -> str:
    """A path or reason made safe to print: control characters escaped (safetext), bounded length."""
    clean = printable(text)
    return clean if len(clean) <= _MAX_LABEL else clean[: _MAX_LABEL - 1] + "…"


def _kind(e: Entry) -> str:
    return e.exact_edit.kind if e.exact_edit is not None else "generative"


def check_text(report: HygieneReport, out: Path, notes: list[str]) -> str:
    """A table per tier, the shortlist's other statuses, and what clean would do."""
    lines = [
        f"hygiene check: {report.scan.files_scanned} files scanned, {len(report.entries)} entries"
    ]
    for tier, doing in (
        ("auto", "clean applies without a prompt"),
        ("confirm", "clean waits for approval"),
    ):
        rows = [e for e in report.entries if e.safety_tier == tier]
        lines.append(f"\n{tier} ({len(rows)}): {doing}")
        for e in rows:
            lines.append(f"  {e.id}  {_kind(e):<20} {label(e.path)}  - {label(e.reason)}")
    kept = [i for i in report.shortlist if i.status != "candidate"]
    if kept:
        lines.append(f"\nleft in place ({len(kept)}):")
        for i in kept:
            lines.append(f"  {i.status:<11} {label(i.path)}  (rule {label(i.lifecycle.rule_ref)})")
    if report.promotion_candidates:
        lines.append("\nconventions worth adopting:")
        for c in report.promotion_candidates:
            lines.append(f"  {label(c.convention)} for {label(c.path)}: {label(c.pitch)}")
    for note in notes:
        lines.append(f"\nnote: {label(note)}")
    lines.append(f"\nreport: {label(str(out))}")
    if report.entries:
        lines.append("next: orchestrate clean --dry-run, then orchestrate clean [--approve ID ...]")
    return "\n".join(lines)


def prompt_line(entry: Entry, why: str) -> str:
    return f"apply {entry.id} {_kind(entry)} {label(entry.path)} ({label(why)})? [y/N] "


@dataclass(frozen=True)
class ApproveHint:
    """What the approval hint of a clean or fix run must name so that it works: the
    command that ran (`clean` or `fix`), the report as the user named it (None: clean's
    default report), whether it is a lint report, and the root and cwd the command is
    run from (a re-lint names its files relative to the cwd)."""

    command: str = "clean"
    report: str | None = None
    lint_report: bool = False
    root: Path | None = None
    cwd: Path | None = None
    root_arg: str | None = None


def _where(hint: ApproveHint, rel: str) -> str:
    if hint.root is None or hint.cwd is None:
        return rel
    return os.path.relpath(hint.root / rel, hint.cwd)


def approve_lines(outcome: Outcome, hint: ApproveHint) -> list[str]:
    """The commands that apply the ops `outcome` left pending approval.

    An op pending in a file this run changed cannot be approved from the same report
    any more (its mtime guard skips it as changed since the check): for those the hint
    is a fresh run instead - a re-lint with the confirm-tier fixes for a lint report,
    a new check for a hygiene report.
    """
    pending = [r for r in outcome.results if r.status == "pending"]
    if not pending:
        return []
    changed = {r.path for r in outcome.results if r.status == "applied"}
    fresh = [r.id for r in pending if r.path not in changed]
    stale = sorted({r.path for r in pending if r.path in changed})
    root = f" --root {shlex.quote(hint.root_arg)}" if hint.root_arg else ""
    lines = []
    if fresh:
        report = f" {shlex.quote(hint.report)}" if hint.report else ""
        lines.append(
            f"approve with: orchestrate {hint.command}{report}{root} --approve {' '.join(fresh)}"
        )
    if stale:
        names = " ".join(shlex.quote(_where(hint, p)) for p in stale)
        if hint.lint_report:
            lines.append(
                f"{label(names)} changed in this run, so the report no longer applies there;"
                f" apply the remaining fixes (confirm tier too) with:"
                f" orchestrate lint{root} --fix --unsafe-fixes {names}"
            )
        else:
            lines.append(
                f"{label(names)} changed in this run, so the report no longer applies there;"
                f" check again and approve the new ids with: orchestrate check{root}"
            )
    return lines


def clean_text(outcome: Outcome, dry_run: bool, hint: ApproveHint | None = None) -> str:
    """One line per op, diffs for dry runs, the run id to undo, and the commands that
    apply what is pending approval (`hint`: how this run was asked for)."""
    lines = []
    for r in outcome.results:
        status = r.status.replace("_", " ")
        tail = f": {label(r.reason)}" if r.reason else ""
        lines.append(f"{status:<12} {r.id}  {r.kind:<20} {label(r.path)} [{r.tier}]{tail}")
        if dry_run and r.diff:
            lines.append(r.diff.rstrip("\n"))
    if not outcome.results:
        lines.append("nothing to clean")
    if outcome.run_id:
        lines.append(
            f"\nrun {outcome.run_id}: undo with `orchestrate clean --undo {outcome.run_id}`"
        )
    lines += approve_lines(outcome, hint or ApproveHint())
    return "\n".join(lines)


def _n(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def summary_text(rows: list[Row], dry_run: bool) -> str:
    """Per tier and rule: ops, files and lines the clean will change (or ask about)."""
    if not rows:
        return ""
    head = "clean would change" if dry_run else "clean will change"
    lines = [f"{head} (per tier and rule):"]
    for tier, doing in (("auto", "without a prompt"), ("confirm", "once approved")):
        mine = [r for r in rows if r.tier == tier]
        if not mine:
            continue
        files = sum(r.files for r in mine)
        total = sum(r.lines for r in mine)
        lines.append(f"  {tier} ({doing}): {_n(files, 'file')}, {_n(total, 'line')}")
        for r in mine:
            lines.append(
                f"    {label(r.rule):<20} {_n(r.ops, 'op'):>7}  {_n(r.files, 'file'):>8}"
                f"  {_n(r.lines, 'line'):>9}"
            )
    return "\n".join(lines) + "\n"


def clean_json(outcome: Outcome, rows: list[Row] | None = None) -> dict[str, Any]:
    return {
        "run_id": outcome.run_id,
        "summary": [asdict(r) for r in rows or []],
        "results": [asdict(r) for r in outcome.results],
    }


def undo_text(rows: list[tuple[str, str, str]]) -> str:
    return "\n".join(f"{outcome:<12} {op_id}  {label(path)}" for op_id, path, outcome in rows)
