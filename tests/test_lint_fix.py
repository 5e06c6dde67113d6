"""`lint --fix`, `--diff`, `--unsafe-fixes`: real Ruff and ESLint fixes through the one
edit engine, re-linted until stable, guarded by the judged content's digest, undone
by the journal."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import eslint_path, git, run_cli

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.usecases.lint_fix import fix

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

SRC = "import sys\nimport os\nimport json\n\nprint(sys.argv)\n"


def _repo(git_repo: Path, select: str = '"F401", "I001"', src: str = SRC) -> Path:
    (git_repo / "ruff.toml").write_text(f"[lint]\nselect = [{select}]\n")
    (git_repo / "m.py").write_text(src)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "add m")
    return git_repo


def test_fix_applies_f401_and_i001_until_stable_on_an_edited_file_and_undo_restores(
    git_repo: Path,
) -> None:
    root = _repo(git_repo, src="import sys\nimport os\nimport json\n\nprint(sys.argv, os.sep)\n")
    edited = (root / "m.py").read_text() + "print(1)\n"  # uncommitted: being edited
    (root / "m.py").write_text(edited)
    res = run_cli(["lint", "--fix", "m.py", "--no-tasks"], cwd=root)
    assert res.returncode == 0, res.stdout + res.stderr
    text = (root / "m.py").read_text()
    assert text == "import os\nimport sys\n\nprint(sys.argv, os.sep)\nprint(1)\n"
    run_id = re.search(r"clean --undo (\S+)`", res.stdout)
    assert run_id, res.stdout
    assert "round(s)" in res.stdout
    undo = run_cli(["clean", "--undo", run_id.group(1)], cwd=root)
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert (root / "m.py").read_text() == edited  # every round undone by one run id


def test_diff_prints_the_change_and_writes_nothing(git_repo: Path) -> None:
    root = _repo(git_repo)
    res = run_cli(["lint", "--diff", "m.py"], cwd=root)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "-import json" in res.stdout and "-import os" in res.stdout
    assert "+++ b/m.py" in res.stdout
    assert (root / "m.py").read_text() == SRC
    assert not (root / ".orchestrate").exists()
    clean = run_cli(["lint", "--diff", "ruff.toml"], cwd=root)
    assert clean.returncode == 0 and clean.stdout == ""


def test_confirm_tier_fixes_need_unsafe_fixes(git_repo: Path) -> None:
    src = "def f():\n    x = 1\n"
    root = _repo(git_repo, '"F841"', src)
    res = run_cli(["lint", "--fix", "m.py", "--no-tasks"], cwd=root)
    assert res.returncode == 1
    assert (root / "m.py").read_text() == src
    assert "--unsafe-fixes" in res.stdout
    res = run_cli(["lint", "--fix", "--unsafe-fixes", "m.py", "--no-tasks"], cwd=root)
    assert "x = 1" not in (root / "m.py").read_text(), res.stdout + res.stderr


def test_a_file_that_changes_after_it_was_read_is_skipped_with_the_reason(
    git_repo: Path,
) -> None:
    root = _repo(git_repo)
    calls = []

    def fake_editor_run(req: LintRequest):  # type: ignore[no-untyped-def]
        report = run_lint(req)
        calls.append(req)
        if len(calls) == 2:  # the round's check has read the file; an editor saves now
            (root / "m.py").write_text(SRC + "# saved meanwhile\n")
        return report

    out = fix(
        LintRequest(project_root=root, paths=("m.py",), cwd=root), write=True, run=fake_editor_run
    )
    assert (root / "m.py").read_text() == SRC + "# saved meanwhile\n"
    assert not out.applied
    assert any("content digest differs" in n and "m.py" in n for n in out.notes())


def test_the_round_bound_is_said(git_repo: Path) -> None:
    root = _repo(git_repo)  # F401 twice and I001 overlap: two rounds are needed
    req = LintRequest(project_root=root, paths=("m.py",), cwd=root)
    out = fix(req, write=True, max_rounds=1)
    assert out.bound_hit and out.rounds == 1
    assert any("stopped after" in n for n in out.notes())


def test_eslint_fixable_rule_is_fixed_through_the_engine(git_repo: Path) -> None:
    eslint_path()
    (git_repo / "eslint.config.js").write_text(
        'export default [{ rules: { "no-var": "error", "prefer-const": "error" } }];\n'
    )
    (git_repo / "a.js").write_text("var x = 1;\nconsole.log(x);\n")
    res = run_cli(["lint", "--fix", "a.js", "--no-tasks"], cwd=git_repo)
    assert res.returncode == 0, res.stdout + res.stderr
    assert (git_repo / "a.js").read_text() == "const x = 1;\nconsole.log(x);\n"


def test_unsafe_fixes_alone_is_a_usage_error(git_repo: Path) -> None:
    res = run_cli(["lint", "--unsafe-fixes"], cwd=git_repo)
    assert res.returncode == 2 and "--fix" in res.stderr
