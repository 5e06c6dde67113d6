"""Unit tests of the legacy-v1 soft prompt gate's presenter (cli/legacy_gate), in process."""

from __future__ import annotations

from pathlib import Path

from helpers import git, new_repo

from orchestrator.cli.legacy_gate import soft_report


def test_a_prompt_without_commit_intent_gets_no_context(tmp_path: Path) -> None:
    assert soft_report({"prompt": "explain this function", "cwd": str(tmp_path)}) is None
    assert soft_report({"prompt": 3}) is None


def test_a_commit_prompt_outside_a_repository_says_nothing_was_scanned(tmp_path: Path) -> None:
    text = soft_report({"prompt": "please commit this", "cwd": str(tmp_path)})
    assert text is not None and "no target repository here" in text


def test_a_commit_prompt_gets_the_legacy_gates_advice(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r")
    (root / "a.json").write_text('{"a": 1}\n')
    git(root, "add", "a.json")
    text = soft_report({"prompt": "commit it", "cwd": str(root)})
    assert text is not None
    assert text.startswith("orchestrate (legacy-v1) check of the staged files, advice only")
