"""The warm engine (`orchestrate server`), with real processes: the same report as a cold
run on every format, never trusted blindly (stale, killed, busy, dead socket), safe for
two clients at once, closed to other users, and never used by a strict gate."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import (
    IN_CI,
    VENV_BIN,
    eslint_path,
    fail_or_skip,
    git,
    new_repo,
    run_cli,
    set_machine_tool,
)
from host_contracts import encode, payload

from orchestrator.server.protocol import runtime_paths

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

#: Fault injection (orchestrator/server/engine.py): a file folded into the engine's idea
#: of its code's version, and a sleep before each request.
FAULT_VERSION_FILE = "ORCHESTRATE_FAULT_VERSION_FILE"
FAULT_DELAY = "ORCHESTRATE_FAULT_ENGINE_DELAY_S"
#: A client that uses the engine off a terminal and outside CI (the suite itself runs
#: with ORCHESTRATE_SERVER=0, and under CI=true in CI: see conftest.py).
ENGINE_ON = {"ORCHESTRATE_SERVER": "1", "CI": ""}
FILES = {
    "app/a.py": "import os\n\n\ndef f(x):\n    return x == None\n",
    "app/ok.py": "VALUE = 1\n",
    "web/b.js": "var unused = 1;\n",
    "lib/c.rb": "def broken\n",
    "notes.xyz": "no checker for this\n",
}
#: Fields of a run, not of its report: when it ran, how long each scope and checker took.
#: `automationDetails.id` names the run by its time (orchestrate/<entry>/<generated_at>).
RUN_FIELDS = {
    "generated_at",
    "duration_ms",
    "startTimeUtc",
    "endTimeUtc",
    "automationDetails",
    "timings",  # what each checker cost this run (report 1.2; SARIF checkerTimes)
    "checkerTimes",
}


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in RUN_FIELDS}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def same_report(fmt: str, cold: str, warm: str) -> None:
    """Equal bytes for text formats; equal JSON apart from the run's time fields."""
    if fmt in ("json", "sarif"):
        assert _strip(json.loads(warm)) == _strip(json.loads(cold))
    elif fmt == "jsonl":
        rows = [[_strip(json.loads(line)) for line in out.splitlines()] for out in (warm, cold)]
        assert rows[0] == rows[1]
    else:
        assert warm == cold


def _wait(cond: Any, seconds: float, what: str) -> Any:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        got = cond()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"not within {seconds} s: {what}")


def _alive(pid: int) -> bool:
    """Whether `pid` runs (an exited engine nobody reaped yet, a zombie, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


class Project:
    """A git project, a private runtime folder and the environment of its clients."""

    def __init__(self, root: Path, runtime: Path, cache: Path) -> None:
        self.root = root
        self.runtime = runtime
        self.env = {
            "XDG_RUNTIME_DIR": str(runtime),
            "XDG_CACHE_HOME": str(cache),
            # Reuse marks scopes of a second run `reused`: off, so cold and warm agree.
            "ORCHESTRATE_REUSE": "0",
            "PATH": f"{Path(eslint_path()).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            **ENGINE_ON,
        }
        self.pids: set[int] = set()
        #: An engine started with FAULT_DELAY is busy at the end: killed, not asked to
        #: stop (a stop waits for the request in flight, seconds of nothing).
        self.busy = False

    @property
    def paths(self):  # type: ignore[no-untyped-def]
        return runtime_paths(self.root, self.runtime / "orchestrate")

    def cli(self, *args: str, extra: dict[str, str] | None = None, timeout: float = 180):
        return run_cli(list(args), self.root, env={**self.env, **(extra or {})}, timeout=timeout)

    def cold(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.cli(*args, extra={"ORCHESTRATE_SERVER": "0"})

    def status(self) -> dict[str, Any] | None:
        out = self.cli("server", "status", "--format", "json")
        info = json.loads(out.stdout)
        if info.get("state") != "running":
            return None
        self.pids.add(int(info["pid"]))
        return info

    def start(self, extra: dict[str, str] | None = None) -> dict[str, Any]:
        self.busy = self.busy or FAULT_DELAY in (extra or {})
        out = self.cli("server", "start", "--format", "json", extra=extra)
        assert out.returncode == 0, out.stderr
        info = json.loads(out.stdout)
        self.pids.add(int(info["pid"]))
        return info

    def log(self) -> str:
        try:
            return self.paths.log.read_text()
        except FileNotFoundError:
            return ""


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    # A short runtime folder (socket paths are limited to 107 bytes), mode 0700 as
    # platformdirs requires of XDG_RUNTIME_DIR.
    runtime = Path(tempfile.mkdtemp(prefix="ow-", dir="/tmp"))
    root = new_repo(tmp_path / "proj", FILES)
    git(root, "commit", "-qm", "files")
    proj = Project(root, runtime, tmp_path / "cache")
    try:
        yield proj
    finally:
        if not proj.busy:
            proj.cli("server", "stop")
        for pid in proj.pids:  # only the engines this test started, by their pid
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(runtime, ignore_errors=True)


def test_server_start_keeps_at_most_max_engines_stopping_the_least_recently_asked(
    project: Project,
) -> None:
    """`server start` in MAX_ENGINES + 1 projects (one runtime folder): the first,
    asked least recently, is stopped; before, every one kept running."""
    from orchestrator.server.client import MAX_ENGINES

    others = [
        Project(new_repo(project.root.parent / f"p{i}", {"a.py": "X = 1\n"}), project.runtime,
                project.root.parent / "cache")
        for i in range(MAX_ENGINES)
    ]  # fmt: skip
    try:
        first = project.start()
        for other in others:
            time.sleep(0.05)  # distinct socket mtimes: the first is the least recent
            other.start()
        socks = sorted((project.runtime / "orchestrate").glob("*.sock"))
        assert len(socks) <= MAX_ENGINES, socks
        assert not project.paths.socket.exists()
        _wait(lambda: not _alive(int(first["pid"])), 30, "the least recently asked engine")
        assert all(o.status() is not None for o in others)
    finally:
        for other in others:
            other.cli("server", "stop")
            for pid in other.pids:
                if _alive(pid):
                    os.kill(pid, signal.SIGKILL)


def test_an_editor_buffer_under_ci_never_asks_the_engine(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The language server's buffer check follows the CI rule too (README "Warm
    engine": under CI nothing talks to an engine); before, it asked the running one."""
    from orchestrator.server.client import buffer_lint

    info = project.start()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(project.runtime))
    monkeypatch.setenv("ORCHESTRATE_SERVER", "1")
    monkeypatch.setenv("CI", "true")
    answer = buffer_lint(project.root, "app/ok.py", b"VALUE = 1\n", 30)
    assert answer.reason.startswith("under CI"), answer
    after = project.status()
    assert after is not None and after["served"] == info["served"]


LINT = ("lint", "app", "web", "lib", "notes.xyz")


def _formats() -> list[str]:
    """Every --format: the built-in ones and any an installed plugin adds."""
    from orchestrator.core import plugin_host
    from orchestrator.render.formats import BUILTIN

    offered = plugin_host.load().report_formats(reserved=BUILTIN)
    return [*BUILTIN, *sorted(offered.formats)]


def test_same_report_as_cold_on_every_format(project: Project) -> None:
    info = project.start()
    assert info["served"] == 0
    formats = _formats()
    for fmt in formats:
        cold = project.cold(*LINT, "--format", fmt)
        warm = project.cli(*LINT, "--format", fmt)
        assert "in-process" not in warm.stderr, warm.stderr
        assert warm.returncode == cold.returncode == 1
        assert warm.stderr == cold.stderr
        same_report(fmt, cold.stdout, warm.stdout)
    # --output writes the same file from the engine, relative to the client's folder.
    project.cold(*LINT, "--format", "json", "--output", "cold.json")
    project.cli(*LINT, "--format", "json", "--output", "warm.json")
    cold_file = (project.root / "cold.json").read_text()
    same_report("json", cold_file, (project.root / "warm.json").read_text())
    after = project.status()
    assert after is not None and after["pid"] == info["pid"]
    assert after["served"] == len(formats) + 1


def test_feedback_and_usage_errors_answer_like_cold(project: Project) -> None:
    project.start()
    for args in (
        ("lint", "--feedback", "app/a.py"),
        ("lint", "missing.py"),
        ("lint", "--jobs", "0"),
    ):
        cold = project.cold(*args, "--format", "json")
        warm = project.cli(*args, "--format", "json")
        assert (warm.returncode, warm.stderr) == (cold.returncode, cold.stderr)
        if cold.stdout:
            same_report("json", cold.stdout, warm.stdout)
    assert project.status()["served"] == 3  # type: ignore[index]


def test_client_start_imports_almost_nothing(project: Project) -> None:
    project.start()
    probe = (
        "import json, sys\n"
        "from orchestrator.server import client\n"
        "rc = client.try_warm(['lint', '--format', 'json', 'app/a.py'])\n"
        "heavy = sorted(m for m in ('pydantic', 'pluggy', 'tree_sitter', 'rich', 'dataclasses',"
        " 'orchestrator.model.report', 'orchestrator.core.engine') if m in sys.modules)\n"
        "print(json.dumps({'rc': rc, 'heavy': heavy}), file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=project.root,
        env={**os.environ, **project.env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    answer = json.loads(out.stderr.strip().splitlines()[-1])
    assert answer == {"rc": 1, "heavy": []}, out.stderr
    cold = project.cold("lint", "--format", "json", "app/a.py")
    same_report("json", cold.stdout, out.stdout)


@pytest.mark.parametrize("fmt", ["json", "human"])
def test_served_feedback_reads_no_configuration(project: Project, fmt: str) -> None:
    # `[server] auto` matters only when no engine answers: a served save reads no TOML
    # (in a person's format too, where the check may start an engine).
    (project.root / "orchestrate.toml").write_text("[server]\nauto = true\n")
    project.start()
    probe = (
        "import json, sys\n"
        "from orchestrator.server import client\n"
        f"rc = client.try_warm(['lint', '--feedback', '--format', '{fmt}', 'app/a.py'])\n"
        "print(json.dumps({'rc': rc, 'toml': 'tomllib' in sys.modules}), file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=project.root,
        env={**os.environ, **project.env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert json.loads(out.stderr.strip().splitlines()[-1]) == {"rc": 1, "toml": False}, out.stderr


def test_console_script_loads_no_cli_when_served_and_asks_once(project: Project) -> None:
    info = project.start()
    argv = ["lint", "--format", "json", "app/a.py"]
    traced = subprocess.run(
        [sys.executable, "-X", "importtime", str(VENV_BIN / "orchestrate"), *argv],
        cwd=project.root,
        env={**os.environ, **project.env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in traced.stderr.splitlines()}
    assert "orchestrator.server.client" in imported
    assert not imported & {"orchestrator.cli.main", "argparse", "dataclasses", "pydantic"}
    cold = project.cold("lint", "--format", "json", "app/a.py")
    assert traced.returncode == cold.returncode
    same_report("json", cold.stdout, traced.stdout)
    # Checked in-process: the engine was asked once, and that is said once.
    os.kill(info["pid"], signal.SIGKILL)
    _wait(lambda: not _alive(info["pid"]), 30, "the engine died")
    out = project.cli("lint", "--format", "json", "app/a.py")
    assert out.stderr.splitlines() == [
        "orchestrate: removed the socket of a dead warm engine; checking in-process"
    ]
    same_report("json", cold.stdout, out.stdout)


def test_stale_engine_after_a_version_change_is_replaced(project: Project, tmp_path: Path) -> None:
    version = tmp_path / "fake-version"  # fault injection: the engine's code "version"
    version.write_text("1")
    fault = {FAULT_VERSION_FILE: str(version)}
    first = project.start(extra=fault)
    warm = project.cli("lint", "--format", "json", "app", extra=fault)
    assert "in-process" not in warm.stderr
    version.write_text("2")  # an upgrade of orchestrate, a plugin or a library
    stale = project.cli("lint", "--format", "json", "app", extra=fault)
    assert "warm engine was stale" in stale.stderr and "checking in-process" in stale.stderr
    assert len(stale.stderr.strip().splitlines()) == 1
    cold = project.cold("lint", "--format", "json", "app")
    same_report("json", cold.stdout, stale.stdout)
    assert stale.returncode == cold.returncode
    _wait(lambda: not _alive(first["pid"]), 30, "the stale engine exits")
    second = _wait(
        lambda: (s := project.status()) and s["pid"] != first["pid"] and s, 60, "a new engine"
    )
    again = project.cli("lint", "--format", "json", "app", extra=fault)
    assert "in-process" not in again.stderr, again.stderr
    same_report("json", cold.stdout, again.stdout)
    assert project.status()["pid"] == second["pid"]  # type: ignore[index]


def test_killed_engine_mid_request_falls_back_within_the_deadline(project: Project) -> None:
    info = project.start(extra={FAULT_DELAY: "120"})  # fault injection: a hanging engine
    deadline = 60.0
    client = subprocess.Popen(
        [
            str(VENV_BIN / "orchestrate"),
            "lint",
            "--format",
            "json",
            "--timeout",
            str(deadline),
            "app",
        ],
        cwd=project.root,
        env={**os.environ, **project.env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait(lambda: "argument(s) in" in project.log(), 60, "the engine took the request")
        killed = time.monotonic()
        os.kill(info["pid"], signal.SIGKILL)
        out, err = client.communicate(timeout=deadline)
    finally:
        if client.poll() is None:
            client.kill()
    assert time.monotonic() - killed < deadline
    assert "warm engine went away mid-request; checking in-process" in err
    cold = project.cold("lint", "--format", "json", "--timeout", str(deadline), "app")
    same_report("json", cold.stdout, out)
    assert client.returncode == cold.returncode


def test_busy_engine_past_the_deadline_falls_back(project: Project) -> None:
    project.start(extra={FAULT_DELAY: "120"})  # fault injection: a hanging engine
    began = time.monotonic()
    out = project.cli("lint", "--format", "json", "--timeout", "3", "app/ok.py")
    assert "warm engine busy past the deadline; checking in-process" in out.stderr
    assert out.returncode == 0
    assert time.monotonic() - began < 3 + 2 + 60  # the wait, its margin, one cold run


def test_two_clients_at_once(project: Project) -> None:
    project.start()
    cold = project.cold(*LINT, "--format", "json")
    clients = [
        subprocess.Popen(
            [str(VENV_BIN / "orchestrate"), *LINT, "--format", "json"],
            cwd=project.root,
            env={**os.environ, **project.env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [c.communicate(timeout=180) for c in clients]
    for c, (out, err) in zip(clients, outs, strict=True):
        assert "in-process" not in err, err
        assert c.returncode == cold.returncode
        same_report("json", cold.stdout, out)
    assert project.status()["served"] == 2  # type: ignore[index]


def test_socket_of_a_dead_engine_is_cleaned(project: Project) -> None:
    info = project.start()
    os.kill(info["pid"], signal.SIGKILL)
    _wait(lambda: not _alive(info["pid"]), 30, "the engine died")
    assert project.paths.socket.exists()  # a SIGKILL leaves the socket behind
    out = project.cli("lint", "--format", "json", "app")
    assert "removed the socket of a dead warm engine; checking in-process" in out.stderr
    assert not project.paths.socket.exists()
    same_report("json", project.cold("lint", "--format", "json", "app").stdout, out.stdout)
    assert project.cli("server", "status").returncode == 1
    project.start()  # and a new engine starts in its place
    warm = project.cli("lint", "--format", "json", "app")
    assert "in-process" not in warm.stderr


OTHER_USER = "owarmtest"
#: Run as the other user: connect, send a ping, print what happened (stdlib only).
INTRUDER = r"""
import json, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
try:
    s.connect(sys.argv[1])
except OSError as exc:
    print(json.dumps({"connect": type(exc).__name__})); sys.exit(0)
body = json.dumps({"proto": 1, "kind": "ping"}).encode()
s.sendall(struct.pack(">I", len(body)) + body)
data = b""
while chunk := s.recv(65536):
    data += chunk
reply = json.loads(data[4:]) if len(data) > 4 else None
print(json.dumps({"connect": "ok", "status": reply and reply["status"], "info": reply and reply["info"]}))
"""


def _other_user() -> tuple[int, int]:
    if os.getuid() != 0 or not shutil.which("useradd") or not shutil.which("setpriv"):
        fail_or_skip("another user is needed: run as root with useradd and setpriv (util-linux)")
    import pwd

    try:
        entry = pwd.getpwnam(OTHER_USER)
    except KeyError:
        made = subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", OTHER_USER],
            capture_output=True,
            text=True,
            check=False,
        )
        if made.returncode != 0 and IN_CI:
            pytest.fail(f"cannot create the test user: {made.stderr}")
        entry = pwd.getpwnam(OTHER_USER)
    return entry.pw_uid, entry.pw_gid


def _as_other(uid: int, gid: int, socket_path: Path) -> dict[str, Any]:
    out = subprocess.run(
        [
            "setpriv",
            f"--reuid={uid}",
            f"--regid={gid}",
            "--clear-groups",
            "/usr/bin/python3",
            "-c",
            INTRUDER,
            str(socket_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_another_user_cannot_connect(project: Project) -> None:
    uid, gid = _other_user()
    project.start()
    sock = project.paths.socket
    assert sock.stat().st_mode & 0o777 == 0o600
    assert project.paths.folder.stat().st_mode & 0o777 == 0o700
    # As the engine made them: the folder keeps the other user out.
    assert _as_other(uid, gid, sock) == {"connect": "PermissionError"}
    # Fault injection: the folders and the socket opened to everyone; the engine's peer
    # credential check still refuses, before reading anything.
    project.runtime.chmod(0o711)
    project.paths.folder.chmod(0o755)
    sock.chmod(0o666)
    got = _as_other(uid, gid, sock)
    assert got == {"connect": "ok", "status": "refused", "info": {}}
    assert f"refused a connection from uid {uid}" in project.log()
    # The owner's own client does not trust an opened engine folder either.
    project.runtime.chmod(0o700)
    out = project.cli("lint", "--format", "json", "app/ok.py")
    assert "warm engine not used" in out.stderr and "open to other users" in out.stderr
    assert out.returncode == 0
    project.paths.folder.chmod(0o700)


def test_auto_start_for_feedback_and_idle_timeout(project: Project) -> None:
    # The shortest idle timeout the setting allows (10 s): every request (the status
    # below, then the second lint: one CLI start) sets it back, so it is the wait after
    # the last one. tests/test_engine_idle.py shows the arithmetic on an injected clock;
    # this shows a real engine ends on its own.
    (project.root / "orchestrate.toml").write_text("[server]\nauto = true\nidle_timeout = 10\n")
    # A machine's format never starts one (some pipeline reads it); a person's does.
    piped = project.cli("lint", "--feedback", "--format", "json", "app/ok.py")
    assert piped.returncode == 0 and piped.stderr == ""
    first = project.cli("lint", "--feedback", "--format", "concise", "app/ok.py")
    assert "warm engine starting for the next check; checking in-process" in first.stderr
    assert first.returncode == 0
    info = _wait(project.status, 60, "the engine started on demand")
    assert info["idle_timeout_s"] == 10
    second = project.cli("lint", "--feedback", "--format", "json", "app/ok.py")
    assert second.stderr == "" and second.returncode == 0
    same_report("json", piped.stdout, second.stdout)
    _wait(lambda: not project.paths.socket.exists(), 90, "the idle engine exits")
    assert not _alive(info["pid"]) or _wait(lambda: not _alive(info["pid"]), 10, "exit")


def test_server_config_is_validated(project: Project) -> None:
    for text, word in (
        ("[server]\nauto = 'yes'\n", "server.auto"),
        ("[server]\nidle_timeout = 1\n", "server.idle_timeout"),
        ("[server]\nautostart = true\n", "server.autostart"),
    ):
        (project.root / "orchestrate.toml").write_text(text)
        out = project.cold("lint", "app/ok.py")
        assert out.returncode == 2 and word in out.stderr, out.stderr
    started = project.cli("server", "start")
    assert started.returncode == 1  # the engine refuses to start on a bad configuration


def test_strict_gates_never_use_the_engine(project: Project) -> None:
    project.start()
    (project.root / "app/new.py").write_text("import os\n")
    git(project.root, "add", "app/new.py")
    gate = project.cli("gate", "commit")
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert project.status()["served"] == 0  # type: ignore[index]
    assert "argument(s) in" not in project.log()


def test_server_status_and_stop(project: Project) -> None:
    assert project.cli("server", "status").returncode == 1
    info = project.start()
    shown = project.cli("server", "status")
    assert shown.returncode == 0 and f"pid {info['pid']}" in shown.stdout
    assert "MiB resident" in shown.stdout
    stopped = project.cli("server", "stop")
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    _wait(lambda: not _alive(info["pid"]), 30, "the engine exits")
    assert not project.paths.socket.exists()
    assert project.cli("server", "stop").stdout.strip() == "warm engine not running"
    # SIGTERM stops it as cleanly: no socket is left behind.
    again = project.start()
    os.kill(again["pid"], signal.SIGTERM)
    _wait(lambda: not project.paths.socket.exists(), 30, "the engine exits on SIGTERM")


def _edit_event(project: Project, rel: str = "app/a.py") -> tuple[str, dict[str, str]]:
    """A Claude Code `PostToolUse.Write` event for `rel` as it stands (edit feedback),
    and the host's environment for the hook (the project folder it names)."""
    target = project.root / rel
    event = encode(
        payload(
            "claude-code",
            "PostToolUse.Write",
            cwd=str(project.root),
            tool_input={"file_path": str(target), "content": target.read_text()},
            tool_response={"filePath": str(target), "content": target.read_text()},
        )
    ).decode()
    return event, {"CLAUDE_PROJECT_DIR": str(project.root)}


def test_host_hook_edit_feedback_is_answered_warm(project: Project) -> None:
    event, env = _edit_event(project)
    project.start()
    cold_run = run_cli(
        ["hook", "claude-code"],
        project.root,
        env={**project.env, **env, "ORCHESTRATE_SERVER": "0"},
        stdin=event,
    )
    shutil.rmtree(project.root / ".orchestrate")  # the same start: no task recorded yet
    warm = run_cli(["hook", "claude-code"], project.root, env={**project.env, **env}, stdin=event)
    assert warm.stderr == "" and warm.returncode == cold_run.returncode == 0
    assert warm.stdout == cold_run.stdout
    assert "ruff: checked 1" in warm.stdout
    assert project.status()["served"] == 1  # type: ignore[index]
    # A pre-tool gate event (a commit) never goes to the engine.
    gate_event = encode(
        payload(
            "claude-code",
            "PreToolUse.Bash",
            cwd=str(project.root),
            tool_input={"command": "git commit -qm x"},
        )
    ).decode()
    run_cli(["hook", "claude-code"], project.root, env={**project.env, **env}, stdin=gate_event)
    assert project.status()["served"] == 1  # type: ignore[index]


def _fake_engine(path: Path, answers: list[bytes]) -> threading.Thread:
    """A fake engine on the socket (fault injection): reads each request, answers bytes."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(4)

    def serve() -> None:
        with server:
            for answer in answers:
                conn, _ = server.accept()
                with conn:
                    (size,) = struct.unpack(">I", conn.recv(4))
                    got = 0
                    while got < size:
                        got += len(conn.recv(size - got))
                    conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def _frame(obj: object) -> bytes:
    body = json.dumps(obj).encode()
    return struct.pack(">I", len(body)) + body


def test_malformed_answers_are_never_trusted(project: Project) -> None:
    good = {"proto": 1, "status": "ok", "reason": "", "exit": 0, "stdout": "", "stderr": ""}
    answers = [
        struct.pack(">I", 9) + b"not json!",
        _frame({**good, "info": {}, "extra": 1}),  # an unexpected key
        _frame({**good, "info": {}, "exit": 999}),  # an exit code no process has
        _frame({**good, "info": {}, "stdout": "***"}),  # not base64
        struct.pack(">I", 1 << 30),  # a frame over the size cap
    ]
    thread = _fake_engine(project.paths.socket, answers)
    cold = project.cold("lint", "--format", "json", "app")
    for _ in answers:
        out = project.cli("lint", "--format", "json", "app")
        assert "warm engine answered something malformed" in out.stderr, out.stderr
        assert "checking in-process" in out.stderr and out.returncode == cold.returncode
        same_report("json", cold.stdout, out.stdout)
    thread.join(30)


def test_warm_feedback_reuses_results_by_their_identity(project: Project) -> None:
    project.start()
    reuse = {"ORCHESTRATE_REUSE": "1"}
    first = project.cli("lint", "--feedback", "--format", "json", "app/a.py", extra=reuse)
    second = project.cli("lint", "--feedback", "--format", "json", "app/a.py", extra=reuse)
    assert first.stderr == second.stderr == ""
    ruff = [s for s in json.loads(second.stdout)["scopes"] if s["checker"] == "ruff"]
    assert ruff and all(s["reused"] == "identity equal" for s in ruff)
    (project.root / "app/a.py").write_text("import sys\n")  # the identity changed
    third = project.cli("lint", "--feedback", "--format", "json", "app/a.py", extra=reuse)
    ruff = [s for s in json.loads(third.stdout)["scopes"] if s["checker"] == "ruff"]
    assert ruff and all(s["reused"] is None for s in ruff)
    assert project.status()["served"] == 3  # type: ignore[index]


def test_deeply_nested_answers_are_never_trusted(project: Project) -> None:
    """A reply nested past the JSON parser's recursion limit is malformed like any
    other: the client checks in-process, with the exit code of a cold run."""
    deep = b"[" * 200_000 + b"]" * 200_000
    lint_answer = struct.pack(">I", len(deep)) + deep
    thread = _fake_engine(project.paths.socket, [lint_answer])
    cold = project.cold("lint", "--format", "json", "app")
    out = project.cli("lint", "--format", "json", "app")
    assert "Traceback" not in out.stderr, out.stderr
    assert "warm engine answered something malformed" in out.stderr, out.stderr
    assert out.returncode == cold.returncode
    same_report("json", cold.stdout, out.stdout)
    # The edit feedback of a host hook, whose lint result is JSON inside the reply.
    from orchestrator.server.protocol import make_reply

    reply = json.dumps(make_reply("ok", stdout=deep)).encode()
    (project.paths.socket).unlink()
    thread.join(30)
    assert not thread.is_alive(), "the client never asked the fake engine"
    thread = _fake_engine(project.paths.socket, [struct.pack(">I", len(reply)) + reply])
    event, env = _edit_event(project)
    warm = run_cli(["hook", "claude-code"], project.root, env={**project.env, **env}, stdin=event)
    assert "Traceback" not in warm.stderr, warm.stderr
    assert warm.returncode == 0 and warm.stdout.startswith('{"systemMessage"')
    thread.join(30)


def test_ctrl_c_while_the_engine_works_exits_like_cold(project: Project) -> None:
    """SIGINT to a client waiting on the engine: `cancelled`, exit 130, as a cold run."""
    project.start(extra={FAULT_DELAY: "30"})  # fault injection: a busy engine
    client = subprocess.Popen(
        [str(VENV_BIN / "orchestrate"), "lint", "--format", "json", "app/ok.py"],
        cwd=project.root,
        env={**os.environ, **project.env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait(lambda: "argument(s) in" in project.log(), 60, "the engine takes the request")
    client.send_signal(signal.SIGINT)
    _out, err = client.communicate(timeout=60)
    assert "Traceback" not in err, err
    assert client.returncode == 130 and "orchestrate: cancelled" in err, err


def _slow_fake_ruff(folder: Path) -> tuple[Path, Path]:
    """Fault injection: a Ruff that answers `--version` and then hangs on a check,
    writing its pid first. Returns (the tool, the pid file)."""
    pid_file = folder / "fake-ruff.pid"
    fake = folder / "fake-ruff"
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then echo "ruff 0.0.1"; exit 0; fi\n'
        f'echo $$ > "{pid_file}"\n'
        "exec sleep 600\n"
    )
    fake.chmod(0o755)
    return fake, pid_file


def _client(project: Project, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(VENV_BIN / "orchestrate"), *args],
        cwd=project.root,
        env={**os.environ, **project.env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_request_whose_client_went_away_is_cancelled(project: Project, tmp_path: Path) -> None:
    """A client killed mid-request: the engine ends that run (its tool is killed, as on
    a passed deadline) instead of running it to the end, and serves the next client."""
    fake, pid_file = _slow_fake_ruff(tmp_path)
    set_machine_tool("ruff", f"{fake}")
    project.start()
    client = _client(project, "lint", "--format", "json", "--timeout", "500", "app/ok.py")
    try:
        _wait(pid_file.exists, 60, "the engine runs the slow tool")
        tool_pid = int(_wait(lambda: pid_file.read_text().strip(), 10, "the pid"))
        client.kill()
        client.communicate(timeout=30)
    finally:
        if client.poll() is None:
            client.kill()
    _wait(lambda: not _alive(tool_pid), 30, "the abandoned run's tool is killed")
    _wait(lambda: "client went away; cancelling" in project.log(), 30, "the engine says so")
    nxt = project.cli("lint", "--format", "json", "notes.xyz", timeout=60)
    assert nxt.stderr == "", nxt.stderr  # answered by the same engine, not in-process
    assert json.loads(nxt.stdout)["scopes"][0]["path"] == "notes.xyz"
    info = project.status()
    assert info is not None and info["served"] >= 1


def test_a_queued_request_whose_client_went_away_never_runs(
    project: Project, tmp_path: Path
) -> None:
    """A second client waiting behind a busy run and killed: its request is dropped
    unrun when its turn comes."""
    fake, pid_file = _slow_fake_ruff(tmp_path)
    set_machine_tool("ruff", f"{fake}")
    project.start()
    first = _client(project, "lint", "--format", "json", "--timeout", "500", "app/ok.py")
    second = None
    try:
        _wait(pid_file.exists, 60, "the engine runs the slow tool")
        second = _client(project, "lint", "--format", "json", "--timeout", "500", "notes.xyz")
        _wait(lambda: "queued behind a running one" in project.log(), 60, "second one queued")
        second.kill()
        second.communicate(timeout=30)
        _wait(lambda: "client went away; dropping" in project.log(), 30, "queued one dropped")
        first.kill()
        first.communicate(timeout=30)
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.kill()
    _wait(lambda: "client went away; cancelling" in project.log(), 30, "the run is cancelled")
    nxt = project.cli("lint", "--format", "json", "notes.xyz", timeout=60)
    assert nxt.stderr == "", nxt.stderr
    assert project.log().count("serving run of") == 2  # the dropped request never ran


def test_a_tool_behind_a_wrapper_is_seen_to_change(project: Project, tmp_path: Path) -> None:
    """A Ruff reached through a wrapper script, whose target is replaced (the wrapper's
    own bytes and stat unchanged): the warm engine sees the new version, as a cold run."""
    real = VENV_BIN / "ruff"
    if not real.exists():
        fail_or_skip("ruff is not installed beside the interpreter: pip install ruff")
    (tmp_path / "v1").mkdir()
    (tmp_path / "v1" / "ruff").symlink_to(real)
    (tmp_path / "v2").mkdir()
    fake = tmp_path / "v2" / "ruff"  # fault injection: the "upgraded" Ruff
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then echo "ruff 99.0.0"; exit 0; fi\n'
        f'exec "{real}" "$@"\n'
    )
    fake.chmod(0o755)
    current = tmp_path / "current"
    current.symlink_to(tmp_path / "v1")
    wrapper = tmp_path / "ruff-wrapper"
    wrapper.write_text(f'#!/bin/sh\nexec "{current}/ruff" "$@"\n')
    wrapper.chmod(0o755)
    set_machine_tool("ruff", f"{wrapper}")

    def versions(out: subprocess.CompletedProcess[str]) -> set[str]:
        scopes = json.loads(out.stdout)["scopes"]
        return {s["tool"]["version"] for s in scopes if s["checker"] == "ruff"}

    project.start()
    before = project.cli("lint", "--format", "json", "app")
    assert before.stderr == "", before.stderr
    assert versions(before) and "99.0.0" not in " ".join(versions(before))
    upgraded = tmp_path / "current.new"
    upgraded.symlink_to(tmp_path / "v2")
    upgraded.replace(current)  # what an upgrade that swaps a folder does
    after = project.cli("lint", "--format", "json", "app")
    assert after.stderr == "", after.stderr  # still the warm engine
    assert versions(after) == {"ruff 99.0.0"}
    cold = project.cold("lint", "--format", "json", "app")
    same_report("json", cold.stdout, after.stdout)


def test_an_unchanged_tree_is_answered_reused_and_an_edit_checks_again(project: Project) -> None:
    """With reuse on, the engine answers an unchanged tree from the run it kept: every
    checked scope says `reused`, the rest of the report is the first run's. An edit
    checks again (the edited file fresh)."""
    time.sleep(2.2)  # past the racy-write margin of the files the fixture just wrote
    project.start()
    reuse = {"ORCHESTRATE_REUSE": "1"}
    first = project.cli("lint", "--format", "json", *LINT[1:], extra=reuse)
    second = project.cli("lint", "--format", "json", *LINT[1:], extra=reuse)
    assert first.stderr == second.stderr == "", second.stderr
    one, two = json.loads(first.stdout), json.loads(second.stdout)
    checked = [s for s in two["scopes"] if s["status"] == "checked"]
    assert {s["checker"] for s in checked} >= {"ruff", "ruby"}
    assert {s["reused"] for s in checked} == {"identity equal"}
    for scopes in (one["scopes"], two["scopes"]):
        for s in scopes:
            s["reused"] = None
    assert _strip(one) == _strip(two)
    assert second.returncode == first.returncode
    (project.root / "app/ok.py").write_text("import sys\n")
    third = json.loads(project.cli("lint", "--format", "json", *LINT[1:], extra=reuse).stdout)
    fresh = {(s["path"], s["checker"]) for s in third["scopes"] if s["reused"] is None}
    assert ("app/ok.py", "ruff") in fresh and ("app/a.py", "ruff") not in fresh


def test_two_feedback_hooks_at_once_start_one_engine_and_the_next_is_answered_by_it(
    project: Project,
) -> None:
    """Warm by default for feedback: with no `[server]` setting, two edit-feedback hooks
    at once (each answered in-process) start exactly one engine, which idles out after
    5 minutes; the next hook is answered by it. A plain `lint` off a terminal, in the
    same project, never starts one."""
    plain = project.cli("lint", "app/ok.py", extra={"ORCHESTRATE_SERVER": ""})
    assert plain.returncode == 0 and "warm engine" not in plain.stderr
    assert not project.paths.socket.exists()
    # A clean file: no task is recorded, so each hook runs the fast check (a finding's
    # task would turn the later hook into a repair re-check, which asks no engine).
    event, env = _edit_event(project, "app/ok.py")
    argv = [str(VENV_BIN / "orchestrate"), "hook", "claude-code"]
    procs = [
        subprocess.Popen(
            argv,
            cwd=project.root,
            env={**os.environ, **project.env, **env},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(event, timeout=180) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    assert all("ruff: checked 1" in out for out, _err in outs), outs
    info = _wait(project.status, 60, "the engine the hooks started")
    assert info["idle_timeout_s"] == 300  # started by feedback, no setting
    log = project.log()
    # One engine started (a hook that began after it listened may have been served by
    # it: its `serving hook_lint` line is no second engine).
    starts = log.count(f"serving {project.root} (idle timeout")
    assert starts == 1 and "another engine serves" not in log, log
    third = run_cli(["hook", "claude-code"], project.root, env={**project.env, **env}, stdin=event)
    assert third.returncode == 0 and "ruff: checked 1" in third.stdout, third.stdout
    assert project.status()["served"] == info["served"] + 1  # type: ignore[index]


def _on_a_terminal(project: Project, *args: str) -> tuple[int, str]:
    """`orchestrate ARGS` with its stdout on a pseudo-terminal (a person's shell); the
    exit code and stderr."""
    import pty

    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen(
            [str(VENV_BIN / "orchestrate"), *args],
            cwd=project.root,
            env={**os.environ, **project.env, "ORCHESTRATE_SERVER": ""},
            stdin=subprocess.DEVNULL,
            stdout=follower,
            stderr=subprocess.PIPE,
            text=True,
        )
        os.close(follower)
        follower = -1
        while True:  # drain the terminal, or a long report would block the child
            try:
                if not os.read(leader, 65536):
                    break
            except OSError:  # EIO: the child closed its end
                break
        _out, err = proc.communicate(timeout=180)
        return proc.returncode, err
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)


def test_a_plain_lint_on_a_terminal_starts_one_and_the_next_is_answered_by_it(
    project: Project,
) -> None:
    """The default second `orchestrate lint FILE` of a person is warm: on a terminal the
    first starts an engine (and checks in-process), the next is served. Off a terminal
    the same command never starts one (the test above)."""
    code, err = _on_a_terminal(project, "lint", "app/ok.py")
    assert code == 0 and "warm engine starting for the next check" in err, err
    info = _wait(project.status, 60, "the engine a terminal lint started")
    code, err = _on_a_terminal(project, "lint", "app/ok.py")
    assert code == 0 and err == "", err
    assert project.status()["served"] == info["served"] + 1  # type: ignore[index]
