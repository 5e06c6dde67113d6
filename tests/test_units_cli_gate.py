"""`orchestrate gate commit|push|ci|commit-msg` called in process (cli/gate.py through
cli.main.main) in real git repositories with real Ruff: the decision's exit code, the
human summary and the JSON report, usage errors, and a fault that blocks (CG-02). The
installed hooks and the console script are tested end-to-end (tests/test_gate_hooks.py,
tests/test_gate_commit_msg.py)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from helpers import add_remote, git, new_repo
from secrets_support import AWS_KEY

from orchestrator.cli import gate as cli_gate
from orchestrator.cli.main import main
from orchestrator.vocab import ExitCode


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with one commit, the current folder of the test."""
    path = new_repo(tmp_path / "repo")
    monkeypatch.chdir(path)
    return path


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_gate_commit_allows_a_clean_index_and_denies_a_blocking_finding(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "ok.py").write_text("x = 1\n")
    git(repo, "add", "ok.py")
    assert main(["gate", "commit"]) == ExitCode.PASS
    out = capsys.readouterr().out
    assert out.startswith("orchestrate gate commit: allow: ")
    assert "  surface: index" in out
    (repo / "bad.py").write_text("import os\n")
    git(repo, "add", "bad.py")
    assert main(["gate", "commit"]) == ExitCode.FINDINGS
    out = capsys.readouterr().out
    assert out.startswith("orchestrate gate commit: deny: blocking findings")
    assert "bad.py" in out and "F401" in out


def test_gate_commit_json_is_the_report_with_its_decision(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "bad.py").write_text("import os\n")
    git(repo, "add", "bad.py")
    assert main(["gate", "commit", "--format", "json"]) == ExitCode.FINDINGS
    report = json.loads(capsys.readouterr().out)
    assert report["gate"]["decision"] == "deny"
    assert report["request"]["surface"] == "index"
    assert [f["rule"] for f in report["findings"]] == ["F401"]


def test_gate_ci_checks_the_named_revision(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "bad.py").write_text("import os\n")
    git(repo, "add", "bad.py")
    git(repo, "commit", "-q", "-m", "bad")
    head = git(repo, "rev-parse", "HEAD").strip()
    assert main(["gate", "ci", "--rev", "HEAD"]) == ExitCode.FINDINGS
    out = capsys.readouterr().out
    assert f"surface: revision at {head[:12]}" in out
    assert main(["gate", "ci", "--rev", "HEAD~1"]) == ExitCode.PASS


def test_gate_push_reads_the_pre_push_lines_from_stdin(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    add_remote(repo, tmp_path / "remote.git")
    (repo / "bad.py").write_text("import os\n")
    git(repo, "add", "bad.py")
    git(repo, "commit", "-q", "-m", "bad")
    local = git(repo, "rev-parse", "HEAD").strip()
    remote = git(repo, "rev-parse", "origin/main").strip()
    _stdin(monkeypatch, f"refs/heads/main {local} refs/heads/main {remote}\n".encode())
    code = main(["gate", "push", "origin", str(tmp_path / "remote.git")])
    out = capsys.readouterr().out
    assert code == ExitCode.FINDINGS, out
    assert out.startswith("orchestrate gate push: deny") and "bad.py" in out


def test_gate_commit_msg_denies_a_secret_without_echoing_it(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    msg = tmp_path / "msg.txt"
    msg.write_text(f"deploy notes\n\nkey {AWS_KEY}\n")
    assert main(["gate", "commit-msg", str(msg)]) == ExitCode.FINDINGS
    out = capsys.readouterr()
    assert "secret-aws-access-key-id" in out.out and AWS_KEY not in out.out + out.err
    msg.write_text("an ordinary message\n")
    assert main(["gate", "commit-msg", str(msg)]) == ExitCode.PASS


def test_gate_commit_msg_of_an_unreadable_file_is_a_usage_error(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gate", "commit-msg", str(tmp_path / "missing.txt")]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "cannot read the message file (FileNotFoundError)" in err


def test_a_non_positive_timeout_is_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gate", "commit", "--timeout", "0"]) == ExitCode.USAGE
    assert "--timeout must be positive" in capsys.readouterr().err


def test_a_fault_in_the_gate_blocks_with_exit_4_and_says_nothing_was_certified(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fake_gate(*args: object, **kwargs: object) -> object:
        raise RuntimeError("fake fault\nwith   spaces")

    monkeypatch.setattr(cli_gate, "gate", fake_gate)
    assert main(["gate", "commit"]) == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert "orchestrate gate commit: incomplete: internal fault (RuntimeError: fake fault" in err
    assert "with spaces" in err and "delivery blocked, nothing was certified" in err


def test_outside_a_repository_the_gate_is_a_usage_error_not_a_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "plain").mkdir()
    monkeypatch.chdir(tmp_path / "plain")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert main(["gate", "commit"]) == ExitCode.USAGE  # CG-06: no repository, no verdict
    captured = capsys.readouterr()
    assert captured.out == "" and "orchestrate" in captured.err


def test_the_parser_lists_each_event_and_the_legacy_protocol(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["gate", "--help"]) == 0
    out = capsys.readouterr().out
    for event in ("commit", "push", "ci", "commit-msg"):
        assert event in out
    assert main(["gate", "commit", "--help"]) == 0
    assert "--protocol" in capsys.readouterr().out
    assert main(["compat", "legacy-v1", "gate", "commit", "--help"]) == 0
    assert "--protocol" not in capsys.readouterr().out  # the legacy route has no choice
    assert main(["gate", "nope"]) == ExitCode.USAGE
