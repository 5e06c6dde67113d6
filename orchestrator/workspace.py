"""The `.orchestrate/` workspace and the user's cache folder: atomic writes under a lock.

`.orchestrate/` holds only what the user asked for (tasks, events, reports, the undo
journal, the audit log) and ignores itself entirely: the `.gitignore` it writes inside
itself says `*`, so `git status` stays clean and `git add -A` never commits it. Caches
(reuse results) live in the user's cache folder (platformdirs), keyed by repository,
so a run that records nothing writes nothing inside the project.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

DIRNAME = ".orchestrate"
GITIGNORE = b"# orchestrate's workspace: local state, never committed\n*\n"
#: The first line of the .gitignore earlier versions wrote (it ignored only some folders).
_OLD_GITIGNORE_HEAD = b"# runtime state of orchestrate\n"


def workspace_dir(project_root: Path, create: bool = True) -> Path:
    """`.orchestrate/` under the project root, created (with its .gitignore) on first use.
    A `.orchestrate` that is a symbolic link (a cloned repository may carry one pointing
    anywhere) is a UsageError: nothing is read or written through it."""
    ws = project_root / DIRNAME
    if ws.is_symlink():
        from orchestrator.errors import UsageError

        raise UsageError(
            f"{DIRNAME} is a symbolic link: orchestrate keeps its workspace only in a "
            "folder of its own; remove the link and re-run"
        )
    if create and not ws.is_dir():
        ws.mkdir(parents=True, exist_ok=True)
    gi = ws / ".gitignore"
    if create and (not gi.exists() or gi.read_bytes().startswith(_OLD_GITIGNORE_HEAD)):
        atomic_write(gi, GITIGNORE)
    return ws


def user_cache_root() -> Path:
    """orchestrate's folder in the user's cache folder (platformdirs; XDG_CACHE_HOME)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("orchestrate"))


def user_cache_dir(project_root: Path, *parts: str, create: bool = True) -> Path:
    """`parts` under the user's cache folder for this repository (keyed by its resolved
    path), never inside the project."""
    import hashlib

    key = hashlib.sha256(os.fsencode(str(project_root.resolve()))).hexdigest()[:16]
    folder = user_cache_root().joinpath("projects", key, *parts)
    if create:
        folder.mkdir(parents=True, exist_ok=True)
    return folder


def fsync_dir(folder: Path) -> None:
    """Make a rename in `folder` durable (best effort: some file systems refuse it)."""
    with contextlib.suppress(OSError):
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def atomic_write(
    path: Path, data: bytes | Iterable[bytes], mode: int | None = None, durable: bool = True
) -> None:
    """Write `data` (bytes, or pieces of them written as they come) to `path` so a
    reader sees the old bytes or the new, never half.

    Temp file in the same folder, fsync, rename, fsync of the folder. A cache that
    reads a damaged file as empty (the reuse index) passes `durable=False`: the rename
    alone keeps readers from half a file, and after a crash the cache may be lost, never
    wrong; the two fsyncs of a large index cost more than the run they save under I/O load.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            if isinstance(data, bytes):
                fh.write(data)
            else:
                fh.writelines(data)
            fh.flush()
            if durable:
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
    if durable:
        fsync_dir(path.parent)


def _sync_disks(files: list[str]) -> None:
    """Make the data written to `files` durable: one syncfs per file system where the
    C library has it (Linux), else an fsync per file."""
    by_dev: dict[int, list[str]] = {}
    for name in files:
        by_dev.setdefault(os.stat(name).st_dev, []).append(name)
    syncfs = None
    if sys.platform.startswith("linux"):
        import ctypes

        syncfs = getattr(ctypes.CDLL(None, use_errno=True), "syncfs", None)
    for group in by_dev.values():
        if syncfs is not None:
            fd = os.open(os.path.dirname(group[0]), os.O_RDONLY)
            try:
                if syncfs(fd) == 0:
                    continue
            finally:
                os.close(fd)
        for name in group:
            fd = os.open(name, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def atomic_write_many(items: Sequence[tuple[Path, bytes, int | None]]) -> None:
    """Write each (path, data, mode) as `atomic_write` does, durable once for all.

    Every file still goes through its own temp file and rename (a reader sees its old
    bytes or the new, never half), but the disk is synced once before the renames and
    each folder once after them, instead of two fsyncs per file: recording a thousand
    tasks took seconds of fsyncs alone.
    """
    written: list[tuple[Path, str]] = []
    try:
        for path, data, mode in items:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            written.append((path, tmp))
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            if mode is not None:
                os.chmod(tmp, mode)
            elif path.exists():
                os.chmod(tmp, path.stat().st_mode & 0o7777)
        if written:
            _sync_disks([tmp for _path, tmp in written])
        for path, tmp in written:
            os.replace(tmp, path)
    except BaseException:
        for _path, tmp in written:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        raise
    for folder in {path.parent for path, _tmp in written}:
        fsync_dir(folder)


#: Seconds between two tries of a lock another process holds.
LOCK_POLL_SECONDS = 0.05


@contextlib.contextmanager
def locked(project_root: Path, name: str = "workspace", timeout: float = 30.0) -> Iterator[Path]:
    """Hold the workspace lock `name` (a file lock shared across processes); a
    TimeoutError when another process holds it past `timeout` seconds.

    On POSIX the lock is `flock` on `.orchestrate/<name>.lock`, taken here directly: it
    is the lock filelock takes there (so processes of either kind exclude each other),
    without the 10 to 40 ms filelock's import adds to every lint that records a task.
    Elsewhere filelock takes it. A lock file that is a symbolic link is never followed:
    a UsageError says so.
    """
    ws = workspace_dir(project_root)
    path = ws / f"{name}.lock"
    try:
        import fcntl
    except ImportError:  # not POSIX
        from filelock import FileLock

        with FileLock(str(path), timeout=timeout):
            yield ws
        return
    try:
        # Never through a link: a cloned repository may carry `.orchestrate/x.lock`
        # pointing anywhere, where opening it would create (or open) that file.
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if path.is_symlink():
            from orchestrator.errors import UsageError

            raise UsageError(
                f"{DIRNAME}/{name}.lock is a symbolic link: orchestrate locks only a file of "
                "its own there; remove the link and re-run"
            ) from exc
        raise
    try:
        give_up = time.monotonic() + max(0.0, timeout)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= give_up:
                    raise TimeoutError(f"The file lock '{path}' could not be acquired.") from None
                time.sleep(LOCK_POLL_SECONDS)
        try:
            yield ws
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
