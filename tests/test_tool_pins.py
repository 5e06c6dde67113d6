"""The tool version that ran, recorded against the version the project declares: Ruff
against its `ruff-pre-commit` hook's `rev` (real Ruff), and the pin readers themselves.
(Ruff's `required-version` is covered in test_ruff_fidelity, ESLint's package.json
range in test_eslint_checker, Gemfile.lock in test_rubocop_checker.)"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import fail_or_skip
from orchestrate_plugins._pins import Pin, differs, gemfile_lock_pin, pin_sentence, precommit_rev

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.vocab import ScopeStatus

RUFF = Path(sys.executable).parent / "ruff"


def _hook(rev: str) -> str:
    return (
        "repos:\n"
        "  - repo: https://github.com/astral-sh/ruff-pre-commit\n"
        f"    rev: {rev}\n"
        "    hooks:\n      - id: ruff\n"
    )


def _ruff_scope(root: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    if not RUFF.is_file():
        fail_or_skip(f"{RUFF} missing: install the project (pip install -e '.[test]') for Ruff")
    monkeypatch.setenv("ORCHESTRATE_REUSE", "0")
    report = run_lint(LintRequest(project_root=root, paths=["a.py"], cwd=root))
    (scope,) = [s for s in report.scopes if s.checker == "ruff"]
    return scope


def test_ruff_precommit_rev_mismatch_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".pre-commit-config.yaml").write_text(_hook("v0.0.1"))
    (tmp_path / "a.py").write_text("x = 1\n")
    scope = _ruff_scope(tmp_path, monkeypatch)
    assert scope.status == ScopeStatus.CHECKED
    reason = scope.reason or ""
    assert ".pre-commit-config.yaml pins ruff 0.0.1: ruff " in reason and "they differ" in reason


def test_ruff_precommit_rev_match_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import metadata

    version = metadata.version("ruff")
    (tmp_path / ".pre-commit-config.yaml").write_text(_hook(f"v{version}"))
    (tmp_path / "ruff.toml").write_text('required-version = ">=0.1"\n')
    (tmp_path / "a.py").write_text("x = 1\n")
    reason = _ruff_scope(tmp_path, monkeypatch).reason or ""
    assert f"pins ruff {version}: ruff {version} ran, it matches" in reason
    assert "meets required-version '>=0.1' (ruff.toml)" in reason  # both are said


def test_gemfile_lock_pin_nearest_and_only_the_gem(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    lock = "GEM\n  specs:\n    rubocop (1.50.2)\n      rubocop-ast (>= 1.28)\n    rubocop-ast (1.29.0)\n"
    (tmp_path / "Gemfile.lock").write_text(lock)
    assert gemfile_lock_pin(tmp_path, "sub/a.rb", "rubocop") == Pin("1.50.2", "Gemfile.lock")
    assert gemfile_lock_pin(tmp_path, "a.rb", "rubocop-ast") == Pin("1.29.0", "Gemfile.lock")
    (tmp_path / "sub" / "Gemfile.lock").write_text("GEM\n  specs:\n    rake (13.0.6)\n")
    assert gemfile_lock_pin(tmp_path, "sub/a.rb", "rubocop") is None  # nearest bundle wins


@pytest.mark.parametrize(
    "text",
    [": [broken", "repos: 3\n", "- a\n", "repos:\n  - repo: https://x/ruff-pre-commit\n"],
)
def test_unreadable_precommit_config_is_no_pin(tmp_path: Path, text: str) -> None:
    (tmp_path / ".pre-commit-config.yaml").write_text(text)
    assert precommit_rev(tmp_path, "ruff-pre-commit") is None


def test_differs_compares_the_pinned_parts() -> None:
    assert differs("1.50.2", "rubocop 1.39.0") is True
    assert differs("1.39", "1.39.0") is False
    assert differs("v0.8.4", "ruff 0.8.4") is False
    assert differs("main", "ruff 0.8.4") is None
    assert pin_sentence("ruff", None, Pin("main", "x")).endswith("ruff ? ran, not compared")
