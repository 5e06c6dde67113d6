"""The readable formats collapse what the machine formats keep whole (issue 27, "a report a
maintainer reads"): an unqualified grammar's syntax candidates are one gap line per language,
and files nobody lints are one count; JSON and SARIF keep every candidate and every scope.
Built in process from report records (render/gaps.py, render/human.py, render/lines.py)."""

from __future__ import annotations

import json
from io import StringIO

from rich.console import Console

from orchestrator.decisions.coverage import nothing_to_check
from orchestrator.model.report import Finding, Report, ScanInfo, Scope
from orchestrator.render.gaps import gap_groups
from orchestrator.render.human import render
from orchestrator.render.lines import concise, github
from orchestrator.render.sarif import sarif_chunks
from orchestrator.vocab import (
    BINARY_REASON,
    NO_CHECKER_REASON,
    SELECTION_CHECKER,
    ScopeStatus,
    Severity,
    Tier,
)

UNQUALIFIED = "grammar not qualified: candidates only"


def _candidate(path: str, line: int) -> Finding:
    return Finding(
        checker="treesitter",
        rule="syntax/error",
        severity=Severity.INFO,
        path=path,
        line=line,
        message="possible syntax error (tree-sitter recovery node)",
        candidate=True,
    )


def _report() -> Report:
    """1,000 candidates: 300 C files with 3 each and 100 Lua files with 1, one confirmed
    syntax error, one Ruff finding, and three files nobody lints."""
    scopes, findings = [], []
    for i in range(300):
        path = f"src/f{i:03}.c"
        scopes.append(
            Scope(
                path=path,
                checker="treesitter",
                status=ScopeStatus.UNQUALIFIED,
                language="c",
                reason=UNQUALIFIED,
            )
        )
        findings += [_candidate(path, n) for n in (1, 2, 3)]
    for i in range(100):
        path = f"lua/s{i:03}.lua"
        scopes.append(
            Scope(
                path=path,
                checker="treesitter",
                status=ScopeStatus.UNQUALIFIED,
                language="lua",
                reason=UNQUALIFIED,
            )
        )
        findings.append(_candidate(path, 1))
    scopes += [
        Scope(
            path="a.py",
            checker="ruff",
            tier=Tier.NATIVE,
            status=ScopeStatus.CHECKED,
            language="python",
        ),
        Scope(
            path="bad.toml",
            checker="treesitter",
            tier=Tier.FALLBACK,
            status=ScopeStatus.CHECKED,
            language="toml",
        ),
        Scope(
            path="LICENSE",
            checker=SELECTION_CHECKER,
            status=ScopeStatus.UNSUPPORTED,
            reason=NO_CHECKER_REASON,
        ),
        Scope(
            path="d.csv",
            checker=SELECTION_CHECKER,
            status=ScopeStatus.UNSUPPORTED,
            reason=f"{NO_CHECKER_REASON} (csv)",
        ),
        Scope(
            path="logo.png",
            checker=SELECTION_CHECKER,
            status=ScopeStatus.NOT_RUN,
            reason=BINARY_REASON,
        ),
        # Not "nothing to check": the language is undecided, a gap a person must see.
        Scope(
            path="x.h",
            checker=SELECTION_CHECKER,
            status=ScopeStatus.UNSUPPORTED,
            reason="ambiguous: c or cpp",
        ),
    ]
    findings += [
        Finding(
            checker="ruff",
            rule="F401",
            severity=Severity.ERROR,
            path="a.py",
            line=1,
            message="unused",
        ),
        Finding(
            checker="treesitter",
            rule="syntax/confirmed",
            severity=Severity.ERROR,
            path="bad.toml",
            line=2,
            message="syntax error (confirmed by python tomllib)",
            blocking=True,
        ),
    ]
    return Report(scan=ScanInfo(project_root="/p"), scopes=scopes, findings=findings)


def _human(report: Report) -> str:
    buf = StringIO()
    render(report, Console(file=buf, no_color=True, width=200))
    return buf.getvalue()


def test_the_readable_formats_give_one_gap_line_per_language_and_list_no_candidate() -> None:
    report = _report()
    for text in (_human(report), concise(report), github(report)):
        lines = text.splitlines()
        c = [
            ln
            for ln in lines
            if "treesitter unqualified (c): 300 files, 900 syntax candidates" in ln
        ]
        lua = [
            ln
            for ln in lines
            if "treesitter unqualified (lua): 100 files, 100 syntax candidates" in ln
        ]
        assert len(c) == 1 and len(lua) == 1, text[:2000]
        assert "confirm: cc -fsyntax-only <file>" in c[0]
        # No candidate is listed on its own line; the real findings are.
        assert not [ln for ln in lines if "possible syntax error" in ln], text[:2000]
        assert sum("unused" in ln for ln in lines) == 1
        assert sum("confirmed by python tomllib" in ln for ln in lines) == 1
        # Three files nobody lints: one count; the undecided header stays a gap of its own.
        assert sum("3 files with nothing to check" in ln for ln in lines) == 1, text[-2000:]
        assert not [ln for ln in lines if "LICENSE" in ln or "logo.png" in ln]
        assert sum("ambiguous: c or cpp" in ln for ln in lines) == 1
        assert len(lines) < 30, len(lines)


def test_json_and_sarif_keep_every_candidate_and_every_scope() -> None:
    report = _report()
    data = json.loads(report.model_dump_json())
    assert sum(f["candidate"] for f in data["findings"]) == 1000
    assert {s["path"] for s in data["scopes"]} >= {"LICENSE", "d.csv", "logo.png"}
    sarif = json.loads("".join(sarif_chunks(report)))
    results = [r for run in sarif["runs"] for r in run["results"]]
    assert len(results) == 1002


def test_nothing_to_check_is_only_files_no_checker_knows_or_binary() -> None:
    def s(status: ScopeStatus, reason: str, checker: str = SELECTION_CHECKER) -> Scope:
        return Scope(path="f", checker=checker, status=status, reason=reason)

    assert nothing_to_check(s(ScopeStatus.UNSUPPORTED, NO_CHECKER_REASON))
    assert nothing_to_check(s(ScopeStatus.UNSUPPORTED, f"{NO_CHECKER_REASON} (csv)"))
    assert nothing_to_check(s(ScopeStatus.NOT_RUN, BINARY_REASON))
    assert not nothing_to_check(s(ScopeStatus.UNSUPPORTED, "ambiguous: c or cpp"))
    assert not nothing_to_check(s(ScopeStatus.NOT_RUN, "cannot read: Permission denied"))
    assert not nothing_to_check(s(ScopeStatus.NOT_RUN, "file too large (9 bytes > 8)"))
    # A checker's own unsupported scope is a gap, never "nothing to check".
    assert not nothing_to_check(s(ScopeStatus.UNSUPPORTED, NO_CHECKER_REASON, checker="ruff"))
    groups = gap_groups(_report())
    assert all(not g.paths[0].startswith(("LICENSE", "logo")) for g in groups)


def test_coverage_per_language_counts_each_file_once_in_its_best_class() -> None:
    from orchestrator.decisions.coverage import language_coverage

    scopes = [
        Scope(
            path="a.py",
            checker="ruff",
            tier=Tier.NATIVE,
            status=ScopeStatus.CHECKED,
            language="python",
        ),
        Scope(path="a.py", checker="secrets", tier=Tier.POLICY, status=ScopeStatus.CHECKED),
        Scope(
            path="b.py",
            checker="ruff",
            tier=Tier.NATIVE,
            status=ScopeStatus.TOOL_ERROR,
            language="python",
        ),
        Scope(
            path="b.py",
            checker="treesitter",
            tier=Tier.FALLBACK,
            status=ScopeStatus.CHECKED,
            language="python",
        ),
        Scope(
            path="c.c",
            checker="treesitter",
            tier=Tier.FALLBACK,
            status=ScopeStatus.UNQUALIFIED,
            language="c",
        ),
        Scope(
            path="d.rb",
            checker="ruby",
            tier=Tier.NATIVE,
            status=ScopeStatus.MISSING,
            language="ruby",
        ),
        Scope(
            path="LICENSE",
            checker=SELECTION_CHECKER,
            status=ScopeStatus.UNSUPPORTED,
            reason=NO_CHECKER_REASON,
        ),
    ]
    assert language_coverage(scopes) == {
        "python": {"native": 1, "syntax": 1, "candidates": 0, "nothing": 0},
        "c": {"native": 0, "syntax": 0, "candidates": 1, "nothing": 0},
        "ruby": {"native": 0, "syntax": 0, "candidates": 0, "nothing": 1},
    }


def test_the_human_summary_shows_a_bar_per_language() -> None:
    text = _human(_report())
    head = text[: text.index("with nothing to check")]
    rows = {
        ln.split()[0]: ln
        for ln in head.splitlines()
        if ln.strip().startswith(("c ", "lua ", "python ", "toml "))
    }
    assert set(rows) == {"c", "lua", "python", "toml"}, head
    assert "░" * 16 in rows["c"] and "300" in rows["c"]
    assert "█" * 16 in rows["python"] and "▓" * 16 in rows["toml"]
