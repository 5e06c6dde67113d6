"""A scripted model API on loopback: the shared server machinery.

Each model request takes the next turn of a script (a tool call, or text); after the
last turn the answer is "done". Every request body that takes a turn is saved to
`log_dir/request-NNN.json`, so a test reads exactly what the host CLI put into the
model's context: what the hooks of turn N added is in request N+1.

The server runs in a daemon thread of the test process and binds port 0, so there is
no race for a "free" port between choosing it and binding it.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: A request body larger than this is refused: the CLIs send well under 1 MiB.
MAX_BODY = 16 * 1024 * 1024
DONE: dict[str, Any] = {"text": "done"}


@dataclass(frozen=True)
class Reply:
    """One HTTP answer."""

    status: int
    content_type: str
    body: bytes

    @classmethod
    def json(cls, data: object, status: int = 200) -> Reply:
        return cls(status, "application/json", json.dumps(data).encode())


class Api:
    """What one model API answers. Subclasses say which POSTs take a turn."""

    name = "api"

    def takes_turn(self, path: str) -> bool:
        """True when a POST to `path` is a model call that consumes a script turn."""
        raise NotImplementedError

    def side_reply(self, method: str, path: str) -> Reply:
        """The answer to any request that does not take a turn (model lists, token counts)."""
        return Reply.json({})

    def turn_reply(self, path: str, body: dict[str, Any], turn: dict[str, Any], n: int) -> Reply:
        """The answer for request number `n` (from 1), scripted by `turn`."""
        raise NotImplementedError


class ScriptedServer:
    """A scripted model API served on 127.0.0.1 from a daemon thread.

    Use as a context manager, or call start() and stop(); stop() is bounded and safe to
    call twice.
    """

    def __init__(self, api: Api, turns: Sequence[dict[str, Any]], log_dir: Path, port: int = 0):
        self.api = api
        self.turns = list(turns)
        self.log_dir = log_dir
        self._lock = threading.Lock()
        self._count = 0
        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def request_count(self) -> int:
        with self._lock:
            return self._count

    def start(self) -> ScriptedServer:
        """Serve in a daemon thread; the socket is already bound, so no wait is needed."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving and close the socket, waiting at most `timeout` seconds."""
        if self._thread is not None and self._thread.is_alive():
            self._httpd.shutdown()
            self._thread.join(timeout)
        self._httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def requests(self) -> list[dict[str, Any]]:
        """The saved turn-taking request bodies, in order, parsed."""
        files = sorted(self.log_dir.glob("request-*.json"))
        return [json.loads(p.read_bytes()) for p in files]

    def _next_turn(self, raw: bytes) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self._count += 1
            n = self._count
            (self.log_dir / f"request-{n:03d}.json").write_bytes(raw)
        return n, (self.turns[n - 1] if n <= len(self.turns) else DONE)

    def _handler(self) -> type[http.server.BaseHTTPRequestHandler]:
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass  # the request log is the record

            def _send(self, reply: Reply) -> None:
                self.send_response(reply.status)
                self.send_header("content-type", reply.content_type)
                self.send_header("content-length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

            def do_GET(self) -> None:
                self._send(server.api.side_reply("GET", self.path))

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                if length > MAX_BODY:
                    self._send(Reply.json({"error": "request too large"}, status=413))
                    return
                raw = self.rfile.read(length)
                if not server.api.takes_turn(self.path):
                    self._send(server.api.side_reply("POST", self.path))
                    return
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                n, turn = server._next_turn(raw)
                self._send(server.api.turn_reply(self.path, body, turn, n))

        return Handler


def sse(event: str | None, data: dict[str, Any], sep: str = "\n") -> bytes:
    """One server-sent event."""
    head = f"event: {event}{sep}" if event else ""
    return f"{head}data: {json.dumps(data)}{sep}{sep}".encode()


def serve_main(api: Api, argv: Sequence[str] | None = None) -> None:
    """Run `api` in the foreground on a fixed port, for trying a host CLI by hand."""
    import argparse

    ap = argparse.ArgumentParser(description=f"Scripted {api.name} model API on loopback")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--script", type=Path, required=True)
    ap.add_argument("--log-dir", type=Path, required=True)
    args = ap.parse_args(argv)
    turns = json.loads(args.script.read_text())["turns"]
    server = ScriptedServer(api, turns, args.log_dir, port=args.port).start()
    try:
        assert server._thread is not None
        server._thread.join()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
