"""CG-18: when the host cannot confirm the write or give a valid path, the changed scope
is re-determined from git and marked incomplete; never "unchanged", never "checked"."""

from __future__ import annotations

from pathlib import Path

import pytest
from host_contracts import check_codex, encode, payload

from orchestrator.hosts import codex
from orchestrator.hosts.events import Kind, RouterEvent
from orchestrator.hosts.router import route

pytestmark = pytest.mark.scenario("CG-18")


def _context(repo: Path, **changes: object) -> str:
    code, out = codex.run(
        encode(payload("codex", "PostToolUse.Bash", cwd=str(repo), **changes)), {}
    )
    return check_codex("PostToolUse", code, out)["hookSpecificOutput"]["additionalContext"]


def test_shell_write_is_rescoped_from_git_and_incomplete(git_repo: Path) -> None:
    (git_repo / "a.py").write_text("import os\n")
    (git_repo / "README.md").write_text("changed\n")
    text = _context(git_repo)
    assert "files 2: README.md a.py" in text  # the real changed scope, from git status
    assert "coverage incomplete (write_path_undeterminable)" in text
    assert "rules F401" in text


def test_nothing_changed_is_not_reported_as_checked(git_repo: Path) -> None:
    res = route(
        RouterEvent(Kind.WRITE_UNKNOWN, git_repo.resolve(), scope_reason="write_outcome_unknown")
    )
    assert res.source_check == "not_run" and "coverage incomplete" in res.context
    assert "checked" not in res.context.replace("check not run", "")


def test_no_repository_means_scope_undetermined(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import os\n")
    text = _context(tmp_path)
    assert "cannot be re-determined" in text and "source check not run" in text
