"""Unit tests of the reading of code a command hands a program (orchestrator.shell.code_text):
awk programs and sed scripts that can run a command or write a file, and the rest not."""

from __future__ import annotations

import pytest

from orchestrator.shell.code_text import awk_runs, sed_runs


@pytest.mark.parametrize(
    "program",
    [
        'BEGIN{system("git commit --no-verify")}',
        'BEGIN { "git push" | getline x }',
        '{ print | "sh" }',
        '{ print > "/tmp/x" }',
        '@load "filefuncs"',
    ],
)
def test_awk_programs_that_run_or_write_are_seen(program: str) -> None:
    assert awk_runs(program)


@pytest.mark.parametrize("program", ["{print $1}", "NR > 1 { s += $2 } END { print s }", "/a|b/"])
def test_awk_programs_that_only_read_are_not(program: str) -> None:
    assert not awk_runs(program)


@pytest.mark.parametrize("script", ["e git commit --no-verify", "1e id", "w /tmp/out", "s/a/b/e"])
def test_sed_scripts_that_run_or_write_are_seen(script: str) -> None:
    assert sed_runs(script)


@pytest.mark.parametrize("script", ["s/a/b/g", "1d", "/x/p", "s/e/w/"])
def test_sed_scripts_that_only_edit_the_stream_are_not(script: str) -> None:
    assert not sed_runs(script)
