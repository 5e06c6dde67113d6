"""The one ls-files reader and the one `status --porcelain=v1 -z` parser.

NUL-separated output never quotes a name, so the parser must take names as they are
(spaces, newlines, bytes that are not UTF-8) and must consume the extra source field a
rename or copy carries, in either column, or it would read that field as an entry.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import git

from orchestrator.deadline import Deadline
from orchestrator.git.listing import StatusEntry, ls_files, parse_status_z, split_z, status
from orchestrator.git.runner import Git, GitError
from orchestrator.hygiene.gitstate import path_state, snapshot
from orchestrator.usecases.changed_paths import git_changed_paths


def _git(repo: Path) -> Git:
    return Git(repo, Deadline.after(60))


@pytest.mark.parametrize(
    ("data", "want"),
    [
        (b"", []),
        (b" M a.py\0", [StatusEntry(" M", "a.py")]),
        (b"A  new.py\0?? u.txt\0", [StatusEntry("A ", "new.py"), StatusEntry("??", "u.txt")]),
        (b"R  src/new.py\0src/old.py\0", [StatusEntry("R ", "src/new.py", "src/old.py")]),
        (
            b"C  copy.py\0orig.py\0 M x\0",
            [StatusEntry("C ", "copy.py", "orig.py"), StatusEntry(" M", "x")],
        ),
        # A rename in the worktree column (an intent-to-add file) carries a source too.
        (
            b" R moved/file.py\0long/source.py\0",
            [StatusEntry(" R", "moved/file.py", "long/source.py")],
        ),
        (b"RM b\0a\0", [StatusEntry("RM", "b", "a")]),
        (b"!! build/out.o\0", [StatusEntry("!!", "build/out.o")]),
        (b"?? with space.py\0", [StatusEntry("??", "with space.py")]),
        (b"?? line\nbreak.py\0", [StatusEntry("??", "line\nbreak.py")]),
        (b" D gone.py\0", [StatusEntry(" D", "gone.py")]),
    ],
)
def test_parse_status_z(data: bytes, want: list[StatusEntry]) -> None:
    assert parse_status_z(data) == want


def test_rename_source_that_looks_like_an_entry_is_not_read_as_one() -> None:
    got = parse_status_z(b"R  new\0?? evil\0 M real\0")
    assert got == [StatusEntry("R ", "new", "?? evil"), StatusEntry(" M", "real")]


def test_non_utf8_names_round_trip_to_the_same_bytes() -> None:
    [entry] = parse_status_z(b"?? caf\xe9.py\0")
    assert os.fsencode(entry.path) == b"caf\xe9.py"


def test_edge_fields() -> None:
    # Missing final NUL, empty fields, a rename whose source field is cut off.
    assert parse_status_z(b" M a") == [StatusEntry(" M", "a")]
    assert parse_status_z(b"\0\0 M a\0\0") == [StatusEntry(" M", "a")]
    assert parse_status_z(b"R  new\0") == [StatusEntry("R ", "new", None)]
    assert parse_status_z(b"XYZ\0 M a\0") == [StatusEntry(" M", "a")]  # no space after XY
    assert split_z(b"a\0\0b\0") == ["a", "", "b"]


def test_deleted() -> None:
    assert StatusEntry(" D", "a").deleted and StatusEntry("D ", "a").deleted
    assert not StatusEntry("R ", "b", "a").deleted


def _odd_repo(repo: Path) -> dict[str, str]:
    """Commit files with odd names, then rename, add and ignore some; returns the names."""
    names = {
        "space": "with space.py",
        "newline": "line\nbreak.py",
        "latin1": os.fsdecode(b"caf\xe9.py"),
        "dash": "-v",
    }
    (repo / "src").mkdir()
    (repo / "src" / "old_module.py").write_text("x = 1\n" * 20)
    (repo / "wt_source.py").write_text("y = 2\n" * 20)
    for name in names.values():
        (repo / name).write_text("z = 3\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "odd names")
    git(repo, "mv", "src/old_module.py", "src/new_module.py")
    os.rename(repo / "wt_source.py", repo / "wt_target.py")
    git(repo, "add", "-N", "wt_target.py")
    (repo / ".gitignore").write_text("*.log\n")
    (repo / "debug.log").write_text("noise\n")
    (repo / "untracked dir").mkdir()
    (repo / "untracked dir" / "u.txt").write_text("u\n")
    return names


def test_status_of_a_real_repository(git_repo: Path) -> None:
    names = _odd_repo(git_repo)
    (git_repo / names["newline"]).write_text("changed\n")
    got = {(e.code, e.path, e.orig_path) for e in status(_git(git_repo), ".", ignored=True)}
    assert ("R ", "src/new_module.py", "src/old_module.py") in got
    assert (" R", "wt_target.py", "wt_source.py") in got
    assert (" M", names["newline"], None) in got
    assert ("??", "untracked dir/u.txt", None) in got
    assert ("!!", "debug.log", None) in got
    assert all(not p.startswith(("src/old", "wt_source")) for _, p, _ in got)


def test_ls_files_reads_odd_names_and_takes_dashes_as_paths(git_repo: Path) -> None:
    names = _odd_repo(git_repo)
    listed = ls_files(_git(git_repo), ".")
    for name in names.values():
        assert name in listed
    assert ls_files(_git(git_repo), "-v") == ["-v"]  # a path after "--", not an option
    assert "untracked dir/u.txt" not in listed
    assert "untracked dir/u.txt" in ls_files(_git(git_repo), ".", untracked=True)
    assert "debug.log" not in ls_files(_git(git_repo), ".", untracked=True)
    sub = Git(git_repo / "src", Deadline.after(60))
    assert ls_files(sub, ".") == ["new_module.py"]
    assert ls_files(sub, ".", full_name=True) == ["src/new_module.py"]


def test_ls_files_outside_a_repository_is_a_git_error(tmp_path: Path) -> None:
    with pytest.raises(GitError):
        ls_files(_git(tmp_path), ".")


def test_host_shell_and_hygiene_read_the_same_status(git_repo: Path) -> None:
    names = _odd_repo(git_repo)
    changed = git_changed_paths(git_repo, Deadline.after(60))
    assert changed is not None
    assert {"src/new_module.py", "wt_target.py", "untracked dir/u.txt", ".gitignore"} <= set(
        changed
    )
    assert "src/old_module.py" not in changed and "wt_source.py" not in changed
    snap = snapshot(git_repo)
    assert snap.is_repo
    assert snap.state(names["space"]).clean and snap.state(names["latin1"]).clean
    assert not snap.state("src", is_dir=True).clean
    assert not snap.state("debug.log").tracked
    assert path_state(git_repo, names["space"]).clean
    assert not path_state(git_repo, "src").clean
    assert git_changed_paths(git_repo.parent, Deadline.after(60)) is None
