"""The git surfaces read real repositories: index blobs, push ranges, whole commits."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers import add_remote, git, new_repo

from orchestrator.deadline import Deadline
from orchestrator.git.push import PushUpdate, current_push, parse_push_lines, push_surface
from orchestrator.git.repo import find_repo
from orchestrator.git.runner import Git, GitError
from orchestrator.git.surfaces import ci_surface, commit_surface, split_rounds
from orchestrator.vocab import ScopeStatus

ZERO = "0" * 40


def _git(repo: Path, env: dict[str, str] | None = None) -> Git:
    return Git(repo, Deadline.after(60), env=env)


def _contents(surface) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    return {t.path: t.content for t in surface.targets}


def _commit(repo: Path, files: dict[str, str], msg: str = "c") -> str:
    for rel, text in files.items():
        p = repo / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        git(repo, "add", rel)
    git(repo, "commit", "-q", "-m", msg)
    return git(repo, "rev-parse", "HEAD").strip()


def test_staged_bytes_win_over_the_worktree_both_ways(git_repo: Path) -> None:
    _commit(git_repo, {"good.py": "x = 1\n", "bad.py": "x = 1\n"})
    (git_repo / "good.py").write_text("import os\n")
    git(git_repo, "add", "good.py")
    (git_repo / "good.py").write_text("x = 2\n")  # worktree clean, index dirty
    (git_repo / "bad.py").write_text("x = 3\n")
    git(git_repo, "add", "bad.py")
    (git_repo / "bad.py").write_text("import sys\n")  # index clean, worktree dirty
    surface = commit_surface(_git(git_repo))
    assert _contents(surface) == {"good.py": b"import os\n", "bad.py": b"x = 3\n"}
    t = surface.targets[0]
    assert t.abs_path == git_repo / t.path and t.language == "python"


def test_partial_staging_with_a_partial_patch(git_repo: Path) -> None:
    _commit(git_repo, {"m.py": "a = 1\n\n\n\n\n\n\n\nb = 2\n"})
    (git_repo / "m.py").write_text("a = 10\n\n\n\n\n\n\n\nb = 20\n")
    patch = git(git_repo, "diff", "-U0", "m.py")
    # Keep only the first hunk: a `git add -p` that takes one change of two.
    head, *hunks = patch.split("\n@@")
    partial = head + "\n@@" + hunks[0] + "\n"
    subprocess.run(
        ["git", "apply", "--cached", "--unidiff-zero", "-"],
        cwd=git_repo,
        input=partial,
        text=True,
        check=True,
    )
    assert _contents(commit_surface(_git(git_repo))) == {"m.py": b"a = 10\n\n\n\n\n\n\n\nb = 2\n"}


def test_deleted_not_checked_renamed_checked(git_repo: Path) -> None:
    _commit(git_repo, {"old.py": "value = 1\n" * 20, "gone.py": "y = 1\n"})
    git(git_repo, "mv", "old.py", "new.py")
    git(git_repo, "rm", "-q", "gone.py")
    surface = commit_surface(_git(git_repo))
    assert list(_contents(surface)) == ["new.py"]
    assert any("deleted" in n for n in surface.notes)


def test_first_commit_and_empty_index(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "fresh", initial_commit=False)
    (repo / "a.py").write_text("a = 1\n")
    git(repo, "add", "a.py")
    assert _contents(commit_surface(_git(repo))) == {"a.py": b"a = 1\n"}
    git(repo, "rm", "-q", "--cached", "a.py")
    surface = commit_surface(_git(repo))
    assert surface.targets == [] and any("nothing staged" in n for n in surface.notes)


def test_git_index_file_is_honoured(git_repo: Path) -> None:
    _commit(git_repo, {"a.py": "a = 1\n"})
    other = git_repo / ".git" / "other-index"
    env = dict(os.environ, GIT_INDEX_FILE=str(other))
    git(git_repo, "read-tree", "HEAD", env={"GIT_INDEX_FILE": str(other)})
    (git_repo / "a.py").write_text("a = 'alt'\n")
    git(git_repo, "add", "a.py", env={"GIT_INDEX_FILE": str(other)})
    (git_repo / "a.py").write_text("a = 1\n")
    assert commit_surface(_git(git_repo)).targets == []  # the default index is unchanged
    assert _contents(commit_surface(_git(git_repo, env))) == {"a.py": b"a = 'alt'\n"}
    # A relative GIT_INDEX_FILE (as git may export to hooks) is pinned to the cwd.
    cwd = os.getcwd()
    try:
        os.chdir(git_repo)
        rel_env = dict(os.environ, GIT_INDEX_FILE=".git/other-index")
        assert _contents(commit_surface(_git(git_repo, rel_env))) == {"a.py": b"a = 'alt'\n"}
    finally:
        os.chdir(cwd)


def test_symlinks_are_refused_not_followed(git_repo: Path) -> None:
    (git_repo / "link.py").symlink_to("/etc/passwd")
    git(git_repo, "add", "link.py")
    surface = commit_surface(_git(git_repo))
    assert surface.targets == []
    [scope] = surface.refused
    assert scope.path == "link.py" and scope.status is ScopeStatus.UNSUPPORTED


def test_ci_surface_is_the_commit_not_the_worktree(git_repo: Path) -> None:
    first = _commit(git_repo, {"a.py": "a = 1\n", "sub/b.rb": "puts 1\n"})
    _commit(git_repo, {"a.py": "a = 2\n"})
    (git_repo / "a.py").write_text("dirty\n")
    surface = ci_surface(_git(git_repo), first[:10])
    assert surface.revision == first
    assert _contents(surface) == {
        "README.md": b"test\n",
        "a.py": b"a = 1\n",
        "sub/b.rb": b"puts 1\n",
    }
    with pytest.raises(GitError):
        ci_surface(_git(git_repo), "no-such-rev")
    with pytest.raises(GitError):
        ci_surface(_git(git_repo), "--output=/tmp/x")


def test_find_repo(tmp_path: Path, git_repo: Path) -> None:
    assert find_repo(git_repo / ".", Deadline.after(10)) == git_repo
    lone = tmp_path / "lone"
    lone.mkdir()
    assert find_repo(lone, Deadline.after(10)) is None


def test_parse_push_lines() -> None:
    a, b = "a" * 40, "b" * 40
    [up] = parse_push_lines(f"refs/heads/x {a} refs/heads/x {b}\n\n".encode())
    assert not up.deletes and not up.creates
    [up] = parse_push_lines(f"(delete) {ZERO} refs/heads/x {b}\n".encode())
    assert up.deletes
    for bad in (b"nonsense\n", f"refs/heads/x {a} refs/heads/x\n".encode(), b"x " * 600000):
        with pytest.raises(ValueError):
            parse_push_lines(bad)


@pytest.fixture
def pushed(git_repo: Path, tmp_path: Path) -> tuple[Path, Path]:
    _commit(git_repo, {"base.py": "base = 1\n"})
    return git_repo, add_remote(git_repo, tmp_path / "remote.git")


def test_push_range_checks_changed_files_at_the_pushed_commit(pushed: tuple[Path, Path]) -> None:
    repo, _ = pushed
    old = git(repo, "rev-parse", "HEAD").strip()
    _commit(repo, {"one.py": "one = 1\n"})
    new = _commit(repo, {"two.py": "two = 2\n"})
    (repo / "two.py").write_text("worktree\n")
    line = f"refs/heads/main {new} refs/heads/main {old}\n".encode()
    surface = push_surface(_git(repo), parse_push_lines(line), "origin")
    assert _contents(surface) == {"one.py": b"one = 1\n", "two.py": b"two = 2\n"}


def test_push_new_branch_is_compared_with_what_the_remote_holds(
    pushed: tuple[Path, Path],
) -> None:
    repo, _ = pushed
    git(repo, "checkout", "-q", "-b", "feature")
    tip = _commit(repo, {"feat.py": "feat = 1\n"})
    line = f"refs/heads/feature {tip} refs/heads/feature {ZERO}\n".encode()
    surface = push_surface(_git(repo), parse_push_lines(line), "origin")
    assert list(_contents(surface)) == ["feat.py"]
    assert any(
        "new ref refs/heads/feature" in n and "as the remote advertised them" in n
        for n in surface.notes
    )
    # Without a remote, every commit of the ref is new: the whole tree at the tip is checked.
    surface = push_surface(_git(repo), parse_push_lines(line), None)
    assert set(_contents(surface)) == {"README.md", "base.py", "feat.py"}


def test_push_deleted_ref_checks_nothing(pushed: tuple[Path, Path]) -> None:
    repo, _ = pushed
    old = git(repo, "rev-parse", "HEAD").strip()
    line = f"(delete) {ZERO} refs/heads/gone {old}\n".encode()
    surface = push_surface(_git(repo), parse_push_lines(line), "origin")
    assert surface.targets == [] and any("deletes" in n for n in surface.notes)


def test_push_of_one_path_in_two_versions_checks_both(pushed: tuple[Path, Path]) -> None:
    repo, _ = pushed
    base = git(repo, "rev-parse", "HEAD").strip()
    a = _commit(repo, {"x.py": "x = 'a'\n"})
    git(repo, "checkout", "-q", "-b", "other", base)
    b = _commit(repo, {"x.py": "x = 'b'\n"})
    lines = f"refs/heads/main {a} refs/heads/main {base}\nrefs/heads/other {b} refs/heads/other {base}\n"
    surface = push_surface(_git(repo), parse_push_lines(lines.encode()), "origin")
    assert sorted(t.content for t in surface.targets) == [b"x = 'a'\n", b"x = 'b'\n"]
    assert [len(r) for r in split_rounds(surface.targets)] == [1, 1]


def test_current_push_is_the_branch_against_its_upstream(pushed: tuple[Path, Path]) -> None:
    repo, _ = pushed
    old = git(repo, "rev-parse", "HEAD").strip()
    new = _commit(repo, {"n.py": "n = 1\n"})
    assert current_push(_git(repo)) == (
        [PushUpdate("refs/heads/main", new, "refs/heads/main", old, claimed=True)],
        "origin",
    )
    git(repo, "checkout", "-q", "-b", "topic")
    [up], remote = current_push(_git(repo))
    assert (up.remote_ref, up.creates, remote) == ("refs/heads/topic", True, "origin")
    git(repo, "checkout", "-q", "--detach")
    [up], _ = current_push(_git(repo))
    assert up.local_ref == "HEAD" and up.local_oid == new


def test_current_push_without_a_commit_pushes_nothing(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "fresh")
    assert current_push(_git(tmp_path / "fresh")) == ([], None)


@pytest.mark.parametrize(
    "setting", [("branch.main.pushRemote", "other"), ("remote.pushDefault", "other")]
)
def test_current_push_goes_where_git_pushes_a_push_remote_first(
    pushed: tuple[Path, Path], tmp_path: Path, setting: tuple[str, str]
) -> None:
    """A plain `git push` goes to `branch.NAME.pushRemote`, else `remote.pushDefault`,
    before the branch's own remote: judged against that remote (which holds nothing
    on record here, so the whole branch is new), as git's dry run shows."""
    repo, _ = pushed
    git(tmp_path, "init", "-q", "--bare", "other.git")
    git(repo, "remote", "add", "other", str(tmp_path / "other.git"))
    new = _commit(repo, {"n.py": "n = 1\n"})
    git(repo, "config", *setting)
    dry = git(repo, "push", "--dry-run", "--porcelain")
    assert f"To {tmp_path / 'other.git'}" in dry, dry
    assert current_push(_git(repo)) == (
        [PushUpdate("refs/heads/main", new, "refs/heads/main", ZERO, claimed=True)],
        "other",
    )
    # Triangular: a topic branch whose upstream is origin's main goes out under its own name.
    git(repo, "checkout", "-q", "-b", "topic", "--track", "origin/main")
    git(repo, "config", "branch.topic.pushRemote", "other")
    [up], remote = current_push(_git(repo))
    assert (up.remote_ref, remote) == ("refs/heads/topic", "other")
    dry = git(repo, "push", "--dry-run", "--porcelain")
    assert "refs/heads/topic:refs/heads/topic" in dry, dry


def test_a_tree_named_by_its_object_id_is_listed_once_per_runner(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orchestrator.git.objects import is_full_object_id, read_tree

    first = _commit(git_repo, {"a.py": "A = 1\n"})
    g = _git(git_repo)
    asked: list[tuple[str, ...]] = []
    real_run = Git.run

    def counting(self: Git, *args: str, **kwargs: object):  # type: ignore[no-untyped-def]
        asked.append(args)
        return real_run(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Git, "run", counting)
    assert is_full_object_id(first) and not is_full_object_id("HEAD")
    assert not is_full_object_id(first[:12]) and not is_full_object_id(first.upper())
    one, two = read_tree(g, first), read_tree(g, first)
    assert one == two and [e.path for e in one] == ["README.md", "a.py"]
    assert sum(a[0] == "ls-tree" for a in asked) == 1
    one.clear()  # a caller's list is its own
    assert [e.path for e in read_tree(g, first)] == ["README.md", "a.py"]
    # A name can move: HEAD is asked each time, and sees the new commit.
    _commit(git_repo, {"b.py": "B = 1\n"})
    assert [e.path for e in read_tree(g, "HEAD")] == ["README.md", "a.py", "b.py"]
    assert [e.path for e in read_tree(g, "HEAD")] == ["README.md", "a.py", "b.py"]
    assert sum(a[0] == "ls-tree" for a in asked) == 3


def test_a_query_runner_reads_no_drivers_and_runs_only_queries(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`GitQuery` asks rev-parse and config with git's neutral settings and starts no
    process to read driver programs (a `Git` starts three); any other subcommand or a
    remote ask is a GitError before a process starts. The repository's diff driver
    still names a program: the query runs nothing of it."""
    from orchestrator.git import runner

    git(git_repo, "config", "diff.x.command", "touch ran")
    spawned: list[tuple[str, ...]] = []
    real = runner.run_bounded

    def counting(argv, **kwargs):  # type: ignore[no-untyped-def]
        spawned.append(tuple(argv[1:3]))
        return real(argv, **kwargs)

    monkeypatch.setattr(runner, "run_bounded", counting)
    Git(git_repo, Deadline.after(30))
    assert ("config", "-z") in spawned and len(spawned) >= 3  # the drivers, read first
    spawned.clear()
    query = runner.GitQuery(git_repo, Deadline.after(30))
    assert spawned == []
    assert query.answer("rev-parse", "--show-toplevel") == str(git_repo)
    assert query.answer("config", "--get", "diff.x.command") == "touch ran"
    assert spawned == [("rev-parse", "--show-toplevel"), ("config", "--get")]
    refusals = [("diff", "HEAD"), ("status",), ("-c", "a.b=c", "rev-parse"), ()]
    # A config that edits (the editor the config names) or writes, or does not read.
    refusals += [("config", "--edit"), ("config", "-e"), ("config", "core.x", "y")]
    refusals += [("config", "--get", "core.x", "--unset"), ("config", "edit")]
    for refused in refusals:
        with pytest.raises(GitError, match="not a query"):
            query.run(*refused)
    with pytest.raises(GitError, match="does not contact a remote"):
        query.ask_remote("origin")
    assert len(spawned) == 2 and not (git_repo / "ran").exists()
    # Finding the repository is a query: one rev-parse, no driver read.
    spawned.clear()
    assert find_repo(git_repo, Deadline.after(30)) == git_repo
    assert spawned == [("rev-parse", "--show-toplevel")]


def test_a_config_of_thousands_of_drivers_is_read_whole_and_an_unread_one_is_an_error(
    git_repo: Path,
) -> None:
    """A config listing past 64 KiB used to be dropped whole, so a filter named after a
    thousand others ran on `git add`; it is now read and emptied. A listing that cannot
    be read (here: the deadline has passed) is a GitError, never a runner with nothing
    emptied (the same runner given a new deadline ran the repository's textconv)."""
    marker = git_repo / "ran"
    lines = [f'[filter "pad{i}"]\n\tclean = true {"x" * 60}\n' for i in range(1200)]
    with (git_repo / ".git" / "config").open("a") as cfg:
        cfg.writelines(lines)
        cfg.write(f'[filter "evil"]\n\tclean = "touch {marker}; cat"\n')
    (git_repo / ".gitattributes").write_text("*.txt filter=evil\n")
    (git_repo / "a.txt").write_text("a\n")
    assert len((git_repo / ".git" / "config").read_bytes()) > 64 * 1024
    Git(git_repo, Deadline.after(30)).run("add", "a.txt")
    assert not marker.exists()
    with pytest.raises(GitError, match="driver programs cannot be read"):
        Git(git_repo, Deadline.after(0))
