"""orchestrate leaves no footprint in the project it checks: `lint --no-tasks` writes
nothing inside it, caches go to the user's cache folder, and what `.orchestrate/` holds
(tasks) ignores itself entirely, so `git status` never shows it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers import new_repo, run_cli

from orchestrator.core import reuse

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


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
    assert reuse.index_path(repo).is_file(), "reuse lives in the user cache"


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


def test_gates_check_and_a_clean_lint_write_nothing_in_the_project(tmp_path: Path) -> None:
    """After `lint` (nothing to record), `gate commit` (allowed and denied) and `gate ci`,
    `git status --porcelain --ignored` shows nothing the runs created; `check` adds only
    its report, in the self-ignoring workspace."""
    repo = new_repo(tmp_path / "r", {"a.py": "x = 1\n", "README.md": "# r\n"})
    before = _status(repo, "--ignored")
    assert run_cli(["lint"], cwd=repo).returncode == 0
    assert run_cli(["gate", "ci"], cwd=repo).returncode == 0
    (repo / "b.py").write_text("y = 2\n")
    subprocess.run(["git", "add", "b.py"], cwd=repo, check=True)
    staged = _status(repo, "--ignored")
    assert run_cli(["gate", "commit"], cwd=repo).returncode == 0
    (repo / "c.py").write_text("import os\n")
    subprocess.run(["git", "add", "c.py"], cwd=repo, check=True)
    staged_bad = _status(repo, "--ignored")
    assert run_cli(["gate", "commit"], cwd=repo).returncode == 1
    assert _status(repo, "--ignored") == staged_bad
    assert staged != before and not (repo / ".orchestrate").exists()
    # `check` writes the report the user asked for, and only that, into the workspace,
    # which ignores itself: plain `git status` is unchanged.
    res = run_cli(["check"], cwd=repo)
    assert res.returncode in (0, 1), res.stderr
    assert _status(repo) == [line for line in staged_bad if not line.startswith("!!")]
    assert _status(repo, "--ignored") == sorted([*staged_bad, "!! .orchestrate/"])
    written = sorted(p.relative_to(repo).as_posix() for p in (repo / ".orchestrate").rglob("*"))
    assert [w for w in written if w.endswith(".json")] == [".orchestrate/runs/hygiene-report.json"]
