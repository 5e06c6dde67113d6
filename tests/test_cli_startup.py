"""Start-up: `--version`, `--help` and usage errors import nothing heavy, and every
subcommand imports only its own module (issue 14, item 1). Not timed: what is
imported is asserted, since the time follows from it and a loaded machine would make
a timed test flaky."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

#: Modules whose import is the cost of a start (pydantic and the report models, the
#: plugin manager, the grammars, the console renderer).
HEAVY = ("pydantic", "pluggy", "tree_sitter", "orchestrator.model.report", "rich")

PROBE = """
import json, sys
from orchestrator.cli.main import main
try:
    code = main(json.loads(sys.argv[1]))
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
print("\\nMODULES=" + json.dumps(sorted(sys.modules)), file=sys.stderr)
sys.exit(code if isinstance(code, int) else 0)
"""


def imported_by(argv: list[str]) -> tuple[int, set[str], str]:
    """(exit code, modules imported, stdout+stderr) of `main(argv)` in a fresh interpreter."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(argv)], capture_output=True, text=True, timeout=60
    )
    text, _, mods = proc.stderr.rpartition("\nMODULES=")
    return proc.returncode, set(json.loads(mods)), proc.stdout + text


def heavy_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["--version"], 0),
        (["--help"], 0),
        ([], 2),  # no command: the usage on stderr
        (["no-such-command"], 2),
        (["--no-such-option"], 2),
    ],
)
def test_version_help_and_usage_errors_import_nothing_heavy(argv: list[str], code: int) -> None:
    rc, modules, _out = imported_by(argv)
    assert rc == code
    assert heavy_in(modules) == []
    # No subcommand module is imported to answer these.
    assert sorted(m for m in modules if m.startswith("orchestrator.cli.") and m != __name__) == [
        "orchestrator.cli.main"
    ]


def test_a_lint_usage_error_builds_no_report_model() -> None:
    rc, modules, out = imported_by(["lint", "--fail-on", "nonsense"])
    assert rc == 2
    assert "invalid choice" in out
    assert [m for m in heavy_in(modules) if m != "pluggy" and not m.startswith("pluggy.")] == []
    assert "orchestrator.cli.gate" not in modules and "orchestrator.tasks.store" not in modules


@pytest.mark.parametrize(
    ("argv", "own", "foreign"),
    [
        (["task", "--help"], "orchestrator.cli.tasks", "orchestrator.cli.gate"),
        (["gate", "--help"], "orchestrator.cli.gate", "orchestrator.cli.tasks"),
        (["tools", "--help"], "orchestrator.cli.tools", "orchestrator.cli.hygiene"),
        (["plugins", "--help"], "orchestrator.cli.main", "orchestrator.cli.hosts"),
    ],
)
def test_a_subcommand_imports_only_its_own_module(argv: list[str], own: str, foreign: str) -> None:
    rc, modules, out = imported_by(argv)
    assert rc == 0, out
    assert own in modules
    assert foreign not in modules


def test_help_lists_every_command_with_its_modules_own_help() -> None:
    """The command list `--help` shows without importing the modules is the one the
    modules themselves register: same names, same order, same help text."""
    from orchestrator.cli import main as cli

    full = cli.build_parser(full=True)
    sub = next(a for a in full._actions if a.dest == "command")
    registered = [(c.dest, c.help) for c in sub._choices_actions]
    assert registered == [(name, info[1]) for name, info in cli.COMMANDS.items()]
    rc, _modules, out = imported_by(["--help"])
    assert rc == 0
    for name in cli.COMMANDS:
        assert f"    {name}" in out


def test_a_command_dispatched_by_name_gets_its_modules_parser() -> None:
    """Not a placeholder: the options the module defines are there."""
    rc, _modules, out = imported_by(["fix", "--help"])
    assert rc == 0
    assert "--approve-all-confirm" in out
