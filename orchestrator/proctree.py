"""The processes below this one: find them, kill them, reap the ones we adopted.

A tool may start helpers of its own, and a helper may leave the tool's process group
(`setsid`) or outlive the tool. Killing the group alone leaves such a process running.
On Linux this module sees the whole tree (each process's parent, from ``/proc``) and
can make this process a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): an
orphan below us is then re-parented to us instead of to init, so it stays in our tree
and we can kill and reap it. Elsewhere there is no ``/proc`` and no subreaper: the
functions return empty answers and the callers fall back to process groups only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterable
from dataclasses import dataclass

PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>
PROC = "/proc"

_subreaper = False


def become_subreaper() -> bool:
    """Make this process the reaper of orphans below it. True when it is one.

    Linux only (ctypes ``prctl``); on other platforms, or when the call fails, this is a
    no-op that returns False and orphans go to init as usual. Calling it twice is fine.
    """
    global _subreaper
    if _subreaper or not sys.platform.startswith("linux"):
        return _subreaper
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        _subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        _subreaper = False
    return _subreaper


@dataclass(frozen=True)
class Proc:
    """One row of the process table: parent and state letter (``Z`` is a zombie)."""

    pid: int
    ppid: int
    state: str

    @property
    def alive(self) -> bool:
        return self.state not in ("Z", "X")


def _stat(pid: int) -> Proc | None:
    try:
        with open(f"{PROC}/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after
    # the LAST closing parenthesis.
    fields = data[data.rfind(b")") + 2 :].split()
    if len(fields) < 2:
        return None
    return Proc(pid, int(fields[1]), fields[0].decode("ascii", "replace"))


def table() -> dict[int, Proc]:
    """Every process this user can see, by pid; empty where there is no ``/proc``."""
    rows: dict[int, Proc] = {}
    try:
        names = os.listdir(PROC)
    except OSError:
        return rows
    for name in names:
        if name.isdigit():
            row = _stat(int(name))
            if row is not None:
                rows[row.pid] = row
    return rows


def descendants(roots: Iterable[int], rows: dict[int, Proc]) -> list[Proc]:
    """Every process below `roots` in `rows` (the roots themselves excluded)."""
    children: dict[int, list[Proc]] = {}
    for row in rows.values():
        children.setdefault(row.ppid, []).append(row)
    found: list[Proc] = []
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        for row in children.get(stack.pop(), ()):
            if row.pid not in seen:
                seen.add(row.pid)
                found.append(row)
                stack.append(row.pid)
    return found


def carries(pid: int, mark: bytes) -> bool:
    """Whether process `pid` was started with the environment entry `mark` (``K=V``).

    Every child orchestrate starts carries its run's mark, and its descendants inherit
    it; that is how an orphan adopted by us is traced back to the run that made it. A
    zombie has no environment left, so this is False for it.
    """
    try:
        with open(f"{PROC}/{pid}/environ", "rb") as fh:
            return mark in fh.read().split(b"\0")
    except OSError:
        return False


def kill(pids: Iterable[int]) -> None:
    """SIGKILL each pid; a process already gone is not an error.

    Pids below 2 and our own are skipped: 0 and -1 would signal whole groups or every
    process, and a tree walk must never end this process.
    """
    me = os.getpid()
    for pid in pids:
        if pid < 2 or pid == me:
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def reap(pid: int) -> bool:
    """Collect the exit status of our child `pid` if it has ended. True once it is gone.

    Only for children no `subprocess.Popen` owns (adopted orphans): reaping a Popen's
    child would hide its exit status from it.
    """
    try:
        done, _status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return done == pid
