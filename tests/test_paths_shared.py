"""One lexical check of an untrusted project-relative path (model/paths.form_problem),
shared by the task re-check and the hygiene edit engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import save_task

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.hygiene import paths as hygiene_paths
from orchestrator.model.paths import MAX_PATH_CHARS, form_problem
from orchestrator.tasks import store as tasks
from orchestrator.tasks import verify

NOT_CANONICAL = [
    "",
    "/etc/passwd",
    "C:/x.py",
    "../outside.py",
    "a/../../b.py",
    "./a.py",
    "a//b.py",
    "a/",
    ".",
    "a\\b.py",
    "a\x00b.py",
    "a/" * (MAX_PATH_CHARS // 2) + "b.py",
]


@pytest.mark.parametrize("rel", NOT_CANONICAL)
def test_task_recheck_and_hygiene_refuse_the_same_non_canonical_paths(rel: str) -> None:
    assert form_problem(rel) is not None
    assert hygiene_paths.path_problem(rel) is not None


def test_hygiene_adds_only_edit_rules_on_top() -> None:
    assert form_problem("nl\nname.py") is None
    assert hygiene_paths.path_problem("nl\nname.py") == "contains a control character"
    assert form_problem("sub/.git/config") is None
    assert hygiene_paths.path_problem("sub/.GIT./config") == "inside .git/"
    assert hygiene_paths.path_problem("src/a.py") is None


def _task_at(root: Path, rel: str) -> str:
    (root / rel).write_text("import os\n")
    report = run_lint(LintRequest(project_root=root, paths=[rel], cwd=root))
    (tid,) = tasks.sync_tasks(report, root).created
    return tid


def _moved(root: Path, tid: str, rel: str) -> str:
    """A forged record: the basis points at `rel` and the id is recomputed to match it."""
    rec = tasks.load_task(root, tid)
    assert rec is not None
    b = rec.basis.model_copy(update={"path": rel})
    new_id = tasks.compute_task_id(b.checker, b.rule, b.path, b.anchor, b.occurrence)
    save_task(root, rec.model_copy(update={"id": new_id, "basis": b}))
    return new_id


@pytest.mark.parametrize("rel", ["../outside.py", "/etc/passwd", "a\\b.py", "./a.py"])
def test_a_consistent_record_with_a_non_canonical_path_is_not_rechecked(
    tmp_path: Path, rel: str
) -> None:
    root = tmp_path / "p"
    root.mkdir()
    forged = _moved(root, _task_at(root, "a.py"), rel)
    r = verify.verify_task(root, forged, timeout=30)
    assert r.reason == "task_record_inconsistent"


@pytest.mark.e2e
@pytest.mark.parametrize("rel", ["-dash.py", "nl\nname.py"])
def test_unusual_but_canonical_names_are_rechecked_by_their_checker(
    tmp_path: Path, rel: str
) -> None:
    tid = _task_at(tmp_path, rel)
    r = verify.verify_task(tmp_path, tid, timeout=60)
    assert r.outcome == verify.STILL_PRESENT, r
