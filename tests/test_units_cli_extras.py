"""The optional extras (cli/extras.py, issue 30's light install): `orchestrate lsp` and
`orchestrate mcp` need packages plain `lint` never imports. Without its extra such a
command is a usage error naming the extra (tested with a fake finder that hides the
package: fault injection); `lint` imports neither package; pyproject.toml keeps them
out of the base dependencies and in the extras the module names."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from helpers import new_repo

from orchestrator.cli import extras
from orchestrator.cli.main import main
from orchestrator.vocab import ExitCode

REPO = Path(__file__).resolve().parent.parent


def _hide(monkeypatch: pytest.MonkeyPatch, *hidden: str) -> None:
    real = importlib.util.find_spec

    def fake_find_spec(name: str, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        return None if name.split(".")[0] in hidden else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", fake_find_spec)


@pytest.mark.parametrize(("command", "hidden"), [("lsp", "pygls"), ("mcp", "mcp")])
def test_a_command_without_its_extra_is_a_usage_error_naming_it(
    command: str, hidden: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _hide(monkeypatch, hidden)
    code = main([command])
    err = capsys.readouterr().err
    assert code == ExitCode.USAGE
    assert f"`orchestrate {command}` needs the `{command}` extra ({hidden} not installed)" in err
    assert f"orchestrate-lint[{command}]" in err
    assert "Traceback" not in err


def test_the_console_scripts_front_door_leaves_a_missing_extra_to_the_cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from orchestrator.cli import entry

    _hide(monkeypatch, "pygls")
    monkeypatch.setattr(sys, "argv", ["orchestrate", "lsp", "--stdio"])
    assert entry.main() == ExitCode.USAGE  # not the front door reading stdin
    assert "needs the `lsp` extra (pygls not installed)" in capsys.readouterr().err


def test_with_the_extra_installed_nothing_is_refused() -> None:
    for extra in extras.EXTRAS:
        extras.require_extra(extra, extra)  # the test environment has every extra


@pytest.mark.e2e
def test_lint_imports_neither_the_language_server_nor_the_mcp_sdk(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", {"a.py": "import os\n", "b.js": "x = 1\n"})
    script = (
        "import sys\n"
        "from orchestrator.cli.main import main\n"
        f"code = main(['lint', '--no-tasks', '--format', 'json', '-o', {str(tmp_path / 'r.json')!r}, "
        f"{str(repo)!r}])\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & {'pygls', 'lsprotocol', 'mcp'})\n"
        "print(code, loaded)\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", script], cwd=repo, capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.split()[1:] == ["[]"], res.stdout
    assert res.stdout.split()[0] == "1"  # the F401 was found: lint really ran


def test_pyproject_keeps_the_extras_out_of_the_base_install() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    base = " ".join(project["dependencies"])
    optional = project["optional-dependencies"]
    for extra, modules in extras.EXTRAS.items():
        dist = {"lsp": "pygls", "mcp": "mcp"}[extra]
        assert dist not in base, f"{dist} is in the base dependencies"
        assert any(req.startswith(dist) for req in optional[extra]), optional[extra]
        assert modules
    # The suite installs every extra (its tests drive both servers).
    assert "orchestrate-lint[lsp,mcp]" in optional["test"]
