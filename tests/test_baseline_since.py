"""`orchestrate baseline` (hidden by lint, stable across line moves, governed by the
strict gates with the base's copy only) and `lint --since REV`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import git, new_repo, run_cli, stage

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

BASELINE = ".orchestrate-baseline.json"
RUFF = '[lint]\nselect = ["F401"]\n'


def _lint(repo: Path, *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    res = run_cli(["lint", *args, "--format", "json", "--no-tasks"], cwd=repo)
    assert res.returncode in (0, 1, 3), res.stderr
    return res.returncode, json.loads(res.stdout)


def _rules(report: dict) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return sorted((f["path"], f["message"].split("`")[1]) for f in report["findings"])


def test_baseline_hides_recorded_findings_across_line_moves_and_shows_new_ones(
    tmp_path: Path,
) -> None:
    repo = new_repo(tmp_path / "r", {"ruff.toml": RUFF, "m.py": "import os\n"})
    res = run_cli(["baseline"], cwd=repo)
    assert res.returncode == 0 and "1 finding(s)" in res.stdout, res.stdout + res.stderr
    first = (repo / BASELINE).read_bytes()
    code, report = _lint(repo)
    assert code == 0 and report["findings"] == []
    assert any("1 finding(s)" in n and "hidden" in n for n in report["notes"])

    # The finding moves down two lines and a new one appears: only the new one shows.
    (repo / "m.py").write_text('"""doc."""\n\nimport os\nimport json\n')
    code, report = _lint(repo)
    assert code == 1 and _rules(report) == [("m.py", "json")]
    assert any("1 finding(s)" in n and "hidden" in n for n in report["notes"])
    code, report = _lint(repo, "--no-baseline")
    assert _rules(report) == [("m.py", "json"), ("m.py", "os")]

    # Stable: recording again after a line move changes nothing but the new finding.
    (repo / "m.py").write_text('"""doc."""\n\nimport os\n')
    assert run_cli(["baseline"], cwd=repo).returncode == 0
    assert (repo / BASELINE).read_bytes() == first
    data = json.loads(first)
    assert data["version"] == 1 and "line" not in data["findings"][0]


def test_a_malformed_baseline_hides_nothing_and_says_so(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", {"ruff.toml": RUFF, "m.py": "import os\n"})
    (repo / BASELINE).write_text("{not json")
    code, report = _lint(repo)
    assert code == 1 and any("ignored" in n for n in report["notes"])


def _gate(repo: Path) -> tuple[int, dict]:  # type: ignore[type-arg]
    res = run_cli(["gate", "commit", "--format", "json"], cwd=repo)
    return res.returncode, json.loads(res.stdout)


def test_gates_name_a_baseline_change_and_apply_only_the_base_copy(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", {"ruff.toml": RUFF})
    git(repo, "commit", "-qm", "ruff config")
    stage(repo, {"m.py": "import os\n"})
    assert run_cli(["baseline"], cwd=repo).returncode == 0
    git(repo, "add", BASELINE)
    # The baseline committed in the same change does not hide that change's finding.
    code, report = _gate(repo)
    assert code == 1, report["gate"]
    assert [f["rule"] for f in report["findings"]] == ["F401"]
    named = " ".join(report["notes"] + report["gate"]["reasons"])
    assert f"findings baseline {BASELINE} added since the base" in named
    assert BASELINE in " ".join(report["gate"]["reasons"])

    # Once the base holds it, the recorded finding is hidden; a new one still denies.
    git(repo, "commit", "-qm", "baseline", "--no-verify")
    stage(repo, {"m.py": "import os\n\nprint(1)\n"})
    code, report = _gate(repo)
    assert code == 0, report
    assert any("the base's copy" in n and "hidden" in n for n in report["notes"])
    stage(repo, {"m.py": "import os\nimport json\n"})
    code, report = _gate(repo)
    assert code == 1 and [f["message"].split("`")[1] for f in report["findings"]] == ["json"]


def _branch_repo(tmp_path: Path) -> Path:
    repo = new_repo(tmp_path / "src", {"ruff.toml": RUFF, "old.py": "import os\n"})
    git(repo, "commit", "-qm", "old")
    git(repo, "checkout", "-qb", "feature")
    stage(repo, {"changed.py": "import os\n"})
    git(repo, "commit", "-qm", "feature")
    git(repo, "checkout", "-q", "main")
    stage(repo, {"main_only.py": "import os\n"})
    git(repo, "commit", "-qm", "main moves on")
    git(repo, "checkout", "-q", "feature")
    return repo


def test_since_lints_changed_and_untracked_files_against_the_merge_base(
    tmp_path: Path,
) -> None:
    repo = _branch_repo(tmp_path)
    stage(repo, {".gitignore": "ignored.py\n"})
    git(repo, "commit", "-qm", "ignore")
    (repo / "new.py").write_text("import sys\n")  # untracked, not ignored
    (repo / "ignored.py").write_text("import sys\n")
    code, report = _lint(repo, "--since", "main")
    assert code == 1
    # main_only.py differs from the tip of main only: against the merge-base it is not
    # a change of this branch. old.py is unchanged.
    assert {f["path"] for f in report["findings"]} == {"changed.py", "new.py"}
    code, report = _lint(repo, "--since", "feature")
    assert {f["path"] for f in report["findings"]} == {"new.py"}
    (repo / "new.py").unlink()
    code, report = _lint(repo, "--since", "feature")
    assert code == 0 and report["findings"] == [] and report["scopes"] == []


def test_since_on_a_shallow_clone_says_so_and_exits_incomplete(tmp_path: Path) -> None:
    src = _branch_repo(tmp_path)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", "--no-single-branch", f"file://{src}", str(clone))
    git(clone, "checkout", "-q", "feature")
    res = run_cli(["lint", "--since", "origin/main"], cwd=clone)
    assert res.returncode == 3, res.stdout + res.stderr
    assert "shallow clone" in res.stderr and "fetch-depth: 0" in res.stderr
    res = run_cli(["lint", "--since", "no-such-rev"], cwd=src)
    assert res.returncode == 2 and "names no commit" in res.stderr


def test_a_task_recorded_before_the_baseline_is_still_present_at_verify(tmp_path: Path) -> None:
    """The baseline hides a finding from lint, never from a task's re-check: verify
    judges the code, so a baselined finding is still there."""
    from orchestrator.core.engine import LintRequest, run_lint
    from orchestrator.tasks import store, verify

    repo = new_repo(tmp_path / "r", {"ruff.toml": RUFF, "m.py": "import os\n"})
    report = run_lint(LintRequest(project_root=repo, paths=["m.py"], cwd=repo))
    (tid,) = store.sync_tasks(report, repo).created
    assert run_cli(["baseline"], cwd=repo).returncode == 0
    out = verify.verify_task(repo, tid, timeout=60)
    assert out.outcome == verify.STILL_PRESENT, out
