"""Unit tests of the console script's routing (cli/entry) and of report assembly's
scope and coverage notes (core/assemble), in process."""

from __future__ import annotations

import sys

import pytest

from orchestrator import __version__
from orchestrator.cli import entry
from orchestrator.core.assemble import MIXED_COVERAGE, coverage_notes
from orchestrator.model.report import Coverage
from orchestrator.server import client


def test_a_lint_asks_the_warm_engine_first(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[list[str]] = []

    def warm(argv: list[str]) -> int:
        asked.append(argv)
        return 7

    monkeypatch.setattr(client, "try_warm", warm)
    monkeypatch.setattr(sys, "argv", ["orchestrate", "lint", "a.py"])
    assert entry.main() == 7
    assert asked == [["lint", "a.py"]]


def test_another_command_never_asks_the_warm_engine(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(client, "try_warm", lambda _argv: pytest.fail("asked the engine"))
    monkeypatch.setattr(sys, "argv", ["orchestrate", "--version"])
    assert entry.main() == 0
    assert __version__ in capsys.readouterr().out


def test_coverage_notes_name_mixed_coverage_only() -> None:
    assert coverage_notes(Coverage(native_files=2, syntax_only_files=1)) == [MIXED_COVERAGE]
    assert coverage_notes(Coverage(native_files=2)) == []
    assert coverage_notes(Coverage(syntax_only_files=2)) == []
