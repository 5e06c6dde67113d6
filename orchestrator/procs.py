"""Run a child process with literal arguments, one deadline and a closed output budget.

The child gets its own process group and is tracked until it is reaped. At the
deadline, past the output budget, or when a leftover helper keeps the output pipes
open, the child's whole tree is killed: its process group, every live descendant, and
(where this process is a child subreaper, see `orchestrator.proctree`) the orphans it
left behind. `signals_end_children` turns SIGTERM and SIGINT into "kill everything
below us, then exit 143 / 130". Output past the budget is dropped and the result says
so. The child's exit code is recorded, never passed through.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from orchestrator import proctree
from orchestrator.deadline import CANCEL_POLL_S, Deadline

DEFAULT_OUTPUT_BUDGET = 8 * 1024 * 1024
#: The environment entry every child gets (``NAME=<our pid>-<n>``, unique per run):
#: its descendants inherit it, so an orphan we adopted is traced back to its run.
RUN_MARK = "ORCHESTRATE_RUN_MARK"
#: How long the kill of a tree may keep polling for processes that are still dying.
KILL_SETTLE_SECONDS = 2.0
CANCELLED_REASON = "not started: orchestrate is shutting down (cancelled)"


@dataclass(frozen=True)
class ProcResult:
    """What a bounded child did. Exactly one of the failure flags explains a non-result."""

    argv: tuple[str, ...]
    returncode: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    over_budget: bool = False
    spawn_error: str | None = None
    duration_ms: int = 0

    @property
    def ok(self) -> bool:
        return not (self.timed_out or self.over_budget or self.spawn_error)


class _Registry:
    """Every child `run_bounded` started and has not reaped yet, and whether new ones
    may start (not once the process is shutting down)."""

    def __init__(self) -> None:
        # Re-entrant: a signal handler runs in the main thread, maybe while that thread
        # holds the lock to start a child; it must not deadlock on it.
        self.lock = threading.RLock()
        self.live: dict[int, subprocess.Popen[bytes]] = {}
        self.closed = threading.Event()
        self.counter = itertools.count(1)

    def owned(self) -> set[int]:
        with self.lock:
            return set(self.live)


_REGISTRY = _Registry()


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


def _kill_tree(proc: subprocess.Popen[bytes], mark: bytes) -> None:
    """Kill `proc`, its group, every live descendant and the orphans of its run.

    Descendants are killed before the child (a killed parent would hand its children to
    us or to init mid-walk); orphans we adopted that carry the run's `mark` count as
    the run's too, and are reaped here since no Popen owns them.
    """
    owned = _REGISTRY.owned()
    adopted: set[int] = set()
    settle = Deadline.after(KILL_SETTLE_SECONDS)
    while True:
        rows = proctree.table()
        mine = {
            r.pid
            for r in rows.values()
            if r.ppid == os.getpid()
            and r.pid not in owned
            and r.alive
            and proctree.carries(r.pid, mark)
        }
        adopted |= mine
        below = [r.pid for r in proctree.descendants({proc.pid, *mine}, rows) if r.alive]
        proctree.kill([*below, *mine])
        _kill_group(proc)
        adopted = {pid for pid in adopted if not proctree.reap(pid)}
        if not (below or mine) or settle.expired():
            return
        time.sleep(0.01)


def terminate_all_children(*, refuse_new: bool = True) -> int:
    """Kill every process below this one and reap what we adopted. Returns the count.

    With `refuse_new` (the default, for a process about to exit) `run_bounded` starts
    no child afterwards: work still queued ends at once as not started. On Linux the
    whole tree below us is found through ``/proc``; elsewhere only the children
    `run_bounded` started and their process groups are killed.
    """
    if refuse_new:
        _REGISTRY.closed.set()
    killed: set[int] = set()
    settle = Deadline.after(KILL_SETTLE_SECONDS)
    while True:
        with _REGISTRY.lock:
            live = list(_REGISTRY.live.values())
        owned = {proc.pid for proc in live}
        # The tree first, then the kill: a parent killed first may be reaped and its
        # children handed to init (no subreaper) before the walk could see them.
        below = [r for r in proctree.descendants({os.getpid()}, proctree.table()) if r.alive]
        proctree.kill(r.pid for r in below)
        for proc in live:
            _kill_group(proc)
        killed |= owned | {r.pid for r in below}
        # Our own children that no Popen owns were adopted (or belong to a Popen that
        # has already been reaped): collect them so no zombie stays behind.
        pending = [r for r in below if r.ppid == os.getpid() and r.pid not in owned]
        pending = [r for r in pending if not proctree.reap(r.pid)]
        if not (below or pending) or settle.expired():
            return len(killed)
        time.sleep(0.01)


def become_subreaper() -> bool:
    """Make this process the reaper of orphans below it (Linux; a no-op elsewhere).

    Re-exported from `orchestrator.proctree`: with it, a helper that a tool started and
    that called `setsid` or outlived the tool stays below us, so a deadline or a signal
    can still kill it. True when this process is a subreaper.
    """
    return proctree.become_subreaper()


#: Exit codes of a run ended by a signal (DESIGN.md: 130 on SIGINT, 143 on SIGTERM).
SIGNAL_EXITS = {signal.SIGINT: 130, signal.SIGTERM: 143}


def _on_signal(signum: int, _frame: object) -> None:
    again = _REGISTRY.closed.is_set()
    terminate_all_children()
    code = SIGNAL_EXITS.get(signal.Signals(signum), 128 + signum)
    if again:
        # A second signal while the first unwinds: the user insists, stop now (a strict
        # entry first gives its constant answer: hosts/guard.py).
        if _ON_INSIST[0] is not None:
            _ON_INSIST[0]()
        os._exit(code)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise SystemExit(code)


#: What a second signal runs before the process exits at once (signals_end_children).
_ON_INSIST: list[Callable[[], None] | None] = [None]


@contextlib.contextmanager
def signals_end_children(on_insist: Callable[[], None] | None = None) -> Iterator[None]:
    """While inside, SIGTERM and SIGINT end every child and descendant, then the process.

    On entry this process becomes a child subreaper (Linux). On SIGTERM or SIGINT every
    process below us is killed and reaped first (`terminate_all_children`, which also
    stops new children from starting), then SIGINT raises `KeyboardInterrupt` and
    SIGTERM raises `SystemExit(143)` in the main thread, so the caller's usual handling
    turns them into exit 130 and 143. A second signal during the unwinding exits at
    once with the same code, after `on_insist` (which may exit itself). The previous
    handlers come back on exit. Outside the main thread (where Python cannot install
    handlers) only the subreaper is set up.
    """
    become_subreaper()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _on_signal) for sig in SIGNAL_EXITS}
    before, _ON_INSIST[0] = _ON_INSIST[0], on_insist
    try:
        yield
    finally:
        _ON_INSIST[0] = before
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if _REGISTRY.closed.is_set():
            terminate_all_children()


def run_bounded(
    argv: Sequence[str],
    *,
    deadline: Deadline,
    stdin: bytes | None = None,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    output_budget: int = DEFAULT_OUTPUT_BUDGET,
) -> ProcResult:
    """Run `argv` (a list, never a shell string) until it exits or the deadline passes.

    stdout and stderr together may hold at most `output_budget` bytes; past that the
    child is killed and `over_budget` is set. Never raises for a child's failure.
    """
    argv = tuple(str(a) for a in argv)
    start = time.monotonic()
    if deadline.expired():
        return ProcResult(argv, None, b"", b"", timed_out=True)
    mark_value = f"{os.getpid()}-{next(_REGISTRY.counter)}"
    mark = f"{RUN_MARK}={mark_value}".encode()
    child_env = dict(os.environ if env is None else env)
    child_env[RUN_MARK] = mark_value
    # Spawn and register under one lock: `terminate_all_children` either sees the child
    # or has already closed the registry, never neither.
    with _REGISTRY.lock:
        if _REGISTRY.closed.is_set():
            return ProcResult(argv, None, b"", b"", spawn_error=CANCELLED_REASON)
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=str(cwd) if cwd is not None else None,
                env=child_env,
                start_new_session=True,
            )
        except OSError as exc:
            return ProcResult(argv, None, b"", b"", spawn_error=f"{type(exc).__name__}: {exc}")
        _REGISTRY.live[proc.pid] = proc
    try:
        return _supervise(proc, argv, start, deadline, stdin, output_budget, mark)
    finally:
        with _REGISTRY.lock:
            _REGISTRY.live.pop(proc.pid, None)


def _supervise(
    proc: subprocess.Popen[bytes],
    argv: tuple[str, ...],
    start: float,
    deadline: Deadline,
    stdin: bytes | None,
    output_budget: int,
    mark: bytes,
) -> ProcResult:
    """Pump the child's output within the budget, feed its input and wait for it within
    the deadline, all in the calling thread.

    One selector watches the output pipes, the input pipe and (on Linux) a pidfd that
    tells of the child's exit the moment it happens. A thread per pipe and one to reap
    cost a third of a short child's wall time (a gate makes dozens of git calls), and
    a thread blocked writing the input of a child that had exited was never ended.
    After the exit, helpers the child left (in its group or not) may keep the pipes
    open: the drain is bounded, then what is left of the run's tree is killed.
    """
    assert proc.stdout is not None and proc.stderr is not None
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    chunks: dict[int, list[bytes]] = {out_fd: [], err_fd: []}
    reads = {out_fd, err_fd}
    total = 0
    over = timed_out = exited = killed = swept = False
    pending = memoryview(stdin or b"")
    feed_fd = proc.stdin.fileno() if proc.stdin is not None else None
    pidfd: int | None = None
    sel: selectors.BaseSelector | None = None
    drain: Deadline | None = None  # the bound on reading once the child has ended
    try:
        pidfd = _pidfd(proc.pid)
        if pidfd is not None and proc.poll() is not None:
            # Reaped before the pidfd was taken: the pid may name another process by
            # now. Polling knows the exit already.
            os.close(pidfd)
            pidfd = None
        sel = selectors.DefaultSelector()
        for fd in reads:
            sel.register(fd, selectors.EVENT_READ)
        if pidfd is not None:
            sel.register(pidfd, selectors.EVENT_READ)
        if feed_fd is not None and pending:
            os.set_blocking(feed_fd, False)
            sel.register(feed_fd, selectors.EVENT_WRITE)
        else:
            _close_input(proc)
        while reads or not exited:
            if not exited and pidfd is None and proc.poll() is not None:
                exited = True
            if not exited and deadline.expired():
                # A child already killed for its budget, or already ended, is only
                # waited for: it did not run out of time.
                if not killed and proc.poll() is None:
                    timed_out = True
                    _kill_tree(proc, mark)
                killed = True
                proc.wait()
                exited = True
            if exited and not reads:
                break  # nothing left to drain: no select that can only sleep
            if exited and drain is None:
                drain = Deadline.after(max(0.2, min(2.0, deadline.remaining())))
            if drain is not None and drain.expired():
                if swept:
                    break  # the pipes outlived even the kill: give up on the rest
                _kill_tree(proc, mark)
                swept = killed = True
                drain = Deadline.after(0.5)
            bound = min((drain or deadline).remaining(), CANCEL_POLL_S)
            if pidfd is None and not exited:
                bound = min(bound, _EXIT_POLL_S)
            for key, _events in sel.select(bound):
                if key.fd == pidfd:
                    sel.unregister(pidfd)
                    proc.wait()
                    exited = True
                elif key.fd == feed_fd:
                    try:
                        pending = pending[os.write(feed_fd, pending[:_FEED_CHUNK]) :]
                    except BlockingIOError:
                        continue
                    except OSError:  # the child closed its input or ended: stop feeding
                        pending = pending[:0]
                    if not pending:
                        sel.unregister(feed_fd)
                        _close_input(proc)
                else:
                    block = os.read(key.fd, 65536)
                    if not block:
                        sel.unregister(key.fd)
                        reads.discard(key.fd)
                        continue
                    room = output_budget - total
                    # Budget already used up exactly: still kill, or a flooder runs on.
                    if room <= 0 or len(block) > room:
                        over = True
                    if room > 0:
                        chunks[key.fd].append(block[:room])
                        total += min(len(block), room)
                    if over and not killed:
                        killed = True
                        _kill_tree(proc, mark)
    except BaseException:
        # Whatever ended the supervision early (a signal's KeyboardInterrupt or
        # SystemExit, EMFILE): the child does not run on unsupervised.
        with contextlib.suppress(Exception):
            _kill_tree(proc, mark)
            proc.wait()
        raise
    finally:
        if sel is not None:
            sel.close()
        if pidfd is not None:
            os.close(pidfd)
        _close_input(proc)  # a child that ended without reading all of it
        for stream in (proc.stdout, proc.stderr):
            stream.close()
    if proc.returncode is None:
        proc.wait()
    return ProcResult(
        argv,
        proc.returncode,
        b"".join(chunks[out_fd]),
        b"".join(chunks[err_fd]),
        timed_out=timed_out,
        over_budget=over and not timed_out,
        duration_ms=int((time.monotonic() - start) * 1000),
    )


def _close_input(proc: subprocess.Popen[bytes]) -> None:
    """Close the child's input pipe, whatever state it is in."""
    if proc.stdin is not None and not proc.stdin.closed:
        with contextlib.suppress(OSError, ValueError):
            proc.stdin.close()


def _pidfd(pid: int) -> int | None:
    """A descriptor that turns readable the moment `pid` exits (Linux 5.3+), or None."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        return int(opener(pid))
    except OSError:
        return None


#: Seconds between looks at the child's exit where no pidfd tells of it (not Linux).
_EXIT_POLL_S = 0.005
#: Bytes offered to the child's input per ready event (a non-blocking write takes what
#: fits in the pipe; the rest waits for the next event).
_FEED_CHUNK = 65536


def scrubbed_env(
    drop: Sequence[str] = (), extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """A copy of the environment without `drop`, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in set(drop)}
    if extra:
        env.update(extra)
    return env
