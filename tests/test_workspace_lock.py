"""The workspace lock (workspace.locked) excludes other processes, whether they take
it through this code or through filelock (an older orchestrate), and gives up with a
TimeoutError when held past its timeout. Real processes, real locks."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import filelock
import pytest

from orchestrator.workspace import locked, workspace_dir

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

HOLD = """
import sys, time
from pathlib import Path
root, how = Path(sys.argv[1]), sys.argv[2]
if how == "filelock":
    import filelock
    lock = filelock.FileLock(str(root / ".orchestrate" / "tasks.lock"))
    lock.acquire()
else:
    from orchestrator.workspace import locked
    cm = locked(root, "tasks")
    cm.__enter__()
print("held", flush=True)
sys.stdin.read()  # hold until the test closes stdin
"""


def _holder(root: Path, how: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(root), how],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def _release(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(timeout=30)


@pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")
def test_a_lock_filelock_holds_blocks_until_released(tmp_path: Path) -> None:
    workspace_dir(tmp_path)
    proc = _holder(tmp_path, "filelock")
    try:
        start = time.monotonic()
        with (
            pytest.raises(TimeoutError, match="could not be acquired"),
            locked(tmp_path, "tasks", timeout=0.3),
        ):
            pass
        assert time.monotonic() - start >= 0.3
    finally:
        _release(proc)
    with locked(tmp_path, "tasks", timeout=5) as ws:
        assert ws == tmp_path / ".orchestrate"


@pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")
def test_filelock_waits_for_a_lock_held_here(tmp_path: Path) -> None:
    proc = _holder(tmp_path, "orchestrate")
    try:
        lock = filelock.FileLock(str(tmp_path / ".orchestrate" / "tasks.lock"), timeout=0.3)
        with pytest.raises(filelock.Timeout):
            lock.acquire()
    finally:
        _release(proc)
    lock.acquire()
    lock.release()


def test_two_locks_of_one_name_in_turn_and_other_names_at_once(tmp_path: Path) -> None:
    with locked(tmp_path, "tasks"), locked(tmp_path, "events", timeout=0.2):
        pass
    with locked(tmp_path, "tasks", timeout=0.2):
        pass


def test_a_lock_file_that_is_a_link_is_never_followed(git_repo: Path, tmp_path: Path) -> None:
    """A cloned repository carrying `.orchestrate/hygiene.lock` as a link to a path
    outside it: `lint --fix` neither creates nor opens the link's target, and says why."""
    from gate_support import clean_env, commit_files, orchestrate

    outside = tmp_path / "outside" / "created-by-the-lock"
    outside.parent.mkdir()
    (git_repo / ".orchestrate").mkdir()
    (git_repo / ".orchestrate" / "hygiene.lock").symlink_to(outside)
    commit_files(git_repo, {"a.py": "import os\n"})
    res = orchestrate(git_repo, "lint", "--fix", "a.py", env=clean_env())
    assert not outside.exists() and not outside.is_symlink()
    assert res.returncode == 2, res.stdout + res.stderr
    assert ".orchestrate/hygiene.lock is a symbolic link" in res.stderr


def test_a_workspace_that_is_a_link_is_never_written_through(
    git_repo: Path, tmp_path: Path
) -> None:
    """A cloned repository whose `.orchestrate` links outside it: `lint` writes nothing
    there (no .gitignore, task or lock) and says why."""
    from gate_support import clean_env, commit_files, orchestrate

    outside = tmp_path / "outside"
    outside.mkdir()
    (git_repo / ".orchestrate").symlink_to(outside)
    commit_files(git_repo, {"a.py": "import os\n"})
    res = orchestrate(git_repo, "lint", "a.py", env=clean_env())
    assert list(outside.iterdir()) == []
    assert res.returncode == 2, res.stdout + res.stderr
    assert ".orchestrate is a symbolic link" in res.stderr
