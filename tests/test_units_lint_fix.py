"""`lint --fix`, `--diff` and `--unsafe-fixes` called in process (cli/lint_options.py and
usecases/lint_fix.py through cli.main.main) with real Ruff fixes in a real git
repository. The same as processes is in tests/test_lint_fix.py (end-to-end)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import git, new_repo

from orchestrator.cli.main import main
from orchestrator.vocab import ExitCode

SRC = "import sys\nimport os\nimport json\n\nprint(sys.argv)\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = new_repo(tmp_path / "repo")
    (path / "ruff.toml").write_text('[lint]\nselect = ["F401", "I001", "F841"]\n')
    (path / "m.py").write_text(SRC)
    git(path, "add", "-A")
    git(path, "commit", "-qm", "add m")
    monkeypatch.chdir(path)
    return path


def test_diff_prints_the_change_and_writes_nothing(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint", "--diff", "m.py"]) == ExitCode.FINDINGS
    out = capsys.readouterr().out
    assert "-import json" in out and "-import os" in out and "+++ b/m.py" in out
    assert (repo / "m.py").read_text() == SRC
    assert main(["lint", "--diff", "ruff.toml"]) == ExitCode.PASS
    assert capsys.readouterr().out == ""


def test_fix_applies_until_stable_and_undo_restores(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint", "--fix", "m.py", "--no-tasks"]) == ExitCode.PASS
    out = capsys.readouterr().out
    assert (repo / "m.py").read_text() == "import sys\n\nprint(sys.argv)\n"
    assert "round(s)" in out
    run_id = re.search(r"clean --undo (\S+)`", out)
    assert run_id is not None, out
    assert main(["clean", "--undo", run_id.group(1)]) == ExitCode.PASS
    assert (repo / "m.py").read_text() == SRC


def test_confirm_tier_fixes_need_unsafe_fixes(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = "def f():\n    x = 1\n"
    (repo / "m.py").write_text(src)
    assert main(["lint", "--fix", "m.py", "--no-tasks"]) == ExitCode.FINDINGS
    assert (repo / "m.py").read_text() == src
    assert "--unsafe-fixes" in capsys.readouterr().out
    main(["lint", "--fix", "--unsafe-fixes", "m.py", "--no-tasks"])
    assert "x = 1" not in (repo / "m.py").read_text()


def test_unsafe_fixes_alone_is_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint", "--unsafe-fixes", "m.py"]) == ExitCode.USAGE
    assert "--fix" in capsys.readouterr().err
    assert (repo / "m.py").read_text() == SRC
