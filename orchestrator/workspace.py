"""The `.orchestrate/` workspace: atomic writes under a file lock.

Runtime state (cache, runs, events, journal, audit) is git-ignored by a
`.gitignore` the workspace writes inside itself; task records stay reviewable.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

DIRNAME = ".orchestrate"
IGNORED = ("cache/", "runs/", "events/", "journal/", "audit/", "quarantine/", "*.lock", "*.tmp")


def workspace_dir(project_root: Path, create: bool = True) -> Path:
    """`.orchestrate/` under the project root, created (with its .gitignore) on first use."""
    ws = project_root / DIRNAME
    if create and not ws.is_dir():
        ws.mkdir(parents=True, exist_ok=True)
    gi = ws / ".gitignore"
    if create and not gi.exists():
        atomic_write(gi, ("# runtime state of orchestrate\n" + "\n".join(IGNORED) + "\n").encode())
    return ws


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write `data` to `path` so a reader sees the old bytes or the new, never half.

    Temp file in the same folder, fsync, rename, fsync of the folder.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        elif path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


@contextlib.contextmanager
def locked(project_root: Path, name: str = "workspace", timeout: float = 30.0) -> Iterator[Path]:
    """Hold the workspace lock `name` (a file lock shared across processes)."""
    from filelock import FileLock  # imported on use: it is off the lint start-up path

    ws = workspace_dir(project_root)
    with FileLock(str(ws / f"{name}.lock"), timeout=timeout):
        yield ws
