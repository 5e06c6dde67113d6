"""Path safety: nothing unsafe is read, nothing is silently dropped."""

from __future__ import annotations

import os
from pathlib import Path

from orchestrator.core.selection import select
from orchestrator.model.checker import MAX_FILE_BYTES
from orchestrator.vocab import ScopeStatus


def _status(refused, path):  # type: ignore[no-untyped-def]
    return next(s for s in refused if s.path == path)


def test_symlink_escaping_root_is_unsafe(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("x")
    (root / "link.txt").symlink_to(outside)
    targets, refused = select(root, ["."], cwd=root)
    assert not targets
    s = _status(refused, "link.txt")
    assert s.status == ScopeStatus.UNSAFE
    assert "symlink" in (s.reason or "")


def test_path_outside_root_is_unsafe(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "other.py").write_text("x = 1\n")
    targets, refused = select(root, [str(tmp_path / "other.py")], cwd=root)
    assert not targets
    assert refused[0].status == ScopeStatus.UNSAFE
    assert "outside" in (refused[0].reason or "")


def test_fifo_is_not_a_regular_file(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    _, refused = select(tmp_path, ["pipe.py"], cwd=tmp_path)
    assert refused[0].status == ScopeStatus.UNSAFE
    assert refused[0].reason == "not a regular file"


def test_vanished_binary_and_huge_files(tmp_path: Path) -> None:
    (tmp_path / "bin.dat").write_bytes(b"\x00\x01\x02")
    with open(tmp_path / "huge.py", "wb") as fh:
        fh.truncate(MAX_FILE_BYTES + 1)
    targets, refused = select(tmp_path, ["gone.py", "bin.dat", "huge.py"], cwd=tmp_path)
    assert not targets
    assert _status(refused, "gone.py").status == ScopeStatus.NOT_RUN
    assert "binary" in (_status(refused, "bin.dat").reason or "")
    assert "too large" in (_status(refused, "huge.py").reason or "")


def test_directory_walk_respects_gitignore_without_git(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "gen.py").write_text("x=1\n")
    (tmp_path / "a.log").write_text("log\n")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "m.js").write_text("x\n")
    (tmp_path / "keep.py").write_text("x = 1\n")
    targets, refused = select(tmp_path, ["."], cwd=tmp_path)
    assert [t.path for t in targets] == [".gitignore", "keep.py"]
    assert not refused


def test_directory_walk_uses_git_when_present(git_repo: Path) -> None:
    (git_repo / ".gitignore").write_text("ignored.py\n")
    (git_repo / "ignored.py").write_text("x = 1\n")
    (git_repo / "new.py").write_text("x = 1\n")
    targets, _ = select(git_repo, ["."], cwd=git_repo)
    paths = [t.path for t in targets]
    assert "new.py" in paths and "ignored.py" not in paths


def test_empty_and_legacy_encoded_files_are_selected(tmp_path: Path) -> None:
    (tmp_path / "empty.py").write_text("")
    (tmp_path / "latin.py").write_bytes("s = 'café'\n".encode("latin-1"))
    targets, refused = select(tmp_path, ["."], cwd=tmp_path)
    assert {t.path for t in targets} == {"empty.py", "latin.py"}
    assert not refused
