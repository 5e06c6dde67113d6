"""Folders nested far deeper than any project: no walk recurses, depth is a reason.

Failed before: a folder 1,900 levels deep crashed `orchestrate check` (RecursionError
from os.walk, exit 4) and `gate commit` (RecursionError from pathlib's mkdir while
materialising, an internal fault). Python's own walks recurse once per level (os.walk,
Path.rglob, Path.mkdir(parents=True), shutil.rmtree on 3.11). Each case builds its tree
one level at a time, so the builder itself never recurses.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from gate_support import clean_env, orchestrate
from helpers import git, new_repo

from orchestrator.core import walk as walks
from orchestrator.hygiene import content, journal, service
from orchestrator.model.paths import MAX_DEPTH, TOO_DEEP_REASON, too_deep

#: Deeper than Python's recursion limit (1,000), within Linux's PATH_MAX from tmp.
#: The reported depth is used end to end; the units use less, since every syscall on
#: a deep path costs its depth.
REPORTED = 1900
DEEP = 1200
#: Just over the bound, well under the recursion limit: the bound itself is tested.
OVER = MAX_DEPTH + 5
KEY = "AKIA" + "Q7XZ" * 4


@pytest.fixture(autouse=True)
def _remove_deep_trees(tmp_path: Path) -> Iterator[None]:
    """Remove each case's tree itself: pytest's later clean-up of old temporary folders
    uses shutil.rmtree, which recurses once per level and would fail on these."""
    yield
    _rmtree(tmp_path)


def _rmtree(top: Path) -> None:
    """The test's own iterative removal (independent of the code under test)."""
    stack, folders = [str(top)], []
    while stack:
        folder = stack.pop()
        folders.append(folder)
        with os.scandir(folder) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
                else:
                    os.unlink(e.path)
    for folder in reversed(folders[1:]):
        os.rmdir(folder)


def _deep(base: Path, levels: int, name: str = "a", leaf: str = "x = 1\n") -> Path:
    """`levels` nested folders called `name` under `base`, a file f.py at the bottom."""
    base.mkdir(exist_ok=True)
    cur = base
    for _ in range(levels):
        cur = cur / name
        cur.mkdir()  # one level at a time: Path.mkdir(parents=True) recurses
    (cur / "f.py").write_text(leaf)
    return cur


def test_the_recursion_limit_is_below_the_deep_case() -> None:
    assert sys.getrecursionlimit() < DEEP, "the deep cases must outrun the recursion limit"


@pytest.mark.parametrize("levels", [OVER, DEEP])
def test_walk_stops_at_the_bound_and_says_where(tmp_path: Path, levels: int) -> None:
    _deep(tmp_path, levels)
    left_out: list[str] = []
    seen = [d for d, _dirs, _files in walks.walk(tmp_path, on_too_deep=left_out.append)]
    assert len(seen) == MAX_DEPTH + 1  # top and MAX_DEPTH levels below it
    [deep] = left_out
    assert Path(deep).relative_to(tmp_path).as_posix().count("/") == MAX_DEPTH


def test_unbounded_walk_makedirs_and_rmtree_do_not_recurse(tmp_path: Path) -> None:
    bottom = _deep(tmp_path / "t", DEEP - 10)
    assert sum(1 for _ in walks.walk(tmp_path / "t", max_depth=None)) == DEEP - 9
    other = tmp_path / "m" / "/".join(["b"] * (DEEP - 10))
    walks.makedirs(other)
    assert other.is_dir()
    walks.makedirs(other)  # exists: no error, like exist_ok=True
    os.symlink(tmp_path / "m", bottom / "link")  # a link inside is removed, not followed
    walks.rmtree(tmp_path / "t")
    walks.rmtree(tmp_path / "m")
    assert not (tmp_path / "t").exists() and not (tmp_path / "m").exists()


def test_walk_keeps_os_walk_order_and_pruning(tmp_path: Path) -> None:
    for rel in ("b/c", "a/d", "a/e/f", "skip/g"):
        (tmp_path / rel).mkdir(parents=True)
    (tmp_path / "a" / "l").symlink_to(tmp_path / "b")
    mine = []
    for d, dirs, files in walks.walk(tmp_path):
        dirs[:] = sorted(x for x in dirs if x != "skip")
        mine.append((d, sorted(dirs), sorted(files)))
    theirs = []
    for d, dirs, files in os.walk(tmp_path):
        dirs[:] = sorted(x for x in dirs if x != "skip")
        theirs.append((d, sorted(dirs), sorted(files)))
    assert mine == theirs


def test_walk_without_git_reports_the_deep_folder(tmp_path: Path) -> None:
    _deep(tmp_path, DEEP)
    files, unread = walks.walk_files(tmp_path, [])
    assert files == []
    [entry] = unread
    assert entry.error == TOO_DEEP_REASON and too_deep(entry.rel + "/f")


@pytest.mark.parametrize("levels", [OVER, DEEP])
def test_hygiene_check_completes_and_names_the_deep_folder(tmp_path: Path, levels: int) -> None:
    repo = new_repo(tmp_path / "r")
    _deep(repo / "notes", levels)
    result = service.check(repo)
    assert any(TOO_DEEP_REASON in n for n in result.notes), result.notes


def test_hygiene_digests_and_journal_images_of_a_deep_folder(tmp_path: Path) -> None:
    top = tmp_path / "scratch"
    _deep(top, DEEP)
    assert content.tree_digest(top)
    assert content.newest_mtime(top) > 0
    assert content.is_frozen(top) is False
    blobs = tmp_path / "blobs"
    blobs.mkdir()
    image = journal.snapshot_path(top, blobs)
    assert len(image["dirs"]) == DEEP
    journal.remove_path(top)
    assert not top.exists()


@pytest.mark.e2e
def test_check_cli_exits_zero_on_a_deep_folder(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r")
    _deep(repo, REPORTED)
    res = orchestrate(repo, "check")
    assert res.returncode == 0, res.stderr[-500:]
    assert "RecursionError" not in res.stderr


@pytest.mark.e2e
@pytest.mark.parametrize("levels", [OVER, REPORTED])
def test_gate_commit_refuses_a_deep_file_with_the_reason_and_still_scans_it(
    tmp_path: Path, levels: int
) -> None:
    homes = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "c")}
    repo = new_repo(tmp_path / "r")
    bottom = _deep(repo, levels, leaf=f"KEY = '{KEY}'\n")
    git(repo, "add", "-A")
    res = orchestrate(repo, "gate", "commit", "--format", "json", env=clean_env(**homes))
    assert "RecursionError" not in res.stderr and "internal fault" not in res.stderr
    report = json.loads(res.stdout)
    rel = (bottom / "f.py").relative_to(repo).as_posix()
    scopes = [s for s in report["scopes"] if s["path"] == rel]
    assert any(s["status"] == "unsafe" and s["reason"] == TOO_DEEP_REASON for s in scopes)
    # The key in it is found all the same: depth never hides a secret.
    assert any(f["rule"] == "secret-aws-access-key-id" for f in report["findings"]), report
    assert report["gate"]["decision"] in ("deny", "incomplete")
    assert res.returncode in (1, 3)
