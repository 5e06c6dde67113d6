"""The warm engine served in this process (server/engine.py through `server run`,
cli/server.py) and asked by the client (server/client.py) over its real Unix socket.

The engine serves in the test's main thread (it installs a SIGTERM handler, which only
the main thread may); the client runs in a second thread. Both share one process, so
the engine's process-wide "I am serving" flag (client.SERVING) is lowered in the
client thread only around the client calls that honour it (hook and buffer lint); a
`lint` run request is sent with the client's own `exchange`. The engine as a separate
process, started by the client, is an end-to-end case (tests/test_warm_engine.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import new_repo

from orchestrator import statmemo
from orchestrator.cli import server as cli_server
from orchestrator.cli.main import main as cli_main
from orchestrator.core import run_memo
from orchestrator.server import client
from orchestrator.server.engine import CodeStamp, Job, peer_gone, rss_kib
from orchestrator.server.protocol import (
    PROTO,
    RuntimePaths,
    parse_reply,
    recv_frame,
    runtime_paths,
    send_frame,
)

LINT = ["lint", "--no-tasks", "--format", "concise", "a.py"]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A repository with one Ruff finding, as the working folder, with private cache,
    config and (short-named, for the socket path) runtime folders."""
    runtime = Path(tempfile.mkdtemp(prefix="oc-rt-", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv(client.OFF_SWITCH, "1")  # the suite runs with it off
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(client, "SERVING", False)
    monkeypatch.setattr(client, "ASKED", False)
    # A short idle timeout: a test that fails before it stops the engine still ends.
    root = new_repo(
        tmp_path / "r",
        {"a.py": "import os\n", "orchestrate.toml": "[server]\nidle_timeout = 30\n"},
    )
    monkeypatch.chdir(root)
    try:
        yield root
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


def _serve(root: Path, talk: Callable[[RuntimePaths], None]) -> int:
    """`server run` for `root` in this thread while `talk(paths)` runs in another once
    the engine answers; the engine's exit code. Raises what `talk` raised."""
    paths = runtime_paths(root)
    failures: list[BaseException] = []

    def client_side() -> None:
        try:
            end = time.monotonic() + 60
            while client.ping(paths) is None:
                assert time.monotonic() < end, "the engine did not come up"
                time.sleep(0.05)
            talk(paths)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread
            failures.append(exc)
        finally:
            client.stop(root)

    thread = threading.Thread(target=client_side, daemon=True)
    saved = signal.getsignal(signal.SIGTERM)
    thread.start()
    try:
        code = cli_server.cmd_server(
            argparse.Namespace(action="run", root=None, format="human", auto_started=False)
        )
    finally:
        signal.signal(signal.SIGTERM, saved)
        client.SERVING = False
        thread.join(30)
        # `server run` made this a warm process (usecases/warm.warm_up): cold again, as
        # the other tests of this process expect.
        statmemo.enable(False)
        run_memo.hold(False)
    if failures:
        raise failures[0]
    return code


def _client_call(call: Callable[[], object]) -> object:
    """`call()` as a client in another process would make it (see the module docs)."""
    client.SERVING = False
    try:
        return call()
    finally:
        client.SERVING = True


def test_a_served_project_answers_as_a_cold_run_and_stops(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: dict[str, object] = {}

    def talk(paths: RuntimePaths) -> None:
        info = client.ping(paths)
        assert info is not None
        assert info["pid"] == os.getpid() and info["root"] == str(project)
        assert info["idle_timeout_s"] == 30.0 and info["served"] == 0
        seen["run"] = client.exchange(paths, client.run_request(LINT, 60.0), 60.0)
        seen["hook"] = _client_call(lambda: client.hook_lint(project, ["a.py"], 20.0))
        seen["buffer"] = _client_call(
            lambda: client.buffer_lint(project, "a.py", b"import re\nimport sys\n", 20.0)
        )
        assert client.ping(paths)["served"] == 3  # type: ignore[index]
        status = argparse.Namespace(action="status", root=None, format="json")
        assert cli_server.cmd_server(status) == 0
        seen["status"] = capsys.readouterr().out
        stop = argparse.Namespace(action="stop", root=None, format="human")
        assert cli_server.cmd_server(stop) == 0
        seen["stop"] = capsys.readouterr().out

    assert _serve(project, talk) == 0
    paths = runtime_paths(project)
    assert not paths.socket.exists()  # a clean stop takes its socket away
    run = seen["run"]
    assert run.status == "ok" and run.exit == 1  # type: ignore[attr-defined]
    assert json.loads(seen["status"])["state"] == "running"  # type: ignore[arg-type]
    assert str(seen["stop"]).startswith("warm engine stopped: pid ")
    hook = seen["hook"]
    assert [f.rule for f in hook.report.findings] == ["F401"]  # type: ignore[attr-defined]
    buffer = seen["buffer"]
    assert buffer.reason == "" and buffer.check is not None  # type: ignore[attr-defined]
    assert sorted(f.rule for f in buffer.check.report.findings) == ["F401", "F401"]  # type: ignore[attr-defined]
    # The engine's bytes and exit code are those of a cold run of the same command.
    capsys.readouterr()
    assert cli_main(LINT) == run.exit  # type: ignore[attr-defined]
    assert capsys.readouterr().out.encode() == run.stdout  # type: ignore[attr-defined]


def test_the_engine_refuses_a_bad_request_and_exits_on_a_stale_client(project: Path) -> None:
    seen: dict[str, object] = {}

    def talk(paths: RuntimePaths) -> None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(paths.socket))
            send_frame(sock, {"proto": PROTO, "kind": "format-the-disk"})
            seen["bad"] = parse_reply(recv_frame(sock, 1 << 20, time.monotonic() + 10))
        other = client.run_request(LINT, 30.0)
        other["client"] = {**other["client"], "version": "0.0.0-other"}
        seen["stale"] = client.exchange(paths, other, 30.0)

    assert _serve(project, talk) == 0  # the stale request ended it, not the stop
    bad = seen["bad"]
    assert bad.status == "error" and bad.reason.startswith("bad request: unknown request kind")  # type: ignore[attr-defined]
    stale = seen["stale"]
    assert stale.status == "stale" and "other code" in stale.reason  # type: ignore[attr-defined]


def test_without_an_engine_status_says_not_running_and_stop_does_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = argparse.Namespace(action="status", root=None, format="human")
    assert cli_server.cmd_server(status) == cli_server.NOT_RUNNING
    assert capsys.readouterr().out == "warm engine not running\n"
    status.format = "json"
    assert cli_server.cmd_server(status) == cli_server.NOT_RUNNING
    assert json.loads(capsys.readouterr().out) == {"state": "not running", "root": str(project)}
    stop = argparse.Namespace(action="stop", root=None, format="human")
    assert cli_server.cmd_server(stop) == 0
    assert capsys.readouterr().out == "warm engine not running\n"


def test_a_second_engine_for_the_same_root_refuses_to_serve(project: Path) -> None:
    codes: list[int] = []

    def talk(paths: RuntimePaths) -> None:
        from orchestrator.server.engine import Engine

        second = Engine(project, paths, cli_main, 30.0)
        codes.append(second._lock() is None)  # the running one holds the lock and answers

    assert _serve(project, talk) == 0
    assert codes == [True]


def test_the_code_stamp_sees_a_loaded_module_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = tmp_path / "stamped_mod_for_test.py"
    module.write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    importlib.import_module("stamped_mod_for_test")
    stamp = CodeStamp()
    assert stamp.changed() is None
    module.write_text("X = 22\n")
    assert stamp.changed() in ("a loaded module changed", "installed packages changed")
    module.unlink()
    assert stamp.changed() in ("a loaded module was removed", "installed packages changed")


def test_a_client_that_hung_up_is_seen_gone_and_its_job_abandoned() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        assert not peer_gone(ours)
        theirs.close()
        assert peer_gone(ours)
    job = Job({"kind": "run"}, expires=time.monotonic() + 10)
    job.abandon()
    assert not job.start()  # a queued job whose client left is never started
    assert isinstance(rss_kib(), int)


def test_draining_never_joins_a_connection_thread_that_is_not_started_yet(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client that connects as the engine stops: the accept thread has made the
    connection's thread but not started it when the drain looks (this raced in CI:
    "cannot join thread before it is started")."""
    from orchestrator.server import engine as engine_mod

    paths = runtime_paths(project)
    eng = engine_mod.Engine(project, paths, cli_main, 30.0)
    made = threading.Event()
    real_thread = threading.Thread

    class SlowStart(real_thread):
        def start(self) -> None:
            made.set()
            time.sleep(0.3)  # the window in which the drain looked
            super().start()

    monkeypatch.setattr(engine_mod.threading, "Thread", SlowStart)
    here = Path(tempfile.mkdtemp(prefix="oc-acc-", dir="/tmp"))
    try:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(here / "s"))
        listener.listen()
        real_thread(target=eng._accept, args=(listener,), daemon=True).start()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(here / "s"))
            assert made.wait(10)
            eng.stopping.set()
            eng._drain()  # raised RuntimeError before the accept thread held a lock
        listener.close()
    finally:
        shutil.rmtree(here, ignore_errors=True)
