"""Golden snapshots of what users read: the human report, the gate verdicts, each host's hook
answers. Any change of wording shows up as a diff of tests/golden/ in review.

Each case runs the real console script in a fresh repository and compares its exit code,
stdout and stderr, after `normalise`, byte for byte with tests/golden/<case>.txt.
`UPDATE_GOLDEN=1` rewrites the snapshots instead of comparing them.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from gate_support import BAD_PY, GOOD_PY, clean_env, orchestrate, ruff_unavailable, stage
from helpers import new_repo
from host_contracts import PAYLOADS

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
# The payloads were recorded in this project folder; each case swaps in its own repository.
RECORDED_ROOT = "/tmp/hosts-e2e/project"
# Plain, fixed-width output: no colour, no terminal-dependent wrapping.
PLAIN = {"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "100"}

_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?")
_DURATION = re.compile(r"\b\d+(\.\d+)?\s?ms\b|\b\d+\.\d+\s?s\b|(?<=\"ms\":)\d+")
_VERSION = re.compile(r"\b\d+\.\d+\.\d+([.-]?[a-z0-9]+)*\b")


def normalise(text: str, root: Path) -> str:
    """`text` with the volatile parts (paths, times, durations, versions) replaced by tags."""
    for path in sorted({str(root.resolve()), str(root)}, key=len, reverse=True):
        text = text.replace(path, "<ROOT>")
    text = _TIME.sub("<TIME>", text)
    text = _DURATION.sub("<DURATION>", text)
    return _VERSION.sub("<VERSION>", text)


@dataclass(frozen=True)
class Case:
    """One snapshot: how to lay out the repository, the argv, and the hook event if any."""

    name: str
    setup: Callable[[Path], None]
    argv: tuple[str, ...]
    payload: tuple[str, str] | None = None  # (host folder, recorded payload name)
    command: str | None = None  # the shell command of a PreToolUse-style payload
    initial_commit: bool = True  # False: a repository with nothing but the case's files


def lint_tree(repo: Path) -> None:
    """A clean .py, an F401, a syntax-broken .java (no exact parser confirms it: a
    candidate) and an unsupported .xyz, all staged."""
    stage(
        repo,
        {
            "clean.py": GOOD_PY,
            "bad.py": BAD_PY,
            "Broken.java": "class Broken {\n\n  void main( {\n}\n",
            "notes.xyz": "whatever\n",
        },
    )


def staged_good(repo: Path) -> None:
    stage(repo, {"a.py": GOOD_PY})


def staged_bad(repo: Path) -> None:
    stage(repo, {"a.py": BAD_PY})


def staged_unverifiable(repo: Path) -> None:
    ruff_unavailable(repo)
    stage(repo, {"a.py": GOOD_PY})


def written_bad(repo: Path) -> None:
    """An edit just written to disk (not staged): what a host's edit hook reports on."""
    (repo / "a.py").write_text(BAD_PY)


def repaired_task(repo: Path) -> None:
    """A lint recorded a task for a.py, then the edit removed its finding: a repair."""
    (repo / "a.py").write_text(BAD_PY)
    assert orchestrate(repo, "lint", "a.py").returncode == 1
    (repo / "a.py").write_text(GOOD_PY)


HOOKS = {"claude-code": "claude-code", "codex": "codex", "gemini": "gemini"}
CASES = [
    Case("lint_human", lint_tree, ("lint",), initial_commit=False),
    Case("lint_github", lint_tree, ("lint", "--format", "github"), initial_commit=False),
    Case("lint_concise", lint_tree, ("lint", "--format", "concise"), initial_commit=False),
    # --jobs pinned: the default depends on the machine's CPUs and the request records it.
    Case(
        "lint_jsonl", lint_tree, ("lint", "--jobs", "2", "--format", "jsonl"), initial_commit=False
    ),
    Case("gate_commit_allow", staged_good, ("gate", "commit")),
    Case("gate_commit_deny", staged_bad, ("gate", "commit")),
    Case("gate_commit_incomplete", staged_unverifiable, ("gate", "commit")),
    Case(
        "claude_code_post_tool_use_write",
        written_bad,
        ("hook", "claude-code"),
        ("claude-code", "PostToolUse.Write"),
    ),
    Case(
        "claude_code_pre_tool_use_commit_deny",
        staged_bad,
        ("hook", "claude-code"),
        ("claude-code", "PreToolUse.Bash"),
        "git commit -q -m 'add staged'",
    ),
    Case(
        "claude_code_post_tool_use_repair",
        repaired_task,
        ("hook", "claude-code"),
        ("claude-code", "PostToolUse.Write"),
    ),
    Case("codex_post_tool_use_bash", written_bad, ("hook", "codex"), ("codex", "PostToolUse.Bash")),
    Case(
        "codex_pre_tool_use_commit_deny",
        staged_bad,
        ("hook", "codex"),
        ("codex", "PreToolUse.Bash"),
        "git commit -q -m 'add staged'",
    ),
    Case(
        "gemini_after_tool_write_file",
        written_bad,
        ("hook", "gemini"),
        ("gemini", "AfterTool.write_file"),
    ),
    Case(
        "gemini_before_tool_commit_deny",
        staged_bad,
        ("hook", "gemini"),
        ("gemini", "BeforeTool.run_shell_command"),
        "git commit -q -m 'add staged'",
    ),
]


def _stdin(case: Case, repo: Path) -> str | None:
    """The recorded payload of `case`, moved into `repo` (and given its command)."""
    if case.payload is None:
        return None
    host, name = case.payload
    text = (PAYLOADS / host / f"{name}.json").read_text(encoding="utf-8")
    event = json.loads(text.replace(RECORDED_ROOT, str(repo)))
    if case.command is not None:
        event["tool_input"] = {"command": case.command}
    return json.dumps(event)


def _snapshot(case: Case, repo: Path) -> str:
    env = clean_env(**PLAIN, CLAUDE_PROJECT_DIR=str(repo), GEMINI_PROJECT_DIR=str(repo))
    proc = orchestrate(repo, *case.argv, env=env, stdin=_stdin(case, repo))
    text = (
        f"$ orchestrate {' '.join(case.argv)}\n"
        f"exit: {proc.returncode}\n"
        f"--- stdout\n{proc.stdout}"
        f"--- stderr\n{proc.stderr}"
    )
    return normalise(text, repo)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden(case: Case, tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", initial_commit=case.initial_commit)
    case.setup(repo)
    actual = _snapshot(case, repo)
    golden = GOLDEN / f"{case.name}.txt"
    if UPDATE:
        golden.write_text(actual, encoding="utf-8")
        return
    assert golden.is_file(), f"{golden} missing: run with UPDATE_GOLDEN=1 to create it"
    assert actual == golden.read_text(encoding="utf-8")


def test_every_golden_file_has_a_case() -> None:
    """A snapshot without a case is stale and would hide nothing: delete it."""
    names = {c.name for c in CASES}
    stale = sorted(p.stem for p in GOLDEN.glob("*.txt") if p.stem not in names)
    assert not stale, stale


def test_normalise_hides_only_volatile_parts(tmp_path: Path) -> None:
    text = f"{tmp_path}/a.py at 2026-01-02T03:04:05.123Z took 12ms ruff 0.8.4: F401 in 2 files"
    assert normalise(text, tmp_path) == (
        "<ROOT>/a.py at <TIME> took <DURATION> ruff <VERSION>: F401 in 2 files"
    )
