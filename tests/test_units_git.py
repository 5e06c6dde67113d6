"""Unit tests of the git modules' parsers and queries, on small real repositories."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import git

from orchestrator.deadline import Deadline
from orchestrator.git.changed import changed_since
from orchestrator.git.history import added_blobs, range_commits, shallow_boundary
from orchestrator.git.objects import (
    Change,
    has_commit,
    parse_name_status,
    read_blobs,
    read_index,
    resolve_commit,
    staged_changes,
)
from orchestrator.git.runner import Git, GitError
from orchestrator.git.staging import ReplayFailed, replayed_index


def _git(repo: Path) -> Git:
    return Git(repo, Deadline.after(60))


def _commit(repo: Path, name: str, text: str) -> str:
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", f"add {name}")
    return git(repo, "rev-parse", "HEAD").strip()


def test_parse_name_status_reads_renames_with_both_paths() -> None:
    data = b"M\0a.py\0R100\0old.py\0new.py\0D\0gone.py\0"
    assert parse_name_status(data) == [
        Change("M", "a.py"),
        Change("R", "new.py", "old.py"),
        Change("D", "gone.py"),
    ]
    assert parse_name_status(b"") == []


def test_objects_read_commits_index_and_staged_changes(git_repo: Path) -> None:
    g = _git(git_repo)
    head = _commit(git_repo, "a.txt", "one\n")
    assert has_commit(g, "HEAD") and not has_commit(g, "no-such-ref")
    assert resolve_commit(g, "HEAD") == head
    with pytest.raises(GitError):
        resolve_commit(g, "--all")
    entry = next(e for e in read_index(g) if e.path == "a.txt")
    assert read_blobs(g, [entry.oid]) == {entry.oid: b"one\n"}
    (git_repo / "a.txt").write_text("two\n")
    (git_repo / "b.txt").write_text("new\n")
    git(git_repo, "add", "a.txt", "b.txt")
    assert sorted(staged_changes(g), key=lambda c: c.path) == [
        Change("M", "a.txt"),
        Change("A", "b.txt"),
    ]


def test_a_runner_lists_the_index_once_until_it_runs_what_may_change_it(
    git_repo: Path,
) -> None:
    """A gate's readers share one listing of the index (one `ls-files` per runner), and
    a runner that runs a subcommand that may write it (not `keeps_index`) lists it again."""
    g = _git(git_repo)
    _commit(git_repo, "a.txt", "one\n")
    first = read_index(g)
    (git_repo / "b.txt").write_text("new\n")
    git(git_repo, "add", "b.txt")  # another process stages a file
    g.run("rev-parse", "HEAD")  # a read keeps the listing
    assert read_index(g) == first
    assert "b.txt" in {e.path for e in read_index(_git(git_repo))}  # a new runner lists anew
    g.run("update-index", "-q", "--refresh", check=False)  # may write the index
    assert "b.txt" in {e.path for e in read_index(g)}


def test_history_lists_a_range_and_the_blobs_it_adds(git_repo: Path) -> None:
    g = _git(git_repo)
    base = git(git_repo, "rev-parse", "HEAD").strip()
    first = _commit(git_repo, "a.txt", "1\n")
    second = _commit(git_repo, "b.txt", "2\n")
    assert range_commits(g, second, [base]) == [first, second]
    added = added_blobs(g, [first, second])
    assert [(a.entry.path, a.commit) for a in added] == [("a.txt", first), ("b.txt", second)]
    assert added_blobs(g, []) == []
    assert shallow_boundary(g, [first, second]) == []


def test_changed_since_lists_changed_and_untracked_files(git_repo: Path) -> None:
    g = _git(git_repo)
    base = git(git_repo, "rev-parse", "HEAD").strip()
    _commit(git_repo, "a.txt", "1\n")
    (git_repo / "u.txt").write_text("untracked\n")
    got = changed_since(g, base)
    assert got.paths == ["a.txt", "u.txt"] and got.base == base and got.problem == ""
    with pytest.raises(ValueError, match="names no commit"):
        changed_since(g, "no-such-ref")


def _paths(g: Git, env: dict[str, str]) -> set[str]:
    sub = Git(g.root, g.deadline, {**g.env, **env})
    return {e.path for e in read_index(sub)}


def test_replayed_index_stages_into_a_private_index_only(git_repo: Path) -> None:
    g = _git(git_repo)
    (git_repo / "b.py").write_text("b = 1\n")
    with replayed_index(g) as env:
        assert env == {}
    with replayed_index(g, [("add", "--", "b.py")]) as env:
        assert "b.py" in _paths(g, env)
        private = Path(env["GIT_INDEX_FILE"])
        assert private.is_file()
    assert not private.exists()
    assert "b.py" not in {e.path for e in read_index(g)}  # the real index is untouched
    with replayed_index(g, only_paths=["b.py"]) as env:
        assert "b.py" in _paths(g, env)


def test_a_staging_step_that_is_no_staging_command_fails(git_repo: Path) -> None:
    g = _git(git_repo)
    with pytest.raises(ReplayFailed), replayed_index(g, [("mv", "a", "b")]):
        pass
    with pytest.raises(ReplayFailed), replayed_index(g, [("add", "--", "absent.py")]):
        pass
