"""A tool's message keeps its line breaks in the machine formats (issue 32, item 5).

JSON, JSONL and SARIF carry the tool's own text, newlines included; the terminal and
CI-log formats (human, concise, github) show it on one line, escaped or folded, so a
message can neither end a line early nor forge one. Each case runs the real ESLint with
a project rule whose message has three lines, through the CLI's own main in process;
the JSON one also through the console script (end to end).
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from helpers import eslint_path, run_cli

from orchestrator.cli import main as cli_main

#: A flat config with one local rule that reports a three-line message on every file.
CONFIG = """\
const local = {
  rules: {
    multi: {
      meta: { type: "problem" },
      create(context) {
        return {
          Program(node) {
            context.report({ node, message: "first line\\n  second line\\nthird line" });
          },
        };
      },
    },
  },
};
export default [{ plugins: { local }, rules: { "local/multi": "error" } }];
"""
MESSAGE = "first line\n  second line\nthird line"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    eslint_path()
    (tmp_path / "eslint.config.mjs").write_text(CONFIG)
    (tmp_path / "a.js").write_text("let a = 1;\nconsole.log(a);\n")
    return tmp_path


def _lint(root: Path, fmt: str) -> str:
    """`orchestrate lint a.js --no-tasks --format FMT` in `root`, in process: its stdout
    (exit 1: the rule's finding)."""
    argv = ["lint", "a.js", "--no-tasks", "--format", fmt]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main.main(argv)
    assert code == 1, out.getvalue() + err.getvalue()
    return out.getvalue()


@pytest.mark.e2e
def test_the_console_scripts_json_keeps_the_tool_message_lines(project: Path) -> None:
    res = run_cli(["lint", "a.js", "--no-tasks", "--format", "json"], cwd=project)
    assert res.returncode == 1, res.stdout + res.stderr
    (finding,) = json.loads(res.stdout)["findings"]
    assert finding["rule"] == "local/multi" and finding["message"] == MESSAGE


def test_machine_formats_keep_the_tool_message_lines(project: Path) -> None:
    (finding,) = json.loads(_lint(project, "json"))["findings"]
    assert finding["rule"] == "local/multi" and finding["message"] == MESSAGE
    rows = [json.loads(line) for line in _lint(project, "jsonl").splitlines()]
    assert [r["message"] for r in rows if r.get("type") == "finding"] == [MESSAGE]
    sarif = json.loads(_lint(project, "sarif"))
    (result,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"].endswith("multi")]
    assert result["message"]["text"] == MESSAGE


def test_terminal_formats_keep_one_line_per_finding(project: Path) -> None:
    human = _lint(project, "human")
    (line,) = [ln for ln in human.splitlines() if "local/multi" in ln]
    assert "first line second line third line" in line, human
    concise = _lint(project, "concise")
    (line,) = [ln for ln in concise.splitlines() if "local/multi" in ln]
    assert "first line" in line and "third line" in line, concise
    github = _lint(project, "github")
    (line,) = [ln for ln in github.splitlines() if "local/multi" in ln or "first line" in ln]
    assert "first line%0A  second line%0Athird line" in line, github


def test_bounded_message_keeps_lines_and_bounds_the_length() -> None:
    from orchestrator.model.checker import bounded_message

    assert bounded_message("a\r\nb\rc\n\n") == "a\nb\nc"
    assert bounded_message("  keep  inner  spaces  \nnext   ") == "  keep  inner  spaces\nnext"
    assert bounded_message(b"bytes\nok") == "bytes\nok"
    clipped = bounded_message("x" * 50 + "\n" + "y" * 50, 20)
    assert len(clipped) == 20 and clipped.endswith("…")
