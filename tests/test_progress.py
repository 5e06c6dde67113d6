"""The progress count of a long `lint`: on a terminal's stderr only, never on stdout,
never when stderr is not a terminal, never under CI unless `--progress` asks, off with
`--no-progress` or `progress = false`; and what the run prints is the same with it.

The terminal is a real pseudo-terminal (python's `pty`): the real `orchestrate` runs
with its stderr on the pty's slave side and its stdout on a pipe.
"""

from __future__ import annotations

import os
import pty
import re
import subprocess
import threading
from pathlib import Path

import pytest
from helpers import VENV_BIN, new_repo, run_cli

from orchestrator.cli.progress import MANY, Counter, under_ci, wanted

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

#: More file checks than MANY, so the count shows at once (not only after a second).
FILES = MANY + 20
COUNT = re.compile(rf"orchestrate: checking\s+(\d+)/{FILES} file checks")
ANY_COUNT = re.compile(r"orchestrate: checking\s+\d+/\d+ file checks")
#: Terminal control sequences (colour, cursor), taken out before reading the text.
CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
ARGS = ["lint", "--no-tasks", "--format", "concise"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A fresh project each time: a repeated run reuses its results and checks nothing."""
    files = {f"m{i:03}.py": f"import os{i % 3}\n" for i in range(FILES)}
    return new_repo(tmp_path / "r", files, initial_commit=False)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "NO_COLOR", "TERM")}
    return env | {"TERM": "xterm-256color", "COLUMNS": "100"} | extra


def run_on_pty(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, bytes, str]:
    """Run orchestrate with stderr on a pseudo-terminal: (exit code, stdout, terminal text)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [str(VENV_BIN / "orchestrate"), *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
    )
    os.close(slave)
    assert proc.stdout is not None
    stdout = proc.stdout
    out = bytearray()
    # stdout is drained alongside the terminal: a full pipe would stall the run.
    drain = threading.Thread(target=lambda: out.extend(stdout.read()), daemon=True)
    drain.start()
    seen = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the slave side is closed, the run is over
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    drain.join(timeout=120)
    stdout.close()
    text = CONTROL.sub("", seen.decode("utf-8", "replace"))
    return proc.wait(timeout=120), bytes(out), text


def _plain(project: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run_cli([*ARGS, *extra], cwd=project, env=_env())


def test_a_long_run_on_a_terminal_shows_the_count_on_stderr_only(project: Path) -> None:
    code, out, terminal = run_on_pty(ARGS, project, _env())
    counts = [int(n) for n in COUNT.findall(terminal)]
    assert counts, terminal
    assert counts == sorted(counts) and counts[-1] <= FILES
    plain = _plain(project)
    assert code == plain.returncode == 1
    assert out.decode() == plain.stdout  # stdout is the same bytes, count or not
    assert b"file checks" not in out


def test_without_a_terminal_nothing_is_drawn(project: Path) -> None:
    plain = _plain(project)
    assert plain.stderr == ""
    forced = _plain(project, "--progress")
    assert forced.stderr == "" and forced.stdout == plain.stdout


@pytest.mark.parametrize(
    ("extra_args", "env", "shown"),
    [
        ([], {"CI": "true"}, False),
        (["--progress"], {"CI": "true"}, True),
        (["--no-progress"], {}, False),
        ([], {"CI": "false"}, True),
    ],
)
def test_ci_and_the_flag_decide(
    project: Path, extra_args: list[str], env: dict[str, str], shown: bool
) -> None:
    _, out, terminal = run_on_pty([*ARGS, *extra_args], project, _env(**env))
    assert bool(COUNT.search(terminal)) is shown, terminal
    if not shown:
        assert terminal == ""
    assert out.decode() == _plain(project).stdout


def test_the_configuration_turns_it_off(tmp_path: Path) -> None:
    files = {f"m{i:03}.py": "x = 1\n" for i in range(FILES)} | {"orchestrate.toml": ""}
    root = new_repo(tmp_path / "r", files, initial_commit=False)
    _, _, terminal = run_on_pty(ARGS, root, _env())
    assert ANY_COUNT.search(terminal), terminal
    (root / "orchestrate.toml").write_text("progress = false\n")
    _, _, terminal = run_on_pty(ARGS, root, _env())
    assert terminal == ""
    (root / "orchestrate.toml").write_text('progress = "no"\n')
    assert run_cli(ARGS, cwd=root).returncode == 2  # a wrong type is refused as ever


def test_the_count_adds_up_over_the_late_fallback() -> None:
    shown: list[tuple[int, int]] = []
    counter = Counter(lambda done, total: shown.append((done, total)))
    for event in [(0, 5), (2, 5), (5, 5), (0, 3), (3, 3)]:
        counter.update(*event)
    assert shown == [(0, 5), (2, 5), (5, 5), (5, 8), (8, 8)]
    broken = Counter(lambda done, total: 1 / 0)
    broken.update(0, 1)  # a display fault never reaches the run


def test_under_ci_and_wanted() -> None:
    assert under_ci({"CI": "true"}) and under_ci({"CI": "1"})
    assert not under_ci({}) and not under_ci({"CI": "false"}) and not under_ci({"CI": "0"})
    assert wanted(None, {}, {}) and not wanted(None, {"progress": False}, {})
    assert not wanted(None, {}, {"CI": "true"}) and wanted(True, {"progress": False}, {"CI": "1"})
    assert not wanted(False, {}, {})
