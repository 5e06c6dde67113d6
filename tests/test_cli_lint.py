"""End-to-end `orchestrate lint` through the console script: the issue's acceptance folder."""

from __future__ import annotations

import json
import stat
import subprocess
import time
from pathlib import Path

import jsonschema
import pytest
from helpers import run_cli, sarif_schema, set_machine_tool

from orchestrator.model.report import json_schema

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


def _acceptance_folder(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "unused.py").write_text("import os\n")
    (root / "broken.py").write_text("x = 1\ndef f(:\n    pass\n")
    (root / "main.go").write_text('package main\n\nfunc main() {\n\tprintln("a"\n}\n')
    (root / "thing.xyz").write_text("?\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    (root / "escape.txt").symlink_to(outside)
    return root


def _scope(report: dict, path: str) -> list[dict]:
    return [s for s in report["scopes"] if s["path"] == path]


def test_acceptance_folder_json(tmp_path: Path) -> None:
    root = _acceptance_folder(tmp_path)
    res = run_cli(["lint", ".", "--format", "json"], cwd=root)
    assert res.returncode == 1, res.stderr
    report = json.loads(res.stdout)
    jsonschema.validate(report, json_schema())
    (unused,) = _scope(report, "unused.py")
    assert (unused["checker"], unused["status"]) == ("ruff", "checked")
    (broken,) = _scope(report, "broken.py")
    assert broken["status"] == "checked"
    assert any(f["path"] == "broken.py" and f["line"] == 2 for f in report["findings"])
    (go,) = _scope(report, "main.go")
    assert (go["checker"], go["status"], go["syntax"]) == (
        "treesitter",
        "checked",
        "suspected_issue",
    )
    assert any(f["path"] == "main.go" and f["line"] == 4 for f in report["findings"])
    assert _scope(report, "thing.xyz")[0]["status"] == "unsupported"
    assert _scope(report, "escape.txt")[0]["status"] == "unsafe"
    assert "secret" not in res.stdout
    assert report["gate"]["decision"] == "not_evaluated"


def test_acceptance_folder_sarif_validates(tmp_path: Path) -> None:
    root = _acceptance_folder(tmp_path)
    res = run_cli(["lint", ".", "--format", "sarif"], cwd=root)
    sarif = json.loads(res.stdout)
    schema = sarif_schema()
    jsonschema.validators.validator_for(schema)(schema).validate(sarif)
    inv = sarif["runs"][0]["invocations"][0]
    assert inv["executionSuccessful"] is False
    ids = sorted(n["descriptor"]["id"] for n in inv["toolExecutionNotifications"])
    assert ids == ["unsafe", "unsupported"]


def test_human_verdict_never_claims_all_passed(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "ok.py").write_text("x = 1\n")
    (root / "thing.xyz").write_text("?\n")
    res = run_cli(["lint", "."], cwd=root)
    assert res.returncode == 0
    # thing.xyz: no checker knows it. The verdict says so (a file nobody lints is
    # counted as such, issue 27), and speaks only of the scopes it checked.
    verdict = res.stdout.splitlines()[-1]
    assert "1 unlintable file" in verdict and "(1 checked scope)" in verdict, verdict
    assert "passed" not in res.stdout.lower()


def test_output_is_written_atomically(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "ok.py").write_text("x = 1\n")
    out = tmp_path / "report.json"
    res = run_cli(["lint", ".", "--format", "json", "--output", str(out)], cwd=root)
    assert res.returncode == 0 and res.stdout == ""
    assert json.loads(out.read_text())["coverage"]["native_files"] == 1


def test_hanging_tool_times_out_within_deadline(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    fake = tmp_path / "fake_ruff"
    fake.write_text('#!/bin/sh\ncase "$1" in --version) echo "ruff 0.0.1";; *) sleep 60;; esac\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    set_machine_tool("ruff", f"{fake}")
    (root / "a.py").write_text("x = 1\n")
    (root / "b.json").write_text('{"ok": true}\n')
    start = time.monotonic()
    res = run_cli(["lint", ".", "--timeout", "2", "--format", "json"], cwd=root)
    wall = time.monotonic() - start
    # About 3 s on a quiet machine (the deadline plus process start-up). The bound only
    # has to tell "killed at the deadline" from "waited for the 60 s sleep": a tight
    # wall-clock bound would measure the machine's load, not the deadline.
    assert wall < 20, wall
    report = json.loads(res.stdout)
    (a,) = _scope(report, "a.py")
    assert a["status"] == "timed_out"
    assert res.returncode == 3  # a planned check that timed out: incomplete, not a pass
    (b,) = _scope(report, "b.json")
    assert b["status"] == "checked"  # the rest of the report is intact


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run_cli(["lint", "--bogus"], cwd=tmp_path).returncode == 2
    res = run_cli(["lint", "does-not-exist.py"], cwd=tmp_path)
    assert res.returncode == 2 and "does not exist" in res.stderr
    assert run_cli(["lint", "--jobs", "0", "."], cwd=tmp_path).returncode == 2


def test_require_native_exits_3_when_tool_missing(tmp_path: Path) -> None:
    set_machine_tool("ruff", "/nonexistent/ruff")
    (tmp_path / "a.py").write_text("x = 1\n")
    res = run_cli(["lint", "a.py", "--require", "native", "--format", "json"], cwd=tmp_path)
    assert res.returncode == 3
    assert run_cli(["lint", "a.py"], cwd=tmp_path).returncode == 0


def test_plugins_and_schema_commands(tmp_path: Path) -> None:
    res = run_cli(["plugins", "--format", "json"], cwd=tmp_path)
    rows = {r["name"]: r for r in json.loads(res.stdout)}
    assert rows["ruff"]["status"] == "loaded" and rows["ruff"]["version"]
    assert rows["treesitter"]["status"] == "loaded"
    schema = json.loads(run_cli(["schema"], cwd=tmp_path).stdout)
    assert schema["title"] == "orchestrate report"


def test_empty_run_is_never_complete(tmp_path: Path) -> None:
    """An empty run (nothing in scope) fails every --require level, and the report,
    the exit code and the verdict line say the same thing."""
    root = tmp_path / "empty"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for level in ("complete", "native", "syntax"):
        res = run_cli(["lint", "--require", level, "--no-tasks", "--format", "json"], cwd=root)
        assert res.returncode == 3, (level, res.stderr)
        report = json.loads(res.stdout)
        assert report["coverage"]["complete"] is False
        assert any("no file was checked" in n for n in report["notes"])
    res = run_cli(["lint", "--no-tasks"], cwd=root)
    assert res.returncode == 0
    assert "nothing was checked" in res.stdout
