"""The JSON report written row by row (to bound memory) is byte for byte the report's
`model_dump_json(indent=2)` plus a newline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli

from orchestrator.model.report import Finding, Report, ScanInfo, Scope
from orchestrator.render.output import emit_report, json_chunks
from orchestrator.vocab import ScopeStatus, Severity


def _expected(report: Report) -> bytes:
    return report.model_dump_json(indent=2).encode() + b"\n"


def test_rows_with_odd_text_and_empty_lists_match_the_whole_dump(tmp_path: Path) -> None:
    empty = Report(scan=ScanInfo(project_root="/p"))
    assert b"".join(json_chunks(empty)) == _expected(empty)
    odd = 'line\nbreak "quoted" \\ tab\t é ☃ \x1b[31m \u2028'
    report = Report(
        scan=ScanInfo(project_root="/p"),
        scopes=[
            Scope(path=f"d/{i}\n.py", checker="ruff", status=ScopeStatus.CHECKED, reason=odd)
            for i in range(3)
        ],
        findings=[
            Finding(checker="ruff", rule="F401", severity=Severity.ERROR, path="a.py", message=odd)
        ],
        notes=['"scopes": []', odd],
    )
    assert b"".join(json_chunks(report)) == _expected(report)


@pytest.mark.e2e
def test_a_real_lint_report_written_to_a_file_matches(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import os\nimport sys\n")
    (tmp_path / "b.json").write_text('{"a": [1, 2,]}\n')
    out = tmp_path / "r.json"
    proc = run_cli(["lint", ".", "--no-tasks", "--format", "json", "-o", str(out)], cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    report = Report.model_validate(json.loads(out.read_bytes()))
    assert report.findings and report.scopes
    assert out.read_bytes() == _expected(report)
    printed = run_cli(["lint", ".", "--no-tasks", "--format", "json"], cwd=tmp_path).stdout
    assert json.loads(printed)["findings"] == json.loads(out.read_bytes())["findings"]
    emit_report(report, "json", str(tmp_path / "again.json"))
    assert (tmp_path / "again.json").read_bytes() == _expected(report)


def test_compacted_rows_share_no_values_only_their_field_names() -> None:
    """`compact` shares pydantic's set of field names between rows: assigning to one row
    leaves every other row as it was, and the JSON of each is unchanged."""
    from orchestrator.model.report import compact

    a = Scope(path="a.py", checker="ruff", status=ScopeStatus.CHECKED)
    b = Scope(path="b.py", checker="ruff", status=ScopeStatus.CHECKED)
    before = (a.model_dump_json(), b.model_dump_json())
    compact(a), compact(b)
    assert (a.model_dump_json(), b.model_dump_json()) == before
    a.reused = "identical inputs"
    assert b.reused is None and b.model_dump_json() == before[1]
    assert a.model_dump()["reused"] == "identical inputs"
