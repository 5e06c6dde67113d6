"""The warm engine's wire protocol: where its socket lives, the frames, strict validation.

One request per connection over a Unix socket. Each frame is a 4-byte big-endian
length and that many bytes of UTF-8 JSON. Requests and replies are validated strictly
(exact keys, exact types, bounded sizes): anything else is a `ProtocolError`, and the
client then checks in-process. The socket lives in the user's runtime folder
(platformdirs), in a folder of mode 0700 the user owns, named by a digest of the
resolved project root: one engine per project root.

This module is on the client's start-up path: it imports the standard library only
(platformdirs when a path is asked for), and not dataclasses (its import of inspect
costs more than the rest of the client): its records are named tuples.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import socket
import stat
import struct
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

PROTO = 1
#: The most bytes a request frame may hold (argv, cwd and the environment).
MAX_REQUEST = 1 << 20
#: The most bytes a reply frame may hold (the rendered report, base64 inside JSON).
MAX_REPLY = 64 << 20
MAX_ARGV = 4096
MAX_ENV = 4096
MAX_REASON = 500
#: The most bytes of an editor buffer a `buffer_lint` request may carry: the largest
#: file any checker reads (model/checker.MAX_FILE_BYTES, the ceiling of
#: `max_parse_bytes`; not imported, the client's start stays light).
MAX_BUFFER = 16 << 20
MAX_BUFFER_PATH = 4096
#: The most bytes a request frame carrying a buffer may hold (base64 inside JSON).
MAX_BUFFER_REQUEST = MAX_REQUEST + (MAX_BUFFER + 2) // 3 * 4
_HEADER = struct.Struct(">I")
KINDS = ("run", "hook_lint", "buffer_lint", "ping", "stop")
STATUSES = ("ok", "stale", "refused", "error")


class ProtocolError(Exception):
    """A frame that is too large, truncated, not JSON or not of the expected shape."""


class NoAnswer(ProtocolError):
    """The connection closed before a frame began: the other end went away."""


class UnsafeRuntime(Exception):
    """The runtime folder is not the user's own private folder: the engine is not used."""


class RuntimePaths(NamedTuple):
    """The files of one project's engine in the user's runtime folder."""

    folder: Path
    socket: Path
    lock: Path
    log: Path


def runtime_folder() -> Path:
    """orchestrate's folder in the user's runtime folder (platformdirs; XDG_RUNTIME_DIR)."""
    import warnings

    import platformdirs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fallback to a temporary folder is fine
        return Path(platformdirs.user_runtime_dir("orchestrate"))


def root_digest(root: Path) -> str:
    """The digest that names a project root's engine (of its resolved path)."""
    return hashlib.sha256(os.fsencode(str(root.resolve()))).hexdigest()[:20]


def runtime_paths(root: Path, folder: Path | None = None) -> RuntimePaths:
    """Where the engine of `root` keeps its socket, lock and log."""
    return paths_named(folder or runtime_folder(), root_digest(root))


def paths_named(folder: Path, name: str) -> RuntimePaths:
    """The socket, lock and log of the engine called `name` (its root's digest) in
    `folder`: the one naming scheme, also for an engine found by its socket's stem."""
    return RuntimePaths(
        folder, folder / f"{name}.sock", folder / f"{name}.lock", folder / f"{name}.log"
    )


def private_folder(folder: Path, create: bool) -> bool:
    """Whether `folder` is a real folder of this user with mode 0700 (made so when
    `create`); False when it does not exist. Raises UnsafeRuntime for a symlink, another
    owner or wider permissions: such a folder is never used."""
    if create:
        old = os.umask(0o077)
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        finally:
            os.umask(old)
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeRuntime(f"{folder} is not a folder")
    if st.st_uid != os.getuid():
        raise UnsafeRuntime(f"{folder} belongs to another user")
    if stat.S_IMODE(st.st_mode) & 0o077:
        raise UnsafeRuntime(f"{folder} is open to other users (mode {stat.S_IMODE(st.st_mode):o})")
    _safe_ancestors(folder)
    return True


def _safe_ancestors(folder: Path) -> None:
    """UnsafeRuntime when another user could rename or replace `folder` (or a folder
    above it) between our check and our use: each must belong to this user or root,
    and be writable by no one else unless sticky (`/tmp`)."""
    for above in Path(os.path.realpath(folder.parent)).joinpath("x").parents:
        st = os.stat(above)
        open_to_others = stat.S_IMODE(st.st_mode) & 0o022 and not st.st_mode & stat.S_ISVTX
        if st.st_uid not in (os.getuid(), 0) or open_to_others:
            raise UnsafeRuntime(f"{above}, above {folder}, can be changed by another user")


def peer_uid(sock: socket.socket) -> int:
    """The user id of the process at the other end of a connected Unix socket."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return uid


# --- frames ----------------------------------------------------------------------


def send_frame(sock: socket.socket, obj: dict[str, Any]) -> None:
    """Send one length-prefixed JSON frame."""
    body = json.dumps(obj, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    sock.sendall(_HEADER.pack(len(body)) + body)


def _recv_exact(sock: socket.socket, n: int, deadline: float) -> bytes:
    chunks: list[bytes] = []
    got = 0
    while got < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no complete frame before the deadline")
        sock.settimeout(left)
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            if chunks:
                raise ProtocolError("connection closed mid-frame")
            raise NoAnswer("connection closed without an answer")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def recv_frame(sock: socket.socket, limit: int, deadline: float) -> dict[str, Any]:
    """One frame as a JSON object, at most `limit` bytes, before `deadline` (monotonic).

    Raises TimeoutError past the deadline, ProtocolError for anything malformed.
    """
    (size,) = _HEADER.unpack(_recv_exact(sock, _HEADER.size, deadline))
    if size > limit:
        raise ProtocolError(f"frame of {size} bytes over the limit of {limit}")
    obj = parse_json(_recv_exact(sock, size, deadline), "frame")
    if not isinstance(obj, dict):
        raise ProtocolError("frame is not a JSON object")
    return obj


def parse_json(body: bytes, what: str) -> Any:
    """`body` parsed as UTF-8 JSON; ProtocolError for anything else (not UTF-8, not
    JSON, nested past the parser's recursion limit)."""
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ProtocolError(f"{what} is not JSON") from None


# --- validation -------------------------------------------------------------------


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise ProtocolError(what)


def _is_str_list(value: Any, cap: int) -> bool:
    return isinstance(value, list) and len(value) <= cap and all(isinstance(x, str) for x in value)


def client_identity() -> dict[str, Any]:
    """What the engine compares with its own to know it runs the same code."""
    from orchestrator import __version__

    # The first entry is the script's folder (or the working folder) unless the process
    # runs with -P, as the engine does: it says nothing about the code imported. The
    # interpreter by its real file (venv/bin/python and python3 are one); the import
    # path tells one virtual environment from another.
    path = sys.path if sys.flags.safe_path else sys.path[1:]
    return {"version": __version__, "executable": os.path.realpath(sys.executable), "path": path}


def _identity_ok(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and set(value) == {"version", "executable", "path"}
        and isinstance(value["version"], str)
        and isinstance(value["executable"], str)
        and _is_str_list(value["path"], MAX_ARGV)
    )


def validate_request(obj: dict[str, Any]) -> dict[str, Any]:
    """`obj` when it is a well-formed request of this protocol, else ProtocolError."""
    _check(obj.get("proto") == PROTO, "unknown protocol version")
    kind = obj.get("kind")
    _check(kind in KINDS, "unknown request kind")
    if kind in ("ping", "stop"):
        _check(set(obj) == {"proto", "kind"}, "unexpected keys in request")
        return obj
    if kind in ("hook_lint", "buffer_lint"):
        keys = {"proto", "kind", "root", "paths", "timeout", "env", "client", "wait_s"}
        if kind == "buffer_lint":
            keys = keys - {"paths"} | {"path", "content"}
        _check(set(obj) == keys, "unexpected keys in request")
        _check(isinstance(obj["root"], str) and os.path.isabs(obj["root"]), "root: want a path")
        if kind == "hook_lint":
            _check(_is_str_list(obj["paths"], MAX_ARGV), "paths: want strings")
        else:
            _validate_buffer(obj)
        t = obj["timeout"]
        _check(isinstance(t, float) and 0 < t <= 3600, "timeout: want seconds")
    else:
        keys = {"proto", "kind", "argv", "cwd", "env", "client", "stdout", "wait_s"}
        _check(set(obj) == keys, "unexpected keys in request")
        _check(_is_str_list(obj["argv"], MAX_ARGV) and bool(obj["argv"]), "argv: want strings")
        _check(obj["argv"][0] == "lint", "only lint is served")
        cwd = obj["cwd"]
        _check(isinstance(cwd, str) and os.path.isabs(cwd), "cwd: want an absolute path")
        _validate_stdout(obj["stdout"])
    env = obj["env"]
    _check(
        isinstance(env, dict)
        and len(env) <= MAX_ENV
        and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()),
        "env: want strings",
    )
    _check(_identity_ok(obj["client"]), "client: malformed identity")
    wait = obj["wait_s"]
    _check(
        isinstance(wait, int | float) and not isinstance(wait, bool) and 0 < wait <= 3600,
        "wait_s: want seconds",
    )
    return obj


def _validate_buffer(obj: dict[str, Any]) -> None:
    """A buffer request's `path` (relative, bounded) and `content` (base64 of at most
    MAX_BUFFER bytes, decoded in place: the engine receives bytes)."""
    rel = obj["path"]
    _check(
        isinstance(rel, str)
        and 0 < len(rel) <= MAX_BUFFER_PATH
        and not os.path.isabs(rel)
        and "\0" not in rel,
        "path: want a relative path",
    )
    content = obj["content"]
    _check(isinstance(content, str) and len(content) <= (MAX_BUFFER + 2) // 3 * 4, "content")
    obj["content"] = _b64(content, "content")
    _check(len(obj["content"]) <= MAX_BUFFER, "content: over the size cap")


def _request(
    kind: str, root: str, timeout: float, env: dict[str, str], wait: float, **fields: Any
) -> dict[str, Any]:
    """A request of `kind` for project `root` with its own `fields`, and the parts every
    request carries (protocol, deadline, environment, client, how long to wait)."""
    return {
        "proto": PROTO,
        "kind": kind,
        "root": root,
        **fields,
        "timeout": float(timeout),
        "env": env,
        "client": client_identity(),
        "wait_s": wait,
    }


def buffer_request(
    root: str, rel: str, content: bytes, timeout: float, env: dict[str, str], wait: float
) -> dict[str, Any]:
    """The request asking the engine to lint the editor buffer `content` as file `rel`
    of project `root` (the other side of `validate_request`)."""
    encoded = base64.b64encode(content).decode("ascii")
    return _request("buffer_lint", root, timeout, env, wait, path=rel, content=encoded)


def hook_request(
    root: str, paths: list[str], timeout: float, env: dict[str, str], wait: float
) -> dict[str, Any]:
    """The request asking the engine for a host hook's edit-feedback lint of `paths`
    in project `root` (the other side of `validate_request`)."""
    return _request("hook_lint", root, timeout, env, wait, paths=list(paths))


def _validate_stdout(out: Any) -> None:
    _check(
        isinstance(out, dict)
        and set(out) == {"isatty", "encoding", "errors"}
        and isinstance(out["isatty"], bool)
        and isinstance(out["encoding"], str)
        and isinstance(out["errors"], str)
        and len(out["encoding"]) < 40
        and len(out["errors"]) < 40,
        "stdout: malformed",
    )


def _b64(value: Any, what: str) -> bytes:
    _check(isinstance(value, str), f"{what}: want base64 text")
    try:
        return base64.b64decode(value.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise ProtocolError(f"{what}: not base64") from None


class Reply(NamedTuple):
    """A validated reply: its status, and for a run its exit code and output bytes."""

    status: str
    reason: str = ""
    exit: int = 0
    stdout: bytes = b""
    stderr: bytes = b""
    info: dict[str, Any] | None = None


def make_reply(
    status: str,
    reason: str = "",
    exit_code: int = 0,
    stdout: bytes = b"",
    stderr: bytes = b"",
    info: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A reply frame's object (the engine's side of `parse_reply`)."""
    return {
        "proto": PROTO,
        "status": status,
        "reason": reason[:MAX_REASON],
        "exit": exit_code,
        "stdout": base64.b64encode(stdout).decode("ascii"),
        "stderr": base64.b64encode(stderr).decode("ascii"),
        "info": info or {},
    }


def parse_reply(obj: dict[str, Any]) -> Reply:
    """The reply in `obj` when well-formed, else ProtocolError."""
    keys = {"proto", "status", "reason", "exit", "stdout", "stderr", "info"}
    _check(set(obj) == keys and obj["proto"] == PROTO, "unexpected reply shape")
    _check(obj["status"] in STATUSES, "unknown reply status")
    _check(isinstance(obj["reason"], str) and len(obj["reason"]) <= MAX_REASON, "reason")
    code = obj["exit"]
    _check(isinstance(code, int) and not isinstance(code, bool) and 0 <= code <= 255, "exit")
    _check(isinstance(obj["info"], dict), "info: want an object")
    return Reply(
        status=obj["status"],
        reason=obj["reason"],
        exit=code,
        stdout=_b64(obj["stdout"], "stdout"),
        stderr=_b64(obj["stderr"], "stderr"),
        info=obj["info"],
    )


__all__ = [
    "KINDS",
    "MAX_BUFFER",
    "MAX_BUFFER_REQUEST",
    "MAX_REPLY",
    "MAX_REQUEST",
    "PROTO",
    "NoAnswer",
    "ProtocolError",
    "Reply",
    "RuntimePaths",
    "UnsafeRuntime",
    "buffer_request",
    "client_identity",
    "hook_request",
    "make_reply",
    "parse_json",
    "parse_reply",
    "paths_named",
    "peer_uid",
    "private_folder",
    "recv_frame",
    "root_digest",
    "runtime_folder",
    "runtime_paths",
    "send_frame",
    "validate_request",
]
