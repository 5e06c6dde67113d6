"""Bounded, read-only local task facts for the Stop route.

Reads `.orchestrate/tasks/` only while it stays within the hook's record-count and
byte budgets; over either, it reads nothing more and says so (the explicit
`orchestrate next` query has no such budget). No checker runs; task text (tool
messages) is never read into the result: only ids and statuses.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from orchestrator.hosts.budgets import safe_task_id

#: The Stop summary's budgets (seed 004: a record-count and a byte budget).
STOP_MAX_RECORDS = 128
STOP_MAX_BYTES = 1 << 20
OPEN_STATUSES = ("open", "verification_required")


def open_task_ids(
    project_root: Path, max_records: int = STOP_MAX_RECORDS, max_bytes: int = STOP_MAX_BYTES
) -> tuple[list[str] | None, str | None]:
    """(open task ids sorted, None), or (None, reason) when the facts were not read."""
    folder = project_root / ".orchestrate" / "tasks"
    try:
        if folder.is_symlink() or not folder.is_dir():
            return [], None
        entries = []
        total = 0
        with os.scandir(folder) as it:
            for e in it:
                if len(entries) >= max_records:
                    return None, "stop_summary_over_budget"
                if not e.name.endswith(".json") or e.name.startswith("."):
                    continue
                if not e.is_file(follow_symlinks=False):
                    continue
                total += e.stat(follow_symlinks=False).st_size
                if total > max_bytes:
                    return None, "stop_summary_over_budget"
                entries.append(e.path)
    except OSError:
        return None, "task_folder_unreadable"
    ids: list[str] = []
    for path in sorted(entries):
        tid = safe_task_id(os.path.basename(path)[: -len(".json")])
        if tid is None:
            continue
        try:
            with open(path, "rb") as fh:
                rec = json.loads(fh.read(max_bytes))
        except (OSError, ValueError):
            continue  # an unparsable record is the task store's to quarantine
        if isinstance(rec, dict) and rec.get("id") == tid and rec.get("status") in OPEN_STATUSES:
            ids.append(tid)
    return ids, None
