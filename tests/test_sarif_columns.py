"""SARIF columns in the unit the log declares: UTF-16 code units (`columnKind`).

Ruff counts columns in code points, ESLint in UTF-16 code units and the tree-sitter
fallback in UTF-8 bytes; SARIF's default (and what code scanning reads) is UTF-16. A
line with an emoji (outside the BMP: one code point, two UTF-16 units, four bytes)
before the finding tells the units apart: in the log, each result's region must slice
the flagged token out of the line's UTF-16 text, whichever tool reported it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import pytest
from helpers import eslint_path, new_repo, run_cli, sarif_schema

from orchestrator.core import plugin_host
from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.core.hookspecs import hookimpl
from orchestrator.model.checker import Batch, CheckerPlan, FileOutcome, FileTarget, RunContext
from orchestrator.model.report import Finding, Report, ScanInfo, Scope, normalize
from orchestrator.render.columns import codepoint_column, column_unit
from orchestrator.render.sarif import to_sarif
from orchestrator.vocab import ScopeStatus, Severity, Tier

PY_LINE = 's = "😀"; import os'
JS_LINE = 'var s = "😀"; var unused = 1;'
ESLINT_CONFIG = 'export default [{ rules: { "no-unused-vars": "error" } }];\n'


def _slice16(line: str, start: int, end: int) -> str:
    """Columns [start, end) of `line` (1-based UTF-16 code units) as text."""
    units = line.encode("utf-16-le")
    return units[(start - 1) * 2 : (end - 1) * 2].decode("utf-16-le")


def _regions(log: dict) -> dict[str, dict]:
    (run,) = log["runs"]
    return {r["ruleId"]: r["locations"][0]["physicalLocation"]["region"] for r in run["results"]}


@pytest.mark.e2e
def test_ruff_and_eslint_columns_both_count_utf16_units_in_one_run(tmp_path: Path) -> None:
    eslint_path()
    root = new_repo(
        tmp_path / "r",
        {"eslint.config.js": ESLINT_CONFIG, "a.py": PY_LINE + "\n", "a.js": JS_LINE + "\n"},
        initial_commit=False,
    )
    res = run_cli(["lint", "--no-tasks", "--format", "sarif"], cwd=root)
    assert res.returncode == 1, res.stderr
    log = json.loads(res.stdout)
    schema = sarif_schema()
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    (run,) = log["runs"]
    assert run["columnKind"] == "utf16CodeUnits"
    regions = _regions(log)
    ruff, eslint = regions["ruff/F401"], regions["eslint/no-unused-vars"]
    assert _slice16(PY_LINE, ruff["startColumn"], ruff["endColumn"]) == "os"
    assert _slice16(JS_LINE, eslint["startColumn"], eslint["endColumn"]) == "unused"
    # The JSON report keeps what each tool said (code points for Ruff).
    res = run_cli(["lint", "--no-tasks", "--format", "json"], cwd=root)
    (f401,) = [f for f in json.loads(res.stdout)["findings"] if f["rule"] == "F401"]
    assert f401["column"] == PY_LINE.index("os") + 1


class _Utf16Tool:
    """A third-party checker whose tool counts UTF-16 code units, as it declares."""

    name = "jsfast"
    tier = Tier.NATIVE
    languages = frozenset({"javascript"})
    config_names = ()
    column_unit = "utf16"

    def claims(self, target: FileTarget) -> bool:
        return target.path.endswith(".js")

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        return CheckerPlan(batches=(Batch(tuple(targets)),))

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        out = []
        for t in batch.targets:
            text = t.read_bytes().decode("utf-8")
            line = text.splitlines()[0]
            start = len(line[: line.index("unused")].encode("utf-16-le")) // 2 + 1
            finding = Finding(
                checker=self.name,
                rule="no-unused",
                severity=Severity.ERROR,
                path=t.path,
                line=1,
                column=start,
                end_line=1,
                end_column=start + len("unused"),
                blocking=True,
            )
            out.append(
                FileOutcome(
                    path=t.path,
                    checker=self.name,
                    status=ScopeStatus.CHECKED,
                    findings=(finding,),
                    language=t.language,
                )
            )
        return out


def test_a_plugin_that_declares_utf16_columns_gets_them_in_sarif_and_the_editor(
    tmp_path: Path,
) -> None:
    """The unit comes from the checker's declaration, not its name: a third-party UTF-16
    tool's columns after an emoji slice the flagged token in SARIF and in the LSP's
    code-point columns (both were off by one when only `eslint` was known as UTF-16)."""
    plugin = SimpleNamespace(orchestrate_checkers=hookimpl(lambda: [_Utf16Tool()]))
    (tmp_path / "a.js").write_text(JS_LINE + "\n", encoding="utf-8")
    report = run_lint(
        LintRequest(
            project_root=tmp_path,
            paths=[str(tmp_path / "a.js")],
            only_checkers=frozenset({"jsfast"}),
            plugins=plugin_host.load(extra_modules=[("jsfast", plugin)]),
        )
    )
    (f,) = report.findings
    assert f.column_unit == "utf16"
    region = _regions(to_sarif(report))["jsfast/no-unused"]
    assert _slice16(JS_LINE, region["startColumn"], region["endColumn"]) == "unused"
    assert codepoint_column(JS_LINE, f.column or 0, column_unit(f)) == JS_LINE.index("unused") + 1


def _report(root: Path, findings: list[Finding]) -> Report:
    scopes = [
        Scope(path=p, checker=c, status=ScopeStatus.CHECKED)
        for p, c in sorted({(f.path, f.checker) for f in findings})
    ]
    return normalize(
        Report(scan=ScanInfo(project_root=str(root)), scopes=scopes, findings=findings)
    )


def test_byte_columns_of_the_syntax_fallback_become_utf16_units(tmp_path: Path) -> None:
    line = 'String s = "😀é"; int x = ;'
    (tmp_path / "A.java").write_text(line + "\n", encoding="utf-8")
    start = len(line[: line.index("= ;")].encode()) + 1
    f = Finding(
        checker="treesitter",
        rule="syntax/error",
        severity=Severity.WARNING,
        path="A.java",
        line=1,
        column=start,
        end_line=1,
        end_column=start + 3,
        candidate=True,
        message="syntax candidate",
        column_unit="utf8",  # what the tree-sitter checker sets on a candidate
    )
    region = _regions(to_sarif(_report(tmp_path, [f])))["treesitter/syntax/error"]
    assert _slice16(line, region["startColumn"], region["endColumn"]) == "= ;"


def test_columns_stay_as_given_when_the_file_cannot_be_read(tmp_path: Path) -> None:
    """A report rendered away from its files (or a path that leaves the root) keeps the
    tool's columns: nothing outside the project is read to convert them."""
    outside = tmp_path / "outside.py"
    outside.write_text("😀😀😀😀 = 1\n", encoding="utf-8")
    root = tmp_path / "root"
    root.mkdir()
    (root / "link.py").symlink_to(outside)
    findings = [
        Finding(checker="ruff", rule="X1", severity=Severity.ERROR, path=p, line=1, column=6)
        for p in ("gone.py", "../outside.py", "link.py")
    ]
    (run,) = to_sarif(_report(root, findings))["runs"]
    cols = [r["locations"][0]["physicalLocation"]["region"]["startColumn"] for r in run["results"]]
    assert cols == [6, 6, 6]
