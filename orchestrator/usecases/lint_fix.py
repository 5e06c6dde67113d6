"""`lint --fix` / `--diff`: apply the lint's own fixes, re-lint, repeat until stable.

Every edit goes through the one edit engine (hygiene/apply.py) with the tiers it
derives (model/edits.tier_for_fix) and its undo journal: all rounds of one `--fix`
share one journal, so `orchestrate clean --undo RUN_ID` restores them all. A fix is
guarded by the content digest of the file the checker judged (not by git
cleanliness): a file being edited can be fixed, and a file whose bytes changed since
the checker read them is skipped with that reason.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.hygiene import apply as engine
from orchestrator.hygiene import content, journal
from orchestrator.hygiene.hygiene_report import Entry
from orchestrator.hygiene.service import lint_entries
from orchestrator.model.report import Report
from orchestrator.workspace import locked

#: At most this many fix rounds (each: lint the fixable files, apply, re-lint).
MAX_ROUNDS = 5

Runner = Callable[[LintRequest], Report]


@dataclass
class FixOutcome:
    """What `--fix` / `--diff` did: one result per op over every round, and the diff."""

    rounds: int = 0
    results: list[engine.Result] = field(default_factory=list)
    run_id: str | None = None
    diff: str = ""
    #: The round bound was reached while fixes were still being applied.
    bound_hit: bool = False
    #: Confirm-tier fixes left alone because `--unsafe-fixes` was not given.
    held: int = 0

    @property
    def applied(self) -> list[engine.Result]:
        """The ops written (or, for `--diff`, that would be)."""
        return [r for r in self.results if r.status in ("applied", "would_apply")]

    def notes(self) -> list[str]:
        """Report notes saying what the fix run did, skipped and left alone."""
        verb = "would apply" if self.results and not self.run_id else "applied"
        out = [f"fix: {verb} {len(self.applied)} fix(es) in {self.rounds} round(s)"]
        if self.run_id:
            out[0] += f"; undo with `orchestrate clean --undo {self.run_id}`"
        if self.bound_hit:
            out.append(
                f"fix: stopped after {MAX_ROUNDS} rounds while fixes still applied; "
                "run `lint --fix` again"
            )
        later = 0
        for r in self.results:
            if r.status in ("skipped", "not_applied") and r.reason == engine.OVERLAPS:
                later += 1  # the next round re-lints and applies it
            elif r.status in ("skipped", "not_applied"):
                out.append(f"fix skipped in {r.path}: {r.reason}")
        if later and not self.run_id:
            out.append(
                f"fix: {later} more fix(es) overlap these; --fix applies them in later rounds"
            )
        if self.held:
            out.append(
                f"fix: {self.held} confirm-tier fix(es) not applied; `--unsafe-fixes` applies them"
            )
        return out


def _digests(root: Path, paths: Iterable[str]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for rel in paths:
        try:
            path = engine.resolve(root, rel)
            out[rel] = content.sha256(path.read_bytes()) if path.is_file() else None
        except Exception:  # noqa: BLE001 - unsafe or unreadable: never fixed
            out[rel] = None
    return out


CHANGED = "changed while it was being checked (content digest differs)"


def _kind(entry: Entry) -> str:
    return entry.exact_edit.kind if entry.exact_edit is not None else "generative"


def _chosen(report: Report, unsafe: bool) -> tuple[list[Entry], frozenset[str], int]:
    """The fix entries of `report` this run may apply, the confirm ids it approves, and
    how many confirm-tier ones it holds back."""
    entries = lint_entries(report)
    confirm = [e for e in entries if e.safety_tier == "confirm"]
    if unsafe:
        return entries, frozenset(e.id for e in confirm), 0
    return [e for e in entries if e.safety_tier == "auto"], frozenset(), len(confirm)


def fix(
    req: LintRequest,
    *,
    write: bool,
    unsafe: bool = False,
    run: Runner = run_lint,
    max_rounds: int = MAX_ROUNDS,
) -> FixOutcome:
    """Apply the fixes of linting `req` through the edit engine, round after round until
    no fix applies or `max_rounds` is reached (then `bound_hit`). With `write` False
    (`--diff`) one round is planned and its unified diff returned, nothing is written.

    Each round lints only the files that had fixes, with their digests taken before
    and after the check: a file that changed meanwhile, or before its fix is written,
    is skipped with the reason. `unsafe` also applies the confirm-tier lint fixes.
    """
    root = req.project_root.resolve()
    out = FixOutcome()
    first = run(req)
    files = sorted({f.path for f in first.findings if f.exact_edit is not None})
    shared: journal.Journal | None = None
    # --diff writes nothing, not even the lock file in .orchestrate/.
    with locked(root, "hygiene") if write else contextlib.nullcontext():
        while files and out.rounds < max_rounds:
            out.rounds += 1
            before = _digests(root, files)
            part = run(
                dataclasses.replace(
                    req, paths=tuple(str(root / p) for p in files), cwd=root, paths_named=True
                )
            )
            after = _digests(root, files)
            stable = {p: d for p, d in after.items() if d is not None and before.get(p) == d}
            entries, approve, out.held = _chosen(part, unsafe)
            for e in entries:
                if e.path not in stable:
                    out.results.append(
                        engine.Result(e.id, e.path, _kind(e), e.safety_tier, "skipped", CHANGED)
                    )
            entries = [e for e in entries if e.path in stable]
            if write and entries and shared is None:
                shared = journal.Journal.create(root, part.generated_at)
            opts = engine.Options(
                approve=approve,
                dry_run=not write,
                require_clean_git=False,
                file_digests=stable,
                journal_run=shared,
            )
            done = engine.apply(root, entries, time.time(), opts, None, part.generated_at)
            out.results += done.results
            applied = [r for r in done.results if r.status in ("applied", "would_apply")]
            if not write:
                out.diff = "".join(
                    engine.file_diff(root, p, b) for p, b in sorted(done.planned.items())
                )
            if not write or not applied:
                break
            files = sorted({r.path for r in applied})
            if out.rounds == max_rounds:
                out.bound_hit = True
    out.run_id = shared.run_id if shared is not None else None
    return out


__all__ = ["MAX_ROUNDS", "FixOutcome", "fix"]
