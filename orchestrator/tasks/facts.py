"""Bounded, read-only reading of the local task facts (`.orchestrate/tasks/*.json`).

The Stop summary and the edit route's repair lookup both read the task folder from
inside a host hook, so both use the hook budget (seed 004: 128 entries, 1 MiB): the
budget is checked from directory entries and sizes first, so nothing is read past
it, and the bytes actually read are counted again. Nothing is written: an
unparsable record is counted, not quarantined (`task list` does that).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from orchestrator.tasks import store as tasks
from orchestrator.workspace import DIRNAME

DEFAULT_MAX_ENTRIES = 128
DEFAULT_MAX_BYTES = 1 << 20

ENTRIES_OVER = "task_entries_over_budget"
BYTES_OVER = "task_bytes_over_budget"
UNREADABLE = "task_folder_unreadable"


@dataclass(frozen=True)
class TaskFacts:
    """What a bounded read found. `over` is (reason, detail) when the budget stopped it."""

    records: tuple[tasks.TaskRecord, ...] = ()
    unreadable: int = 0
    entries: int = 0
    bytes_read: int = 0
    over: tuple[str, str] | None = None


def task_folder(project_root: Path) -> Path:
    """The task folder of `project_root` (never created here)."""
    return project_root / DIRNAME / tasks.TASKS_DIR


def _listing(folder: Path, max_entries: int, max_bytes: int) -> list[str] | TaskFacts:
    """The entry names, or an over-budget result, from entries and sizes only."""
    names: list[str] = []
    total = 0
    try:
        with os.scandir(folder) as it:
            for e in it:
                if len(names) >= max_entries:
                    return TaskFacts(over=(ENTRIES_OVER, f"more than {max_entries} task entries"))
                try:
                    size = e.stat(follow_symlinks=False).st_size
                except OSError:
                    size = 0
                total += size
                if total > max_bytes:
                    return TaskFacts(over=(BYTES_OVER, f"task records exceed {max_bytes} bytes"))
                names.append(e.name)
    except OSError:
        return TaskFacts(over=(UNREADABLE, "task folder unreadable"))
    return names


def read_task_facts(
    project_root: Path,
    max_entries: int = DEFAULT_MAX_ENTRIES,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> TaskFacts | None:
    """Every well-formed task record within the budgets, in file-name order; None when
    the project has no task folder. Never raises for a bad record."""
    folder = task_folder(project_root)
    if not folder.is_dir():
        return None
    listing = _listing(folder, max_entries, max_bytes)
    if isinstance(listing, TaskFacts):
        return listing
    records: list[tasks.TaskRecord] = []
    unreadable = bytes_read = entries = 0
    for name in sorted(listing):
        if name.startswith(".") or not name.endswith(".json"):
            continue
        entries += 1
        stem = name[: -len(".json")]
        path = folder / name
        try:
            if not tasks.is_safe_task_id(stem) or path.is_symlink():
                raise ValueError("not a task record")
            with open(path, "rb") as fh:
                data = fh.read(max_bytes - bytes_read + 1)
            bytes_read += len(data)
            if bytes_read > max_bytes:
                return TaskFacts(over=(BYTES_OVER, f"task records exceed {max_bytes} bytes"))
            records.append(tasks.parse_record(data, expected_id=stem))
        except (OSError, ValueError):
            unreadable += 1
    return TaskFacts(tuple(records), unreadable, entries, bytes_read)
