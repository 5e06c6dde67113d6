"""The progress count of a long `lint` (cli/progress) in process: what decides it, the
count over batch sets, and the line drawn on a real pseudo-terminal (python's `pty`)
standing in for stderr, around a real run of the core with real Ruff. The console
script on a terminal is an end-to-end case (tests/test_progress.py)."""

from __future__ import annotations

import contextlib
import io
import os
import pty
import re
import select
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import new_repo

from orchestrator.cli import progress
from orchestrator.core.engine import LintRequest, run_lint

CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_ci_is_any_value_but_the_off_spellings() -> None:
    assert progress.under_ci({"CI": "true"}) and progress.under_ci({"CI": "1"})
    for off in ("", "0", "false", "FALSE", " no "):
        assert not progress.under_ci({"CI": off})
    assert not progress.under_ci({})


def test_the_flag_wins_then_the_configuration_then_ci() -> None:
    assert progress.wanted(True, {"progress": False}, {"CI": "true"})
    assert not progress.wanted(False, {}, {})
    assert progress.wanted(None, {}, {})
    assert not progress.wanted(None, {"progress": False}, {})
    assert not progress.wanted(None, {}, {"CI": "true"})


def test_the_count_adds_later_sets_to_the_earlier_ones() -> None:
    shown: list[tuple[int, int]] = []
    counter = progress.Counter(lambda done, total: shown.append((done, total)))
    counter.update(0, 10)
    counter.update(10, 10)
    counter.update(0, 3)  # the late syntax fallback starts its own set
    counter.update(2, 3)
    assert shown == [(0, 10), (10, 10), (10, 13), (12, 13)]


def test_a_display_fault_never_reaches_the_run() -> None:
    def broken(done: int, total: int) -> None:
        raise RuntimeError("display gone")

    progress.Counter(broken).update(0, 5)  # returns: nothing raised


def test_without_a_terminal_the_run_is_untouched(monkeypatch: pytest.MonkeyPatch) -> None:
    req = LintRequest(project_root=Path("."))
    seen: list[LintRequest] = []
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert progress.run_with_progress(req, lambda r: seen.append(r) or 7, True) == 7
    assert progress.run_with_progress(req, lambda r: seen.append(r) or 8, False) == 8
    assert seen == [req, req]  # the very request: no progress callback added
    assert not progress.show_progress(True, Path("."))  # stderr is no terminal


@contextlib.contextmanager
def on_terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """stderr on the slave side of a pseudo-terminal while inside; yields the master
    side. (Inside the test body: pytest sets its own stderr again between phases.)"""
    master, slave = pty.openpty()
    stream = open(slave, "w", encoding="utf-8", closefd=True)  # noqa: SIM115 - closed below
    for name in ("CI", "NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLUMNS", "100")
    saved = sys.stderr
    sys.stderr = stream
    try:
        yield master
    finally:
        sys.stderr = saved
        stream.close()
        os.close(master)


def _drawn(master: int) -> str:
    chunks = []
    while select.select([master], [], [], 0.2)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return CONTROL.sub("", b"".join(chunks).decode("utf-8", "replace"))


def test_on_a_terminal_a_long_run_counts_its_file_checks_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A run from MANY file checks shows the count at once: lowered, so a small run does.
    monkeypatch.setattr(progress, "MANY", 4)
    files = {f"m{i:03}.py": f"import os{i % 3}\n" for i in range(12)}
    root = new_repo(tmp_path / "r", files, initial_commit=False)
    req = LintRequest(project_root=root, paths=sorted(files), cwd=root)
    with on_terminal(monkeypatch) as master:
        report = progress.run_with_progress(req, run_lint, True)
        text = _drawn(master)
    assert len(report.findings) == len(files)  # the run is the run, with the count beside it
    count = re.findall(r"orchestrate: checking\s+(\d+)/(\d+) file checks", text)
    assert count, text
    assert all(int(done) <= int(total) for done, total in count)
    assert capsys.readouterr().out == ""  # nothing on stdout


def test_on_a_terminal_the_configuration_can_turn_it_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = new_repo(tmp_path / "r", initial_commit=False)
    with on_terminal(monkeypatch):
        assert progress.show_progress(None, root)
        (root / "orchestrate.toml").write_text("progress = false\n")
        assert not progress.show_progress(None, root)
        assert progress.show_progress(True, root)
        assert not progress.show_progress(False, root)
