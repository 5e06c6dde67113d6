"""Answers a warm engine keeps between requests, each re-validated by file stat.

A long-lived process (the warm engine, usecases/warm.warm_up) calls `enable()` once; from
then on `StatMemo.get(key, paths, compute)` answers from memory while every file or
folder in `paths` has the stat it had when the answer was computed (size, mtime,
ctime, inode, device, or absent). A path changed too recently for its mtime to tell
a later write apart (racily clean, as git and the reuse cache say) is never trusted:
the answer is computed again. Any other process (a cold run, every strict gate)
computes every time: nothing is remembered unless enabled.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

T = TypeVar("T")

#: A stat this close to the moment an answer was computed is not trusted (ns).
RACY_NS = 2_000_000_000
#: Entries one memo holds at most (the oldest go first).
MAX_ENTRIES = 256

_enabled = False

Stamp = tuple[tuple[int, ...] | None, ...]


def enable(on: bool = True) -> None:
    """Let every memo remember answers in this process (the warm engine's start)."""
    global _enabled
    _enabled = on


def enabled() -> bool:
    """Whether memos remember answers in this process."""
    return _enabled


def _stat(path: str) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev, st.st_mode)


def stamp(paths: Iterable[str]) -> Stamp:
    """The stat facts of `paths` (None for one that cannot be read)."""
    return tuple(_stat(p) for p in paths)


def _racy(st: Stamp, since_ns: int) -> bool:
    return any(s is not None and s[1] >= since_ns - RACY_NS for s in st)


class StatMemo:
    """Answers by key, each valid while the stat of its paths stays the same."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._entries: dict[Hashable, tuple[tuple[str, ...], Stamp, object]] = {}
        self._max = max_entries
        self._lock = threading.Lock()

    def get(
        self,
        key: Hashable,
        paths: Iterable[str] | Callable[[T], Iterable[str] | None],
        compute: Callable[[], T],
    ) -> T:
        """`compute()`, or the answer it gave for `key` while the files it depends on
        keep their stat (always `compute()` when memos are not enabled). `paths` names
        those files, or derives them from the answer (a discovery's own files; None:
        an answer not to keep).

        The stat is taken after computing: a file written since shortly before the
        computation began is racily clean, so the answer is not kept."""
        if not _enabled:
            return compute()
        with self._lock:
            hit = self._entries.get(key)
        if hit is not None and stamp(hit[0]) == hit[1]:
            return hit[2]  # type: ignore[return-value]
        started = time.time_ns()
        value = compute()
        listed = paths(value) if callable(paths) else paths
        if listed is None:
            return value
        names = tuple(listed)
        after = stamp(names)
        if not _racy(after, started):
            with self._lock:
                self._entries.pop(key, None)
                while len(self._entries) >= self._max:
                    self._entries.pop(next(iter(self._entries)))
                self._entries[key] = (names, after, value)
        return value

    def clear(self) -> None:
        """Forget every answer."""
        with self._lock:
            self._entries.clear()


__all__ = ["RACY_NS", "StatMemo", "enable", "enabled", "stamp"]
