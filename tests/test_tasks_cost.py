"""What task recording costs (issue 14, item 1): recording many new tasks makes the disk
durable once, not twice per record; a re-sync that changes nothing writes nothing; a
change in any recorded field is still seen. Counts calls, never time."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import task_backlog

from orchestrator.model.report import Finding, Report, ScanInfo, Scope, ToolIdentity
from orchestrator.tasks import store
from orchestrator.vocab import ScopeStatus, Severity


def _count_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    return calls


def test_many_new_tasks_are_made_durable_in_a_bounded_number_of_syncs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _count_fsyncs(monkeypatch)
    created = task_backlog(tmp_path, 200)
    assert len(created) == 200
    assert len(calls) <= 10  # was two per record (400)
    tdir = store.tasks_dir(tmp_path, create=False)
    names = sorted(p.name for p in tdir.iterdir())
    assert names == sorted(f"{tid}.json" for tid in created)  # no temp file left
    for tid in created:
        rec = store.load_task(tmp_path, tid)
        assert rec is not None and rec.id == tid


def test_a_resync_that_changes_nothing_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = task_backlog(tmp_path, 50)
    tdir = store.tasks_dir(tmp_path, create=False)
    before = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in tdir.iterdir()}
    calls = _count_fsyncs(monkeypatch)
    again = task_backlog(tmp_path, 50)
    assert again == []  # nothing created
    assert len(calls) == 0
    after = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in tdir.iterdir()}
    assert after == before
    assert len(created) == 50


def _report(root: Path, message: str, version: str, severity: Severity) -> Report:
    (root / "a.py").write_text("import os\n")
    finding = Finding(
        checker="ruff",
        rule="F401",
        severity=severity,
        path="a.py",
        line=1,
        message=message,
        blocking=True,
    )
    scope = Scope(
        path="a.py",
        checker="ruff",
        status=ScopeStatus.CHECKED,
        tool=ToolIdentity(path="/bin/ruff", version=version),
        config_digest="d1",
    )
    return Report(scan=ScanInfo(project_root=str(root)), findings=[finding], scopes=[scope])


@pytest.mark.parametrize(
    ("message", "version", "severity"),
    [
        ("changed message", "1", Severity.ERROR),
        ("m", "2", Severity.ERROR),  # the tool's identity
        ("m", "1", Severity.WARNING),  # the basis
    ],
)
def test_any_changed_field_is_an_update_and_is_written(
    tmp_path: Path, message: str, version: str, severity: Severity
) -> None:
    (tid,) = store.sync_tasks(_report(tmp_path, "m", "1", Severity.ERROR), tmp_path).created
    assert store.sync_tasks(_report(tmp_path, "m", "1", Severity.ERROR), tmp_path).unchanged == (
        tid,
    )
    result = store.sync_tasks(_report(tmp_path, message, version, severity), tmp_path)
    assert result.updated == (tid,)
    data = json.loads((store.tasks_dir(tmp_path) / f"{tid}.json").read_text())
    assert data["message"]["text"] == message
    assert data["identity"]["tool"]["version"] == version
    assert data["basis"]["severity"] == str(severity)


def test_source_lines_are_read_only_inside_the_project(tmp_path: Path) -> None:
    """Folders are resolved once for many files; a link out of the project, as a file
    or as a folder, is still not read."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("token = 1\n")
    (root / "pkg" / "a.py").write_text("import os\n")
    (root / "pkg" / "link.py").symlink_to(outside / "secret.py")
    (root / "out").symlink_to(outside)
    (root / "pkg" / "inner.py").symlink_to(root / "pkg" / "a.py")
    paths = store._RealPaths(root)
    assert store.read_lines(root, "pkg/a.py", paths=paths) == ["import os"]
    assert store.read_lines(root, "pkg/inner.py", paths=paths) == ["import os"]
    assert store.read_lines(root, "pkg/link.py", paths=paths) is None
    assert store.read_lines(root, "out/secret.py", paths=paths) is None
    assert store.read_lines(root, "../outside/secret.py") is None
