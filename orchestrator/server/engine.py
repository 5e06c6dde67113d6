"""The warm engine: one long-lived process per project root that answers `lint` requests.

It holds an exclusive lock (one engine per root), listens on a Unix socket of mode
0600 in the user's private runtime folder and serves one request per connection. A
thread per connection reads and validates the request (peer credential first: another
user is refused before anything is read); the requests themselves run one at a time
in the main thread, through the very CLI entry a cold run uses (`run_main`), with the
client's working folder, environment and output encoding, so the rendered bytes and
the exit code are those of a cold run; a host hook's edit lint and an editor buffer's
check are the use-case calls it is handed (server/services.py), their results encoded
by server/codec.py. What stays warm between requests: the imported
code (pydantic models, plugins, tree-sitter grammars and parsers), the tool versions
the plugins cache by path and file stat, and the reuse cache, keyed by the identity
core/reuse.py defines.

Before each request the engine checks it still runs the code the client would run:
the same orchestrate version, interpreter and import path, and no loaded module file
(orchestrate, a plugin, a library) nor import folder changed since it loaded them.
Otherwise it answers `stale` and exits; the client checks in-process and starts a
fresh engine. It also exits after `idle_timeout` seconds without a request.
"""

from __future__ import annotations

import codecs
import contextlib
import fcntl
import io
import os
import queue
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orchestrator import __version__, deadline
from orchestrator.resident import residency
from orchestrator.server import client as client_mod
from orchestrator.server.protocol import (
    MAX_BUFFER_REQUEST,
    MAX_REPLY,
    ProtocolError,
    RuntimePaths,
    client_identity,
    make_reply,
    peer_uid,
    private_folder,
    recv_frame,
    send_frame,
    validate_request,
)

#: Seconds a connection may take to send its request.
READ_SECONDS = 5.0
#: How often a waiting connection looks whether its client is still there.
PEER_POLL_S = 0.05
#: Connections served at once; more are closed unanswered.
MAX_CONNECTIONS = 64
#: Seconds a starting engine waits for the lock a stopping one still holds.
LOCK_WAIT_SECONDS = 10.0
#: Fault injection for tests: a file whose bytes count as part of the code's version,
#: so rewriting it looks like an upgrade to a running engine.
FAULT_VERSION_FILE = "ORCHESTRATE_FAULT_VERSION_FILE"
#: Fault injection for tests: seconds the engine sleeps before each request (a busy or
#: hanging engine).
FAULT_DELAY = "ORCHESTRATE_FAULT_ENGINE_DELAY_S"

RunMain = Callable[[list[str]], int]
#: A host hook's edit-feedback lint: (root, paths, timeout) -> the result as JSON bytes.
HookLint = Callable[[Path, list[str], float], bytes]
#: An editor buffer's lint: (root, relative path, the buffer's bytes, timeout) -> the
#: check as JSON bytes.
BufferLint = Callable[[Path, str, bytes, float], bytes]


def log(message: str) -> None:
    """One line in the engine's log (its stderr, a file in the runtime folder)."""
    with contextlib.suppress(OSError, ValueError):
        sys.__stderr__.write(f"{time.strftime('%H:%M:%S')} [{os.getpid()}] {message}\n")
        sys.__stderr__.flush()


def rss_kib() -> int | None:
    """This process's resident set size in KiB (Linux /proc), or None."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


class CodeStamp:
    """The files the engine's code came from, by stat, and the import folders."""

    def __init__(self) -> None:
        self.files: dict[str, tuple[int, int]] = {}
        self.folders = {p: self._mtime(p) for p in sys.path if p}
        self.fault = self._fault()
        self.extend()

    @staticmethod
    def _mtime(path: str) -> int | None:
        try:
            return os.stat(path).st_mtime_ns
        except OSError:
            return None

    @staticmethod
    def _fault() -> bytes | None:
        name = os.environ.get(FAULT_VERSION_FILE)
        if not name:
            return None
        try:
            return Path(name).read_bytes()[:4096]
        except OSError:
            return b""

    def extend(self) -> None:
        """Remember the files of every module loaded since the last call."""
        for mod in list(sys.modules.values()):
            name = getattr(mod, "__file__", None)
            if not isinstance(name, str) or name in self.files:
                continue
            try:
                st = os.stat(name)
            except OSError:
                continue
            self.files[name] = (st.st_mtime_ns, st.st_size)

    def changed(self) -> str | None:
        """Why the code differs from what is loaded (a reason), or None."""
        if self._fault() != self.fault:
            return "the version changed"
        for folder, mtime in self.folders.items():
            if self._mtime(folder) != mtime:
                return "installed packages changed"
        for name, seen in self.files.items():
            try:
                st = os.stat(name)
            except OSError:
                return "a loaded module was removed"
            if (st.st_mtime_ns, st.st_size) != seen:
                return "a loaded module changed"
        return None


@dataclass
class Job:
    """One request waiting for the main thread, and the reply it gets.

    A request whose client went away is `abandoned`: never started when still queued,
    cancelled (every deadline of the run expires: `deadline.cancel_all`) when running.
    """

    request: dict[str, Any]
    expires: float
    done: threading.Event = field(default_factory=threading.Event)
    reply: dict[str, Any] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    running: bool = False
    abandoned: bool = False

    def start(self) -> bool:
        """Mark the job running; False when its client already went away."""
        with self.lock:
            self.running = not self.abandoned
            return self.running

    def finish(self) -> None:
        """The run is over: deadlines run on their clocks again."""
        with self.lock:
            self.running = False
            deadline.resume()

    def abandon(self) -> None:
        """The client went away: skip the job, or cancel the run in progress."""
        with self.lock:
            self.abandoned = True
            if self.running:
                deadline.cancel_all()


def peer_gone(conn: socket.socket) -> bool:
    """Whether the client closed its end (or sent more than its one request, which the
    protocol does not allow: the request is abandoned as well)."""
    poller = select.poll()  # not select(): a descriptor past FD_SETSIZE must work too
    poller.register(conn, select.POLLIN | select.POLLHUP | select.POLLERR)
    try:
        if not poller.poll(0):
            return False
        conn.recv(1, socket.MSG_PEEK)  # readable: at its end (b"") or out of protocol
    except OSError:
        pass  # reset by the peer
    return True


class _Out(io.TextIOWrapper):
    """Captured standard output that answers `isatty` as the client's does."""

    tty = False

    def isatty(self) -> bool:
        return self.tty


@contextlib.contextmanager
def _as_client(req: dict[str, Any]) -> Iterator[tuple[io.BytesIO, io.BytesIO]]:
    """The client's folder, environment and output streams for the duration."""
    out_buf, err_buf = io.BytesIO(), io.BytesIO()
    shape = req.get("stdout") or {"encoding": "utf-8", "errors": "strict", "isatty": False}
    enc = shape["encoding"]
    codecs.lookup(enc)
    codecs.lookup_error(shape["errors"])
    out = _Out(out_buf, encoding=enc, errors=shape["errors"], write_through=True)
    out.tty = shape["isatty"]
    err = io.TextIOWrapper(err_buf, encoding="utf-8", errors="backslashreplace", write_through=True)
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved = (sys.stdout, sys.stderr)
    os.chdir(req["cwd"] if "cwd" in req else req["root"])
    try:
        os.environ.clear()
        os.environ.update(req["env"])
        sys.stdout, sys.stderr = out, err
        yield out_buf, err_buf
    finally:
        sys.stdout, sys.stderr = saved
        for stream in (out, err):
            with contextlib.suppress(Exception):
                stream.flush()
                stream.detach()  # the buffers outlive the wrappers
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)


class Engine:
    """The server of one project root (see the module docs)."""

    def __init__(
        self,
        root: Path,
        paths: RuntimePaths,
        run_main: RunMain,
        idle_timeout: float,
        hook_lint: HookLint | None = None,
        buffer_lint: BufferLint | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.root = root
        #: Seconds, monotonic: what idleness is measured in (tests inject their own).
        self.clock = clock
        self.paths = paths
        self.run_main = run_main
        self.hook_lint = hook_lint
        self.buffer_lint = buffer_lint
        self.idle_timeout = idle_timeout
        self.jobs: queue.Queue[Job | None] = queue.Queue()
        self.started = time.time()
        self.served = 0
        self.last_active = clock()
        self.stopping = threading.Event()
        self.identity = client_identity()
        self.stamp: CodeStamp | None = None
        self.threads: set[threading.Thread] = set()
        # Guards `threads`: the accept thread adds and starts under it, so `_drain` never
        # joins a thread that is not started yet (join would raise).
        self.threads_lock = threading.Lock()
        self.delay = float(os.environ.get(FAULT_DELAY, "0") or 0)
        #: A request runs in the main thread now (others wait in `jobs`).
        self.busy = False

    # --- the connection threads ---------------------------------------------------

    def info(self) -> dict[str, Any]:
        """What `server status` shows."""
        return {
            "pid": os.getpid(),
            "root": str(self.root),
            "version": __version__,
            "started": self.started,
            "served": self.served,
            "rss_kib": rss_kib(),
            "idle_timeout_s": self.idle_timeout,
        }

    def _connection(self, conn: socket.socket) -> None:
        try:
            self._converse(conn)
        finally:
            with self.threads_lock:
                self.threads.discard(threading.current_thread())

    def _converse(self, conn: socket.socket) -> None:
        with conn:
            try:
                uid = peer_uid(conn)
            except OSError:
                return
            if uid != os.getuid():
                log(f"refused a connection from uid {uid}")
                with contextlib.suppress(OSError):
                    send_frame(conn, make_reply("refused", "another user"))
                    conn.shutdown(socket.SHUT_WR)
                    # Discarded unread (a close with unread bytes would reset the
                    # connection and lose the refusal on the other side).
                    conn.settimeout(0.5)
                    for _ in range(16):  # bounded: at most 1 MiB, 8 s
                        if not conn.recv(65536):
                            break
                return
            try:
                req = validate_request(
                    # The cap of a request that carries an editor buffer (the largest).
                    recv_frame(conn, MAX_BUFFER_REQUEST, time.monotonic() + READ_SECONDS)
                )
            except (ProtocolError, TimeoutError, OSError) as exc:
                with contextlib.suppress(OSError):
                    send_frame(conn, make_reply("error", f"bad request: {exc}"))
                return
            reply = self._answer(req, conn)
            if reply is not None:
                with contextlib.suppress(OSError):
                    conn.settimeout(READ_SECONDS)
                    send_frame(conn, reply)

    def _answer(
        self, req: dict[str, Any], conn: socket.socket | None = None
    ) -> dict[str, Any] | None:
        self.last_active = self.clock()  # any request of the owner counts as use
        if req["kind"] == "ping":
            return make_reply("ok", info=self.info())
        if req["kind"] == "stop":
            self.stopping.set()
            self.jobs.put(None)
            return make_reply("ok", "stopping", info=self.info())
        job = Job(req, time.monotonic() + float(req["wait_s"]))
        if self.busy:
            log(f"{req['kind']} request queued behind a running one")
        self.jobs.put(job)
        end = time.monotonic() + float(req["wait_s"]) + 1.0
        while not job.done.wait(min(PEER_POLL_S, max(0.0, end - time.monotonic()))):
            if time.monotonic() >= end:
                break
            if conn is not None and peer_gone(conn):
                log(f"client went away; {'cancelling' if job.running else 'dropping'} its request")
                job.abandon()
                job.done.wait(float(req["wait_s"]) + 1.0)
                return None
        return job.reply

    def _accept(self, listener: socket.socket) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with self.threads_lock:
                if len(self.threads) >= MAX_CONNECTIONS:
                    conn.close()  # the client sees no answer and checks in-process
                    continue
                t = threading.Thread(target=self._connection, args=(conn,), daemon=True)
                self.threads.add(t)
                t.start()

    def _drain(self) -> None:
        """Answer what is still queued (the engine is going), then let the replies out."""
        while True:
            try:
                job = self.jobs.get_nowait()
            except queue.Empty:
                break
            if job is not None:
                job.reply = make_reply("stale", "the engine is stopping")
                job.done.set()
        end = time.monotonic() + 2.0
        with self.threads_lock:
            started = list(self.threads)
        for t in started:
            t.join(max(0.0, end - time.monotonic()))

    # --- the main thread ------------------------------------------------------------

    def _stale(self, req: dict[str, Any]) -> str | None:
        if req["client"] != self.identity:
            return "the client runs other code (version, interpreter or import path)"
        return self.stamp.changed() if self.stamp else None

    def _run(self, job: Job) -> dict[str, Any] | None:
        if time.monotonic() > job.expires:
            return None  # the client gave up and checked in-process
        if not job.start():
            return None  # the client went away while it was queued
        try:
            return self._serve(job)
        finally:
            job.finish()

    def _serve(self, job: Job) -> dict[str, Any] | None:
        reason = self._stale(job.request)
        if reason:
            log(f"stale: {reason}; exiting")
            self.stopping.set()
            return make_reply("stale", reason)
        req = job.request
        if req["kind"] == "hook_lint" and self.hook_lint is None:
            return make_reply("error", "hook lint not offered")
        if req["kind"] == "buffer_lint" and self.buffer_lint is None:
            return make_reply("error", "buffer lint not offered")
        size = len(req["argv"] if req["kind"] == "run" else req.get("paths", [req.get("path")]))
        log(f"serving {req['kind']} of {size} argument(s) in {req.get('cwd', req.get('root'))!r}")
        if self.delay:
            time.sleep(self.delay)  # fault injection (FAULT_DELAY)
        data, code = b"", 0
        try:
            with _as_client(req) as (out, err):
                if req["kind"] == "run":
                    code = int(self.run_main(list(req["argv"])))
                elif req["kind"] == "buffer_lint":
                    assert self.buffer_lint is not None
                    data = self.buffer_lint(
                        Path(req["root"]), req["path"], req["content"], req["timeout"]
                    )
                else:
                    assert self.hook_lint is not None
                    data = self.hook_lint(Path(req["root"]), list(req["paths"]), req["timeout"])
        except (OSError, LookupError, ValueError) as exc:
            return make_reply("error", f"cannot serve: {type(exc).__name__}: {exc}")
        self.served += 1
        if job.abandoned:
            log("the abandoned request ended early")
            return None
        if code in (130, 143):  # a signal ended the run: the engine ends too
            self.stopping.set()
        if self.stamp is not None:
            self.stamp.extend()
        body = out.getvalue() if req["kind"] == "run" else data
        if (len(body) + len(err.getvalue())) * 4 // 3 > MAX_REPLY - 4096:
            return make_reply("error", "the output is over the reply size cap")
        return make_reply("ok", exit_code=code, stdout=body, stderr=err.getvalue())

    def _loop(self) -> None:
        while not self.stopping.is_set():
            idle_left = self.idle_timeout - (self.clock() - self.last_active)
            if idle_left <= 0:
                log("idle timeout reached; exiting")
                return
            try:
                job = self.jobs.get(timeout=min(idle_left, 1.0))
            except queue.Empty:
                continue
            if job is None:
                return
            try:
                self.busy = True
                job.reply = self._run(job)
            except BaseException as exc:  # noqa: BLE001 - one request must not end the engine
                job.reply = make_reply("error", f"internal: {type(exc).__name__}")
                if not isinstance(exc, Exception):
                    self.stopping.set()
            finally:
                self.busy = False
                job.done.set()
                self.last_active = self.clock()

    def _lock(self) -> int | None:
        fd = os.open(self.paths.lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        end = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if time.monotonic() > end or client_mod.engine_answers(self.paths):
                    os.close(fd)
                    return None
                time.sleep(0.05)

    def serve(self) -> int:
        """Serve until stopped, stale or idle. 0 after a clean stop; 1 when another
        engine already serves this root or the runtime folder is not private."""
        client_mod.SERVING = True  # a request run here must never call an engine
        try:
            private_folder(self.paths.folder, create=True)
        except Exception as exc:  # noqa: BLE001 - UnsafeRuntime and OS errors alike
            log(f"runtime folder refused: {exc}")
            return 1
        fd = self._lock()
        if fd is None:
            log("another engine serves this root")
            return 1
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        bound: int | None = None
        try:
            with contextlib.suppress(FileNotFoundError):
                self.paths.socket.unlink()  # left by a dead engine: we hold the lock
            old = os.umask(0o177)
            try:
                listener.bind(str(self.paths.socket))
            finally:
                os.umask(old)
            os.chmod(self.paths.socket, 0o600)
            bound = os.stat(self.paths.socket).st_ino
            listener.listen(64)
            client_mod.release_start_lock()  # clients find the socket from now on
            self.stamp = CodeStamp()
            # SIGTERM between requests: stop cleanly (a request's own handlers, those of
            # the CLI entry, take over while it runs).
            signal.signal(signal.SIGTERM, lambda *_: self.stopping.set())
            log(f"serving {self.root} (idle timeout {self.idle_timeout:g} s)")
            threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
            with residency():  # helpers plugins keep warm end with the engine
                self._loop()
        finally:
            self.stopping.set()
            listener.close()
            with contextlib.suppress(OSError):
                if os.stat(self.paths.socket).st_ino == bound:
                    self.paths.socket.unlink()
            self._drain()
            os.close(fd)  # releases the lock
        log("stopped")
        return 0


__all__ = [
    "FAULT_DELAY",
    "FAULT_VERSION_FILE",
    "BufferLint",
    "CodeStamp",
    "Engine",
    "HookLint",
    "peer_gone",
    "rss_kib",
]
