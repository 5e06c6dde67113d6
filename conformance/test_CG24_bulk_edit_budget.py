"""CG-24: a confirmed bulk edit over the fast-feedback budget gets an explicit
fast_scope_budget_exceeded reason and ONE bounded batch check of every path: never a
truncated per-file list."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.hosts import budgets
from orchestrator.hosts.events import Kind, RouterEvent
from orchestrator.hosts.router import Services, _lint, route
from orchestrator.model.report import Report

pytestmark = pytest.mark.scenario("CG-24")


def _spy() -> tuple[Services, list[tuple[str, ...]]]:
    calls: list[tuple[str, ...]] = []

    def lint(root: Path, paths, timeout: float) -> Report:  # the real engine, counted
        calls.append(tuple(paths))
        return _lint(root, paths, timeout)

    return Services(lint=lint), calls


def test_file_count_over_budget_is_one_batch(tmp_path: Path) -> None:
    names = [f"m{i}.py" for i in range(budgets.FAST_MAX_FILES + 4)]
    for n in names:
        (tmp_path / n).write_text("import os\n")
    svc, calls = _spy()
    res = route(RouterEvent(Kind.FILE_CHANGED, tmp_path.resolve(), paths=tuple(names)), svc)
    assert res.action == "batch_check" and budgets.FAST_SCOPE_BUDGET_EXCEEDED in res.reasons
    assert calls == [tuple(sorted(names))]  # one batch, every path, nothing dropped
    assert budgets.FAST_SCOPE_BUDGET_EXCEEDED in res.context
    assert "m0.py" not in res.context  # no per-file list at all
    assert f"files {len(names)}" in res.context and "findings 12" in res.context


def test_path_bytes_over_budget_is_one_batch(tmp_path: Path) -> None:
    names = [("d" * 200) + f"{i}.py" for i in range(3)]  # 3 files, > 512 bytes of paths
    for n in names:
        (tmp_path / n).write_text("x = 1\n")
    svc, calls = _spy()
    res = route(RouterEvent(Kind.FILE_CHANGED, tmp_path.resolve(), paths=tuple(names)), svc)
    assert res.action == "batch_check" and len(calls) == 1 and len(calls[0]) == 3


def test_within_budget_is_per_file(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import os\n")
    svc, calls = _spy()
    res = route(RouterEvent(Kind.FILE_CHANGED, tmp_path.resolve(), paths=("a.py",)), svc)
    assert res.action == "fast_check" and calls == [("a.py",)] and "files 1: a.py" in res.context
