"""`orchestrate check` and `orchestrate clean` called in process (cli/hygiene.py through
cli.main.main) in a real git repository, in their human form (hygiene/render.py): what
check lists, the dry run's diff, what clean applied and left pending, undo, and the
refusals. The JSON form as processes is in tests/test_hygiene_e2e.py (end-to-end)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import new_repo
from hygiene_helpers import age, commit_all, tree_bytes

from orchestrator.cli.main import main
from orchestrator.vocab import ExitCode


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with a served plan (auto op) and an untracked leftover (confirm op)."""
    path = new_repo(tmp_path / "repo")
    for rel, text in {
        "plans/served.md": "# Served plan\nship it\n",
        "plans/served.done": "",
    }.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(text)
    commit_all(path)
    (path / "untracked.bak").write_text("only copy\n")
    age(path / "untracked.bak", 1)
    monkeypatch.chdir(path)
    return path


def test_check_lists_what_clean_would_do_and_writes_the_report(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check"]) == 1  # entries found
    out = capsys.readouterr().out
    for path in ("plans/served.md", "untracked.bak"):
        assert path in out
    assert (repo / ".orchestrate" / "runs" / "hygiene-report.json").is_file()


def test_clean_dry_run_prints_the_diff_and_changes_nothing(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["check"])
    capsys.readouterr()
    before = tree_bytes(repo)
    main(["clean", "--dry-run", "--no-input"])
    out = capsys.readouterr().out
    assert "--- a/plans/served.md" in out and "+++ /dev/null" in out
    assert tree_bytes(repo) == before


def test_clean_applies_auto_ops_leaves_confirm_ops_and_undo_restores(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["check"])
    capsys.readouterr()
    before = tree_bytes(repo)
    assert main(["clean", "--no-input"]) == 1  # a confirm op is still pending
    out = capsys.readouterr().out
    assert not (repo / "plans" / "served.md").exists()
    assert (repo / "untracked.bak").read_text() == "only copy\n"
    assert "applied " in out and "plans/served.md [auto]" in out
    assert "untracked.bak [confirm]: awaiting approval" in out
    assert "approve with: orchestrate clean --approve hy-" in out
    found = re.search(r"undo with `orchestrate clean --undo (\S+)`", out)
    assert found is not None
    latest = found.group(1)
    assert main(["clean", "--undo", latest]) == ExitCode.PASS
    capsys.readouterr()
    assert tree_bytes(repo) == before
    assert main(["clean", "--undo", latest]) == ExitCode.PASS
    assert "already undone" in capsys.readouterr().out


def test_clean_refuses_an_unknown_run_and_an_invalid_report(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["clean", "--undo", "no-such-run"]) == ExitCode.USAGE
    assert "no journal for run no-such-run" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "nope"}')
    assert main(["clean", str(bad), "--no-input"]) == ExitCode.USAGE
    assert "refusing an invalid report" in capsys.readouterr().err
