"""The three hygiene operations as plain functions: check, clean, undo.

The hygiene use case (usecases/hygiene.py) and tests call these; they return data, never print.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orchestrator.errors import UsageError
from orchestrator.hygiene import apply as engine
from orchestrator.hygiene import finalize, journal, rulebook, scan, summary, validate
from orchestrator.hygiene.hygiene_report import Entry, HygieneReport
from orchestrator.model.edits import tier_for_fix
from orchestrator.model.report import Report
from orchestrator.workspace import atomic_write, locked, workspace_dir

DEFAULT_REPORT = Path("runs") / "hygiene-report.json"


def default_report_path(root: Path) -> Path:
    return workspace_dir(root) / DEFAULT_REPORT


@dataclass
class CheckResult:
    report: HygieneReport
    notes: list[str] = field(default_factory=list)


def check(root: Path, plugins: Any = None, now: str | None = None) -> CheckResult:
    """Scan, classify (hook), finalize. Raises rulebook.RulebookError for a bad rulebook."""
    root = root.resolve()
    extra = plugins.hygiene_rules() if plugins is not None else []
    cfg = rulebook.load_config(root, extra)
    classifier = None
    if plugins is not None and plugins.pm.hook.orchestrate_classify.get_hookimpls():
        classifier = plugins.classify
    unsafe: list[str] = []
    raw = scan.scan(root, cfg, classifier=classifier, now=now, unsafe=unsafe)
    conventions, problem = finalize.load_conventions(root / cfg.conventions)
    notes = [problem] if problem else []
    notes += [f"not scanned (a name no op may touch): {name}" for name in unsafe[:5]]
    if len(unsafe) > 5:
        notes.append(f"not scanned: {len(unsafe) - 5} more such names")
    return CheckResult(finalize.finalize(raw, conventions), notes)


def write_report(report: HygieneReport, path: Path) -> None:
    """Write the report JSON atomically."""
    atomic_write(path, (json.dumps(report_json(report), indent=2) + "\n").encode())


def report_json(report: HygieneReport) -> dict[str, Any]:
    """The report as JSON data; unset optional fields are omitted (a temporary
    lifecycle has no served field at all), the seven envelope keys are always there."""
    return report.model_dump(mode="json", exclude_none=True)


@dataclass
class CleanResult:
    outcome: engine.Outcome | None
    reasons: list[str] = field(default_factory=list)  # why the report was refused
    summary: list[summary.Row] = field(default_factory=list)  # per tier and rule, before
    lint_report: bool = False  # the report applied was a lint report (`fix`)


def lint_entries(report: Report) -> list[Entry]:
    """Findings with an exact edit, as apply-engine entries (id = fingerprint)."""
    out = []
    for f in report.findings:
        if f.exact_edit is None:
            continue
        # The tier is derived, never taken from the plugin (model/edits.tier_for_fix):
        # an absent claim counts as its conservative value.
        op_type = f.op_type or "deterministic"
        out.append(
            Entry(
                id=f.fingerprint or scan.entry_id(f.exact_edit.kind, f.path, f.exact_edit.anchor),  # type: ignore[union-attr]
                path=f.path,
                op_type=op_type,
                exact_edit=f.exact_edit,
                is_destructive=f.is_destructive is not False,
                is_reversible=f.is_reversible is True,
                safety_tier=tier_for_fix(
                    op_type, f.exact_edit.kind, f.is_destructive, f.is_reversible
                ),
                reason=f"{f.checker}:{f.rule}",
            )
        )
    return out


def _refuse_linked_workspace(root: Path) -> None:
    # The journal must live inside the project, where no op can reach it: a symlinked
    # .orchestrate (or journal folder) would put journal writes and undo reads elsewhere.
    for rel in (".orchestrate", ".orchestrate/journal"):
        if (root / rel).is_symlink():
            raise UsageError(f"{rel} is a symlink: refusing to keep the undo journal there")


def clean(root: Path, report_path: Path, opts: engine.Options, plugins: Any = None) -> CleanResult:
    """Validate the report (refuse with reasons), then apply it under the workspace lock.

    Raises UsageError when .orchestrate/ (where the journal lives) is a symlink.
    A real run first removes the temporaries an interrupted earlier run left behind.
    Before any op runs, `opts.announce` (when set) gets the summary per tier and rule.
    """
    data, reasons = validate.read_json(report_path)
    if reasons:
        return CleanResult(None, reasons)
    report, reasons = validate.validate_any(data)
    if report is None:
        return CleanResult(None, reasons)
    reasons = validate.project_root_reasons(report.scan.project_root, root)
    if isinstance(report, HygieneReport):
        reasons += validate.destination_reasons(report, root)
    if reasons:
        return CleanResult(None, reasons)
    entries = report.entries if isinstance(report, HygieneReport) else lint_entries(report)
    # A hygiene report's span edits all answer to the scope rule (a lint fix does not).
    opts = dataclasses.replace(opts, scope_rule=isinstance(report, HygieneReport))
    gen_ts = scan.parse_time(report.generated_at)
    _refuse_linked_workspace(root.resolve())
    with locked(root.resolve(), "hygiene"):
        if not opts.dry_run:
            journal.clean_stray_temporaries(root.resolve())
        # The engine counts the summary with the tiers it will use and announces it
        # before the first op.
        outcome = engine.apply(root, entries, gen_ts, opts, plugins, report.generated_at)
    return CleanResult(
        outcome, summary=outcome.summary, lint_report=not isinstance(report, HygieneReport)
    )


def undo(root: Path, run_id: str) -> list[tuple[str, str, str]]:
    """Restore every change of run `run_id`, after removing stray temporaries of earlier
    interrupted runs. Raises FileNotFoundError for an unknown run and UsageError for a
    journal that fails validation (refused whole, nothing touched)."""
    root = root.resolve()
    _refuse_linked_workspace(root)
    with locked(root, "hygiene"):
        jr = journal.Journal.open(root, run_id)
        journal.clean_stray_temporaries(root)
        return jr.undo()
