"""The project-level commands called in process through cli.main.main, with real Ruff:
`baseline` (cli/baseline.py), `doctor` and `init` in their human form
(cli/init_doctor.py), `tools status|install` (cli/tools.py), `report validate`
(cli/hygiene.py) and the `lsp` command's registration (cli/lsp.py). The same commands as
processes are in tests/test_init_doctor.py, tests/test_managed_tools.py and
tests/test_lsp.py (end-to-end)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator import managed_tools
from orchestrator.cli.main import main
from orchestrator.cli.tools import TOOLS
from orchestrator.vocab import ExitCode


@pytest.fixture(autouse=True)
def _in_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each command runs from the project folder, as a user types it there."""
    monkeypatch.chdir(tmp_path)


# --- baseline ------------------------------------------------------------------------------


def test_baseline_records_the_findings_and_lint_then_shows_only_new_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.py").write_text("import os\n")
    assert main(["lint", "--no-tasks"]) == ExitCode.FINDINGS
    capsys.readouterr()
    assert main(["baseline", "--root", str(tmp_path)]) == ExitCode.PASS
    out = capsys.readouterr().out
    assert out == "baseline: 1 finding(s) recorded in .orchestrate-baseline.json; commit it\n"
    assert (tmp_path / ".orchestrate-baseline.json").is_file()
    assert main(["lint", "--no-tasks"]) == ExitCode.PASS
    capsys.readouterr()
    (tmp_path / "b.py").write_text("import sys\n")
    assert main(["lint", "--no-tasks", "--format", "json"]) == ExitCode.FINDINGS
    report = json.loads(capsys.readouterr().out)
    assert [f["path"] for f in report["findings"] if f["blocking"]] == ["b.py"]


def test_baseline_is_not_written_when_a_check_did_not_finish(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.py").write_text("import os\n")
    # A Ruff configuration Ruff refuses: its check fails, so the baseline would miss it.
    (tmp_path / "ruff.toml").write_text("[lint]\nselect = 7\n")
    assert main(["baseline"]) == ExitCode.INCOMPLETE
    out = capsys.readouterr().out
    assert out.startswith("orchestrate baseline: not written: ") and "did not finish" in out
    assert not (tmp_path / ".orchestrate-baseline.json").exists()


# --- doctor and init -----------------------------------------------------------------------


def test_doctor_prints_tools_configs_and_what_each_language_gets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ruff.toml").write_text('[lint]\nselect = ["F401"]\n')
    (tmp_path / "a.py").write_text("import os\n")
    (tmp_path / "c.toml").write_text("x = 1\n")
    assert main(["doctor"]) == ExitCode.PASS
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "tools"
    ruff = next(line for line in out if line.startswith("  ruff "))
    assert "native" in ruff and "ruff.toml" in ruff
    assert "configuration files" in out and "  ruff.toml" in out
    assert "languages in the tree (what their files get; gates require)" in out
    python = next(line for line in out if line.startswith("  python "))
    assert "1 file(s)  native" in python and "required native" in python


def test_doctor_of_an_empty_tree_says_no_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor"]) == ExitCode.PASS
    out = capsys.readouterr().out.splitlines()
    assert out[out.index("configuration files") + 1] == "  none"


def test_init_names_a_lowered_language_and_how_to_commit_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A .js file with no ESLint configuration gets syntax only: proposed below native.
    (tmp_path / "b.js").write_text("var a = 1;\n")
    (tmp_path / "a.json").write_text('{"a": 1}\n')
    assert main(["init"]) == ExitCode.PASS
    out = capsys.readouterr().out
    assert out.startswith("wrote orchestrate.toml:")
    assert "  javascript: 1 file(s), syntax (required syntax; " in out
    assert "note: a level above is below the default" in out
    assert "commit it on its own first" in out and out.rstrip().endswith("for the gates")
    assert main(["init"]) == ExitCode.USAGE  # never overwrites
    assert "not overwritten" in capsys.readouterr().err


# --- tools -------------------------------------------------------------------------------


def test_tools_status_names_the_checkouts_install(capsys: pytest.CaptureFixture[str]) -> None:
    assert TOOLS  # orchestrate manages at least one tool (ESLint)
    assert main(["tools", "status"]) == ExitCode.PASS
    out = capsys.readouterr().out
    for name in TOOLS:
        assert f"{name}: installed at " in out


def _as_a_wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No source checkout's tools/ beside the code and an empty user cache folder."""
    monkeypatch.setattr(managed_tools, "checkout_dir", lambda name: None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def test_tools_status_without_an_install_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _as_a_wheel(tmp_path, monkeypatch)
    assert main(["tools", "status", *TOOLS]) == 1
    out = capsys.readouterr().out
    assert f"{TOOLS[0]}: not installed; run: " in out and "tools install" in out


def test_tools_install_without_npm_changes_nothing_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _as_a_wheel(tmp_path, monkeypatch)
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert main(["tools", "install", *TOOLS]) == 1
    captured = capsys.readouterr()
    assert "npm" in captured.err and captured.out == ""
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.json"))


def test_tools_install_of_an_unknown_tool_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["tools", "install", "left-pad"]) == ExitCode.USAGE
    assert "unknown tool (choose from " in capsys.readouterr().err


# --- report validate and lsp ----------------------------------------------------------------


def test_report_validate_accepts_a_lint_report_and_refuses_garbage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    assert main(["lint", "--no-tasks", "--format", "json", "-o", "r.json"]) == ExitCode.PASS
    assert main(["report", "validate", "r.json"]) == ExitCode.PASS
    assert capsys.readouterr().out == "valid: r.json\n"
    (tmp_path / "bad.json").write_text('{"schema_version": "nope"}')
    assert main(["report", "validate", "bad.json"]) == ExitCode.USAGE
    out = capsys.readouterr().out
    assert out.startswith("invalid: bad.json\n  - ")
    (tmp_path / "torn.json").write_text("{")
    assert main(["report", "validate", "torn.json"]) == ExitCode.USAGE


def test_lsp_is_registered_with_its_stdio_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lsp", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: orchestrate lsp [-h] [--stdio]")
