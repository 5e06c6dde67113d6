"""Unit tests of the hygiene use cases (usecases/hygiene): check and undo with the
loaded plugins, in process."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import new_repo

from orchestrator.usecases import hygiene


def test_check_scans_the_project_with_the_loaded_plugins(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"notes.md": "# notes\n"})
    result = hygiene.check(root)
    assert result.report.scan.project_root == str(root.resolve())
    assert result.report.scan.files_scanned >= 1


def test_undo_of_an_unknown_run_is_refused(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r")
    with pytest.raises(FileNotFoundError):
        hygiene.undo(root, "no-such-run")
