"""Bounded children leave nothing behind: not at the deadline, not on SIGTERM or SIGINT.

The tools here are FAKES written by the tests (scripts named fake-*): a tool that forks
a grandchild which calls `setsid` (so it leaves the tool's process group, the one thing
a group kill reaches) and writes its pid to a file, then either waits for it or exits
at once and leaves it to be adopted. The signal cases run a small entry script in a
process of its own (the subreaper setting and the signal handlers belong to a whole
process, not to the test runner) and send it a real signal.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import REPO, set_machine_tool

from orchestrator import proctree
from orchestrator.deadline import Deadline
from orchestrator.procs import CANCELLED_REASON, run_bounded, terminate_all_children

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the process tree is read from /proc (Linux)"
)

#: Generous bounds for waiting on real processes; never asserted as durations.
WAIT_S = 60.0

FAKE_TOOL = """\
import os, sys, time
if sys.argv[1:2] == ["--version"]:
    print("ruff 9.9.9")
    sys.exit(0)
out = {out!r}
pid = os.fork()
if pid == 0:
    os.setsid()
    if {detach!r}:
        # A well-behaved daemon: it lets go of the output pipes.
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
    with open(out + "/grandchild.tmp", "w") as fh:
        fh.write(str(os.getpid()))
    os.rename(out + "/grandchild.tmp", out + "/grandchild.pid")
    time.sleep(600)
    os._exit(0)
with open(out + "/tool.tmp", "w") as fh:
    fh.write(str(os.getpid()))
os.rename(out + "/tool.tmp", out + "/tool.pid")
if {leave!r}:
    os._exit(0)
time.sleep(600)
"""


def _fake_tool(folder: Path, *, leave: bool = False, detach: bool = False) -> Path:
    """fake-tool: forks a `setsid` grandchild; waits for it, or (`leave`) exits at once."""
    folder.mkdir(parents=True, exist_ok=True)
    tool = folder / "fake-tool"
    body = FAKE_TOOL.format(out=str(folder), leave=leave, detach=detach)
    tool.write_text(f"#!{sys.executable}\n{body}")
    tool.chmod(0o755)
    return tool


def _wait_for_pid(path: Path) -> int:
    limit = Deadline.after(WAIT_S)
    while not path.exists():
        assert not limit.expired(), f"{path.name} never appeared"
        time.sleep(0.02)
    return int(path.read_text())


def _gone(pid: int) -> bool:
    """Dead: no such process, or a zombie (killed, waiting for a parent to reap it)."""
    row = proctree._stat(pid)
    return row is None or not row.alive


def _wait_gone(pid: int) -> bool:
    limit = Deadline.after(WAIT_S)
    while not _gone(pid):
        if limit.expired():
            return False
        time.sleep(0.02)
    return True


def _cleanup(*pids: int) -> None:
    proctree.kill(pids)


def test_deadline_kills_a_grandchild_that_left_the_group(tmp_path: Path) -> None:
    tool = _fake_tool(tmp_path / "run")
    res = run_bounded([str(tool)], deadline=Deadline.after(1.0))
    grandchild = _wait_for_pid(tmp_path / "run" / "grandchild.pid")
    try:
        assert res.timed_out
        assert _wait_gone(grandchild), "the setsid grandchild survived the deadline kill"
    finally:
        _cleanup(grandchild)


LEFTOVER_ENTRY = """\
import sys
from orchestrator.deadline import Deadline
from orchestrator.procs import become_subreaper, run_bounded

become_subreaper()
res = run_bounded([sys.argv[1]], deadline=Deadline.after(60))
sys.exit(0 if res.returncode == 0 and not res.timed_out else 1)
"""


def test_leftover_holding_the_pipes_is_killed_with_its_run(tmp_path: Path) -> None:
    # The tool exits at once; its setsid grandchild keeps the output pipes open and is
    # adopted by the (subreaper) entry process: the run ends with the tool's own exit
    # and takes the leftover with it, though it is in no group or tree of the tool's.
    tool = _fake_tool(tmp_path / "run", leave=True)
    proc = _entry(tmp_path, LEFTOVER_ENTRY, str(tool))
    grandchild = 0
    try:
        grandchild = _wait_for_pid(tmp_path / "run" / "grandchild.pid")
        assert proc.wait(timeout=WAIT_S) == 0
        assert _wait_gone(grandchild), "the leftover outlived its run"
    finally:
        proc.kill()
        _cleanup(grandchild)


ENTRY = """\
import sys
from pathlib import Path
from orchestrator.deadline import Deadline
from orchestrator.procs import run_bounded, signals_end_children

daemon, sleeper = sys.argv[1], sys.argv[2]
with signals_end_children():
    try:
        # First a tool that leaves a detached daemon behind and exits: the daemon is
        # an orphan now, re-parented to us only because we are a subreaper.
        run_bounded([daemon], deadline=Deadline.after(60))
        run_bounded([sleeper], deadline=Deadline.after(600))
    except KeyboardInterrupt:
        sys.exit(130)
sys.exit(0)
"""


def _entry(tmp_path: Path, source: str, *args: str) -> subprocess.Popen[bytes]:
    script = tmp_path / "entry.py"
    script.write_text(source)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, str(script), *args], env=env, cwd=tmp_path)


def _signal_and_expect(
    proc: subprocess.Popen[bytes], sig: signal.Signals, code: int, pids: list[int]
) -> None:
    """Send `sig`; the process exits `code` and none of `pids` is left running."""
    proc.send_signal(sig)
    assert proc.wait(timeout=WAIT_S) == code
    left = [pid for pid in pids if not _wait_gone(pid)]
    assert not left, f"left running after the signal: {left}"


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_kills_children_and_adopted_orphans(
    tmp_path: Path, sig: signal.Signals, code: int
) -> None:
    daemon = _fake_tool(tmp_path / "daemon", leave=True, detach=True)
    sleeper = _fake_tool(tmp_path / "sleeper")
    proc = _entry(tmp_path, ENTRY, str(daemon), str(sleeper))
    pids: list[int] = []
    try:
        pids.append(_wait_for_pid(tmp_path / "daemon" / "grandchild.pid"))
        pids.append(_wait_for_pid(tmp_path / "sleeper" / "tool.pid"))
        pids.append(_wait_for_pid(tmp_path / "sleeper" / "grandchild.pid"))
        _signal_and_expect(proc, sig, code, pids)
    finally:
        proc.kill()
        _cleanup(*pids)


@pytest.mark.e2e
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_orchestrate_lint_ends_its_tree_on_a_signal(
    tmp_path: Path, sig: signal.Signals, code: int
) -> None:
    # The real CLI entry (`python -m orchestrator.cli`, what the console script runs),
    # Ruff replaced by the fake tool through the config: main() itself must end the tree.
    project = tmp_path / "project"
    project.mkdir()
    tool = _fake_tool(tmp_path / "tool")
    set_machine_tool("ruff", f"{tool}")
    (project / "m.py").write_text("x = 1\n")
    argv = ["-m", "orchestrator.cli", "lint", "--no-tasks", "--root", str(project), str(project)]
    proc = subprocess.Popen([sys.executable, *argv], cwd=tmp_path)
    pids: list[int] = []
    try:
        pids.append(_wait_for_pid(tmp_path / "tool" / "tool.pid"))
        pids.append(_wait_for_pid(tmp_path / "tool" / "grandchild.pid"))
        _signal_and_expect(proc, sig, code, pids)
    finally:
        proc.kill()
        _cleanup(*pids)


def test_after_shutdown_no_child_starts(tmp_path: Path) -> None:
    script = tmp_path / "entry.py"
    script.write_text(
        "from orchestrator.deadline import Deadline\n"
        "from orchestrator.procs import run_bounded, terminate_all_children\n"
        "terminate_all_children()\n"
        "res = run_bounded(['true'], deadline=Deadline.after(60))\n"
        "print(res.spawn_error)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == CANCELLED_REASON


def test_terminate_all_children_reaches_the_tree(tmp_path: Path) -> None:
    # In-process, without closing the registry (the test runner goes on running).
    tool = _fake_tool(tmp_path / "run")
    import threading

    t = threading.Thread(
        target=run_bounded, args=([str(tool)],), kwargs={"deadline": Deadline.after(WAIT_S)}
    )
    t.start()
    grandchild = _wait_for_pid(tmp_path / "run" / "grandchild.pid")
    tool_pid = _wait_for_pid(tmp_path / "run" / "tool.pid")
    try:
        assert terminate_all_children(refuse_new=False) >= 2
        assert _wait_gone(grandchild) and _wait_gone(tool_pid)
        t.join(timeout=WAIT_S)
        assert not t.is_alive()
    finally:
        _cleanup(grandchild, tool_pid)


def test_input_larger_than_a_pipe_reaches_the_child_whole() -> None:
    # 3 MiB is many pipe buffers: the input is fed as the child reads it, while its
    # output (as large) is read at the same time, or both would block.
    data = bytes(range(256)) * (3 * 4096)
    res = run_bounded(["cat"], stdin=data, deadline=Deadline.after(WAIT_S))
    assert res.ok and res.returncode == 0
    assert res.stdout == data


def test_a_child_that_stops_reading_its_input_ends_the_run_at_its_exit() -> None:
    # The child reads 10 bytes of 3 MiB and exits: the feeding stops there (the pipe is
    # broken), with no error and no wait for the deadline.
    start = time.monotonic()
    res = run_bounded(
        ["sh", "-c", "head -c 10; exit 3"], stdin=b"x" * (3 << 20), deadline=Deadline.after(30)
    )
    assert (res.returncode, res.stdout, res.timed_out) == (3, b"x" * 10, False)
    assert time.monotonic() - start < 20  # an upper bound only: far from the deadline


def test_empty_input_is_an_end_of_file_at_once() -> None:
    res = run_bounded(["cat"], stdin=b"", deadline=Deadline.after(WAIT_S))
    assert (res.returncode, res.stdout) == (0, b"")


def test_output_past_the_budget_kills_the_child_and_keeps_the_budget() -> None:
    res = run_bounded(["yes"], deadline=Deadline.after(WAIT_S), output_budget=1000)
    assert res.over_budget and not res.timed_out
    assert len(res.stdout) == 1000 and res.stdout.startswith(b"y\n")
    assert res.returncode == -signal.SIGKILL


def test_both_streams_are_kept_apart_and_whole() -> None:
    script = "i=0; while [ $i -lt 2000 ]; do echo out$i; echo err$i >&2; i=$((i+1)); done"
    res = run_bounded(["sh", "-c", script], deadline=Deadline.after(WAIT_S))
    assert res.stdout.split() == [f"out{i}".encode() for i in range(2000)]
    assert res.stderr.split() == [f"err{i}".encode() for i in range(2000)]


def test_the_deadline_ends_a_silent_child() -> None:
    res = run_bounded(["sleep", "60"], deadline=Deadline.after(0.3))
    assert res.timed_out and not res.over_budget and res.returncode == -signal.SIGKILL


def test_a_budget_kill_that_outlasts_the_deadline_is_still_over_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The kill of a flooding child takes until after the deadline (its settle wait): the
    # run ran out of budget, not of time, and the tree is killed once.
    from orchestrator import procs

    deadline = Deadline.after(0.4)
    kills: list[int] = []
    real_kill = procs._kill_tree

    def slow_kill(proc, mark):  # type: ignore[no-untyped-def]
        kills.append(proc.pid)
        real_kill(proc, mark)
        while not deadline.expired():
            time.sleep(0.01)

    monkeypatch.setattr(procs, "_kill_tree", slow_kill)
    res = run_bounded(["yes"], deadline=deadline, output_budget=1000)
    assert res.over_budget and not res.timed_out
    assert len(kills) == 1


def test_without_a_pidfd_no_wait_follows_the_end_of_the_output_and_the_exit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Where no pidfd tells of the exit (not Linux, or the call refused), the exit is
    # looked for every few ms; once the pipes are closed and the child is gone the run
    # ends, without one more wait on nothing.
    import selectors

    from orchestrator import procs

    waits: list[tuple[float | None, int]] = []

    class Recording(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
        def select(self, timeout=None):  # type: ignore[no-untyped-def]
            ready = super().select(timeout)
            waits.append((timeout, len(ready)))
            return ready

    monkeypatch.setattr(procs, "_pidfd", lambda pid: None)
    monkeypatch.setattr(procs.selectors, "DefaultSelector", Recording)
    res = run_bounded(["sh", "-c", "echo hi"], deadline=Deadline.after(WAIT_S))
    assert (res.returncode, res.stdout) == (0, b"hi\n")
    idle = [t for t, n in waits if n == 0 and t is not None and t > procs._EXIT_POLL_S]
    assert not idle, waits


def test_a_fault_while_supervising_kills_the_child_and_closes_its_descriptors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orchestrator import procs

    pidfile = tmp_path / "child.pid"

    def refuse() -> None:
        raise OSError(24, "Too many open files")  # fault injection: no selector

    before = set(os.listdir("/proc/self/fd"))
    monkeypatch.setattr(procs.selectors, "DefaultSelector", refuse)
    with pytest.raises(OSError, match="Too many open files"):
        run_bounded(
            ["sh", "-c", f"echo $$ > '{pidfile}'; exec sleep 30"],
            deadline=Deadline.after(WAIT_S),
        )
    assert set(os.listdir("/proc/self/fd")) <= before
    assert not procs._REGISTRY.owned()
    if pidfile.exists() and pidfile.read_text().strip():
        assert _wait_gone(int(pidfile.read_text()))
