"""A closed stdout (`orchestrate schema | head`) ends quietly (issue 32, item 4).

The reader of a pipe may go away before orchestrate has written everything. Outside
a strict gate that is exit 0 with nothing on stderr, whether the write fails inside a
command or only when the interpreter flushes stdout on its way out (where Python would
print "Exception ignored ... BrokenPipeError" and exit 120). A strict gate whose answer
cannot be written stays an internal fault (exit 4). The console script runs for real,
writing into a real pipe; PYTHONUNBUFFERED is removed from its environment, since with
it every write fails at once and the late failure never shows.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers import VENV_BIN, git, new_repo

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

#: Files of one finding each: the JSON report of them is far larger than a pipe holds.
MANY = 300


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env["CI"] = "1"  # no warm engine, no progress count
    return env


def _closed_early(args: list[str], cwd: Path, read: int) -> tuple[int, str]:
    """Run `orchestrate ARGS` into a pipe whose reader takes `read` bytes (none: the
    reader is gone before anything is written) and closes it; (exit code, stderr)."""
    proc = subprocess.Popen(
        [str(VENV_BIN / "orchestrate"), *args],
        cwd=cwd,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    if read:
        proc.stdout.read(read)
    proc.stdout.close()
    err = proc.stderr.read().decode("utf-8", "replace")
    return proc.wait(timeout=120), err


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("closed-stdout")
    for i in range(MANY):
        (root / f"m{i:03}.py").write_text("import os\n")
    return root


@pytest.mark.parametrize(
    "args",
    [
        ["schema"],
        ["plugins"],
        ["--version"],
        ["lint", "--no-tasks", "--format", "json", "m000.py"],
        ["lint", "--no-tasks", "--format", "jsonl", "m000.py"],
        ["lint", "--no-tasks", "--format", "sarif", "m000.py"],
    ],
    ids=lambda a: "-".join(a[:1] + a[3:4]),
)
def test_a_reader_gone_before_the_output_is_exit_0_quietly(project: Path, args: list[str]) -> None:
    code, err = _closed_early(args, project, read=0)
    assert (code, err) == (0, ""), err


@pytest.mark.parametrize(
    "args",
    [
        ["schema"],
        ["lint", "--no-tasks", "--format", "json"],
        ["lint", "--no-tasks", "--format", "jsonl"],
    ],
    ids=lambda a: "-".join(a[:1] + a[3:4]),
)
def test_a_reader_that_stops_after_a_few_bytes_is_exit_0_quietly(
    project: Path, args: list[str]
) -> None:
    """`| head -c 16` of a large output: the writes after the first pipe-full fail."""
    code, err = _closed_early(args, project, read=16)
    assert (code, err) == (0, ""), err


def test_a_strict_gate_whose_answer_cannot_be_written_is_exit_4(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    (repo / "a.py").write_text("x = 1\n")
    git(repo, "add", "a.py")
    code, err = _closed_early(["gate", "commit"], repo, read=0)
    assert code == 4, err
    assert "internal error: BrokenPipeError" in err and "Exception ignored" not in err, err
