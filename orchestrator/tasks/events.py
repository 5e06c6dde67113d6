"""Append-only event log with a narrow de-duplication rule.

Events (edit, feedback, delivery, recheck, repair_ready, verify, close...) are JSON
lines in `.orchestrate/events/events.jsonl` (git-ignored runtime state). The log is
bounded: past `MAX_LOG_BYTES` it rotates to one previous generation.

De-duplication merges ONLY a repeated execution of the same snapshot for the
feedback kinds (`edit`, `feedback`): same kind, same snapshot key, same outcome as
a recent event. Delivery events, rechecks (failed or not), repair_ready events and
re-verifications are always appended, so none of them can be swallowed.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orchestrator.model.report import utc_now
from orchestrator.workspace import locked, workspace_dir

EVENTS_DIR = "events"
LOG_NAME = "events.jsonl"
LOCK_NAME = "events"
MAX_LOG_BYTES = 1 << 20
#: How far back (bytes from the end) a duplicate is looked for.
DEDUPE_WINDOW_BYTES = 64 * 1024
MAX_DATA_BYTES = 4096

#: The only kinds whose repeats may be merged.
MERGEABLE_KINDS = frozenset({"edit", "feedback"})
#: Kinds that are never merged, whatever their snapshot (documentation and tests).
NEVER_MERGED = frozenset({"delivery", "recheck", "repair_ready", "verify", "close"})


@dataclass(frozen=True)
class Event:
    id: str
    kind: str
    at: str
    snapshot: str | None = None
    task_id: str | None = None
    outcome: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "at": self.at,
            "snapshot": self.snapshot,
            "task_id": self.task_id,
            "outcome": self.outcome,
            "data": dict(self.data),
        }


@dataclass(frozen=True)
class Recorded:
    """What `record_event` did: the event kept, and whether it merged into an earlier one."""

    event: Event
    merged: bool
    persisted: bool
    reason: str | None = None


def snapshot_key(items: Iterable[tuple[str, str]]) -> str:
    """A digest of (path, content digest) pairs: the identity of one edit snapshot."""
    h = hashlib.sha256()
    for path, digest in sorted(items):
        h.update(path.encode("utf-8", "surrogateescape") + b"\x1f" + digest.encode() + b"\x1e")
    return h.hexdigest()[:32]


def _log_path(project_root: Path) -> Path:
    return workspace_dir(project_root) / EVENTS_DIR / LOG_NAME


def _tail(path: Path, window: int) -> list[dict[str, Any]]:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - window))
            blob = fh.read(window)
    except OSError:
        return []
    lines = blob.split(b"\n")
    if size > window:
        lines = lines[1:]  # first line is probably cut
    out = []
    for raw in lines:
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def _bounded_data(data: Mapping[str, Any] | None) -> dict[str, Any]:
    if not data:
        return {}
    blob = json.dumps(dict(data), default=str)
    if len(blob) > MAX_DATA_BYTES:
        return {"dropped": "event data over budget"}
    return json.loads(blob)


def record_event(
    project_root: Path,
    kind: str,
    *,
    snapshot: str | None = None,
    task_id: str | None = None,
    outcome: str | None = None,
    data: Mapping[str, Any] | None = None,
) -> Recorded:
    """Append an event, or merge it into a recent identical feedback run.

    Never raises for I/O trouble: the result says whether it was persisted.
    """
    event = Event(
        id="E-" + secrets.token_hex(8),
        kind=kind,
        at=utc_now(),
        snapshot=snapshot,
        task_id=task_id,
        outcome=outcome,
        data=_bounded_data(data),
    )
    try:
        with locked(project_root, LOCK_NAME):
            path = _log_path(project_root)
            path.parent.mkdir(parents=True, exist_ok=True)
            if kind in MERGEABLE_KINDS and snapshot is not None:
                for old in reversed(_tail(path, DEDUPE_WINDOW_BYTES)):
                    if (
                        old.get("kind") == kind
                        and old.get("snapshot") == snapshot
                        and old.get("outcome") == outcome
                    ):
                        kept = Event(
                            id=str(old.get("id")),
                            kind=kind,
                            at=str(old.get("at")),
                            snapshot=snapshot,
                            task_id=old.get("task_id"),
                            outcome=outcome,
                            data=old.get("data") or {},
                        )
                        return Recorded(kept, merged=True, persisted=True)
            _rotate_if_needed(path)
            line = json.dumps(event.to_json(), separators=(",", ":")) + "\n"
            # One write() of one line under the lock, then fsync: readers see whole lines.
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line.encode())
                os.fsync(fd)
            finally:
                os.close(fd)
    except (OSError, TimeoutError) as exc:
        return Recorded(event, merged=False, persisted=False, reason=type(exc).__name__)
    return Recorded(event, merged=False, persisted=True)


def _rotate_if_needed(path: Path) -> None:
    try:
        if path.stat().st_size >= MAX_LOG_BYTES:
            os.replace(path, path.with_name(LOG_NAME + ".1"))
    except FileNotFoundError:
        pass


def recent_events(project_root: Path, limit: int = 128) -> list[dict[str, Any]]:
    """The last `limit` events (read from a bounded tail of the current log)."""
    path = workspace_dir(project_root, create=False) / EVENTS_DIR / LOG_NAME
    return _tail(path, MAX_LOG_BYTES)[-limit:]
