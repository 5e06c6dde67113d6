"""Validate a report on load: schema first, then the rules the schema cannot say.

Used by `orchestrate report validate FILE` and by every consumer (clean, fix) before it
acts. A report is untrusted input: its paths must stay inside the project, its
recorded tiers must equal the derivation, and it is read with a size bound.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from orchestrator.hygiene import dedupe, paths
from orchestrator.hygiene.finalize import entry_tier
from orchestrator.hygiene.hygiene_report import SCHEMA_VERSION, HygieneReport
from orchestrator.hygiene.scan import parse_time
from orchestrator.model.edits import (
    KIND_CHARACTER,
    LIFECYCLE_KINDS,
    tier_for_fix,
)
from orchestrator.model.report import READABLE_SCHEMAS as LINT_SCHEMAS
from orchestrator.model.report import Report

MAX_REPORT_BYTES = 64 * 1024 * 1024
#: How far generated_at may lie ahead of our clock (file-system timestamp granularity).
#: Any more and the mtime guard ("changed since the check") would be switched off.
FUTURE_SLACK_S = 2.0


def safe_rel_path(path: str) -> str | None:
    """Why `path` may not be touched by any op, or None when it may (paths.path_problem)."""
    return paths.path_problem(path)


def _pydantic_reasons(exc: ValidationError) -> list[str]:
    out = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"])
        out.append(f"{loc}: {err['msg']}" if loc else str(err["msg"]))
    return out


def read_json(path: Path) -> tuple[Any, list[str]]:
    """Parse a JSON file with a size bound on what is read (a pipe, a device or a file
    that grows is bounded as a regular one is); (data, reasons)."""
    try:
        if path.stat().st_size > MAX_REPORT_BYTES:  # refused unread
            return None, [f"report larger than {MAX_REPORT_BYTES} bytes"]
        with path.open("rb") as f:
            body = f.read(MAX_REPORT_BYTES + 1)
        if len(body) > MAX_REPORT_BYTES:
            return None, [f"report larger than {MAX_REPORT_BYTES} bytes"]
        return json.loads(body), []
    except RecursionError:
        return None, ["report nested too deeply to read"]
    except OSError as exc:
        return None, [f"cannot read report: {exc.strerror or type(exc).__name__}"]
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return None, [f"not JSON: {exc}"]


def is_hygiene(data: Any) -> bool:
    return isinstance(data, dict) and ("entries" in data or "shortlist" in data)


def validate_hygiene(data: Any) -> tuple[HygieneReport | None, list[str]]:
    """(report, []) when valid, else (None, reasons)."""
    if not isinstance(data, dict):
        return None, ["report is not a JSON object"]
    try:
        report = HygieneReport.model_validate(data)
    except ValidationError as exc:
        return None, _pydantic_reasons(exc)
    except RecursionError:
        return None, ["report nested too deeply to validate"]
    reasons = envelope_reasons(report.schema_version, SCHEMA_VERSION, report.generated_at)
    seen: set[str] = set()
    for i, e in enumerate(report.entries):
        where = f"entries.{i}"
        if e.id in seen:
            reasons.append(f"{where}.id: duplicate id {e.id}")
        seen.add(e.id)
        reasons += _path_reasons(where, e.path, e.exact_edit)
        edit = e.exact_edit
        if edit is None:
            if e.op_type != "generative":
                reasons.append(f"{where}.exact_edit: a deterministic op needs an exact_edit")
        else:
            if (e.is_destructive, e.is_reversible) != KIND_CHARACTER[edit.kind]:
                reasons.append(
                    f"{where}: is_destructive/is_reversible do not match kind {edit.kind}"
                )
            reasons += _anchor_reasons(where, edit)
            if edit.kind in LIFECYCLE_KINDS and e.lifecycle not in (None, edit.lifecycle):  # type: ignore[union-attr]
                reasons.append(f"{where}.lifecycle: differs from the exact_edit's lifecycle")
        reasons += _placement_reasons(where, e)
        reasons += _self_move_reasons(where, e)
        if e.safety_tier != entry_tier(e):
            reasons.append(
                f"{where}.safety_tier: recorded {e.safety_tier}, derivation gives {entry_tier(e)}"
            )
    for i, item in enumerate(report.shortlist):
        if (why := safe_rel_path(item.path)) is not None:
            reasons.append(f"shortlist.{i}.path: unsafe path ({why})")
        if item.entry_id is not None and item.entry_id not in seen:
            reasons.append(f"shortlist.{i}.entry_id: no entry {item.entry_id}")
    return (None, reasons) if reasons else (report, [])


def envelope_reasons(version: str, known: str | tuple[str, ...], generated_at: str) -> list[str]:
    """Why a report's envelope cannot be trusted: a schema we do not know (`known`: the
    one, or the ones, we read), or a generated_at that is not a timestamp or lies in the
    future (it would switch the mtime guard off)."""
    out = []
    readable = (known,) if isinstance(known, str) else known
    if version not in readable:
        out.append(
            f"schema_version: {version[:20]!r} is not one we know (expected {' or '.join(readable)})"
        )
    try:
        ts = parse_time(generated_at)
    except ValueError:
        return [*out, "generated_at: not an ISO-8601 UTC timestamp"]
    if ts > time.time() + FUTURE_SLACK_S:
        out.append(
            "generated_at: lies in the future (the changed-since-check guard needs the real time)"
        )
    return out


def project_root_reasons(recorded: str, root: Path) -> list[str]:
    """Why a report recorded for `recorded` must not be applied to `root`: it names an
    existing folder that is another project. A root that does not exist here (a report
    made in another checkout, e.g. by CI) is not refused: every op path is relative."""
    try:
        real = Path(recorded).resolve(strict=True) if Path(recorded).is_absolute() else None
    except (OSError, RuntimeError, ValueError):
        return []
    if real is None or real == root.resolve():
        return []
    return ["scan.project_root: the report was made for another project, not this one"]


def _path_reasons(where: str, path: str, edit: Any) -> list[str]:
    out = []
    if (why := safe_rel_path(path)) is not None:
        out.append(f"{where}.path: unsafe path ({why})")
    for field in ("dest_path", "target_document"):  # every path field of every kind
        value = getattr(edit, field, None)
        if value is not None and (why := safe_rel_path(value)) is not None:
            out.append(f"{where}.exact_edit.{field}: unsafe path ({why})")
    ref = getattr(edit, "canonical_ref", None)
    if ref is not None:
        parsed = dedupe.parse_ref(ref)
        if parsed is None:
            out.append(f"{where}.exact_edit.canonical_ref: expected path#Lstart-Lend")
        elif (why := safe_rel_path(parsed[0])) is not None:
            out.append(f"{where}.exact_edit.canonical_ref: unsafe path ({why})")
    return out


def _anchor_reasons(where: str, edit: Any) -> list[str]:
    """A delete or extract-then-delete removes the whole path, so seed 000 has it carry a
    full-file (or whole-directory) anchor: `whole` set, from line 1. A partial-line anchor
    would let a report that names a few lines delete the whole file (the apply step
    removes the path, not the lines), so it is refused, never reinterpreted."""
    if edit.kind not in LIFECYCLE_KINDS:
        return []
    anchor = edit.anchor
    if anchor.whole and anchor.start_line == 1:
        return []
    return [
        f"{where}.exact_edit.anchor: a {edit.kind} needs a full-file anchor "
        '(start_line 1, "whole": true); this one names lines '
        f"{anchor.start_line}-{anchor.end_line} only"
    ]


def _self_move_reasons(where: str, e: Any) -> list[str]:
    """A move-to-archive onto its own path writes the archive, then the rest of the
    same file over it: the moved text is kept nowhere. Refused when the two spellings
    are one path, or may be one file on a case-insensitive or normalising file system
    (`Notes.md`, `notes.md`, NFC and NFD forms). Spellings through `..` or `./` are
    already refused as not canonical (`_path_reasons`); links are judged on disk, by
    `destination_reasons`."""
    edit = e.exact_edit
    if edit is None or edit.kind != "move-to-archive" or safe_rel_path(edit.dest_path):
        return []
    if edit.dest_path == e.path or paths.folded(edit.dest_path) == paths.folded(e.path):
        return [f"{where}.exact_edit.dest_path: the archive is the file it moves text out of"]
    return []


def destination_reasons(report: HygieneReport, root: Path) -> list[str]:
    """Why a move-to-archive's `dest_path` must not be written under `root`: it exists
    and is the moved file itself (a hard link, or the same file under another case on
    a case-insensitive file system), or it or a folder on the way is a symlink (a
    symlink's target is decided by whoever wrote it, not by the report). Lexically
    unsafe paths were refused before (`validate_hygiene`)."""
    reasons: list[str] = []
    for i, e in enumerate(report.entries):
        edit = e.exact_edit
        if edit is None or edit.kind != "move-to-archive":
            continue
        if safe_rel_path(edit.dest_path) or safe_rel_path(e.path):
            continue
        where = f"entries.{i}.exact_edit.dest_path"
        cur = root
        linked = False
        for part in edit.dest_path.split("/"):
            cur = cur / part
            if cur.is_symlink():
                linked = True
                break
        if linked:
            reasons.append(f"{where}: a symlink on the way to the archive")
            continue
        source, dest = root / e.path, root / edit.dest_path
        try:
            same = dest.exists() and source.exists() and os.path.samefile(source, dest)
        except OSError:
            same = False  # vanished or unreadable: the apply step judges it again
        if same:
            reasons.append(f"{where}: the archive is the file it moves text out of")
    return reasons


def _placement_reasons(where: str, e: Any) -> list[str]:
    """A dedupe never keeps its copy in the lines it removes; a recorded `kept_in` must
    agree with the entry itself: "same-file" exactly when the copy is in its own path."""
    ev = e.evidence
    edit = e.exact_edit
    if edit is not None and edit.kind == "dedupe" and dedupe.self_overlap(e.path, edit):
        return [f"{where}.exact_edit.canonical_ref: overlaps the span it removes"]
    if ev is None or ev.kept_in is None:
        return []
    if edit is None or edit.kind != "dedupe":
        return [f"{where}.evidence.kept_in: only a dedupe keeps a copy"]
    ref = dedupe.parse_ref(edit.canonical_ref)
    same = ref is not None and ref[0] == e.path
    if (ev.kept_in == "same-file") != same:
        return [f"{where}.evidence.kept_in: {ev.kept_in} does not match the canonical_ref"]
    return []


def validate_lint(data: Any) -> tuple[Report | None, list[str]]:
    """Validate a lint report: schema, safe paths, recorded fix tiers equal the derivation."""
    try:
        report = Report.model_validate(data)
    except ValidationError as exc:
        return None, _pydantic_reasons(exc)
    except RecursionError:
        return None, ["report nested too deeply to validate"]
    reasons = envelope_reasons(report.schema_version, LINT_SCHEMAS, report.generated_at)
    for i, f in enumerate(report.findings):
        if f.exact_edit is None:
            continue
        reasons += _path_reasons(f"findings.{i}", f.path, f.exact_edit)
        reasons += _anchor_reasons(f"findings.{i}", f.exact_edit)
        if f.safety_tier is not None:
            derived = tier_for_fix(f.op_type, f.exact_edit.kind, f.is_destructive, f.is_reversible)
            if derived != f.safety_tier:
                reasons.append(
                    f"findings.{i}.safety_tier: recorded {f.safety_tier}, derivation gives {derived}"
                )
    return (None, reasons) if reasons else (report, [])


def validate_any(data: Any) -> tuple[HygieneReport | Report | None, list[str]]:
    """Validate a hygiene report or a lint report, whichever `data` is."""
    if is_hygiene(data):
        return validate_hygiene(data)
    if isinstance(data, dict) and ("findings" in data or "scopes" in data):
        return validate_lint(data)
    return None, ["neither a hygiene report (entries, shortlist) nor a lint report (findings)"]
