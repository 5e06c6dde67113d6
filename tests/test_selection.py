"""Path safety: nothing unsafe is read, nothing is silently dropped."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest
from helpers import git, new_repo, run_cli

from orchestrator.core import selection
from orchestrator.core.selection import select
from orchestrator.decisions.coverage import nothing_to_check
from orchestrator.model.checker import MAX_FILE_BYTES
from orchestrator.vocab import LINK_TO_FOLDER_REASON, ScopeStatus


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


# --- entries a walk must not drop: FIFOs, sockets, unreadable folders, odd names ---------


def _project(tmp_path: Path, with_git: bool) -> Path:
    """A project folder, a git work tree or not (the two walks differ)."""
    root = tmp_path / "p"
    root.mkdir()
    if with_git:
        git(root, "init", "-q")
    return root


def _socket(path: Path) -> None:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()  # the socket file stays on disk


def _scope(refused, path):  # type: ignore[no-untyped-def]
    return {s.path: s for s in refused}.get(path)


@pytest.mark.parametrize("with_git", [True, False], ids=["git", "no-git"])
def test_walk_reports_fifos_and_sockets(tmp_path: Path, with_git: bool) -> None:
    root = _project(tmp_path, with_git)
    (root / "sub").mkdir()
    os.mkfifo(root / "sub" / "pipe.py")
    _socket(root / "server.sock")
    (root / "ok.py").write_text("x = 1\n")
    targets, refused = select(root, ["."], cwd=root)
    assert [t.path for t in targets] == ["ok.py"]
    for path in ("sub/pipe.py", "server.sock"):
        scope = _scope(refused, path)
        assert scope is not None, f"{path} was dropped"
        assert scope.status == ScopeStatus.UNSAFE
        assert "not a regular file" in (scope.reason or "")


def test_walk_leaves_what_git_ignores(git_repo: Path) -> None:
    (git_repo / ".gitignore").write_text("*.sock\nbuild/\n")
    _socket(git_repo / "dev.sock")
    (git_repo / "build").mkdir()
    os.mkfifo(git_repo / "build" / "fifo")
    _, refused = select(git_repo, ["."], cwd=git_repo)
    assert not [s for s in refused if s.path in ("dev.sock", "build/fifo")]


class _Denied:
    """FAULT INJECTION: the folder `locked` behaves as it does for a user without read
    or search permission (tests run as root, and root reads everything). os.scandir of
    it and os.stat / os.lstat / open of anything below it raise PermissionError."""

    def __init__(self, locked: Path) -> None:
        self.locked = str(locked)
        self.real = {"scandir": os.scandir, "stat": os.stat, "lstat": os.lstat}

    def _hit(self, path: object, inside: bool) -> bool:
        if isinstance(path, int):
            return False
        p = os.fsdecode(os.fspath(path))  # type: ignore[arg-type]
        return p.startswith(self.locked + os.sep) or (not inside and p == self.locked)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def deny(name: str, inside: bool):  # type: ignore[no-untyped-def]
            real = self.real[name]

            def fake(path=".", *args, **kw):  # type: ignore[no-untyped-def]
                if self._hit(path, inside):
                    raise PermissionError(13, "Permission denied", os.fspath(path))
                return real(path, *args, **kw)

            return fake

        monkeypatch.setattr(os, "scandir", deny("scandir", inside=False))
        monkeypatch.setattr(os, "stat", deny("stat", inside=True))
        monkeypatch.setattr(os, "lstat", deny("lstat", inside=True))


@pytest.mark.parametrize("with_git", [True, False], ids=["git", "no-git"])
def test_unreadable_folder_is_a_scope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_git: bool
) -> None:
    root = _project(tmp_path, with_git)
    (root / "locked").mkdir()
    (root / "locked" / "a.py").write_text("import os\n")
    (root / "ok.py").write_text("x = 1\n")
    _Denied(root / "locked").install(monkeypatch)
    targets, refused = select(root, ["."], cwd=root)
    assert [t.path for t in targets] == ["ok.py"]
    folder = _scope(refused, "locked")
    assert folder is not None, "the unreadable folder was dropped"
    assert folder.status == ScopeStatus.NOT_RUN
    assert "folder cannot be read" in (folder.reason or "")


def test_file_in_unreadable_folder_is_a_scope_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "a.py").write_text("import os\n")
    _Denied(tmp_path / "locked").install(monkeypatch)
    targets, refused = select(tmp_path, ["locked/a.py"], cwd=tmp_path)
    assert not targets
    (scope,) = refused
    assert scope.path == "locked/a.py" and scope.status == ScopeStatus.NOT_RUN
    assert "Permission denied" in (scope.reason or "")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder: the fault test covers it")
def test_really_unreadable_folder(tmp_path: Path) -> None:
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "a.py").write_text("import os\n")
    (tmp_path / "locked").chmod(0)
    try:
        _, refused = select(tmp_path, [".", "locked/a.py"], cwd=tmp_path)
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert _scope(refused, "locked").status == ScopeStatus.NOT_RUN
    assert _scope(refused, "locked/a.py").status == ScopeStatus.NOT_RUN


BAD_NAME = os.fsdecode(b"bad\xff.py")


@pytest.mark.parametrize("with_git", [True, False], ids=["git", "no-git"])
def test_name_that_is_not_utf8_is_refused_and_shown_escaped(tmp_path: Path, with_git: bool) -> None:
    root = _project(tmp_path, with_git)
    (root / BAD_NAME).write_text("import os\n")
    (root / "ok.py").write_text("x = 1\n")
    for paths in (["."], [BAD_NAME]):
        targets, refused = select(root, paths, cwd=root)
        assert BAD_NAME not in [t.path for t in targets]
        scope = _scope(refused, "bad\\xff.py")
        assert scope is not None, f"{paths}: the file was dropped"
        assert scope.status == ScopeStatus.UNSAFE
        assert "not valid UTF-8" in (scope.reason or "")
        json.loads(scope.model_dump_json())  # a report can carry it


def test_file_vanishing_while_inspected_is_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # FAULT INJECTION: the file is deleted between its lstat and its open.
    (tmp_path / "gone.py").write_text("x = 1\n")

    def vanished(path, *args, **kw):  # type: ignore[no-untyped-def]
        raise FileNotFoundError(2, "No such file or directory", str(path))

    monkeypatch.setattr(selection, "open", vanished, raising=False)
    targets, refused = select(tmp_path, ["gone.py"], cwd=tmp_path)
    assert not targets
    assert refused[0].status == ScopeStatus.NOT_RUN
    assert refused[0].reason == "file vanished or does not exist"


@pytest.mark.e2e
def test_lint_json_with_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    # End to end: the report is valid JSON (it was exit 4), the file is not `checked`
    # and its finding is not silently lost behind a clean verdict.
    (tmp_path / BAD_NAME).write_text("import os\n")
    (tmp_path / "ok.py").write_text("x = 1\n")
    for args in (["."], [BAD_NAME]):
        out = run_cli(["lint", "--no-tasks", "--format", "json", *args], cwd=tmp_path)
        assert out.returncode != 4, out.stderr
        report = json.loads(out.stdout)
        rows = [s for s in report["scopes"] if s["path"] == "bad\\xff.py"]
        assert rows and all(s["status"] == "unsafe" for s in rows), report["scopes"]


def test_entries_are_never_walked(tmp_path: Path) -> None:
    # walk=False (a hook's paths, as git lists them): a folder is one entry, refused as
    # not a regular file, like the whole-project walk judges a git-listed name.
    root = tmp_path / "root"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "m.py").write_text("x = 1\n")
    (root / "a.py").write_text("y = 1\n")
    targets, refused = select(root, ["pkg", "a.py"], cwd=root, walk=False)
    assert [t.path for t in targets] == ["a.py"]
    s = _status(refused, "pkg")
    assert (s.status, s.reason) == (ScopeStatus.UNSAFE, "not a regular file")
    walked, _ = select(root, ["pkg", "a.py"], cwd=root)
    assert [t.path for t in walked] == ["a.py", "pkg/m.py"]


def test_tracked_files_in_excluded_folders_are_named_not_run(tmp_path: Path) -> None:
    """A file git tracks under `node_modules/` (nvm and vite commit some) is a `not_run`
    scope naming the folder, never dropped. An untracked one there is not the project's.
    Before: both vanished from the report without a word."""
    repo = new_repo(tmp_path / "r", {"a.js": "1;\n", ".gitignore": "node_modules/\n"})
    (repo / "node_modules" / "pkg").mkdir(parents=True)
    (repo / "node_modules" / "pkg" / "index.js").write_text("1;\n")
    (repo / "node_modules" / "pkg" / "stray.js").write_text("2;\n")
    git(repo, "add", "-f", "node_modules/pkg/index.js")
    targets, refused = select(repo, [], cwd=repo)
    assert "a.js" in [t.path for t in targets]
    assert not [t for t in targets if t.path.startswith("node_modules/")]
    s = _status(refused, "node_modules/pkg/index.js")
    assert s.status == ScopeStatus.NOT_RUN and s.reason and "node_modules/" in s.reason
    assert not [s for s in refused if s.path == "node_modules/pkg/stray.js"]


def test_an_uninitialised_submodule_is_not_run(tmp_path: Path) -> None:
    """A gitlink whose submodule is not checked out (an empty folder, as `git clone`
    without `--recurse-submodules` leaves it) is `not_run`: there is nothing to check
    and nothing unsafe. Before: `unsafe`, "not a regular file"."""
    repo = new_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    commit = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{commit},vendor/lib")
    (repo / "vendor" / "lib").mkdir(parents=True)
    assert git(repo, "ls-files", "-s", "vendor/lib").startswith("160000")
    for walk, paths in ((True, []), (False, ["vendor/lib"])):
        _, refused = select(repo, paths, cwd=repo, walk=walk)
        s = _status(refused, "vendor/lib")
        assert s.status == ScopeStatus.NOT_RUN, s
        assert s.reason and s.reason.startswith("submodule not checked out")


def test_a_symlink_to_a_folder_inside_the_project_has_nothing_to_check(tmp_path: Path) -> None:
    """A tracked link to a folder of the project is `unsupported` with nothing to check
    (Ruff and flat-config ESLint do not walk through it; its files are checked under
    their own paths), counted with the files nobody lints. A link to a file is linted
    as the file; a link out of the project stays `unsafe`. Before: the folder link was
    `unsafe`, "not a regular file", a NOT-checked row in every readable report."""
    repo = new_repo(tmp_path / "r", {"sub/c.py": "x = 1\n"})
    (repo / "sublink").symlink_to("sub")
    (repo / "flink.py").symlink_to("sub/c.py")
    (tmp_path / "away").mkdir()
    (repo / "outlink").symlink_to(tmp_path / "away")
    git(repo, "add", "-A")
    targets, refused = select(repo, [], cwd=repo)
    assert {"flink.py", "sub/c.py"} <= {t.path for t in targets}
    s = _status(refused, "sublink")
    assert (s.status, s.reason) == (ScopeStatus.UNSUPPORTED, LINK_TO_FOLDER_REASON)
    assert nothing_to_check(s)
    out = _status(refused, "outlink")
    assert out.status == ScopeStatus.UNSAFE and not nothing_to_check(out)


def test_an_unsaved_buffer_is_a_target_from_its_bytes(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    got = selection.unsaved_target(root, "pkg/new.py", b"import os\n")
    assert isinstance(got, selection.FileTarget)
    assert got.path == "pkg/new.py" and got.language == "python"
    assert got.content == b"import os\n" and got.size == 10
    assert not (root / "pkg").exists()  # nothing is created


def test_an_unsaved_buffer_is_refused_where_a_file_would_be(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "link").symlink_to(outside)
    (root / "here.py").write_text("x = 1\n")

    def status(rel: str, data: bytes = b"x = 1\n") -> tuple[str, str]:
        got = selection.unsaved_target(root, rel, data)
        assert not isinstance(got, selection.FileTarget), got
        return got.status, got.reason or ""

    assert status("link/evil.py") == (ScopeStatus.UNSAFE, "outside the project root")
    assert status("../x.py")[0] == ScopeStatus.UNSAFE
    assert status("/etc/x.py")[0] == ScopeStatus.UNSAFE
    assert status("bin.py", b"a\x00b") == (ScopeStatus.NOT_RUN, selection.BINARY_REASON)
    assert status("big.py", b"x" * (MAX_FILE_BYTES + 1))[0] == ScopeStatus.NOT_RUN
    assert status("here.py")[0] == ScopeStatus.NOT_RUN  # an existing file is selected as one
