"""End to end: `orchestrate check` then `orchestrate clean` on a seeded git repository.

Applies exactly the auto ops, leaves confirm ops until approved, never touches the
dirty or the untracked file, and `--undo` restores every change byte for byte. A crash
between ops leaves no half-written file and the run can still be undone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO, run_cli
from hygiene_helpers import age, commit_all, tree_bytes

from orchestrator.hygiene.apply import CRASH_ENV

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

SECTION = "## Install\n\nRun `pip install orchestrate`.\nThen run `orchestrate check`.\n"


def seed(repo: Path) -> None:
    files = {
        "plans/served.md": "# Served plan\nship it\n",
        "plans/served.done": "",
        "plans/unserved.md": "# Unserved plan\n",
        "plans/frozen.md": "---\nhygiene: frozen\n---\n# Kept forever\n",
        "plans/frozen.done": "",
        "scratch/old/notes.txt": "old scratch\n",
        "scratch/old/sub/data.csv": "a,b\n",
        "scratch/recent/notes.txt": "recent scratch\n",
        "notes/guide.md": "# Guide\n\n" + SECTION + "\n## Use\n\nRead the report.\nAct on it.\n",
        "notes/copy.md": "# Copy\n\nIntro.\n\n" + SECTION,
        "notes/dirty.md": "# Dirty\n\n" + SECTION,
        "docs/site.md": "# Site page\n\n" + SECTION,  # published: its copy stays
        "sessions/s1.md": "# Session 1\nwe decided things\n",
        "merge.orig": "tracked leftover\n",
    }
    for rel, text in files.items():
        p = repo / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (repo / "scratch" / "old" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (repo / "scratch" / "old" / "run.sh").chmod(0o755)
    commit_all(repo)
    (repo / "merge.orig").write_text("tracked leftover, edited\n")  # dirty tracked
    (repo / "notes" / "dirty.md").write_text("# Dirty (edited)\n\n" + SECTION)  # dirty tracked
    (repo / "untracked.bak").write_text("only copy\n")  # untracked
    age(repo / "scratch" / "old", 40)
    age(repo / "scratch" / "recent", 20)
    age(repo / "merge.orig", 1)
    age(repo / "untracked.bak", 1)


def _json(proc: subprocess.CompletedProcess[str]) -> dict:
    assert proc.stdout, proc.stderr
    return json.loads(proc.stdout)


def test_check_then_clean_then_undo(git_repo: Path) -> None:
    seed(git_repo)
    before = tree_bytes(git_repo)

    proc = run_cli(["check", "--format", "json"], cwd=git_repo)
    assert proc.returncode == 1, proc.stderr
    report = _json(proc)
    tiers = {(e["path"], e["exact_edit"]["kind"]): e["safety_tier"] for e in report["entries"]}
    assert tiers == {
        ("plans/served.md", "delete"): "auto",
        ("scratch/old", "delete"): "auto",
        ("notes/dirty.md", "dedupe"): "auto",  # held at apply time: the file is dirty
        ("notes/guide.md", "dedupe"): "auto",  # canonical is notes/copy.md (path order)
        ("merge.orig", "delete"): "confirm",  # dirty
        ("untracked.bak", "delete"): "confirm",  # untracked
        ("sessions/s1.md", "delete"): "confirm",  # classifier-pending
    }
    status = {i["path"]: i["status"] for i in report["shortlist"]}
    assert status["plans/unserved.md"] == "unserved"
    assert status["plans/frozen.md"] == "frozen"
    assert status["scratch/recent"] == "retained"

    dry = run_cli(["clean", "--dry-run", "--no-input"], cwd=git_repo)
    assert "--- a/plans/served.md" in dry.stdout and "+++ /dev/null" in dry.stdout
    assert tree_bytes(git_repo) == before

    proc = run_cli(["clean", "--no-input", "--format", "json"], cwd=git_repo)
    assert proc.returncode == 1, proc.stderr  # confirm ops are still pending
    out = _json(proc)
    applied = {r["path"] for r in out["results"] if r["status"] == "applied"}
    assert applied == {"plans/served.md", "scratch/old", "notes/guide.md"}
    pending = {r["path"]: r["reason"] for r in out["results"] if r["status"] == "pending"}
    assert "not tracked and clean" in pending["notes/dirty.md"]
    assert set(pending) == {
        "notes/dirty.md",
        "merge.orig",
        "untracked.bak",
        "sessions/s1.md",
    }
    after = tree_bytes(git_repo)
    for untouched in (
        "merge.orig",
        "untracked.bak",
        "notes/dirty.md",
        "docs/site.md",
        "sessions/s1.md",
        "plans/frozen.md",
    ):
        assert after[untouched] == before[untouched], untouched
    assert "plans/served.md" not in after and not (git_repo / "scratch" / "old").exists()
    assert (
        SECTION not in after["notes/guide.md"].decode()
        and SECTION in after["notes/copy.md"].decode()
    )

    # A confirm op runs once approved; the report is re-checked (its files are unchanged).
    session_id = next(e["id"] for e in report["entries"] if e["path"] == "sessions/s1.md")
    proc2 = run_cli(
        ["clean", "--no-input", "--format", "json", "--approve", session_id], cwd=git_repo
    )
    out2 = _json(proc2)
    assert [r["path"] for r in out2["results"] if r["status"] == "applied"] == ["sessions/s1.md"]
    assert (git_repo / "merge.orig").read_bytes() == before["merge.orig"]

    for run_id in (out2["run_id"], out["run_id"]):
        undo = run_cli(["clean", "--undo", run_id], cwd=git_repo)
        assert undo.returncode == 0, undo.stdout + undo.stderr
    assert tree_bytes(git_repo) == before
    assert (git_repo / "scratch" / "old" / "run.sh").stat().st_mode & 0o777 == 0o755
    again = run_cli(["clean", "--undo", out["run_id"]], cwd=git_repo)
    assert "already undone" in again.stdout


def _crash_repo(repo: Path) -> None:
    for name in ("a", "b", "c", "d"):
        (repo / "plans").mkdir(exist_ok=True)
        (repo / "plans" / f"{name}.md").write_text(f"# {name}\n" * 200)
        (repo / "plans" / f"{name}.done").write_text("")
    (repo / "notes").mkdir()
    (repo / "notes" / "one.md").write_text("# One\n\n" + SECTION)
    (repo / "notes" / "two.md").write_text("# Two\n\n" + SECTION + "\n## More\n\nx\ny\n")
    commit_all(repo)


def test_crash_between_ops_leaves_no_half_written_file(git_repo: Path) -> None:
    _crash_repo(git_repo)
    before = tree_bytes(git_repo)
    assert run_cli(["check"], cwd=git_repo).returncode == 1
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "orchestrator.cli",
            "clean",
            "--no-input",
            "--root",
            str(git_repo),
        ],
        cwd=REPO,
        env={**os.environ, CRASH_ENV: "2"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 70, proc.stdout + proc.stderr  # killed after two ops
    after = tree_bytes(git_repo)
    gone = set(before) - set(after)
    changed = {p for p in after if after[p] != before.get(p)}
    assert len(gone) + len(changed) == 2  # exactly two ops landed, each completely
    assert not any(p.endswith(".tmp") for p in after)
    for p in changed:  # a dedupe is complete: the section is gone, the rest intact
        assert after[p] == before[p].replace(SECTION.encode(), b"")
    journals = sorted((git_repo / ".orchestrate" / "journal").iterdir())
    (run,) = journals
    undo = run_cli(["clean", "--undo", run.name], cwd=git_repo)
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert tree_bytes(git_repo) == before
