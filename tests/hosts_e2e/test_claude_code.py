"""Claude Code (the CLI bundled in the pinned claude-agent-sdk wheel), offline, with
our hooks/claude-code/settings.json installed as the project's .claude/settings.json."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import CLAUDE, new_session
from .scenarios import (
    EditRun,
    assert_bounded_edit_context,
    assert_fault_refused,
    assert_no_spelling_committed,
    assert_one_stop_continuation,
    assert_prompt_not_echoed,
    assert_secret_commit_denied,
    commit_spellings_with_secret,
    commit_with_injected_fault,
    commit_with_staged_secret,
    edit_with_unused_import,
    hook_texts,
    prompt_with_injection,
)

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

HOST = CLAUDE


@pytest.fixture(scope="module")
def edit_run(tmp_path_factory: pytest.TempPathFactory) -> EditRun:
    """One session: Write a.py with an unused import, then end the turn."""
    return edit_with_unused_import(new_session(HOST.name, tmp_path_factory.mktemp("cc-edit")))


def test_after_edit_context_reaches_next_request(edit_run: EditRun) -> None:
    assert edit_run.result.proc.returncode == 0, edit_run.result.describe()
    assert "VALUE" in edit_run.path.read_text()  # the CLI really wrote the file
    texts = hook_texts(edit_run.result, HOST, 1, "PostToolUse:Write:context")
    assert_bounded_edit_context(texts, edit_run)


def test_stop_with_open_task_continues_once(edit_run: EditRun) -> None:
    edit_texts = hook_texts(edit_run.result, HOST, 1, "PostToolUse:Write:context")
    task_id = assert_bounded_edit_context(edit_texts, edit_run)
    assert_one_stop_continuation(HOST, edit_run, task_id, "Stop:block")


def test_commit_with_staged_secret_is_denied(tmp_path: Path) -> None:
    run = commit_with_staged_secret(new_session(HOST.name, tmp_path))
    assert run.result.proc.returncode == 0, run.result.describe()
    assert_secret_commit_denied(HOST, run, "PreToolUse:Bash:deny")


def test_injected_prompt_is_not_echoed(tmp_path: Path) -> None:
    run = prompt_with_injection(new_session(HOST.name, tmp_path))
    assert_prompt_not_echoed(HOST, run)


def test_commit_spellings_never_land_the_secret(tmp_path: Path) -> None:
    # add && commit, commit -a, -C, GIT_DIR/GIT_WORK_TREE, cd sub &&: each refused.
    run = commit_spellings_with_secret(new_session(HOST.name, tmp_path))
    assert_no_spelling_committed(HOST, run, "PreToolUse:Bash:deny")


def test_a_fault_inside_the_hook_still_refuses_the_commit(tmp_path: Path) -> None:
    """The real CLI, our hook's output bounding step raising: the guard's exit-2 refusal
    stops the commit, and its reason reaches the model."""
    assert_fault_refused(commit_with_injected_fault(new_session(HOST.name, tmp_path)))
