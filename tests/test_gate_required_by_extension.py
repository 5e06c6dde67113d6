"""Content picks a file's language but never lowers what a gate requires of it.

`{{` in an `.html` file makes it Jinja (no qualified grammar). Before this rule the gate
then required nothing of it: a page's content, which is untrusted, switched its own
syntax requirement off. The level is now the strictest among the detected language and
every language the extension may hold (decisions/required.level_for_path).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import git, new_repo, run_cli

from orchestrator.decisions.gate import evaluate_gate
from orchestrator.decisions.required import level_for_path
from orchestrator.model.report import Report, ScanInfo, Scope
from orchestrator.vocab import GateDecision, ScopeStatus, SyntaxStatus, Tier


@pytest.mark.parametrize(
    ("path", "language", "required", "want"),
    [
        ("t/page.html", "jinja", {}, ("syntax", "html")),
        ("t/page.html", "liquid", {}, ("syntax", "html")),
        ("t/page.html", "html", {}, ("syntax", None)),
        ("t/page.html", "jinja", {"html": "none"}, ("none", None)),
        ("t/page.html", "jinja", {"jinja": "none"}, ("syntax", "html")),
        ("t/page.j2", "jinja", {}, ("none", None)),
        ("app_de.ts", "xml", {}, ("native", "typescript")),
        ("app_de.ts", None, {}, ("native", "typescript")),
        ("x.h", "c", {}, ("none", None)),
        ("x.rs", "xml", {"rust": "syntax"}, ("syntax", "rust")),
        ("a.py", "python", {}, ("native", None)),
    ],
)
def test_the_level_is_the_strictest_the_extension_may_need(
    path: str, language: str | None, required: dict[str, str], want: tuple[str, str | None]
) -> None:
    assert level_for_path(path, language, required) == want


def _scopes(path: str, language: str, status: ScopeStatus, **kw: object) -> list[Scope]:
    return [
        Scope(path=path, checker="treesitter", tier=Tier.FALLBACK, status=status,
              language=language, **kw),  # type: ignore[arg-type]
        Scope(path=path, checker="secrets", tier=Tier.POLICY, status=ScopeStatus.CHECKED),
    ]  # fmt: skip


def test_a_template_in_an_html_file_is_a_gap_that_says_why_and_how_to_accept_it() -> None:
    report = Report(
        scan=ScanInfo(project_root="/p"),
        scopes=_scopes(
            "t/page.html", "jinja", ScopeStatus.UNQUALIFIED, reason="no qualified grammar"
        ),
    )
    gate = evaluate_gate(report, {})
    assert gate.decision is GateDecision.INCOMPLETE
    text = "\n".join([*gate.reasons, *gate.recovery])
    assert "content says jinja" in text and "(as html)" in text
    assert '[tool.orchestrate.required] html = "none"' in text
    assert evaluate_gate(report, {"html": "none"}).decision is GateDecision.ALLOW


def test_plain_html_checked_clean_still_allows() -> None:
    report = Report(
        scan=ScanInfo(project_root="/p"),
        scopes=_scopes("t/page.html", "html", ScopeStatus.CHECKED, syntax=SyntaxStatus.CLEAN),
    )
    assert evaluate_gate(report, {}).decision is GateDecision.ALLOW


@pytest.mark.e2e
def test_gate_commit_does_not_let_a_template_marker_switch_the_html_check_off(
    tmp_path: Path,
) -> None:
    repo = new_repo(tmp_path / "r")
    page = repo / "site" / "index.html"
    page.parent.mkdir()
    page.write_text("<!doctype html>\n<title>{{ title }}</title>\n<div><span</div>\n")
    git(repo, "add", "site/index.html")
    res = run_cli(["gate", "commit", "--format", "json"], cwd=repo)
    assert res.returncode == 3, res.stdout + res.stderr
    gate = json.loads(res.stdout)["gate"]
    assert gate["decision"] == "incomplete"
    assert any("content says jinja" in r for r in gate["reasons"]), gate["reasons"]
    # The project's reviewed policy may accept such pages: committed, it counts.
    (repo / "pyproject.toml").write_text('[tool.orchestrate.required]\nhtml = "none"\n')
    git(repo, "add", "pyproject.toml")
    git(repo, "commit", "-q", "--no-verify", "-m", "accept templates", "--", "pyproject.toml")
    assert git(repo, "diff", "--cached", "--name-only").split() == ["site/index.html"]
    res = run_cli(["gate", "commit", "--format", "json"], cwd=repo)
    assert res.returncode == 0, res.stdout + res.stderr
