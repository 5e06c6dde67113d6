"""The warm engine's client: the first thing `orchestrate lint` tries, and never trusted blindly.

`try_warm(argv)` answers a `lint` from the project's engine when one is running (or
starts one for edit feedback and a terminal's lint, as `warm_use` and `starts` decide)
and returns its exit code after writing the engine's output bytes; it returns None
whenever the check must run in-process: not a lint, no engine, a socket left by a
dead engine (removed), an engine that is stale (replaced), busy past the deadline,
gone mid-request or answering anything malformed. Each of those says so in one line
on stderr. It imports only the standard library and platformdirs: the client's start
costs next to nothing.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from orchestrator.server.protocol import (
    MAX_BUFFER,
    MAX_REPLY,
    PROTO,
    NoAnswer,
    ProtocolError,
    Reply,
    RuntimePaths,
    UnsafeRuntime,
    buffer_request,
    client_identity,
    hook_request,
    parse_json,
    parse_reply,
    paths_named,
    peer_uid,
    private_folder,
    recv_frame,
    runtime_paths,
    send_frame,
)
from orchestrator.vocab import under_ci

if TYPE_CHECKING:  # the records load only when an answer is decoded
    from orchestrator.usecases.editor import BufferCheck
    from orchestrator.usecases.lint import LintResult

#: True inside the engine: a request it runs must never ask an engine again.
SERVING = False
#: True once the console script (cli/entry.py) asked the engine for this process.
ASKED = False
#: `ORCHESTRATE_SERVER=0` keeps a process off the warm engine.
OFF_SWITCH = "ORCHESTRATE_SERVER"
CONNECT_SECONDS = 2.0
PING_SECONDS = 2.0
START_WAIT_SECONDS = 30.0
STOP_WAIT_SECONDS = 10.0
#: Added to the lint's own deadline: the engine also loads and renders.
WAIT_MARGIN_SECONDS = 2.0
# deadline.FEEDBACK_DEADLINE_S, not imported: the client starts without dataclasses;
# tests/test_requests.py holds the two equal.
FEEDBACK_SECONDS = 20.0
FULL_SECONDS = 1800.0  # usecases/lint.FULL_TIMEOUT_S
MAX_WAIT_SECONDS = 3600.0
#: Engines one user runs at once: starting another stops the least recently used.
MAX_ENGINES = 4
#: The environment variable naming the start lock's descriptor a started engine holds.
START_LOCK_FD = "ORCHESTRATE_START_LOCK_FD"


def say(message: str) -> None:
    """One line on stderr about the warm path (escaped: reasons come from outside)."""
    from orchestrator.safetext import printable

    print(f"orchestrate: {printable(message)}", file=sys.stderr, flush=True)


class LintArgs(NamedTuple):
    """The few `lint` options the client needs, read without argparse."""

    root: str | None
    feedback: bool
    timeout: float | None
    #: `--format`'s value, None when not given (the human report).
    fmt: str | None = None
    #: Whether `--output` / `-o` writes the report to a file.
    output: bool = False


def lint_args(argv: list[str]) -> LintArgs | None:
    """The options of a `lint` command line, or None when it is not one the engine may
    serve (another command, a value the client cannot read: the CLI then reports it)."""
    if not argv or argv[0] != "lint":
        return None
    root: str | None = None
    timeout: float | None = None
    fmt: str | None = None
    output = False
    feedback = False
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--":
            break
        if a == "--feedback":
            feedback = True
        elif a.startswith("-o") and not a.startswith("--"):
            output = True
            if a == "-o":
                i += 1
        elif a in _VALUED or a.startswith(tuple(f"{n}=" for n in _VALUED)):
            if "=" in a:
                name, value = a.split("=", 1)
            elif i + 1 < len(argv):
                name, value = a, argv[i + 1]
                i += 1
            else:
                return None
            if name == "--root":
                root = value
            elif name == "--format":
                fmt = value
            elif name == "--output":
                output = True
            else:
                try:
                    timeout = float(value)
                except ValueError:
                    return None
                if not 0 < timeout <= MAX_WAIT_SECONDS:
                    return None
        i += 1
    return LintArgs(root, feedback, timeout, fmt, output)


#: The `lint` options with a value the client reads.
_VALUED = ("--root", "--timeout", "--format", "--output")
#: Not the warm engine.
OFF = "off"
#: A running engine answers; none is started.
USE = "use"
#: A running engine answers; when none runs, one is started for the next check.
START = "start"
#: The formats a person reads: feedback in them may start an engine (a machine's
#: formats, and a report written to a file, are some pipeline's: never one started).
_READ_BY_PEOPLE = (None, "human", "concise")


def warm_use(
    *,
    feedback: bool,
    terminal: bool,
    env: Mapping[str, str],
    fmt: str | None = None,
    output: bool = False,
) -> str:
    """The one decision whether a check asks the warm engine (README "Warm engine"):
    OFF inside the engine, with `ORCHESTRATE_SERVER=0`, and under CI (a CI job's lint
    is a verdict: never a daemon's answer). Edit feedback (`lint --feedback`, a host's
    edit hook) uses a running engine; so does a plain `lint` on a terminal, or anywhere
    with `ORCHESTRATE_SERVER=1` (off a terminal a plain `lint` is some script's: OFF).
    Either may start one when none runs (START: see `starts`, which asks the
    `[server] auto` setting only then) when the output is read by a person (not a
    machine format, not `--output`); a plain `lint` off a terminal never does. The
    strict gates never come here."""
    if SERVING or env.get(OFF_SWITCH) == "0" or under_ci(env):
        return OFF
    if not feedback and not terminal and env.get(OFF_SWITCH) != "1":
        return OFF
    if (feedback or terminal) and fmt in _READ_BY_PEOPLE and not output:
        return START
    return USE


def starts(use: str, auto: Callable[[], bool]) -> bool:
    """Whether a check that found no engine starts one: `use` is START and `auto()`
    (the project's `[server] auto`, on by default) allows it. `auto` is asked only
    here, when no engine answered: a served check reads no configuration."""
    return use == START and auto()


def find_root(cwd: Path, root: str | None) -> Path:
    """The project root the engine is named by: `--root`, else the nearest folder up
    from `cwd` holding `.git`, else `cwd` (the CLI decides the same way through git)."""
    if root:
        return Path(cwd, root).resolve()
    here = cwd.resolve()
    for folder in (here, *here.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return here


def auto_enabled(root: Path) -> bool:
    """Whether edit feedback may start the project's engine: `[server] auto`, true
    unless the configuration says `false` (read as is: the engine validates the
    configuration when it starts; a configuration that cannot be read starts none)."""
    import tomllib

    for name in ("orchestrate.toml", "pyproject.toml"):
        try:
            data = tomllib.loads((root / name).read_text(encoding="utf-8"))
        except FileNotFoundError:
            continue
        except (OSError, ValueError):
            return False
        table = data.get("tool", {}).get("orchestrate") if name == "pyproject.toml" else None
        if name == "orchestrate.toml":
            table = data.get("tool", {}).get("orchestrate", data)
        if table is None:
            continue
        if not isinstance(table, dict):
            return False
        server = table.get("server", {})
        return isinstance(server, dict) and server.get("auto", True) is True
    return True


# --- talking to the engine ----------------------------------------------------------


def _connect(paths: RuntimePaths) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_SECONDS)
        sock.connect(str(paths.socket))
        if peer_uid(sock) != os.getuid():
            raise ProtocolError("the socket is served by another user")
    except BaseException:
        sock.close()
        raise
    return sock


def exchange(paths: RuntimePaths, request: dict[str, Any], wait: float) -> Reply:
    """Send one request and read its validated reply within `wait` seconds.

    Raises OSError (no engine), TimeoutError (no answer in time) or ProtocolError.
    """
    end = time.monotonic() + wait
    with _connect(paths) as sock:
        send_frame(sock, request)
        reply = parse_reply(recv_frame(sock, MAX_REPLY, end))
    # The socket's mtime says when its engine was last asked: the least recently used
    # one is stopped first when too many run (`_make_room`).
    with contextlib.suppress(OSError):
        os.utime(paths.socket)
    return reply


def ping(paths: RuntimePaths) -> dict[str, Any] | None:
    """The running engine's status, or None when none answers."""
    try:
        reply = exchange(paths, {"proto": PROTO, "kind": "ping"}, PING_SECONDS)
    except (OSError, TimeoutError, ProtocolError):
        return None
    return reply.info if reply.status == "ok" else None


def engine_answers(paths: RuntimePaths) -> bool:
    """Whether an engine answers on this socket now."""
    return os.path.lexists(paths.socket) and ping(paths) is not None


def clean_dead(paths: RuntimePaths) -> bool:
    """Remove the socket when no engine holds the lock (its engine died); True if removed."""
    import fcntl

    try:
        fd = os.open(paths.lock, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:
        fd = None
    try:
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False  # an engine holds it: starting, or not answering
        try:
            paths.socket.unlink()
        except FileNotFoundError:
            return False
        return True
    finally:
        if fd is not None:
            os.close(fd)


def spawn(root: Path, *, auto: bool = False, hold: int | None = None) -> Any:
    """Start an engine for `root` in the background (its log in the runtime folder,
    no other stdio of ours: a CI step's pipes never stay open); the process handle.
    `auto`: started by edit feedback (a shorter idle exit). `hold`: a descriptor of the
    start lock the engine keeps until it listens (`start_once`)."""
    import subprocess

    paths = runtime_paths(root)
    private_folder(paths.folder, create=True)
    argv = [sys.executable, "-P", "-m", "orchestrator.cli", "server", "run", "--root", str(root)]
    env = dict(os.environ)
    env.pop(START_LOCK_FD, None)
    if auto:
        argv.append("--auto-started")
    if hold is not None:
        env[START_LOCK_FD] = str(hold)
    fd = os.open(
        paths.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600
    )
    try:
        return subprocess.Popen(
            argv,
            cwd=str(root),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=fd,
            start_new_session=True,
            close_fds=True,
            pass_fds=() if hold is None else (hold,),
        )
    finally:
        os.close(fd)


def _held(lock: Path) -> bool:
    """Whether an engine holds the lock file `lock` (serving, or starting up)."""
    import fcntl

    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def _start_lock(paths: RuntimePaths) -> Path:
    """The start lock of an engine: a starter holds it, then the engine it spawned
    (an inherited descriptor) until it listens (`start_once`)."""
    return paths.lock.with_suffix(".start")


def _starting_or_serving(other: RuntimePaths) -> bool:
    """Whether an engine is there without a socket yet: one holds its start lock
    (spawned, not listening) or its engine lock (starting up)."""
    start = _start_lock(other)
    return (start.exists() and _held(start)) or (other.lock.exists() and _held(other.lock))


def _engines(paths: RuntimePaths) -> list[tuple[float, RuntimePaths]]:
    """The other engines of this user in the runtime folder, least recently asked
    first: each with a socket (by its mtime, which every exchange renews), and each
    starting without one yet (as just used: it was asked for a moment ago)."""
    out: dict[str, tuple[float, RuntimePaths]] = {}
    now = time.time()
    for entry in paths.folder.iterdir():
        stem, suffix = entry.stem, entry.suffix
        if suffix not in {".sock", ".lock", ".start"} or stem in out:
            continue
        other = paths_named(paths.folder, stem)
        if other.socket == paths.socket:
            continue
        with contextlib.suppress(OSError):
            if os.path.lexists(other.socket):
                out[stem] = (other.socket.lstat().st_mtime, other)
            elif _starting_or_serving(other):
                out[stem] = (now, other)
    return sorted(out.values(), key=lambda pair: pair[0])


@contextlib.contextmanager
def _room(paths: RuntimePaths) -> Iterator[None]:
    """One start at a time for this user, across projects: counting the engines and
    spawning a new one happen under one lock in the runtime folder, so two starts in
    two projects cannot both see room for one more."""
    import fcntl

    fd = os.open(
        paths.folder / "engines.room", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600
    )
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _make_room(paths: RuntimePaths) -> None:
    """Stop the least recently asked engines of this user until fewer than MAX_ENGINES
    run, counting those still starting (`_engines`; a status request would count as
    use, so none is sent to choose). Called under `_room`."""
    others = _engines(paths)
    while len(others) >= MAX_ENGINES:
        _mtime, other = others.pop(0)
        try:
            exchange(other, {"proto": PROTO, "kind": "stop"}, PING_SECONDS)
        except (OSError, TimeoutError, ProtocolError):
            clean_dead(other)


def _claim_start(
    root: Path, paths: RuntimePaths, *, auto: bool, replacing: bool = False
) -> tuple[bool, Any]:
    """Spawn `root`'s engine under its start lock (handed to the engine, which keeps
    it until it listens) and the user's `_room` lock, after making room; unless
    another start of `root` is under way or, not `replacing`, an engine holds its
    lock. Whether this call spawned one, and the process handle."""
    import fcntl

    fd = os.open(_start_lock(paths), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False, None  # another client is starting it right now
        if not replacing and _held(paths.lock):
            return False, None  # an engine is there (starting up, or about to listen)
        with _room(paths):
            _make_room(paths)
            return True, spawn(root, auto=auto, hold=fd)
    finally:
        os.close(fd)  # the engine keeps its own copy of the lock until it listens


def start_once(root: Path, *, replacing: bool = False) -> bool:
    """Start `root`'s engine in the background unless one is already starting or
    running: single-flight under a start lock in the runtime folder, which the new
    engine holds until it listens (two hooks at once start one engine). `replacing`:
    the engine there is stale and exiting, so its lock does not stop this start (the
    new one waits for it). Makes room first, counting engines of other projects
    still starting (`_make_room`). True when this call started one."""
    paths = runtime_paths(root)
    private_folder(paths.folder, create=True)
    return _claim_start(root, paths, auto=True, replacing=replacing)[0]


def release_start_lock() -> None:
    """In a started engine, once it listens: let go of the start lock its starter
    handed it (`start_once`), so the next start may be tried again."""
    fd = os.environ.pop(START_LOCK_FD, None)
    if fd is not None:
        with contextlib.suppress(OSError, ValueError):
            os.close(int(fd))


def start(root: Path) -> dict[str, Any] | None:
    """The engine of `root`, started if none answers; its status, or None when it did
    not come up within START_WAIT_SECONDS (its log says why). It is spawned as
    `start_once` spawns (`_claim_start`): while another start of `root` is under way,
    this one waits for that engine."""
    paths = runtime_paths(root)
    info = ping(paths) if os.path.lexists(paths.socket) else None
    if info is not None:
        return info
    if os.path.lexists(paths.socket):
        clean_dead(paths)
    private_folder(paths.folder, create=True)
    proc = None
    end = time.monotonic() + START_WAIT_SECONDS
    while time.monotonic() < end:
        info = ping(paths) if os.path.lexists(paths.socket) else None
        if info is not None:
            return info
        if proc is None:
            proc = _claim_start(root, paths, auto=False)[1]
        elif proc.poll() is not None:  # it ended (a bad configuration, another engine)
            return ping(paths) if os.path.lexists(paths.socket) else None
        time.sleep(0.05)
    return None


def stop(root: Path) -> dict[str, Any] | None:
    """Ask the engine of `root` to stop and wait until its socket is gone; its last
    status, or None when none was running."""
    paths = runtime_paths(root)
    if not os.path.lexists(paths.socket):
        return None
    try:
        reply = exchange(paths, {"proto": PROTO, "kind": "stop"}, PING_SECONDS)
    except (OSError, TimeoutError, ProtocolError):
        clean_dead(paths)
        return None
    end = time.monotonic() + STOP_WAIT_SECONDS
    while os.path.lexists(paths.socket) and time.monotonic() < end:
        time.sleep(0.05)
    return reply.info


# --- the lint front -----------------------------------------------------------------


def _terminal_env(env: dict[str, str]) -> dict[str, str]:
    """The client's environment, plus the terminal size the report renders for (the
    engine has no terminal; rich reads COLUMNS / LINES first)."""
    for fd in (0, 1, 2):
        try:
            size = os.get_terminal_size(fd)
        except (OSError, ValueError):
            continue
        if size.columns and "COLUMNS" not in env:
            env["COLUMNS"] = str(size.columns)
        if size.lines and "LINES" not in env:
            env["LINES"] = str(size.lines)
        break
    return env


def run_request(argv: list[str], wait: float) -> dict[str, Any]:
    """The request that asks the engine to run `argv` as this process would."""
    out = sys.stdout
    return {
        "proto": PROTO,
        "kind": "run",
        "argv": list(argv),
        "cwd": os.getcwd(),
        "env": _terminal_env(dict(os.environ)),
        "client": client_identity(),
        "stdout": {
            "isatty": bool(out.isatty()),
            "encoding": str(getattr(out, "encoding", None) or "utf-8"),
            "errors": str(getattr(out, "errors", None) or "strict"),
        },
        "wait_s": wait,
    }


def _write(reply: Reply) -> int:
    sys.stdout.flush()
    sys.stdout.buffer.write(reply.stdout)
    sys.stdout.buffer.flush()
    sys.stderr.flush()
    sys.stderr.buffer.write(reply.stderr)
    sys.stderr.buffer.flush()
    return reply.exit


def _engine_of(root: Path) -> RuntimePaths | None:
    """The runtime paths of `root`'s engine, or None when its folder must not be used."""
    try:
        paths = runtime_paths(root)
        private_folder(paths.folder, create=False)
    except UnsafeRuntime as exc:
        say(f"warm engine not used: {exc}; checking in-process")
        return None
    except OSError:
        return None
    return paths


def _ask(
    root: Path, paths: RuntimePaths, request: dict[str, Any], wanted: Callable[[], bool]
) -> Reply | None:
    """The engine's `ok` reply to `request`, or None after saying why the check runs
    in-process (starting an engine when `wanted()`, or when the one running was stale).
    `wanted` is asked only when no engine answered: a served request reads no config."""
    if not os.path.lexists(paths.socket):
        if wanted():
            _start_later(root, "warm engine starting for the next check; checking in-process")
        return None
    try:
        reply = exchange(paths, request, float(request["wait_s"]))
    except (ConnectionRefusedError, FileNotFoundError):
        if clean_dead(paths):
            msg = "removed the socket of a dead warm engine; checking in-process"
            if wanted():
                _start_later(root, msg)
            else:
                say(msg)
        else:
            say("warm engine not answering; checking in-process")
        return None
    except TimeoutError:
        say("warm engine busy past the deadline; checking in-process")
        return None
    except NoAnswer:
        say("warm engine went away mid-request; checking in-process")
        return None
    except ProtocolError as exc:
        say(f"warm engine answered something malformed ({exc}); checking in-process")
        return None
    except OSError as exc:
        err = errno.errorcode.get(exc.errno or 0, type(exc).__name__)
        say(f"warm engine unreachable ({err}); checking in-process")
        return None
    if reply.status == "stale":
        _start_later(
            root,
            f"warm engine was stale ({reply.reason}); restarting it, checking in-process",
            replacing=True,
        )
        return None
    if reply.status != "ok":
        say(f"warm engine did not serve ({reply.status}: {reply.reason}); checking in-process")
        return None
    return reply


def try_warm(argv: list[str]) -> int | None:
    """Answer `argv` from the warm engine: its exit code after writing its output, or
    None when the caller must check in-process (see the module docs)."""
    if ASKED:
        return None
    args = lint_args(argv)
    if args is None:
        return None
    root = find_root(Path.cwd(), args.root)
    use = warm_use(
        feedback=args.feedback,
        terminal=sys.stdout.isatty(),
        env=os.environ,
        fmt=args.fmt,
        output=args.output,
    )
    if use == OFF:
        return None
    paths = _engine_of(root)
    if paths is None:
        return None
    wait = (args.timeout or (FEEDBACK_SECONDS if args.feedback else FULL_SECONDS)) + (
        WAIT_MARGIN_SECONDS
    )
    try:
        request = run_request(argv, min(wait, MAX_WAIT_SECONDS))
        reply = _ask(root, paths, request, lambda: starts(use, lambda: auto_enabled(root)))
        return None if reply is None else _write(reply)
    except (KeyboardInterrupt, BrokenPipeError) as exc:
        # Ctrl-C while the engine works, or a reader that closed stdout: the exit and
        # the one line a cold run gives (decisions/exits.py), never a traceback.
        from orchestrator.decisions.exits import exit_for_exception

        return exit_for_exception(exc)


def hook_lint(root: Path, paths: list[str], timeout: float) -> LintResult | None:
    """The edit-feedback lint of a host hook answered by the warm engine (the lint
    result, decoded by server/codec.py), or None when the hook must lint in-process.
    Only edit feedback asks: never a gate."""
    if not 0 < timeout <= MAX_WAIT_SECONDS:
        return None
    use = warm_use(feedback=True, terminal=False, env=os.environ)
    if use == OFF:
        return None
    engine = _engine_of(root)
    if engine is None:
        return None
    wait = min(timeout + WAIT_MARGIN_SECONDS, MAX_WAIT_SECONDS)
    request = hook_request(str(root), paths, timeout, dict(os.environ), wait)
    reply = _ask(root, engine, request, lambda: starts(use, lambda: auto_enabled(root)))
    if reply is None:
        return None
    from orchestrator.server.codec import decode_lint_result

    try:
        result = decode_lint_result(parse_json(reply.stdout, "lint result"))
    except ProtocolError:
        result = None
    if result is None:
        say("warm engine answered something malformed (lint result); checking in-process")
        return None
    if reply.stderr:
        sys.stderr.buffer.write(reply.stderr)
        sys.stderr.buffer.flush()
    return result


class BufferAnswer(NamedTuple):
    """The engine's check of an editor buffer (decoded by server/codec.py), or why
    there is none."""

    check: BufferCheck | None
    #: Why the buffer is checked in-process ("" when `data` is the engine's answer).
    reason: str = ""


def buffer_lint(root: Path, rel: str, content: bytes, timeout: float) -> BufferAnswer:
    """An editor buffer checked by the running engine of `root` as file `rel` (the
    language server's warm path), or why not: no engine, the off switch, CI, a buffer over
    MAX_BUFFER, a socket left by a dead engine (removed), a stale engine (it exits by
    itself), no answer in time, anything malformed. It never starts an engine and
    prints nothing: the caller says why it checks in-process."""
    if SERVING or os.environ.get(OFF_SWITCH) == "0":
        return BufferAnswer(None, f"{OFF_SWITCH}=0")
    if len(content) > MAX_BUFFER:
        return BufferAnswer(None, "the buffer is over the engine's size cap")
    if not 0 < timeout <= MAX_WAIT_SECONDS:
        return BufferAnswer(None, "no deadline the engine accepts")
    if under_ci(os.environ):
        return BufferAnswer(None, "under CI: nothing talks to a warm engine")
    try:
        paths = runtime_paths(root)
        private_folder(paths.folder, create=False)
    except (UnsafeRuntime, OSError) as exc:
        return BufferAnswer(None, f"runtime folder not used: {exc}")
    if not os.path.lexists(paths.socket):
        return BufferAnswer(None, "no warm engine running")
    wait = min(timeout + WAIT_MARGIN_SECONDS, MAX_WAIT_SECONDS)
    request = buffer_request(str(root), rel, content, timeout, dict(os.environ), wait)
    try:
        reply = exchange(paths, request, wait)
    except (ConnectionRefusedError, FileNotFoundError):
        if clean_dead(paths):
            return BufferAnswer(None, "removed the socket of a dead warm engine")
        return BufferAnswer(None, "warm engine not answering")
    except TimeoutError:
        return BufferAnswer(None, "warm engine busy past the deadline")
    except NoAnswer:
        return BufferAnswer(None, "warm engine went away mid-request")
    except ProtocolError as exc:
        return BufferAnswer(None, f"warm engine answered something malformed ({exc})")
    except OSError as exc:
        err = errno.errorcode.get(exc.errno or 0, type(exc).__name__)
        return BufferAnswer(None, f"warm engine unreachable ({err})")
    if reply.status != "ok":
        return BufferAnswer(None, f"warm engine did not serve ({reply.status}: {reply.reason})")
    from orchestrator.server.codec import decode_buffer_check

    try:
        check = decode_buffer_check(parse_json(reply.stdout, "buffer check"))
    except ProtocolError:
        check = None
    if check is None:
        return BufferAnswer(None, "warm engine answered something malformed (buffer check)")
    return BufferAnswer(check)


def _start_later(root: Path, message: str, *, replacing: bool = False) -> None:
    with contextlib.suppress(OSError, UnsafeRuntime):
        start_once(root, replacing=replacing)
    say(message)


__all__ = [
    "MAX_ENGINES",
    "OFF",
    "OFF_SWITCH",
    "START",
    "USE",
    "BufferAnswer",
    "LintArgs",
    "auto_enabled",
    "buffer_lint",
    "clean_dead",
    "engine_answers",
    "exchange",
    "find_root",
    "hook_lint",
    "lint_args",
    "ping",
    "release_start_lock",
    "run_request",
    "spawn",
    "start",
    "start_once",
    "starts",
    "stop",
    "try_warm",
    "warm_use",
]
