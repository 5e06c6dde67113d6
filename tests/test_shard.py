"""`orchestrate lint --shard I/N` and `orchestrate report merge`: the shards of a run,
merged, are the unsharded run; a missing, repeated or foreign shard makes the merge
incomplete (exit 3), a report that is not a valid shard's report is refused (exit 2).

Real tools throughout: Ruff, the managed ESLint (tools/eslint), the bundled grammars,
and the real CLI in subprocesses.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers import VENV_BIN, eslint_path, new_repo, require_tool, run_cli

from orchestrator.cli import main as cli_main
from orchestrator.core.selection import files_digest, parse_shard, shard_of
from orchestrator.errors import UsageError

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

ESLINT_CONFIG = 'export default [{ rules: { "no-unused-vars": "error", "no-var": "warn" } }];\n'
#: Fields of a scope that are of how one run was laid out, not of what was judged:
#: its timing, and the exit status of the tool process that checked the file (one
#: process checks a batch of files, so it says whether any file of the batch failed,
#: and a shard's batches hold other files than the unsharded run's).
RUN_SHAPE_FIELDS = ("duration_ms", "exit_code")
#: Reuse off: every run judges afresh, so no scope carries a reuse mark.
ENV = {"ORCHESTRATE_REUSE": "0"}


def _tree() -> dict[str, str]:
    files = {"eslint.config.js": ESLINT_CONFIG, "README.txt": "plain text\n"}
    for i in range(24):
        files[f"py/m{i}.py"] = "import os\n" if i % 3 == 0 else f"value_{i} = {i}\n"
    for i in range(6):
        files[f"js/w{i}.js"] = "var x = 1;\n" if i % 2 else "export const y = 2;\n"
    for i in range(6):
        files[f"data/c{i}.json"] = '{"a": 1}\n' if i % 2 else '{"a": \n'
        files[f"data/d{i}.yaml"] = "a: 1\n"
        files[f"go/g{i}.go"] = "package main\n\nfunc main() {}\n"
    return files


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_tool("ruff", "pip install ruff", path=str(VENV_BIN / "ruff"))
    eslint_path()
    return new_repo(tmp_path_factory.mktemp("shard") / "r", _tree())


def _lint(repo: Path, out: Path, *extra: str) -> subprocess.Popen[str]:
    argv = [str(VENV_BIN / "orchestrate"), "lint", "--no-tasks", "--format", "json"]
    return subprocess.Popen(
        [*argv, "-o", str(out), *extra],
        cwd=repo,
        env={**os.environ, **ENV},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _shards(repo: Path, out: Path, n: int) -> list[Path]:
    """Run the N shards at once, as a CI matrix would, each its own process."""
    paths = [out / f"shard{i}.json" for i in range(1, n + 1)]
    procs = [_lint(repo, p, "--shard", f"{i}/{n}") for i, p in enumerate(paths, 1)]
    for proc in procs:
        _out, err = proc.communicate(timeout=180)
        assert proc.returncode in (0, 1), err
    return paths


def _merge(repo: Path, *reports: Path, fmt: str = "json", spawn: bool = False) -> tuple[int, Any]:
    """`orchestrate report merge REPORTS --format FMT` in `repo`: (exit code, the JSON
    it printed, else its stderr). In process (the CLI's own main: the merge reads only
    the reports), or with `spawn` through the console script."""
    argv = ["report", "merge", *map(str, reports), "--format", fmt]
    if spawn:
        done = run_cli(argv, cwd=repo, env=ENV)
        code, out, err = done.returncode, done.stdout, done.stderr
    else:
        out_io, err_io = io.StringIO(), io.StringIO()
        with (
            contextlib.chdir(repo),
            contextlib.redirect_stdout(out_io),
            contextlib.redirect_stderr(err_io),
        ):
            code = cli_main.main(argv)
        out, err = out_io.getvalue(), err_io.getvalue()
    assert not err or code == 2, err
    return code, (json.loads(out) if out else err)


def _judged(report: dict[str, Any]) -> dict[str, Any]:
    scopes = [{k: v for k, v in s.items() if k not in RUN_SHAPE_FIELDS} for s in report["scopes"]]
    return {"scopes": scopes, "findings": report["findings"], "coverage": report["coverage"]}


@pytest.fixture(scope="module")
def runs(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("reports")
    whole = _lint(repo, out / "whole.json")
    _o, err = whole.communicate(timeout=180)
    assert whole.returncode == 1, err
    return {
        "whole": json.loads((out / "whole.json").read_text()),
        "whole_exit": whole.returncode,
        "three": _shards(repo, out, 3),
        "out": out,
    }


def test_merged_shards_equal_the_unsharded_run(repo: Path, runs: dict[str, Any]) -> None:
    whole = runs["whole"]
    languages = {s["language"] for s in whole["scopes"]}
    assert {"python", "javascript", "json", "yaml", "go"} <= languages
    checkers = {s["checker"] for s in whole["scopes"]}
    assert {"ruff", "eslint", "treesitter"} <= checkers
    code, merged = _merge(repo, *runs["three"], spawn=True)  # the console script's merge
    assert code == runs["whole_exit"] == 1
    assert _judged(merged) == _judged(whole)
    assert merged["request"]["entry"] == "merge"
    assert [(s["index"], s["count"]) for s in merged["shards"]] == [(1, 3), (2, 3), (3, 3)]
    assert {s["files_digest"] for s in merged["shards"]} == {
        files_digest(s["path"] for s in whole["scopes"])
    }
    assert merged["scan"]["files_scanned"] == whole["scan"]["files_scanned"]


def test_each_shard_holds_its_share_and_records_its_identity(runs: dict[str, Any]) -> None:
    seen: set[str] = set()
    for i, path in enumerate(runs["three"], 1):
        report = json.loads(path.read_text())
        (ident,) = report["shards"]
        assert (ident["index"], ident["count"]) == (i, 3)
        assert ident["files"] == len({s["path"] for s in runs["whole"]["scopes"]})
        paths = {s["path"] for s in report["scopes"]}
        assert paths and all(shard_of(p, 3) == i for p in paths)
        assert not paths & seen
        seen |= paths
    assert seen == {s["path"] for s in runs["whole"]["scopes"]}


def test_a_missing_shard_makes_the_merge_incomplete(repo: Path, runs: dict[str, Any]) -> None:
    one, two, _three = runs["three"]
    code, merged = _merge(repo, one, two)
    assert code == 3
    assert merged["coverage"]["complete"] is False
    assert any("shard(s) missing: 3/3" in n for n in merged["notes"])
    assert len(merged["scopes"]) < len(runs["whole"]["scopes"])
    code, sarif = _merge(repo, one, two, fmt="sarif")
    invocation = sarif["runs"][0]["invocations"][0]
    assert code == 3 and invocation["executionSuccessful"] is False
    assert [s["index"] for s in invocation["properties"]["shards"]] == [1, 2]
    texts = [n["message"]["text"] for n in invocation["toolExecutionNotifications"]]
    assert "shard(s) missing: 3/3" in texts


def test_a_repeated_shard_is_incomplete_and_counted_once(repo: Path, runs: dict[str, Any]) -> None:
    one, two, three = runs["three"]
    code, merged = _merge(repo, one, two, three, two)
    assert code == 3
    assert any("given more than once: 2/3" in n for n in merged["notes"])
    assert _judged(merged)["scopes"] == _judged(runs["whole"])["scopes"]
    assert merged["findings"] == runs["whole"]["findings"]


def test_shards_of_different_n_or_trees_are_incomplete(
    repo: Path, runs: dict[str, Any], tmp_path: Path
) -> None:
    one, two, _three = runs["three"]
    (other,) = _shards(repo, tmp_path, 1)
    code, merged = _merge(repo, one, two, other)
    assert code == 3
    assert any("shards of different N merged: N=1, N=3" in n for n in merged["notes"])
    # The same shard 3/3, chosen from a tree with one more file.
    grown = new_repo(tmp_path / "grown", {**_tree(), "py/extra.py": "x = 1\n"})
    proc = _lint(grown, tmp_path / "g3.json", "--shard", "3/3")
    assert proc.wait(timeout=180) in (0, 1), proc.communicate()[1]
    code, merged = _merge(repo, one, two, tmp_path / "g3.json")
    assert code == 3
    assert any("different file lists" in n for n in merged["notes"])


def _write(path: Path, data: Any) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_reports_that_are_not_valid_shard_reports_are_refused(
    repo: Path, runs: dict[str, Any], tmp_path: Path
) -> None:
    one = json.loads(runs["three"][0].read_text())
    bad = {
        "not json": "{",
        "not a report": {"scopes": "many"},
        "no shard identity": {**one, "shards": []},
        "bad identity": {**one, "shards": [{**one["shards"][0], "index": 0}]},
        "forged share": {**one, "shards": [{**one["shards"][0], "index": 2}]},
        "unknown field": {**one, "extra": 1},
    }
    for name, data in bad.items():
        code, err = _merge(repo, _write(tmp_path / "bad.json", data))
        assert code == 2, name
        assert "bad.json" in err, name
    code, err = _merge(repo, tmp_path / "absent.json")
    assert code == 2 and "cannot read" in err


def test_shard_usage_errors_exit_2(repo: Path) -> None:
    """One bad share through the console script; every other spelling is judged in
    process (tests/test_units_merge_cli.py: the same main, the same exit)."""
    done = run_cli(["lint", "--shard", "0/3", "--no-tasks"], cwd=repo, env=ENV)
    assert done.returncode == 2, done.stderr
    assert "--shard" in done.stderr
    for spec in ("0/3", "4/3", "x", "3", ""):
        with pytest.raises(UsageError):
            parse_shard(spec)
    assert parse_shard("3/4").index == 3


def test_shares_are_balanced_and_stable_when_files_are_added() -> None:
    paths = [f"pkg{i % 37}/module_{i}.py" for i in range(4000)]
    for n in (2, 3, 8):
        sizes = [sum(1 for p in paths if shard_of(p, n) == i) for i in range(1, n + 1)]
        mean = len(paths) / n
        assert all(abs(s - mean) < 0.1 * mean for s in sizes), (n, sizes)
    before = {p: shard_of(p, 4) for p in paths}
    added = [f"new/file_{i}.js" for i in range(500)]
    assert {p: shard_of(p, 4) for p in paths} == before  # an added file moves no other
    assert {shard_of(p, 4) for p in added} == {1, 2, 3, 4}
    # One more shard moves only the files the new shard takes.
    moved = [p for p in paths if shard_of(p, 5) != before[p]]
    assert all(shard_of(p, 5) == 5 for p in moved)
    assert 0.1 * len(paths) < len(moved) < 0.3 * len(paths)


def test_a_merge_short_of_its_files_is_incomplete(
    repo: Path, runs: dict[str, Any], tmp_path: Path
) -> None:
    """A shard's report that lacks files of its share, or one that names shares it does
    not hold, never makes a merge complete: the merged files must be the run's list."""
    one, two, three = (json.loads(p.read_text()) for p in runs["three"])
    # One report claiming every share of the run, holding only its own.
    claims_all = {**one, "shards": [*one["shards"], *two["shards"], *three["shards"]]}
    code, merged = _merge(repo, _write(tmp_path / "all.json", claims_all))
    assert code == 3, merged
    assert merged["coverage"]["complete"] is False
    held = len({s["path"] for s in one["scopes"]})
    total = one["shards"][0]["files"]
    assert any(f"hold {held} of the {total} files" in n for n in merged["notes"])
    # A shard's report with one file of its share dropped.
    gone = one["scopes"][0]["path"]
    short = {
        **one,
        "scopes": [s for s in one["scopes"] if s["path"] != gone],
        "findings": [f for f in one["findings"] if f["path"] != gone],
    }
    code, merged = _merge(
        repo, _write(tmp_path / "short.json", short), runs["three"][1], runs["three"][2]
    )
    assert code == 3, merged
    assert merged["coverage"]["complete"] is False
    assert any(f"hold {total - 1} of the {total} files" in n for n in merged["notes"])
    # The whole set still merges complete as its unsharded run.
    code, merged = _merge(repo, *runs["three"])
    assert not any("files" in n and "hold" in n for n in merged["notes"])


def test_a_report_read_past_its_size_bound_is_refused(repo: Path, tmp_path: Path) -> None:
    """The size bound holds for what is read, not for what a stat says: a report from
    a pipe (or a file that grows) longer than the bound is refused unparsed."""
    from orchestrator.hygiene.validate import MAX_REPORT_BYTES

    fifo = tmp_path / "shard.json"
    os.mkfifo(fifo)

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError), open(fifo, "wb") as w:
            chunk = b" " * (1 << 20)
            for _ in range(MAX_REPORT_BYTES // len(chunk) + 2):
                w.write(chunk)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    code, err = _merge(repo, fifo)
    writer.join(60)
    assert code == 2 and f"report larger than {MAX_REPORT_BYTES} bytes" in err, err
