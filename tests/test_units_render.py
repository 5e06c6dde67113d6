"""Unit tests of the small render modules: display levels and coverage-gap grouping."""

from __future__ import annotations

import json

from orchestrator.model.report import Finding, Report, ScanInfo, Scope
from orchestrator.render.gaps import GapGroup, gap_groups
from orchestrator.render.levels import level, word
from orchestrator.render.lines import (
    concise,
    concise_line,
    escape_data,
    escape_property,
    github,
    jsonl,
)
from orchestrator.vocab import ScopeStatus, Severity


def _finding(severity: Severity, candidate: bool = False) -> Finding:
    return Finding(checker="ruff", rule="F401", severity=severity, path="a.py", candidate=candidate)


def test_level_follows_severity_and_candidates_are_notes() -> None:
    assert level(_finding(Severity.ERROR)) == "error"
    assert level(_finding(Severity.WARNING)) == "warning"
    assert level(_finding(Severity.INFO)) == "note"
    assert level(_finding(Severity.ERROR, candidate=True)) == "note"


def test_word_says_info_for_a_note() -> None:
    assert word(_finding(Severity.ERROR)) == "error"
    assert word(_finding(Severity.WARNING)) == "warning"
    assert word(_finding(Severity.INFO)) == "info"
    assert word(_finding(Severity.ERROR, candidate=True)) == "info"


def _scope(path: str, checker: str, status: ScopeStatus, **kw: str) -> Scope:
    return Scope(path=path, checker=checker, status=status, **kw)


def test_gap_groups_skip_checked_and_put_the_largest_first() -> None:
    report = Report(
        scan=ScanInfo(project_root="/p"),
        scopes=[
            _scope("ok.py", "ruff", ScopeStatus.CHECKED),
            _scope("x.rb", "rubocop", ScopeStatus.MISSING, reason="not installed"),
            _scope("a.js", "eslint", ScopeStatus.CONFIGURATION_REQUIRED, hint="add a config"),
            _scope("b.js", "eslint", ScopeStatus.CONFIGURATION_REQUIRED, hint="add a config"),
        ],
    )
    groups = gap_groups(report)
    assert [(g.checker, g.paths) for g in groups] == [
        ("eslint", ("a.js", "b.js")),
        ("rubocop", ("x.rb",)),
    ]
    assert groups[0].headline() == "eslint configuration_required: 2 files"
    assert groups[1].headline() == "rubocop missing: 1 file"
    assert groups[0].advice() == "hint: add a config"
    assert groups[1].advice() == "not installed"
    assert groups[1].text() == "rubocop missing: 1 file (x.rb) — not installed"


def test_gap_group_examples_say_how_many_more() -> None:
    group = GapGroup("eslint", "missing", None, None, tuple(f"{i}.js" for i in range(5)))
    assert group.count == 5
    assert group.examples() == "(0.js, 1.js, 2.js, and 2 more)"
    assert group.examples(shown=5) == "(0.js, 1.js, 2.js, 3.js, 4.js)"
    assert group.advice() == ""
    assert group.text() == "eslint missing: 5 files (0.js, 1.js, 2.js, and 2 more)"


def test_workflow_command_escapes() -> None:
    assert escape_data("50%\r\nnext") == "50%25%0D%0Anext"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"


def test_concise_line_defaults_position_and_marks_candidates() -> None:
    f = Finding(
        checker="ruff", rule="F401", severity=Severity.ERROR, path="a.py", line=3, message="unused"
    )
    line = concise_line(f)
    assert line.startswith("a.py:3:1: error ") and line.endswith(" unused")
    c = Finding(
        checker="treesitter", rule="syntax", severity=Severity.ERROR, path="b.c", candidate=True
    )
    assert concise_line(c).startswith("b.c:1:1: info ")
    assert "(syntax candidate)" in concise_line(c)


def test_github_and_jsonl_render_each_finding() -> None:
    f = Finding(checker="ruff", rule="F401", severity=Severity.WARNING, path="a,b.py", line=2)
    report = Report(scan=ScanInfo(project_root="/p"), findings=[f])
    assert "::warning file=a%2Cb.py,line=2" in github(report)
    rows = [json.loads(x) for x in jsonl(report).splitlines() if x]
    assert any(r.get("path") == "a,b.py" for r in rows)
    assert "a,b.py:2:1: warning" in concise(report)
