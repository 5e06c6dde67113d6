"""Human output never prints untrusted text raw: file names and tool messages holding
ESC sequences, carriage returns, newlines or rich markup show as inert escapes, one line
per item; JSON and SARIF keep the exact values."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import git, new_repo, run_cli

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.core.hookspecs import hookimpl
from orchestrator.model.checker import Batch, CheckerPlan, FileOutcome
from orchestrator.model.report import Finding, Gate, Report, ScanInfo
from orchestrator.render.formats import BUILTIN
from orchestrator.render.output import emit_gate, emit_report, gate_text
from orchestrator.safetext import printable
from orchestrator.vocab import GateDecision, ScopeStatus, Severity, Tier

#: Hostile file names: a colour sequence, a carriage return, a newline, rich markup.
NAMES = ["\x1b[31mred.py", "cr\rforged.py", "nl\nforged.py", "[bold]x.py", "bidi\u202eyp.py"]
#: A tool message that would clear the screen, forge a line and style the rest.
MESSAGE = "unused\x1b[2J\r\nFORGED: all clear [bold]b[/bold]\x9b1m"
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e]")


def _inert(text: str) -> None:
    assert not RAW.search(text), repr(RAW.search(text))
    assert not any(line.startswith(("forged.py", "FORGED")) for line in text.splitlines())


def test_printable_escapes_controls_and_keeps_the_rest() -> None:
    assert printable("plain [bold]é 名 \\n") == "plain [bold]é 名 \\n"
    assert printable("a\x1b[2Jb\rc\nd\te\x7f\x9b") == "a\\x1b[2Jb\\rc\\nd\\te\\x7f\\x9b"
    assert printable("rlo\u202e line\u2028 sep") == "rlo\\u202e line\\u2028 sep"
    assert printable("bytes \udcff\udc80") == "bytes \\xff\\x80"
    once = printable(MESSAGE)
    assert printable(once) == once


def test_printable_text_is_never_a_workflow_command() -> None:
    assert printable("::error::x") == "\\x3a:error::x"
    assert printable("  ::warning::y") == "  \\x3a:warning::y"
    assert printable("\t::notice::z") == "\\t::notice::z"  # starts with a backslash now
    assert printable("a ##[add-mask]b ###[c") == "a #\\x23[add-mask]b ##\\x23[c"
    assert printable("std::string a::b") == "std::string a::b"
    for text in ("::x", "##[y", " ::z", "###[w"):
        assert printable(printable(text)) == printable(text)


class _FakeHostileChecker:
    """A fault-injection checker for *.fake files: its scope and finding carry hostile text."""

    name = "fake_hostile"
    tier = Tier.NATIVE

    def claims(self, target):  # type: ignore[no-untyped-def]
        return target.path.endswith(".fake")

    def plan(self, targets, ctx):  # type: ignore[no-untyped-def]
        return CheckerPlan(batches=(Batch(tuple(targets)),))

    def run(self, batch, ctx):  # type: ignore[no-untyped-def]
        out = []
        for t in batch.targets:
            if t.path.startswith("broken"):
                out.append(
                    FileOutcome(
                        path=t.path,
                        checker=self.name,
                        status=ScopeStatus.TOOL_ERROR,
                        reason=MESSAGE,
                        hint="hint\x1b]0;title\x07\nFORGED hint",
                    )
                )
                continue
            finding = Finding(
                checker=self.name,
                rule="R1\x1b[0m",
                severity=Severity.ERROR,
                path=t.path,
                line=1,
                message=MESSAGE,
                blocking=True,
            )
            out.append(
                FileOutcome(
                    path=t.path,
                    checker=self.name,
                    status=ScopeStatus.CHECKED,
                    findings=(finding,),
                    notes=("note\r\nFORGED note",),
                )
            )
        return out


def _fake_plugin() -> object:
    @hookimpl
    def orchestrate_checkers():  # type: ignore[no-untyped-def]
        return [_FakeHostileChecker()]

    return SimpleNamespace(orchestrate_checkers=orchestrate_checkers)


def _failing_plugin() -> object:
    @hookimpl
    def orchestrate_checkers():  # type: ignore[no-untyped-def]
        raise RuntimeError("load\x1b[2J\nFORGED: plugin ok")

    return SimpleNamespace(orchestrate_checkers=orchestrate_checkers)


@pytest.fixture
def hostile_report(tmp_path: Path) -> Report:
    names = [n.replace(".py", ".fake") for n in NAMES] + ["broken\nFORGED.fake"]
    for name in names:
        (tmp_path / name).write_text("x\n")
    extra = [("fake_hostile", _fake_plugin()), ("evil\x1b[31m\nFORGED", _failing_plugin())]
    report = run_lint(LintRequest(project_root=tmp_path, extra_plugins=extra))
    assert {f.path for f in report.findings} >= {n for n in names if not n.startswith("broken")}
    return report


def test_human_text_of_a_hostile_report_is_inert(hostile_report: Report) -> None:
    text = BUILTIN["human"].render(hostile_report)
    _inert(text)
    assert printable(MESSAGE) in text
    assert "[bold]x.fake" in text and "[bold]b[/bold]" in text
    assert "broken\\nFORGED.fake" in text and "hint\\x1b]0;title\\x07\\nFORGED hint" in text
    assert "plugin evil\\x1b[31m\\nFORGED failed to load" in text
    assert "note: note\\r\\nFORGED note" in text
    for name in NAMES:
        # One finding line per file, starting with its escaped `path:line`.
        where = printable(name.replace(".py", ".fake")) + ":1  "
        assert sum(ln.startswith(where) for ln in text.splitlines()) == 1, name


def test_live_console_prints_the_same_inert_text(
    hostile_report: Report, capsys: pytest.CaptureFixture[str]
) -> None:
    emit_report(hostile_report, "human", None)
    out = capsys.readouterr().out
    _inert(out)
    assert "[bold]x.fake" in out and "[bold]b[/bold]" in out


def test_json_and_sarif_keep_the_exact_values(hostile_report: Report) -> None:
    data = json.loads(BUILTIN["json"].render(hostile_report))
    assert {f["message"] for f in data["findings"]} == {MESSAGE}
    assert "nl\nforged.fake" in {f["path"] for f in data["findings"]}
    sarif = json.loads(BUILTIN["sarif"].render(hostile_report))
    messages = {r["message"]["text"] for r in sarif["runs"][0]["results"]}
    assert MESSAGE in messages


def test_gate_text_escapes_reasons_recovery_notes_and_extra_lines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = Report(
        scan=ScanInfo(project_root="/p"),
        gate=Gate(
            decision=GateDecision.DENY,
            reasons=["blocking finding in nl\nFORGED: allow"],
            recovery=["fix cr\rFORGED\x1b[2K"],
        ),
        notes=["note\x1b[1A\x1b[2K"],
    )
    text = gate_text(report, "gate commit")
    _inert(text)
    assert "nl\\nFORGED: allow" in text and "cr\\rFORGED\\x1b[2K" in text
    emit_gate(report, "human", None, "gate commit", ["secret: a\nFORGED.py:1 rule"])
    out = capsys.readouterr().out
    _inert(out)
    assert "secret: a\\nFORGED.py:1 rule" in out


def test_plugins_list_escapes_a_failing_plugins_name_and_reason(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from orchestrator.cli.main import cmd_plugins
    from orchestrator.core import plugin_host

    real = plugin_host.load
    extra = [("evil\x1b[31m\nFORGED", _failing_plugin())]
    monkeypatch.setattr(plugin_host, "load", lambda: real(extra_modules=extra))
    assert cmd_plugins(argparse.Namespace(format="human")) == 0
    out = capsys.readouterr().out
    _inert(out)
    assert "evil\\x1b[31m\\nFORGED" in out and "load\\x1b[2J\\nFORGED: plugin ok" in out


def _hostile_repo(tmp_path: Path) -> Path:
    root = new_repo(tmp_path / "r")
    for name in NAMES:
        (root / name).write_text("import os\n")
    return root


@pytest.mark.e2e
def test_cli_lint_of_hostile_file_names_is_inert_and_json_exact(tmp_path: Path) -> None:
    root = _hostile_repo(tmp_path)
    res = run_cli(["lint", "--no-tasks", "."], cwd=root)
    assert res.returncode == 1, res.stderr
    _inert(res.stdout)
    lines = res.stdout.splitlines()
    for name in NAMES:
        where = printable(name) + ":1:"
        assert sum(ln.startswith(where) for ln in lines) == 1, (name, res.stdout)
    res = run_cli(["lint", "--no-tasks", "--format", "json", "."], cwd=root)
    assert {f["path"] for f in json.loads(res.stdout)["findings"]} == set(NAMES)


@pytest.mark.e2e
def test_cli_task_list_and_show_of_hostile_file_names_are_inert(tmp_path: Path) -> None:
    root = _hostile_repo(tmp_path)
    assert run_cli(["lint", "."], cwd=root).returncode == 1
    res = run_cli(["task", "list"], cwd=root)
    assert res.returncode == 0, res.stderr
    _inert(res.stdout)
    assert len(res.stdout.splitlines()) == len(NAMES)
    for name in NAMES:
        assert sum(ln.endswith(printable(name) + ":1") for ln in res.stdout.splitlines()) == 1
    tid = res.stdout.split()[0]
    res = run_cli(["task", "show", tid, "--show-message"], cwd=root)
    assert res.returncode == 0, res.stderr
    _inert(res.stdout)


@pytest.mark.e2e
def test_cli_gate_commit_of_hostile_file_names_is_inert(tmp_path: Path) -> None:
    root = _hostile_repo(tmp_path)
    for name in NAMES:
        git(root, "add", "--", name)
    res = run_cli(["gate", "commit"], cwd=root)
    assert res.returncode == 1, res.stdout + res.stderr
    _inert(res.stdout)
    _inert(res.stderr)


@pytest.mark.e2e
def test_hygiene_check_escapes_hostile_names_the_same_way(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "h")
    (root / "nl\nFORGED\x1b[2J.orig").write_text("leftover\n")
    (root / "plain.orig").write_text("leftover\n")  # the hostile name itself is not scanned
    res = run_cli(["check"], cwd=root)
    assert res.returncode == 1, res.stderr
    _inert(res.stdout)
    assert printable("nl\nFORGED\x1b[2J.orig") in res.stdout


@pytest.mark.e2e
def test_an_error_message_echoing_a_hostile_argument_is_inert(tmp_path: Path) -> None:
    res = run_cli(["lint", "--no-tasks", "nl\nFORGED\x1b[2J.py"], cwd=new_repo(tmp_path / "e"))
    assert res.returncode == 2, res.stderr
    _inert(res.stderr)
    assert "path does not exist: nl\\nFORGED\\x1b[2J.py" in res.stderr
