"""Run a child process with literal arguments, one deadline and a closed output budget.

The child gets its own process group; at the deadline the whole group is killed.
Output past the budget is dropped and the result says so. The child's exit code is
recorded, never passed through.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from orchestrator.deadline import Deadline

DEFAULT_OUTPUT_BUDGET = 8 * 1024 * 1024


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


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


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
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=str(cwd) if cwd is not None else None,
            env=dict(env) if env is not None else None,
            start_new_session=True,
        )
    except OSError as exc:
        return ProcResult(argv, None, b"", b"", spawn_error=f"{type(exc).__name__}: {exc}")

    chunks: dict[str, list[bytes]] = {"out": [], "err": []}
    total = [0]
    over = threading.Event()
    lock = threading.Lock()

    def pump(stream, key: str) -> None:  # type: ignore[no-untyped-def]
        while True:
            block = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
            if not block:
                break
            with lock:
                room = output_budget - total[0]
                if room <= 0:
                    # Budget already used up exactly: still kill, or a flooder runs on.
                    over.set()
                    _kill_group(proc)
                    continue
                chunks[key].append(block[:room])
                total[0] += min(len(block), room)
                if len(block) > room:
                    over.set()
            if over.is_set():
                _kill_group(proc)

    def feed() -> None:
        try:
            assert proc.stdin is not None
            proc.stdin.write(stdin or b"")
            proc.stdin.close()
        except (BrokenPipeError, OSError, ValueError):
            pass

    threads = [
        threading.Thread(target=pump, args=(proc.stdout, "out"), daemon=True),
        threading.Thread(target=pump, args=(proc.stderr, "err"), daemon=True),
    ]
    if stdin is not None:
        threads.append(threading.Thread(target=feed, daemon=True))
    for t in threads:
        t.start()

    # Popen.wait(timeout=...) polls with sleeps of up to 50 ms; a blocking wait in a
    # helper thread wakes us the moment the child exits (the save-feedback path runs
    # one short child, so the poll slack was a visible share of its wall time).
    exited = threading.Event()

    def reap() -> None:
        with contextlib.suppress(Exception):
            proc.wait()
        exited.set()

    threading.Thread(target=reap, daemon=True).start()
    timed_out = False
    if not exited.wait(timeout=max(0.0, deadline.remaining())):
        timed_out = True
        _kill_group(proc)
        proc.wait()
    # The group may hold grandchildren that keep the pipes open: bound the drain.
    for t in threads[:2]:
        t.join(timeout=max(0.2, min(2.0, deadline.remaining())))
    if any(t.is_alive() for t in threads[:2]):
        _kill_group(proc)
        for t in threads[:2]:
            t.join(timeout=0.5)
    with lock:
        out = b"".join(chunks["out"])
        err = b"".join(chunks["err"])
    return ProcResult(
        argv,
        proc.returncode,
        out,
        err,
        timed_out=timed_out,
        over_budget=over.is_set() and not timed_out,
        duration_ms=int((time.monotonic() - start) * 1000),
    )


def scrubbed_env(
    drop: Sequence[str] = (), extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """A copy of the environment without `drop`, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in set(drop)}
    if extra:
        env.update(extra)
    return env
