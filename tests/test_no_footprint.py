"""orchestrate leaves no footprint in the project it checks: `lint --no-tasks` writes
nothing inside it, caches go to the user's cache folder, and what `.orchestrate/` holds
(tasks) ignores itself entirely, so `git status` never shows it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from helpers import new_repo, run_cli

from orchestrator.core import reuse


def _status(repo: Path, *extra: str) -> list[str]:
    out = subprocess.run(
        ["git", "status", "--porcelain", *extra],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted(out.splitlines())


def test_lint_no_tasks_and_feedback_write_nothing_in_the_project(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", {"a.py": "import os\n", "b.py": "x = 1\n"})
    before = _status(repo, "--ignored")
    assert run_cli(["lint", "--no-tasks"], cwd=repo).returncode == 1
    assert run_cli(["lint", "--feedback", "b.py"], cwd=repo).returncode == 0
    assert run_cli(["lint", "--feedback", "b.py"], cwd=repo).returncode == 0  # reused
    assert _status(repo, "--ignored") == before
    assert not (repo / ".orchestrate").exists()
    assert list(reuse.cache_dir(repo).glob("slot-*.json")), "reuse lives in the user cache"


def test_the_workspace_ignores_itself(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", {"a.py": "import os\n"})
    before = _status(repo)
    assert run_cli(["lint"], cwd=repo).returncode == 1  # records a task
    assert any((repo / ".orchestrate" / "tasks").iterdir())
    assert _status(repo) == before  # nothing new for `git add -A` to pick up
    assert (repo / ".orchestrate" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_an_old_partial_gitignore_is_replaced(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", {"a.py": "import os\n"})
    old = repo / ".orchestrate" / ".gitignore"
    old.parent.mkdir()
    old.write_text("# runtime state of orchestrate\ncache/\nruns/\n")
    assert run_cli(["lint"], cwd=repo).returncode == 1
    assert old.read_text().splitlines()[-1] == "*"
    assert not any(line.startswith("?? .orchestrate") for line in _status(repo))
