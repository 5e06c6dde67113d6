"""The findings baseline: `orchestrate baseline` records today's findings by fingerprint
in a committed file, and lint hides the findings it holds (hold the line: only new
findings show).

A fingerprint is the task id of the finding (tasks/store.py: checker, rule, path, the
digest of the whitespace-normalised line text, and the occurrence among identical
ones), so it survives the finding's line moving. Findings of policy checkers (the
secret scan) are never recorded nor hidden: they have their own reviewed allowlist.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from orchestrator.model.report import Finding, Report
from orchestrator.model.rows import without
from orchestrator.vocab import BASELINE_FILE, Tier
from orchestrator.workspace import atomic_write

BASELINE_VERSION = 1
#: The most fingerprints a baseline file may hold (a larger one is refused, not read).
MAX_ENTRIES = 200_000


class BaselineError(ValueError):
    """The baseline file is not one orchestrate wrote (malformed): nothing is hidden."""


def _policy_pairs(report: Report) -> set[tuple[str, str]]:
    return {(s.path, s.checker) for s in report.scopes if s.tier == Tier.POLICY}


def fingerprints(
    findings: Iterable[Finding], root: Path, contents: Mapping[str, bytes] | None = None
) -> list[tuple[Finding, str]]:
    """Each finding with its line-move-stable fingerprint (its task id: store.anchored),
    the line text read from `contents` or the file under `root`. The task store is
    imported here: a lint of a project without a baseline file never loads it."""
    from orchestrator.tasks.store import anchored, compute_task_id

    return [
        (f, compute_task_id(f.checker, f.rule, f.path, anchor, occ))
        for f, anchor, occ in anchored(findings, root, contents)
    ]


def baseline_data(report: Report, root: Path) -> dict[str, Any]:
    """The baseline of `report` as JSON data: sorted and without line numbers, so the
    file changes only when the findings do."""
    policy = _policy_pairs(report)
    rows = [
        {"id": fp, "checker": f.checker, "rule": f.rule, "path": f.path}
        for f, fp in fingerprints(report.findings, root)
        if (f.path, f.checker) not in policy
    ]
    rows.sort(key=lambda r: (r["path"], r["checker"], r["rule"], r["id"]))
    return {"version": BASELINE_VERSION, "findings": rows}


def write_baseline(report: Report, root: Path) -> tuple[Path, int]:
    """Write the baseline of `report` to `root`/BASELINE_FILE atomically: (path, count)."""
    data = baseline_data(report, root)
    path = root / BASELINE_FILE
    atomic_write(path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode())
    return path, len(data["findings"])


def parse_baseline(data: bytes) -> frozenset[str]:
    """The fingerprints a baseline file holds; BaselineError when it is malformed."""
    try:
        doc = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise BaselineError("not valid JSON") from None
    rows = doc.get("findings") if isinstance(doc, dict) else None
    if doc.get("version") != BASELINE_VERSION or not isinstance(rows, list):  # type: ignore[union-attr]
        raise BaselineError(f"not a version {BASELINE_VERSION} baseline")
    if len(rows) > MAX_ENTRIES:
        raise BaselineError(f"more than {MAX_ENTRIES} entries")
    ids = [r.get("id") if isinstance(r, dict) else None for r in rows]
    if not all(isinstance(i, str) for i in ids):
        raise BaselineError("an entry has no id")
    return frozenset(ids)  # type: ignore[arg-type]


def hide_baselined(
    report: Report,
    root: Path,
    ids: frozenset[str],
    where: str = BASELINE_FILE,
    contents: Mapping[str, bytes] | None = None,
) -> int:
    """Remove from `report` the findings whose fingerprint `ids` holds and add a note
    saying how many were hidden; returns that count."""
    if not ids or not report.findings:
        return 0
    policy = _policy_pairs(report)
    pairs = fingerprints(report.findings, root, contents)
    drop = [(f.path, f.checker) not in policy and fp in ids for f, fp in pairs]
    if any(drop):
        if isinstance(report.findings, list):  # the same objects as in `pairs`
            hidden = {id(f) for (f, _fp), d in zip(pairs, drop, strict=True) if d}
            report.findings = [f for f in report.findings if id(f) not in hidden]
        else:  # rows read back from disk: in report order, which `anchored` keeps
            report.findings = without(report.findings, (i for i, d in enumerate(drop) if d))  # type: ignore[assignment]
        report.notes.append(
            f"baseline: {sum(drop)} finding(s) recorded in {where} hidden; "
            "`lint --no-baseline` shows them"
        )
    return sum(drop)


def apply_local_baseline(report: Report, root: Path) -> int:
    """Hide the findings the project's own baseline file holds (a plain lint; a strict
    gate reads the base's copy instead). A malformed file hides nothing and says so."""
    path = root / BASELINE_FILE
    try:
        data = path.read_bytes()
    except OSError:
        return 0
    try:
        ids = parse_baseline(data)
    except BaselineError as exc:
        report.notes.append(f"baseline {BASELINE_FILE} ignored: {exc}")
        return 0
    return hide_baselined(report, root, ids)
