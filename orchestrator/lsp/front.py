"""The front door of `orchestrate lsp`: answers `initialize` before the server loads.

Standard library only. It reads the client's first message from stdin (LSP's
`Content-Length` framing); when that is `initialize` it answers it at once with the
capabilities the full server (lsp/server.py, pygls) registers, then loads that server
and hands it the whole conversation, the `initialize` request included, through a pipe.
The server sets up its workspace and position encoding from that request as usual; its
own answer to it is dropped (the client has its answer already), everything else it
writes goes to stdout as is. So the editor's `initialize` is answered in the time
Python takes to start, and pygls, the engine and the report models load while the
client sends `initialized` and opens its first buffer. One server serves every request:
this module only answers the first one and relays bytes.

`tests/test_units_lsp_front.py` holds `initialize_result` equal to what the full
server answers for the same request.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from typing import IO, Any

from orchestrator import __version__

#: The most bytes of one message's header block and body the front door reads itself.
MAX_HEADER = 8192
MAX_FIRST_MESSAGE = 16 * 1024 * 1024
#: The position encodings the server can use, in pygls's order of support.
ENCODINGS = ("utf-8", "utf-16", "utf-32")


class FdReader:
    """Unbuffered reading of a file descriptor with a look-ahead of our own, so what
    was read past the first message is handed on (`rest`), and the relay reads the
    descriptor with os.read (no buffered reader's lock held by a thread at exit)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.rest = b""

    def _more(self) -> bool:
        chunk = os.read(self.fd, 65536)
        self.rest += chunk
        return bool(chunk)

    def readline(self, limit: int) -> bytes:
        """Up to and including the next newline, at most `limit` bytes."""
        while b"\n" not in self.rest[:limit] and len(self.rest) < limit and self._more():
            pass
        cut = self.rest.find(b"\n", 0, limit)
        n = cut + 1 if cut >= 0 else min(limit, len(self.rest))
        line, self.rest = self.rest[:n], self.rest[n:]
        return line

    def read(self, n: int) -> bytes:
        """Exactly `n` bytes, fewer at end of input."""
        while len(self.rest) < n and self._more():
            pass
        data, self.rest = self.rest[:n], self.rest[n:]
        return data


def read_message(stream: FdReader) -> tuple[bytes, dict[str, Any] | None]:
    """One framed message from `stream`: its raw bytes (headers and body, to hand on
    unchanged) and its parsed body (None when it is not a JSON object, or the framing
    is not what LSP sends). Empty bytes at end of input."""
    raw = b""
    length = -1
    while True:
        line = stream.readline(MAX_HEADER)
        raw += line
        if not line or len(raw) > MAX_HEADER:
            return raw, None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            length = int(value.strip())
    if not 0 <= length <= MAX_FIRST_MESSAGE:
        return raw, None
    body = stream.read(length)
    raw += body
    try:
        data = json.loads(body)
    except ValueError:
        return raw, None
    return raw, data if isinstance(data, dict) else None


def frame(payload: dict[str, Any]) -> bytes:
    """`payload` as one LSP message: a Content-Length header and the JSON body."""
    body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def position_encoding(params: dict[str, Any]) -> str:
    """The encoding the server counts positions in: the first the client offers in
    `general.positionEncodings` that the server supports, else UTF-16 (LSP's default;
    the rule pygls applies)."""
    general = (params.get("capabilities") or {}).get("general") or {}
    offered = general.get("positionEncodings") if isinstance(general, dict) else None
    for encoding in offered if isinstance(offered, list) else ():
        if encoding in ENCODINGS:
            return str(encoding)
    return "utf-16"


def initialize_result(params: dict[str, Any]) -> dict[str, Any]:
    """The `initialize` result of `orchestrate lsp` for a request with `params`: the
    features lsp/server.build_server registers, in LSP's JSON."""
    return {
        "capabilities": {
            "positionEncoding": position_encoding(params),
            "textDocumentSync": {
                "openClose": True,
                "change": 2,
                "save": {"includeText": False},
            },
            "codeActionProvider": {"codeActionKinds": ["quickfix"]},
            "executeCommandProvider": {"commands": []},
            "workspace": {
                "workspaceFolders": {"supported": True, "changeNotifications": True},
                "fileOperations": {},
            },
        },
        "serverInfo": {"name": "orchestrate", "version": __version__},
    }


class DropAnswer:
    """A writer for the server that drops its answer to one request (the `initialize`
    the front door answered) and writes every other message to `out` unchanged."""

    def __init__(self, out: IO[bytes], request_id: Any) -> None:
        self.out = out
        self.request_id = request_id
        self.pending = b""
        self.dropped = False

    def write(self, data: bytes) -> None:
        """Take what the server writes (whole messages, or parts of them)."""
        if self.dropped:
            self.out.write(data)
            self.out.flush()
            return
        self.pending += data
        while not self.dropped:
            head, sep, rest = self.pending.partition(b"\r\n\r\n")
            if not sep:
                return
            length = _content_length(head)
            if length is None or len(rest) < length:
                if length is None:  # not LSP framing: hand it on and stop looking
                    self._flush_all()
                return
            body, self.pending = rest[:length], rest[length:]
            if self._is_answer(body):
                self.dropped = True
            else:
                self.out.write(head + sep + body)
        self._flush_all()

    def _flush_all(self) -> None:
        self.out.write(self.pending)
        self.out.flush()
        self.pending = b""
        self.dropped = True

    def _is_answer(self, body: bytes) -> bool:
        try:
            data = json.loads(body)
        except ValueError:
            return False
        return (
            isinstance(data, dict)
            and "method" not in data
            and data.get("id") == self.request_id
            and ("result" in data or "error" in data)
        )

    def flush(self) -> None:
        """Nothing to do: each write is flushed."""

    def close(self) -> None:
        """Close the output stream."""
        self.out.close()


def _content_length(head: bytes) -> int | None:
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            return int(value.strip())
    return None


def _relay(first: bytes, source: FdReader, sink: int) -> None:
    """Write `first`, what `source` read ahead, then everything its descriptor holds,
    to the pipe `sink`; close it at the end of input so the server sees the client
    leave."""
    try:
        with os.fdopen(sink, "wb", buffering=0) as out:
            out.write(first + source.rest)
            while chunk := os.read(source.fd, 65536):
                out.write(chunk)
    except OSError:
        return


def serve(
    start_server: Callable[[IO[bytes], Any], int],
    stdin_fd: int = 0,
    stdout: IO[bytes] | None = None,
) -> int:
    """Answer the client's `initialize` (when it is the first message), then run
    `start_server(reader, writer)` on the whole conversation: the full server, loaded
    only now."""
    source = FdReader(stdin_fd)
    out = stdout or sys.stdout.buffer
    first, message = read_message(source)
    writer: Any = out
    if message is not None and message.get("method") == "initialize" and "id" in message:
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": initialize_result(params)}
        out.write(frame(answer))
        out.flush()
        writer = DropAnswer(out, message["id"])
    read_end, write_end = os.pipe()
    threading.Thread(target=_relay, args=(first, source, write_end), daemon=True).start()
    with os.fdopen(read_end, "rb") as reader:
        return start_server(reader, writer)


__all__ = [
    "DropAnswer",
    "FdReader",
    "frame",
    "initialize_result",
    "position_encoding",
    "read_message",
    "serve",
]
