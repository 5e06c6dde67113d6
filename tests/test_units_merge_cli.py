"""In-process tests of `report merge` (use case and presenter) and the small CLI helpers:
hook path shielding, bounded stdin, `--since` paths and `baseline`."""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

import pytest
from helpers import git, new_repo

from orchestrator.cli import baseline, hook_paths, lint_options, report, stdin
from orchestrator.cli import main as cli_main
from orchestrator.core.engine import LintRequest
from orchestrator.core.selection import parse_shard
from orchestrator.errors import UsageError
from orchestrator.usecases import requests
from orchestrator.usecases.lint import NO_TASKS, deadline_for, lint
from orchestrator.usecases.merge import load_shard_report, merge, merge_reports
from orchestrator.vocab import ExitCode

FILES = {f"m{i}.json": '{"a": 1}\n' for i in range(6)}


def _shard_report(root: Path, spec: str, out: Path) -> Path:
    req = LintRequest(
        project_root=root, timeout=deadline_for(None, False), cwd=root, shard=parse_shard(spec)
    )
    result = lint(req, NO_TASKS, baseline=False)
    out.write_text(result.report.model_dump_json(by_alias=True))
    return out


@pytest.fixture
def shards(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = new_repo(tmp_path / "r", FILES)
    return (
        root,
        _shard_report(root, "1/2", tmp_path / "s1.json"),
        _shard_report(root, "2/2", tmp_path / "s2.json"),
    )


def test_merged_shards_hold_every_file_and_pass(shards: tuple[Path, Path, Path]) -> None:
    _root, one, two = shards
    result = merge([one, two])
    assert result.exit_code == ExitCode.PASS
    paths = {s.path for s in result.report.scopes}
    assert set(FILES) <= paths
    assert len(result.report.shards) == 2


def test_a_missing_shard_is_incomplete(shards: tuple[Path, Path, Path]) -> None:
    _root, one, _two = shards
    assert merge([one]).exit_code == ExitCode.INCOMPLETE
    merged = merge_reports([load_shard_report(one)])
    assert len(merged.shards) == 1


def test_a_report_that_is_no_shard_report_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(UsageError, match="not a valid orchestrate report"):
        load_shard_report(bad)


def test_report_merge_presenter_prints_json(
    shards: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _root, one, two = shards
    args = argparse.Namespace(reports=[str(one), str(two)], format="json", output=None)
    assert report.cmd_merge(args) == ExitCode.PASS
    assert len(json.loads(capsys.readouterr().out)["shards"]) == 2


@pytest.mark.parametrize("spec", ["0/3", "4/3", "x", "1/0", "-1/2", "1/99999", "１/2", "1/2/3"])
def test_a_share_that_is_no_i_of_n_is_a_usage_error_of_lint(
    spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`lint --shard SPEC` exits 2 naming `--shard` unless SPEC is I/N with 1 <= I <= N
    (ASCII digits only), before anything is linted (tests/test_shard.py runs one
    through the console script)."""
    (tmp_path / "a.py").write_text("x = 1\n")
    code = cli_main.main(["lint", "--root", str(tmp_path), "--shard", spec, "--no-tasks"])
    assert code == ExitCode.USAGE, spec
    assert "--shard" in capsys.readouterr().err


def test_hook_paths_shield_option_like_file_names(tmp_path: Path) -> None:
    (tmp_path / "--exit-zero").write_text("")
    argv = ["lint", "--from-hook", "--exit-zero", "--format", "json"]
    assert hook_paths.shielded(argv, tmp_path) == [
        "lint",
        "--from-hook",
        "./--exit-zero",
        "--format",
        "json",
    ]
    assert hook_paths.shielded(["lint", "--exit-zero"], tmp_path) == ["lint", "--exit-zero"]
    after_end = ["lint", "--from-hook", "--", "--exit-zero"]
    assert hook_paths.shielded(after_end, tmp_path) == after_end


def test_stdin_is_read_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x" * (2 << 20))))
    data = stdin.read_stdin_bounded()
    assert len(data) == (1 << 20) + 1
    monkeypatch.setattr(sys, "stdin", None)
    assert stdin.read_stdin_bounded() == b""


def test_since_paths_lists_changed_files_within_the_named_paths(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"a/x.py": "x = 1\n", "b/y.py": "y = 1\n"})
    base = git(root, "rev-parse", "HEAD").strip()
    (root / "a" / "x.py").write_text("x = 2\n")
    (root / "b" / "y.py").write_text("y = 2\n")
    got = requests.since_paths(root, base, [], root)
    assert got.paths == [str(root / "a" / "x.py"), str(root / "b" / "y.py")]
    assert requests.since_paths(root, base, ["a"], root).paths == [str(root / "a" / "x.py")]
    with pytest.raises(UsageError, match="names no commit"):
        requests.since_paths(root, "no-such-ref", [], root)


def test_fix_options_that_exclude_each_other_are_usage_errors() -> None:
    args = argparse.Namespace(fix=True, diff=True, unsafe_fixes=False)
    with pytest.raises(UsageError, match="exclude each other"):
        lint_options.fix_run(args, None)
    args = argparse.Namespace(fix=False, diff=False, unsafe_fixes=True)
    with pytest.raises(UsageError, match="goes with --fix or --diff"):
        lint_options.fix_run(args, None)


def test_baseline_records_the_current_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = new_repo(tmp_path / "r", {"a.json": '{"a": \n'})
    assert baseline.cmd_baseline(argparse.Namespace(root=str(root))) == ExitCode.PASS
    assert "finding(s) recorded" in capsys.readouterr().out
    assert (root / ".orchestrate-baseline.json").is_file()
