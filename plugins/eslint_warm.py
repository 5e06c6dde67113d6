"""A warm ESLint for a long-lived orchestrate process (the warm engine).

Only while the process is resident (`orchestrator.api.is_resident`): a batch runs in a
persistent Node worker (`eslint_worker.mjs`) that loaded the very ESLint package the
resolved tool belongs to (realpath of `node_modules/.bin/eslint` -> the package's
`bin/eslint.js` -> its root) and runs that package's own CLI code per request, with the
CLI's arguments, working folder and environment. The answer is what the CLI spawn
gives, as a `ProcResult` (stdout and stderr bytes, exit code), so the checker parses it
through the same path.

A worker serves one identity: the tool's realpath and stat, its version, the working
folder, the environment, the digest of the configuration files, the stat of the ESLint
package's package.json, of `node_modules/.package-lock.json` beside it and in every
folder from the working folder up to the project root, and of the worker script. Any
change and the worker is replaced; so is one that finds a module file it loaded (a
config's own imports, a plugin) changed since it loaded it. A worker that cannot start, crashes, or answers
something malformed is killed and the batch goes to the CLI (`None`); one that is
still busy past the deadline is killed and the result is `timed_out`, as the CLI
spawn's would be; output over the budget is `over_budget`. Workers end with the
residency (`at_resident_exit`), and each ends by itself when its stdin closes.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from orchestrator.api import Deadline, ProcResult, at_resident_exit, is_resident

WORKER_JS = Path(__file__).with_name("eslint_worker.mjs")
#: Workers kept at once (one per ESLint setup in use); the least recently used goes.
MAX_WORKERS = 4
#: The longest header line a worker may send.
MAX_HEADER = 4096
_Stat = tuple[int, int, int] | None


def _stat(path: Path) -> _Stat:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _target(tool: str) -> str:
    """The file `tool` links to: its symlinks followed one by one, each relative to its
    own folder, without resolving the folders on the way (a linked node_modules stays
    where the project sees it)."""
    path = os.path.abspath(tool)
    for _ in range(40):
        if not os.path.islink(path):
            break
        path = os.path.normpath(os.path.join(os.path.dirname(path), os.readlink(path)))
    return path


def package_root(tool: str) -> Path | None:
    """The root of the ESLint package `tool` runs (its `bin/eslint.js`), or None when
    `tool` is not that package's own bin (a wrapper script, another program)."""
    real = Path(_target(tool))
    if real.name != "eslint.js" or real.parent.name != "bin":
        return None
    root = real.parent.parent
    try:
        meta = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return root if isinstance(meta, dict) and meta.get("name") == "eslint" else None


def node_for(env: Mapping[str, str]) -> str | None:
    """`node` as the tool's `#!/usr/bin/env node` would find it (absolute PATH only)."""
    entries = [p for p in env.get("PATH", "").split(os.pathsep) if os.path.isabs(p)]
    return shutil.which("node", path=os.pathsep.join(entries)) if entries else None


def identity(
    tool: str,
    version: str | None,
    cwd: Path,
    env: Mapping[str, str],
    config_digest: str | None,
    root: Path,
) -> tuple[Any, ...]:
    """Everything a worker's answers depend on besides the request (see module docs)."""
    pkg = package_root(tool)
    real = _target(tool)
    locks: list[_Stat] = []
    if pkg is not None:
        locks.append(_stat(pkg.parent / ".package-lock.json"))
        locks.append(_stat(pkg / "package.json"))
    folder = cwd
    while True:
        locks.append(_stat(folder / "node_modules" / ".package-lock.json"))
        if folder == root or folder.parent == folder or not folder.is_relative_to(root):
            break
        folder = folder.parent
    return (
        real,
        _stat(Path(real)),
        version,
        str(cwd),
        tuple(sorted(env.items())),
        config_digest,
        tuple(locks),
        _stat(WORKER_JS),
    )


class _Broken(Exception):
    """The worker ended or spoke out of protocol: it is replaced."""


class _Stale(Exception):
    """A module file the worker loaded changed: it exited unanswered."""


class _Late(Exception):
    """The deadline passed while waiting for the worker."""


class Worker:
    """One running worker process and its reply stream."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.buf = b""
        self.busy = threading.Lock()

    def _fill(self, deadline: Deadline) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        left = deadline.remaining()
        if left <= 0:
            raise _Late
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            raise _Late
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            raise _Broken("the worker ended")
        self.buf += chunk

    def header(self, deadline: Deadline) -> dict[str, Any]:
        """The next JSON header line."""
        while b"\n" not in self.buf:
            if len(self.buf) > MAX_HEADER:
                raise _Broken("header too long")
            self._fill(deadline)
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise _Broken("malformed header") from exc
        if not isinstance(value, dict):
            raise _Broken("malformed header")
        return value

    def body(self, size: int, deadline: Deadline) -> bytes:
        """Exactly `size` bytes of the reply."""
        while len(self.buf) < size:
            self._fill(deadline)
        data, self.buf = self.buf[:size], self.buf[size:]
        return data

    def send(self, request: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise _Broken("the worker ended") from exc

    def kill(self) -> None:
        """End the worker and reap it."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(2.0)


def _count(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _Broken("malformed header")
    return value


class Pool:
    """The live workers by identity, at most MAX_WORKERS; one per (tool, folder)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.workers: OrderedDict[tuple[Any, ...], Worker] = OrderedDict()
        #: Identities whose worker could not start: the CLI serves them.
        self.failed: set[tuple[Any, ...]] = set()

    def close(self) -> None:
        """Kill every worker (the residency ends)."""
        with self.lock:
            workers = list(self.workers.values())
            self.workers.clear()
            self.failed.clear()
        for w in workers:
            w.kill()

    def drop(self, key: tuple[Any, ...], worker: Worker) -> None:
        with self.lock:
            if self.workers.get(key) is worker:
                del self.workers[key]
        worker.kill()

    def take(
        self, key: tuple[Any, ...], start: list[str], cwd: Path, env: Mapping[str, str]
    ) -> tuple[Worker | None, bool]:
        """The worker for `key`, locked for the caller (started when absent), and
        whether it is new; (None, False) when it is busy or could not start."""
        stale: list[Worker] = []
        with self.lock:
            if key in self.failed:
                return None, False
            worker = self.workers.get(key)
            if worker is not None:
                self.workers.move_to_end(key)
                return (worker, False) if worker.busy.acquire(blocking=False) else (None, False)
            for other in [k for k in self.workers if _same_slot(k, key)]:
                stale.append(self.workers.pop(other))
            while len(self.workers) >= MAX_WORKERS:
                stale.append(self.workers.popitem(last=False)[1])
            try:
                proc = subprocess.Popen(
                    start,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    cwd=str(cwd),
                    env=dict(env),
                    start_new_session=True,
                )
            except OSError:
                self.failed.add(key)
                proc = None
            worker = Worker(proc) if proc is not None else None
            if worker is not None:
                worker.busy.acquire()
                self.workers[key] = worker
        for w in stale:
            w.kill()
        at_resident_exit(self.close)
        return worker, worker is not None

    def failed_start(self, key: tuple[Any, ...], worker: Worker) -> None:
        with self.lock:
            self.failed.add(key)
        self.drop(key, worker)


def _same_slot(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Two identities of the same tool in the same folder (the older one is replaced)."""
    return a[0] == b[0] and a[3] == b[3]


POOL = Pool()


def run_warm(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdin: bytes | None,
    deadline: Deadline,
    output_budget: int,
    version: str | None,
    config_digest: str | None,
    root: Path,
) -> ProcResult | None:
    """The CLI run `argv` (argv[0] the tool) through a warm worker, or None when there
    is none to use (not resident, not the ESLint package's bin, busy, cannot start,
    crashed, malformed answer): the caller spawns the CLI then."""
    if not is_resident() or deadline.expired():
        return None
    tool = str(argv[0])
    pkg = package_root(tool)
    node = node_for(env)
    if pkg is None or node is None or not WORKER_JS.is_file():
        return None
    key = identity(tool, version, cwd, env, config_digest, root)
    started = time.monotonic()
    for _ in range(2):  # a worker whose loaded modules changed is replaced once
        worker, new = POOL.take(key, [node, str(WORKER_JS), str(pkg)], cwd, env)
        if worker is None:
            return None
        try:
            return _exchange(worker, key, new, argv, stdin, deadline, output_budget, started)
        except _Stale:
            POOL.drop(key, worker)
        finally:
            with contextlib.suppress(RuntimeError):
                worker.busy.release()
    return None


def _exchange(
    worker: Worker,
    key: tuple[Any, ...],
    new: bool,
    argv: Sequence[str],
    stdin: bytes | None,
    deadline: Deadline,
    output_budget: int,
    started: float,
) -> ProcResult | None:
    cli = tuple(str(a) for a in argv)

    def took() -> int:
        return int((time.monotonic() - started) * 1000)

    try:
        if new:
            try:
                ready = worker.header(deadline)
            except _Broken:
                POOL.failed_start(key, worker)  # this ESLint cannot run in a worker
                return None
            if ready.get("ready") is not True:
                POOL.failed_start(key, worker)
                return None
        payload = base64.b64encode(stdin).decode() if stdin is not None else None
        worker.send({"argv": list(cli[1:]), "stdin": payload})
        head = worker.header(deadline)
        if "stale" in head:
            raise _Stale
        code, out_n, err_n = (
            head.get("exit"),
            _count(head.get("stdout")),
            _count(head.get("stderr")),
        )
        if not isinstance(code, int) or isinstance(code, bool):
            raise _Broken("malformed header")
        if out_n + err_n > output_budget:
            POOL.drop(key, worker)
            return ProcResult(cli, None, b"", b"", over_budget=True, duration_ms=took())
        out = worker.body(out_n, deadline)
        err = worker.body(err_n, deadline)
    except _Late:
        POOL.drop(key, worker)
        return ProcResult(cli, None, b"", b"", timed_out=True, duration_ms=took())
    except _Broken:
        POOL.drop(key, worker)
        return None
    return ProcResult(cli, code, out, err, duration_ms=took())
