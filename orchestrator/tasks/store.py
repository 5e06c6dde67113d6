"""Task records with stable ids: one reviewable JSON file per task in `.orchestrate/tasks/`.

Every blocking or error finding of a report becomes a task. Its id is `T-` plus a
short digest of checker, rule, path and an anchor that does not depend on the line
number (the whitespace-normalized text of the finding's line, and its occurrence
index among identical anchors), so inserting lines above a finding keeps its id.

Records are written atomically under the `tasks` file lock. A record that fails to
parse is moved to `.orchestrate/quarantine/` with a reason file, never silently
dropped or overwritten.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from orchestrator.decisions.findings import is_task_worthy
from orchestrator.model.report import Finding, Report, ToolIdentity, utc_now
from orchestrator.workspace import atomic_write, atomic_write_many, locked, workspace_dir

TASKS_DIR = "tasks"
QUARANTINE_DIR = "quarantine"
LOCK_NAME = "tasks"
RECORD_SCHEMA = "orchestrate.task/1"
#: Safe task id: what may be shown to an agent or put on a command line.
TASK_ID_RE = re.compile(r"^T-[0-9a-f]{12}$")
#: A checker name we are willing to pass to `lint --only`.
CHECKER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
MAX_MESSAGE = 500
MAX_ATTEMPTS = 50
MAX_RECORD_BYTES = 256 * 1024
MAX_SOURCE_BYTES = 16 * 1024 * 1024

Status = Literal["open", "verification_required", "closed"]
RESOLUTIONS = ("fixed", "false_positive", "wont_fix", "duplicate", "obsolete")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Basis(_Model):
    """What the finding was about; `anchor` is a digest of its normalized line text."""

    checker: str
    rule: str
    path: str
    line: int | None = None
    column: int | None = None
    severity: str = "error"
    anchor: str = ""
    occurrence: int = 0


class CheckerIdentity(_Model):
    """The original checker that produced the finding, and the config it ran with."""

    checker: str
    tool: ToolIdentity | None = None
    config_digest: str | None = None


class UntrustedText(_Model):
    """Free text from a tool: stored for humans, never forwarded or executed."""

    text: str = ""
    untrusted: Literal[True] = True


class Attempt(_Model):
    """One observation about the task: a lint run that saw it, a recheck, a close."""

    at: str
    kind: str  # seen | verify | close | reopen
    outcome: str
    reason: str | None = None
    tool: ToolIdentity | None = None


class TaskRecord(_Model):
    schema_: str = Field(default=RECORD_SCHEMA, alias="schema")
    id: str
    status: Status = "open"
    resolution: str | None = None
    basis: Basis
    identity: CheckerIdentity
    #: Literal argv of the original-checker recheck (informational; `task verify`
    #: rebuilds it from the validated basis and never executes this field).
    recheck_argv: list[str] = Field(default_factory=list)
    verify_command: list[str] = Field(default_factory=list)
    message: UntrustedText = Field(default_factory=UntrustedText)
    created_at: str = Field(default_factory=utc_now)
    updated_at: str = Field(default_factory=utc_now)
    last_seen_at: str | None = None
    attempts: list[Attempt] = Field(default_factory=list)

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def is_open(self) -> bool:
        return self.status != "closed"


@dataclass(frozen=True)
class Quarantined:
    """A record that failed to parse, moved aside with its reason."""

    name: str
    reason: str


@dataclass
class TaskListing:
    tasks: list[TaskRecord] = field(default_factory=list)
    quarantined: list[Quarantined] = field(default_factory=list)


@dataclass(frozen=True)
class SyncResult:
    created: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    reopened: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()

    @property
    def task_ids(self) -> tuple[str, ...]:
        """Every task the report's findings map to."""
        return self.created + self.updated + self.reopened + self.unchanged


# --- ids -----------------------------------------------------------------------


def normalize_anchor_text(text: str) -> str:
    """Collapse all whitespace so re-indenting or trailing spaces keep the anchor."""
    return " ".join(text.split())


def anchor_digest(line_text: str | None) -> str:
    """Digest of the normalized line text ('' for a file-level finding)."""
    if line_text is None:
        return ""
    norm = normalize_anchor_text(line_text)
    return hashlib.sha256(norm.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def compute_task_id(checker: str, rule: str, path: str, anchor: str, occurrence: int) -> str:
    """`T-` + 12 hex digits over (checker, rule, path, anchor digest, occurrence index)."""
    raw = "\x1f".join((checker, rule, path, anchor, str(occurrence)))
    return "T-" + hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()[:12]


def is_safe_task_id(value: object) -> bool:
    """True when `value` is a well-formed task id (safe to print and pass as an argument)."""
    return isinstance(value, str) and bool(TASK_ID_RE.match(value))


class _RealPaths:
    """Real paths under one project root, each folder resolved once for its files (a
    file that is itself a symlink is resolved in full)."""

    def __init__(self, project_root: Path) -> None:
        self.root = os.path.realpath(project_root)
        self.prefix = self.root.rstrip(os.sep) + os.sep
        self.folders: dict[str, str] = {}

    def inside(self, path: str) -> str | None:
        """The real path of project path `path`, or None when it resolves outside."""
        folder, name = os.path.split(os.path.join(self.root, path))
        real_folder = self.folders.get(folder)
        if real_folder is None:
            real_folder = self.folders[folder] = os.path.realpath(folder)
        full = os.path.join(real_folder, name)
        if os.path.islink(full) or name in ("", ".", ".."):
            full = os.path.realpath(full)
        return full if full.startswith(self.prefix) else None


def read_lines(
    project_root: Path, path: str, content: bytes | None = None, paths: _RealPaths | None = None
) -> list[str] | None:
    """The file's lines (decoded leniently), or None if it cannot be read safely (it
    resolves outside the project). `paths` resolves folders once across many calls."""
    if content is None:
        try:
            full = (paths or _RealPaths(project_root)).inside(path)
            if full is None:
                return None
            with open(full, "rb") as fh:
                content = fh.read(MAX_SOURCE_BYTES)
        except (OSError, ValueError):
            return None
    return content.decode("utf-8", "replace").splitlines()


def anchored(
    findings: Iterable[Finding],
    project_root: Path,
    contents: Mapping[str, bytes] | None = None,
) -> list[tuple[Finding, str, int]]:
    """Each finding with its anchor digest and occurrence index, in line order.

    Duplicates (same checker, rule, path and anchor) are told apart by their
    occurrence index in line order, so the result is deterministic and survives the
    finding's line moving (the anchor is the line's text, not its number).
    """
    chosen = sorted(findings, key=lambda f: (f.path, f.line or 0, f.column or 0, f.checker, f.rule))
    lines_cache: dict[str, list[str] | None] = {}
    paths = _RealPaths(project_root)
    seen: dict[tuple[str, str, str, str], int] = {}
    out: list[tuple[Finding, str, int]] = []
    for f in chosen:
        if f.path not in lines_cache:
            blob = contents.get(f.path) if contents else None
            lines_cache[f.path] = read_lines(project_root, f.path, blob, paths)
        lines = lines_cache[f.path]
        text: str | None = None
        if f.line is not None and lines is not None and 1 <= f.line <= len(lines):
            text = lines[f.line - 1]
        elif f.line is not None:
            # Unreadable source: fall back to the line number (less stable, still deterministic).
            text = f"\x00line:{f.line}"
        anchor = anchor_digest(text)
        key = (f.checker, f.rule, f.path, anchor)
        occ = seen.get(key, 0)
        seen[key] = occ + 1
        out.append((f, anchor, occ))
    return out


def assign_ids(
    findings: Iterable[Finding],
    project_root: Path,
    contents: Mapping[str, bytes] | None = None,
) -> list[tuple[Finding, Basis, str]]:
    """Stable ids for the task-worthy findings (decisions.findings), in report order
    (`anchored`: line-move stable, duplicates told apart by occurrence)."""
    out: list[tuple[Finding, Basis, str]] = []
    for f, anchor, occ in anchored(
        (f for f in findings if is_task_worthy(f)), project_root, contents
    ):
        basis = Basis(
            checker=f.checker,
            rule=f.rule,
            path=f.path,
            line=f.line,
            column=f.column,
            severity=str(f.severity),
            anchor=anchor,
            occurrence=occ,
        )
        out.append((f, basis, compute_task_id(f.checker, f.rule, f.path, anchor, occ)))
    return out


def basis_matches_id(record: TaskRecord) -> bool:
    """True when the record's id is the one its basis computes to (record not tampered)."""
    b = record.basis
    return record.id == compute_task_id(b.checker, b.rule, b.path, b.anchor, b.occurrence)


# --- store ---------------------------------------------------------------------


def tasks_dir(project_root: Path, create: bool = True) -> Path:
    return workspace_dir(project_root, create=create) / TASKS_DIR


def _record_path(project_root: Path, task_id: str, create: bool = True) -> Path:
    if not is_safe_task_id(task_id):
        raise ValueError("malformed task id")
    return tasks_dir(project_root, create=create) / f"{task_id}.json"


def parse_record(data: bytes, expected_id: str | None = None) -> TaskRecord:
    """Parse one record; raises ValueError with a short reason when it is not valid."""
    if len(data) > MAX_RECORD_BYTES:
        raise ValueError("record larger than the record budget")
    try:
        rec = TaskRecord.model_validate_json(data)
    except ValidationError as exc:
        raise ValueError(f"invalid task record: {exc.error_count()} validation error(s)") from None
    if not is_safe_task_id(rec.id):
        raise ValueError("malformed task id in record")
    if expected_id is not None and rec.id != expected_id:
        raise ValueError("record id does not match its file name")
    return rec


def _dump(rec: TaskRecord) -> bytes:
    data = rec.model_dump(mode="json", by_alias=True)
    return (json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False) + "\n").encode()


def _quarantine(project_root: Path, src: Path, reason: str) -> Quarantined:
    qdir = workspace_dir(project_root) / QUARANTINE_DIR
    qdir.mkdir(parents=True, exist_ok=True)
    stamp = utc_now().replace(":", "").replace("-", "")
    name = f"{src.name}.{stamp}"
    with contextlib.suppress(FileNotFoundError):
        os.replace(src, qdir / name)
    atomic_write(qdir / f"{name}.reason", (reason + "\n").encode())
    return Quarantined(name=name, reason=reason)


def _read_unlocked(
    project_root: Path, task_id: str, folder: Path | None = None
) -> TaskRecord | None:
    """The record of `task_id` (in `folder`, the tasks folder when the caller has it),
    None when absent or quarantined now."""
    path = folder / f"{task_id}.json" if folder else _record_path(project_root, task_id)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        return parse_record(data, expected_id=task_id)
    except ValueError as exc:
        _quarantine(project_root, path, str(exc))
        return None


def _write_unlocked(project_root: Path, rec: TaskRecord) -> None:
    # Records are meant to be reviewed in the repository: world-readable like sources.
    atomic_write(_record_path(project_root, rec.id), _dump(rec), mode=0o644)


def load_task(project_root: Path, task_id: str) -> TaskRecord | None:
    """The task with this id, or None (malformed id, absent, or quarantined on read)."""
    if not is_safe_task_id(task_id):
        return None
    if not tasks_dir(project_root, create=False).is_dir():
        return None
    with locked(project_root, LOCK_NAME):
        return _read_unlocked(project_root, task_id)


def update_task(
    project_root: Path, task_id: str, change: Callable[[TaskRecord], TaskRecord | None]
) -> TaskRecord | None:
    """Read-modify-write one record under the lock; None if the task does not exist."""
    if not is_safe_task_id(task_id):
        return None
    with locked(project_root, LOCK_NAME):
        rec = _read_unlocked(project_root, task_id)
        if rec is None:
            return None
        new = change(rec) or rec
        new.updated_at = utc_now()
        _write_unlocked(project_root, new)
        return new


def list_tasks(project_root: Path) -> TaskListing:
    """Every parsable record (sorted by id); unparsable ones are quarantined and listed."""
    listing = TaskListing()
    tdir = tasks_dir(project_root, create=False)
    if tdir.is_dir():
        with locked(project_root, LOCK_NAME):
            for entry in sorted(tdir.iterdir()):
                if entry.name.startswith(".") or not entry.name.endswith(".json"):
                    continue
                stem = entry.name[: -len(".json")]
                try:
                    if not is_safe_task_id(stem):
                        raise ValueError("file name is not a task id")
                    if not entry.is_file() or entry.is_symlink():
                        raise ValueError("not a regular file")
                    listing.tasks.append(parse_record(entry.read_bytes(), expected_id=stem))
                except ValueError as exc:
                    listing.quarantined.append(_quarantine(project_root, entry, str(exc)))
                except OSError as exc:
                    listing.quarantined.append(
                        _quarantine(project_root, entry, f"unreadable: {type(exc).__name__}")
                    )
    listing.quarantined.extend(_previous_quarantine(project_root, listing.quarantined))
    return listing


def _previous_quarantine(project_root: Path, fresh: list[Quarantined]) -> list[Quarantined]:
    qdir = workspace_dir(project_root, create=False) / QUARANTINE_DIR
    if not qdir.is_dir():
        return []
    known = {q.name for q in fresh}
    out = []
    for reason_file in sorted(qdir.glob("*.reason"))[:256]:
        name = reason_file.name[: -len(".reason")]
        if name in known:
            continue
        try:
            reason = reason_file.read_text(errors="replace")[:200].strip()
        except OSError:
            reason = "reason unreadable"
        out.append(Quarantined(name=name, reason=reason))
    return out


# --- sync from a report ----------------------------------------------------------


def recheck_argv_for(basis: Basis) -> list[str]:
    """The literal original-checker recheck command a human can run for this basis."""
    return ["orchestrate", "lint", "--only", basis.checker, "--format", "json", "--", basis.path]


def verify_command_for(task_id: str) -> list[str]:
    return ["orchestrate", "task", "verify", task_id]


def _bounded_message(text: str) -> UntrustedText:
    return UntrustedText(text=text[:MAX_MESSAGE])


def add_attempt(rec: TaskRecord, attempt: Attempt) -> None:
    """Append to the attempt history, keeping only the latest MAX_ATTEMPTS."""
    rec.attempts.append(attempt)
    if len(rec.attempts) > MAX_ATTEMPTS:
        del rec.attempts[: len(rec.attempts) - MAX_ATTEMPTS]


def _new_record(
    finding: Finding, basis: Basis, tid: str, identity: CheckerIdentity, now: str
) -> TaskRecord:
    rec = TaskRecord(
        id=tid,
        basis=basis,
        identity=identity,
        recheck_argv=recheck_argv_for(basis),
        verify_command=verify_command_for(tid),
        message=_bounded_message(finding.message),
        created_at=now,
        updated_at=now,
        last_seen_at=now,
    )
    add_attempt(rec, Attempt(at=now, kind="seen", outcome="present", tool=identity.tool))
    return rec


def _refresh(
    rec: TaskRecord, finding: Finding, basis: Basis, identity: CheckerIdentity, now: str
) -> str:
    """Bring an existing record up to the finding seen now; returns "unchanged",
    "reopened" (a `fixed` task whose finding is back) or "updated"."""
    # Field by field, not by serialising the record twice: these four are all a sync
    # sets besides the status below (two JSON dumps per task were most of a re-sync).
    argv = recheck_argv_for(basis)
    message = _bounded_message(finding.message)
    changed = (
        rec.basis != basis
        or rec.identity != identity
        or rec.recheck_argv != argv
        or rec.message != message
    )
    rec.basis = basis
    rec.identity = identity
    rec.recheck_argv = argv
    rec.message = message
    reopened = False
    if rec.status == "closed" and rec.resolution == "fixed":
        rec.status = "open"
        rec.resolution = None
        add_attempt(rec, Attempt(at=now, kind="reopen", outcome="present"))
        reopened = changed = True
    elif rec.status == "verification_required":
        # Seen again by a full run after an absent recheck: open again.
        rec.status = "open"
        add_attempt(rec, Attempt(at=now, kind="seen", outcome="present"))
        changed = True
    if not changed:
        return "unchanged"  # no write, no churn in a reviewable file
    rec.last_seen_at = now
    rec.updated_at = now
    return "reopened" if reopened else "updated"


def sync_tasks(
    report: Report, project_root: Path, contents: Mapping[str, bytes] | None = None
) -> SyncResult:
    """Create or update a task for every blocking or error finding of `report`.

    An existing task gets its latest line and identity (rewritten only when something
    changed, so an unchanged record causes no churn); a task closed as `fixed` whose
    finding is back is reopened. Nothing is ever closed here.
    `contents` maps a path to the bytes that were judged (staged blobs) when they are
    not the worktree file.
    """
    assigned = assign_ids(report.findings, project_root, contents)
    if not assigned:
        return SyncResult()
    seen: dict[str, list[str]] = {"created": [], "updated": [], "reopened": [], "unchanged": []}
    now = utc_now()
    # Only the scopes of these findings: a big run's scopes are read back from disk.
    wanted = {(f.path, f.checker) for f, _basis, _tid in assigned}
    scopes = {(s.path, s.checker): s for s in report.scopes if (s.path, s.checker) in wanted}
    writes: list[tuple[Path, bytes, int | None]] = []
    with locked(project_root, LOCK_NAME):
        folder = tasks_dir(project_root)
        for finding, basis, tid in assigned:
            scope = scopes.get((finding.path, finding.checker))
            identity = CheckerIdentity(
                checker=finding.checker,
                tool=scope.tool if scope else None,
                config_digest=scope.config_digest if scope else None,
            )
            rec = _read_unlocked(project_root, tid, folder)
            if rec is None:
                rec, what = _new_record(finding, basis, tid, identity, now), "created"
            else:
                what = _refresh(rec, finding, basis, identity, now)
            seen[what].append(tid)
            if what != "unchanged":
                # World-readable like sources (as _write_unlocked); made durable together.
                writes.append((folder / f"{tid}.json", _dump(rec), 0o644))
        atomic_write_many(writes)
    return SyncResult(*(tuple(seen[k]) for k in ("created", "updated", "reopened", "unchanged")))


def close_task(project_root: Path, task_id: str, resolution: str) -> TaskRecord | None:
    """Close a task with a resolution kind (a separate, explicit act). None if absent."""
    if resolution not in RESOLUTIONS:
        raise ValueError(f"resolution must be one of {', '.join(RESOLUTIONS)}")

    def change(rec: TaskRecord) -> TaskRecord:
        rec.status = "closed"
        rec.resolution = resolution
        add_attempt(rec, Attempt(at=utc_now(), kind="close", outcome=resolution))
        return rec

    return update_task(project_root, task_id, change)


def record_summary(rec: TaskRecord) -> dict[str, Any]:
    """A safe projection of a record: no tool free text."""
    b = rec.basis
    return {
        "id": rec.id,
        "status": rec.status,
        "resolution": rec.resolution,
        "checker": b.checker,
        "rule": b.rule,
        "path": b.path,
        "line": b.line,
    }
