"""Probe: `orchestrate lsp` against `ruff server`, side by side in one run, over stdio.

Three figures (medians; reported, never judged here; bench/RESULTS.md says which aims
are met):

1. start -> `initialize` answered: from spawning the server to its answer;
2. Python change -> diagnostics: a `didChange` (the whole text, alternating a clean
   text and one with an unused import) to the `publishDiagnostics` of that version,
   one change at a time, over `--changes` changes (first one after the open dropped);
3. JavaScript change -> diagnostics through `orchestrate lsp`, against a cold
   `eslint FILE` on the same project (the pinned ESLint of tools/eslint).

The servers run in temporary git projects with the same Ruff configuration. The probe
speaks LSP itself (standard library only): what it times is what an editor waits for.
Usage: .venv/bin/python bench/lsp_probe.py [--changes N] [--starts N]
run_bench.py calls `probe()` and prints its rows with the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
BIN = Path(sys.executable).parent
RUFF_TOML = 'lint.select = ["E", "F", "W", "I", "B", "UP"]\n'
JS_CONFIG = 'import js from "@eslint/js";\nexport default [js.configs.recommended];\n'
WAIT_S = 60.0


def _frame(payload: dict[str, Any]) -> bytes:
    body = json.dumps(payload).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read(stream: IO[bytes]) -> dict[str, Any] | None:
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    if length is None:
        return None
    return json.loads(stream.read(length))


class Server:
    """One language server process and what it sent, with its arrival times."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.cwd = cwd
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self.inbox: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        while (message := _read(self.proc.stdout)) is not None:
            self.inbox.put((time.perf_counter(), message))

    def send(self, payload: dict[str, Any]) -> float:
        """Write one message; the time just before it was written (a fast server
        answers before the write call returns)."""
        assert self.proc.stdin is not None
        data = _frame({"jsonrpc": "2.0", **payload})
        at = time.perf_counter()
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        return at

    def request(self, method: str, params: Any) -> int:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    def wait(self, want: Callable[[dict[str, Any]], bool], since: float = 0.0) -> float:
        """The arrival time of the next message `want` accepts that arrived after
        `since` (answering the server's own requests, such as
        workspace/configuration, with nothing on the way)."""
        end = time.perf_counter() + WAIT_S
        while True:
            at, message = self.inbox.get(timeout=max(end - time.perf_counter(), 0.01))
            if "method" in message and "id" in message:
                result: Any = [None] * len(message.get("params", {}).get("items", []))
                self.send({"id": message["id"], "result": result or None})
            if at >= since and want(message):
                return at

    def initialize(self) -> float:
        """Initialize; seconds from spawning to the answer."""
        root = self.cwd.as_uri()
        ident = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root,
                "capabilities": {"textDocument": {"publishDiagnostics": {}}},
                "workspaceFolders": [{"uri": root, "name": "proj"}],
            },
        )
        at = self.wait(lambda m: m.get("id") == ident and "method" not in m)
        self.send({"method": "initialized", "params": {}})
        return at - self.started

    def stop(self) -> None:
        try:
            ident = self.request("shutdown", None)
            self.wait(lambda m: m.get("id") == ident and "method" not in m)
            self.send({"method": "exit", "params": None})
            self.proc.wait(timeout=10)
        except (OSError, queue.Empty, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def _published(uri: str, version: int | None) -> Callable[[dict[str, Any]], bool]:
    def want(m: dict[str, Any]) -> bool:
        if m.get("method") != "textDocument/publishDiagnostics":
            return False
        params = m.get("params", {})
        got = params.get("version")
        return params.get("uri") == uri and (version is None or got in (None, version))

    return want


def change_latencies(
    argv: list[str], root: Path, rel: str, language: str, texts: list[str], changes: int
) -> list[float]:
    """Seconds from each `didChange` to its diagnostics, one change at a time."""
    server = Server(argv, root)
    try:
        server.initialize()
        uri = (root / rel).as_uri()
        server.send(
            {
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": uri, "languageId": language, "version": 1, "text": texts[0],
                    }
                },
            }
        )  # fmt: skip
        server.wait(_published(uri, 1))
        out: list[float] = []
        for n in range(changes + 1):
            version = n + 2
            sent = server.send(
                {
                    "method": "textDocument/didChange",
                    "params": {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"text": texts[(n + 1) % len(texts)]}],
                    },
                }
            )
            got = server.wait(_published(uri, version), since=sent)
            if n:  # the first change after the open may still load code
                out.append(got - sent)
        return out
    finally:
        server.stop()


def start_times(argv: list[str], root: Path, starts: int) -> list[float]:
    """Seconds from spawning `argv` to `initialize` answered, `starts` times."""
    out = []
    for _ in range(starts):
        server = Server(argv, root)
        try:
            out.append(server.initialize())
        finally:
            server.stop()
    return out


def _git_project(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (root / rel).write_text(text)
    if not (root / ".git").exists():
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def _eslint_cold(root: Path, rel: str, reps: int) -> list[float]:
    eslint = str(root / "node_modules" / ".bin" / "eslint")
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        subprocess.run([eslint, rel], cwd=root, capture_output=True, check=False)
        out.append(time.perf_counter() - t)
    return out


def probe(work: Path, changes: int = 20, starts: int = 5) -> dict[str, list[float]]:
    """Every sample of the three figures, by row name (seconds)."""
    orchestrate = [str(BIN / "orchestrate"), "lsp"]
    ruff = [str(BIN / "ruff"), "server"]
    py = _git_project(work / "py", {"a.py": "x = 1\n", "ruff.toml": RUFF_TOML})
    texts = ["x = 1\n", "import os\n\nx = 2\n"]
    rows: dict[str, list[float]] = {}
    rows["lsp start: orchestrate lsp -> initialize answered"] = start_times(orchestrate, py, starts)
    rows["lsp start: ruff server -> initialize answered"] = start_times(ruff, py, starts)
    rows["lsp py change: orchestrate lsp -> diagnostics"] = change_latencies(
        orchestrate, py, "a.py", "python", texts, changes
    )
    rows["lsp py change: ruff server -> diagnostics"] = change_latencies(
        ruff, py, "a.py", "python", texts, changes
    )
    modules = REPO / "tools" / "eslint" / "node_modules"
    if (modules / ".bin" / "eslint").exists():
        js = _git_project(work / "js", {"eslint.config.mjs": JS_CONFIG, "app.js": "let x = 1;\n"})
        link = js / "node_modules"
        if not link.is_symlink():
            link.symlink_to(modules)
        js_texts = ["export const x = 1;\n", "let unused = 2;\nexport const x = 1;\n"]
        rows["lsp js change: orchestrate lsp -> diagnostics"] = change_latencies(
            orchestrate, js, "app.js", "javascript", js_texts, max(changes // 4, 5)
        )
        rows["lsp js: eslint app.js (cold)"] = _eslint_cold(js, "app.js", max(changes // 4, 5))
    return rows


def ratios(med: dict[str, float]) -> list[tuple[str, str, str]]:
    """The probe's rows of the aims table: (label, value, aim)."""

    def ratio(a: str, b: str) -> str:
        return f"{med[a] / med[b]:.2f}x" if a in med and b in med else "n/a"

    def ms(a: str) -> str:
        return f"{med[a] * 1000:.1f} ms" if a in med else "n/a"

    return [
        ("LSP: start to initialize answered (orchestrate)", ms("lsp start: orchestrate lsp -> initialize answered"), "<= 300 ms"),
        ("  ruff server", ms("lsp start: ruff server -> initialize answered"), ""),
        ("LSP: Python change -> diagnostics (orchestrate)", ms("lsp py change: orchestrate lsp -> diagnostics"), "<= 50 ms"),
        ("  ruff server", ms("lsp py change: ruff server -> diagnostics"), ""),
        ("LSP: JS change -> diagnostics / cold eslint FILE", ratio("lsp js change: orchestrate lsp -> diagnostics", "lsp js: eslint app.js (cold)"), "<= 0.25x"),
    ]  # fmt: skip


def print_rows(rows: dict[str, list[float]]) -> dict[str, float]:
    """Print each row's median (min, max, samples); the medians by row."""
    med = {name: statistics.median(s) for name, s in rows.items() if s}
    for name, s in rows.items():
        print(
            f"lsp      {name:<52} {med[name]:8.4f} s  (min {min(s):.4f}, max {max(s):.4f},"
            f" n={len(s)})"
        )
    return med


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--changes", type=int, default=20)
    ap.add_argument("--starts", type=int, default=5)
    args = ap.parse_args()
    if shutil.which("ruff", path=str(BIN)) is None:
        print("lsp_probe: ruff missing in this environment (./run setup)", file=sys.stderr)
        return 2
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="lsp-probe-") as tmp:
        rows = probe(Path(tmp), args.changes, args.starts)
    load_after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs; load average before {load_before}, after {load_after}")
    med = print_rows(rows)
    print()
    for label, value, aim in ratios(med):
        print(f"{label:<58} {value:>12}   {('aim ' + aim) if aim else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
