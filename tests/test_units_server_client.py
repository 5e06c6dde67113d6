"""The warm engine's client (server/client.py) where no engine answers: which command
lines it may send, the project root it names, the `[server] auto` switch, and every way
it falls back to checking in-process (no engine, the off switch, a socket left by a
dead engine, a runtime folder others may write, a buffer over the cap). Answers of a
running engine: tests/test_units_server_engine.py."""

from __future__ import annotations

import fcntl
import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator.server import client
from orchestrator.server.protocol import MAX_BUFFER, runtime_paths


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private, short-named runtime folder, the client free to ask."""
    folder = Path(tempfile.mkdtemp(prefix="oc-rt-", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    monkeypatch.setenv(client.OFF_SWITCH, "1")  # off a terminal too (the suite sets 0)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(client, "SERVING", False)
    monkeypatch.setattr(client, "ASKED", False)
    yield folder
    for path in sorted(folder.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    folder.rmdir()


def test_lint_args_reads_root_timeout_and_feedback_only_from_a_lint() -> None:
    assert client.lint_args(["check"]) is None
    assert client.lint_args([]) is None
    got = client.lint_args(["lint", "--root", "sub", "--timeout=5", "--feedback", "a.py"])
    assert got == client.LintArgs("sub", True, 5.0)
    assert client.lint_args(["lint", "--root=x", "--", "--feedback"]) == client.LintArgs(
        "x", False, None
    )
    # A value the client cannot read is the CLI's to report: not sent to an engine.
    assert client.lint_args(["lint", "--timeout", "soon"]) is None
    assert client.lint_args(["lint", "--timeout", "0"]) is None
    assert client.lint_args(["lint", "--root"]) is None


def test_the_root_is_the_option_else_the_nearest_git_folder_else_cwd(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "src").mkdir()
    assert client.find_root(tmp_path / "repo" / "src", None) == (tmp_path / "repo").resolve()
    assert client.find_root(tmp_path / "repo" / "src", "..") == (tmp_path / "repo").resolve()
    (tmp_path / "plain").mkdir()
    assert client.find_root(tmp_path / "plain", None) == (tmp_path / "plain").resolve()


def test_auto_start_is_on_unless_the_configuration_says_false(tmp_path: Path) -> None:
    assert client.auto_enabled(tmp_path)  # no configuration: on by default
    (tmp_path / "pyproject.toml").write_text("[tool.orchestrate]\njobs = 2\n")
    assert client.auto_enabled(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.orchestrate.server]\nauto = false\n")
    assert not client.auto_enabled(tmp_path)
    (tmp_path / "orchestrate.toml").write_text("[server]\nidle_timeout = 60\n")
    assert client.auto_enabled(tmp_path)  # orchestrate.toml first
    (tmp_path / "orchestrate.toml").write_text("[server]\nauto = 1\n")
    assert not client.auto_enabled(tmp_path)  # 1 is not true
    (tmp_path / "orchestrate.toml").write_text("[server\n")
    assert not client.auto_enabled(tmp_path)  # unreadable: start none


def _use(auto_: bool = True, **kw: object) -> str:
    """What a check does when no engine answers: START (starts one), USE (would use a
    running one, starts none) or OFF, with `[server] auto` as `auto_`."""
    args: dict[str, object] = {"feedback": False, "terminal": False, "env": {}}
    args.update(kw)
    use = client.warm_use(**args)  # type: ignore[arg-type]
    if use == client.START and not client.starts(use, lambda: auto_):
        return client.USE
    return use


def test_warm_use_feedback_and_a_terminal_start_one_a_pipe_never_ci_never() -> None:
    assert _use(feedback=True) == client.START
    assert _use(feedback=True, auto_=False) == client.USE
    for fmt in ("json", "sarif", "jsonl", "github"):
        assert _use(feedback=True, fmt=fmt) == client.USE, fmt
    assert _use(feedback=True, fmt="concise") == client.START
    assert _use(feedback=True, output=True) == client.USE
    assert _use() == client.OFF  # plain lint in a pipe
    assert _use(terminal=True) == client.START  # a person's second lint is warm
    assert _use(terminal=True, auto_=False) == client.USE
    assert _use(terminal=True, fmt="json") == client.USE
    assert _use(terminal=True, output=True) == client.USE
    assert _use(env={client.OFF_SWITCH: "1"}) == client.USE  # a script that opted in
    for env in ({"CI": "true"}, {"CI": "1", client.OFF_SWITCH: "1"}, {client.OFF_SWITCH: "0"}):
        for feedback in (True, False):
            assert _use(feedback=feedback, terminal=True, env=env) == client.OFF, env
    assert _use(feedback=True, env={"CI": "false"}) == client.START
    # Services that do not set CI: Jenkins, Azure Pipelines, TeamCity (before: START).
    for marker in ("JENKINS_URL", "TF_BUILD", "TEAMCITY_VERSION"):
        assert _use(feedback=True, env={marker: "x"}) == client.OFF, marker
    # An explicit CI=false wins over a marker (a developer's shell that exports one).
    assert _use(feedback=True, env={"CI": "false", "TF_BUILD": "True"}) == client.START


def _refuse(*_a: object, **_k: object) -> None:
    raise AssertionError("the warm engine was asked")


def test_a_ci_mode_lint_and_hook_never_talk_to_the_engine(
    runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under CI, with an engine's socket there and the switch on, nothing connects,
    starts or cleans: the client's every way to the engine raises if called."""
    monkeypatch.chdir(tmp_path)
    _dead_socket(tmp_path)
    monkeypatch.setenv("CI", "true")
    for name in ("exchange", "_connect", "spawn", "start_once", "clean_dead", "_engine_of"):
        monkeypatch.setattr(client, name, _refuse)
    for argv in (["lint", "a.py"], ["lint", "--feedback", "a.py"], ["lint", "--format", "json"]):
        assert client.try_warm(argv) is None
    assert client.hook_lint(tmp_path, ["a.py"], 5.0) is None


def test_no_engine_means_in_process_and_says_nothing(
    runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    assert client.try_warm(["lint", "a.py"]) is None
    assert client.try_warm(["check"]) is None
    assert capsys.readouterr().err == ""
    assert client.ping(runtime_paths(tmp_path)) is None
    assert not client.engine_answers(runtime_paths(tmp_path))
    assert client.stop(tmp_path) is None
    answer = client.buffer_lint(tmp_path, "a.py", b"x = 1\n", 5.0)
    assert answer == client.BufferAnswer(None, answer.reason) and answer.reason


def test_the_off_switch_and_the_engines_own_runs_never_ask(
    runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(client.OFF_SWITCH, "0")
    assert client.try_warm(["lint"]) is None
    assert client.hook_lint(tmp_path, ["a.py"], 5.0) is None
    assert client.buffer_lint(tmp_path, "a.py", b"", 5.0).reason == f"{client.OFF_SWITCH}=0"
    monkeypatch.delenv(client.OFF_SWITCH)
    monkeypatch.setattr(client, "ASKED", True)  # the console script asked already
    assert client.try_warm(["lint"]) is None


def test_a_buffer_the_engine_cannot_take_is_checked_in_process(
    runtime: Path, tmp_path: Path
) -> None:
    big = client.buffer_lint(tmp_path, "a.py", b"x" * (MAX_BUFFER + 1), 5.0)
    assert big.reason == "the buffer is over the engine's size cap"
    assert client.buffer_lint(tmp_path, "a.py", b"", 0.0).reason == "no deadline the engine accepts"
    assert client.hook_lint(tmp_path, ["a.py"], 0.0) is None


def _dead_socket(root: Path) -> Path:
    """A socket file no engine listens on: what a killed engine leaves."""
    paths = runtime_paths(root)
    paths.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(paths.socket))
    sock.close()
    return paths.socket


def test_the_socket_of_a_dead_engine_is_removed_and_said(
    runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    left = _dead_socket(tmp_path)
    assert client.try_warm(["lint", "a.py"]) is None
    assert not left.exists()
    assert (
        "removed the socket of a dead warm engine; checking in-process" in capsys.readouterr().err
    )
    _dead_socket(tmp_path)
    assert client.buffer_lint(tmp_path, "a.py", b"", 5.0).reason == (
        "removed the socket of a dead warm engine"
    )
    _dead_socket(tmp_path)
    assert client.stop(tmp_path) is None and not left.exists()


def test_a_socket_whose_lock_is_held_is_not_removed(
    runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    left = _dead_socket(tmp_path)
    paths = runtime_paths(tmp_path)
    fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # an engine starting up holds it
        assert not client.clean_dead(paths)
        assert client.try_warm(["lint", "a.py"]) is None
        assert "warm engine not answering; checking in-process" in capsys.readouterr().err
        assert left.exists()
    finally:
        os.close(fd)
    assert client.clean_dead(paths) and not left.exists()


def test_a_runtime_folder_others_may_write_is_never_used(
    runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = runtime_paths(tmp_path).folder
    folder.mkdir(mode=0o700)
    folder.chmod(0o777)
    assert client.try_warm(["lint", "a.py"]) is None
    err = capsys.readouterr().err
    assert "warm engine not used:" in err and "open to other users" in err
    assert "runtime folder not used" in client.buffer_lint(tmp_path, "a.py", b"", 5.0).reason


def test_a_run_request_carries_what_the_engine_needs_to_run_as_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orchestrator.server.protocol import validate_request

    monkeypatch.chdir(tmp_path)
    req = client.run_request(["lint", "x.py"], 22.0)
    assert validate_request(req) is req
    assert req["cwd"] == os.getcwd() and req["wait_s"] == 22.0
    assert req["env"]["PATH"] == os.environ["PATH"]


def test_two_starts_at_once_spawn_one_engine_and_room_is_made(
    runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`start_once` is single-flight: while the engine it spawned holds the start lock
    (until it listens), or an engine holds the engine lock, no second one is spawned.
    The spawned engine is a fake here (fault injection: it keeps the descriptor)."""
    held: list[int] = []

    def fake_spawn(root: Path, *, auto: bool = False, hold: int | None = None) -> None:
        assert auto and hold is not None
        held.append(os.dup(hold))  # the child's inherited copy of the start lock

    monkeypatch.setattr(client, "spawn", fake_spawn)
    assert client.start_once(tmp_path)
    assert not client.start_once(tmp_path)  # the first engine is still starting
    paths = runtime_paths(tmp_path)
    engine = os.open(paths.lock, os.O_RDWR)
    fcntl.flock(engine, fcntl.LOCK_EX)  # it took the engine lock...
    os.close(held.pop())  # ...and, listening, let go of the start lock
    assert not client.start_once(tmp_path)
    os.close(engine)  # it ended
    assert client.start_once(tmp_path)
    assert len(held) == 1
    os.close(held.pop())


def test_starting_one_more_engine_stops_the_least_recently_used(
    runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = runtime_paths(tmp_path)
    paths.folder.mkdir(mode=0o700, parents=True)
    socks = [paths.folder / f"other{i}.sock" for i in range(client.MAX_ENGINES)]
    for age, sock in enumerate(socks):
        sock.touch()
        os.utime(sock, (1000 - age, 1000 - age))  # other3 is the least recently used
    stopped: list[str] = []

    def fake_exchange(other, request, wait):  # type: ignore[no-untyped-def]
        assert request["kind"] == "stop"
        stopped.append(other.socket.name)
        other.socket.unlink()

    monkeypatch.setattr(client, "exchange", fake_exchange)
    client._make_room(paths)
    assert stopped == ["other3.sock"]


def test_an_engine_still_starting_in_another_project_counts_toward_the_cap(
    runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two starts in two projects, the first engine spawned but not listening yet (no
    socket): the second start counts it and stops the least recently used engine, so
    never more than MAX_ENGINES run. Before, only sockets were counted and both starts
    saw room for one more. The spawned engines are fakes (fault injection: each keeps
    its inherited start lock)."""
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    folder = runtime_paths(first).folder
    folder.mkdir(mode=0o700, parents=True)
    socks = [folder / f"other{i}.sock" for i in range(client.MAX_ENGINES - 1)]
    for age, sock in enumerate(socks):
        sock.touch()
        os.utime(sock, (1000 - age, 1000 - age))  # the last one is the least recently used
    held: list[int] = []
    stopped: list[str] = []

    def fake_spawn(root: Path, *, auto: bool = False, hold: int | None = None) -> None:
        assert hold is not None
        held.append(os.dup(hold))  # the child's inherited copy of the start lock

    def fake_exchange(other, request, wait):  # type: ignore[no-untyped-def]
        assert request["kind"] == "stop"
        stopped.append(other.socket.name)
        other.socket.unlink()

    monkeypatch.setattr(client, "spawn", fake_spawn)
    monkeypatch.setattr(client, "exchange", fake_exchange)
    try:
        assert client.start_once(first)  # MAX_ENGINES - 1 others: room, none stopped
        assert stopped == []
        assert client.start_once(second)  # the first is starting: one must go
        assert stopped == [socks[-1].name]
    finally:
        for fd in held:
            os.close(fd)


def test_the_start_lock_of_an_ended_engine_does_not_count(
    runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lock files stay in the runtime folder after their engine ended: only a held
    lock means an engine is starting, so a full folder of old ones stops nothing."""
    folder = runtime_paths(tmp_path).folder
    folder.mkdir(mode=0o700, parents=True)
    for i in range(client.MAX_ENGINES + 2):
        (folder / f"old{i}.start").touch()
        (folder / f"old{i}.lock").touch()
    monkeypatch.setattr(client, "spawn", lambda root, **_: None)
    monkeypatch.setattr(client, "exchange", _refuse)
    assert client.start_once(tmp_path)


def test_a_strict_gate_never_talks_to_the_engine(
    runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gate commit` with the switch on and CI unset: every way to the engine raises
    if called, and the gate still judges (a staged F401 blocks)."""
    from helpers import git, new_repo

    from orchestrator.cli.main import main

    repo = new_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    (repo / "b.py").write_text("import os\n")
    git(repo, "add", "b.py")
    monkeypatch.chdir(repo)
    for name in ("exchange", "_connect", "spawn", "start_once", "try_warm", "hook_lint"):
        monkeypatch.setattr(client, name, _refuse)
    assert main(["gate", "commit"]) == 1
