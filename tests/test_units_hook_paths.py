"""File names a hook hands over stay paths (cli/hook_paths.py): a committed file named
like an option is never read as one by `lint --from-hook`, in process with real Ruff."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.cli.hook_paths import shielded
from orchestrator.cli.main import main
from orchestrator.vocab import ExitCode


def test_only_existing_option_like_names_of_a_from_hook_lint_are_rewritten(
    tmp_path: Path,
) -> None:
    (tmp_path / "--exit-zero").write_text("import os\n")
    argv = ["lint", "--from-hook", "--exit-zero", "--format", "json"]
    assert shielded(argv, tmp_path) == ["lint", "--from-hook", "./--exit-zero", "--format", "json"]
    assert shielded(["lint", "--exit-zero"], tmp_path) == ["lint", "--exit-zero"]  # no hook
    after_end = ["lint", "--from-hook", "--", "--exit-zero"]
    assert shielded(after_end, tmp_path) == after_end  # after `--` it is a path already


def test_a_file_named_like_an_option_is_linted_not_read_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "--exit-zero.py").write_text("import os\n")
    code = main(["lint", "--no-tasks", "--from-hook", "--format", "json", "--exit-zero.py"])
    report = json.loads(capsys.readouterr().out)
    assert code == ExitCode.FINDINGS
    assert [f["path"] for f in report["findings"]] == ["--exit-zero.py"]
