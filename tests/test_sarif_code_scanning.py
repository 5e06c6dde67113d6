"""SARIF that GitHub code scanning can use: what its SARIF documentation requires of a
result (ruleId, a location, message.text, partialFingerprints.primaryLocationLineHash)
and of a run (at most 25,000 results; rule metadata), checked on real Ruff, ESLint and
tree-sitter output and validated against the OASIS schema."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pytest
from helpers import VENV_BIN, eslint_path, new_repo, run_cli, sarif_schema

from orchestrator.model.report import Finding, Report, ScanInfo, Scope
from orchestrator.render.sarif import MAX_RESULTS, MAX_RULES, to_sarif
from orchestrator.vocab import ScopeStatus, Severity

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

ESLINT_CONFIG = 'export default [{ rules: { "no-unused-vars": "error" } }];\n'
ODD_NAME = "odd name:50%#x.py"
LINE_HASH = re.compile(r"^[0-9a-f]{16}:[1-9][0-9]*$")


def _project(tmp_path: Path) -> Path:
    eslint_path()
    return new_repo(
        tmp_path / "r",
        {
            "eslint.config.js": ESLINT_CONFIG,
            "a.js": "var unused = 1;\n",
            "bad.py": "import os\n",
            ODD_NAME: "import sys\n",
            # Java: no exact parser confirms it, so it stays a syntax candidate.
            "Broken.java": "class Broken {\n\n  void main( {\n}\n",
            "notes.xyz": "?\n",
        },
        initial_commit=False,
    )


def _sarif(root: Path) -> dict:
    res = run_cli(["lint", "--no-tasks", "--format", "sarif"], cwd=root)
    assert res.returncode == 1, res.stderr
    log = json.loads(res.stdout)
    schema = sarif_schema()
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    return log


def _ruff_url(root: Path, name: str) -> str:
    out = subprocess.run(
        [str(VENV_BIN / "ruff"), "check", "--output-format", "json", "--no-cache", name],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return json.loads(out)[0]["url"]


def test_every_result_has_what_code_scanning_requires(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (run,) = _sarif(root)["runs"]
    results = run["results"]
    assert {r["ruleId"] for r in results} == {
        "eslint/no-unused-vars",
        "ruff/F401",
        "treesitter/syntax/error",
    }
    components = run["tool"]["extensions"]
    for r in results:
        assert r["message"]["text"]
        assert LINE_HASH.match(r["partialFingerprints"]["primaryLocationLineHash"])
        (loc,) = r["locations"]
        art = loc["physicalLocation"]["artifactLocation"]
        assert art["uriBaseId"] == "%SRCROOT%"
        region = loc["physicalLocation"]["region"]
        assert {"startLine", "startColumn", "endLine", "endColumn"} <= set(region)
        comp = components[r["rule"]["toolComponent"]["index"]]
        assert comp["name"] == r["ruleId"].split("/")[0]
        assert comp["rules"][r["rule"]["index"]]["id"] == r["ruleId"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == root.resolve().as_uri() + "/"
    assert run["automationDetails"]["id"].startswith("orchestrate/lint/")
    uris = {
        unquote(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results
    }
    assert ODD_NAME in uris
    assert "odd%20name%3A50%25%23x.py" in json.dumps(results)
    notes = run["invocations"][0]["toolExecutionNotifications"]
    for n in notes:
        assert n["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    assert all(a["location"]["uriBaseId"] == "%SRCROOT%" for a in run["artifacts"])


def test_rules_carry_the_tools_own_descriptions_and_links(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (run,) = _sarif(root)["runs"]
    rules = {r["id"]: (c, r) for c in run["tool"]["extensions"] for r in c["rules"]}
    for _, rule in rules.values():
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["text"]
    eslint_comp, eslint = rules["eslint/no-unused-vars"]
    assert eslint["helpUri"] == "https://eslint.org/docs/latest/rules/no-unused-vars"
    assert eslint["shortDescription"]["text"] == "Disallow unused variables"
    assert eslint_comp["version"].lstrip("v").split(".")[0] == "9"
    _, ruff = rules["ruff/F401"]
    assert ruff["helpUri"] == _ruff_url(root, "bad.py")
    assert ruff["helpUri"] in ruff["help"]["markdown"]
    # The fallback grammar publishes no documentation: no link is made up for it.
    _, syntax = rules["treesitter/syntax/error"]
    assert "helpUri" not in syntax and "no documentation link" in syntax["help"]["text"]


def test_levels_follow_our_severity_and_candidates_are_notes(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (run,) = _sarif(root)["runs"]
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels == {
        "eslint/no-unused-vars": "error",
        "ruff/F401": "error",
        "treesitter/syntax/error": "note",
    }


def test_the_line_hash_survives_a_line_move_and_counts_identical_lines(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"a.py": "import os\n"}, initial_commit=False)

    def hashes() -> list[str]:
        (run,) = _sarif(root)["runs"]
        return [r["partialFingerprints"]["primaryLocationLineHash"] for r in run["results"]]

    (before,) = hashes()
    (root / "a.py").write_text('"""Doc."""\n\nimport os\n')
    assert hashes() == [before]
    assert before.endswith(":1")
    (root / "a.py").write_text("def f():\n    import os\n\n\ndef g():\n    import os\n")
    first, second = hashes()
    assert first.split(":")[0] == second.split(":")[0]
    assert (first.split(":")[1], second.split(":")[1]) == ("1", "2")


def test_a_run_stays_within_code_scannings_limits() -> None:
    rules = MAX_RULES + 200
    findings = [
        Finding(
            checker="fake",
            rule=f"R{i % rules}",
            severity=Severity.ERROR if i < 10 else Severity.WARNING,
            path=f"f{i % 50}.py",
            line=1 + i,
            message="m",
            fingerprint=f"{i:016x}",
        )
        for i in range(MAX_RESULTS + 10)
    ]
    scopes = [Scope(path=f"f{i}.py", checker="fake", status=ScopeStatus.CHECKED) for i in range(50)]
    log = to_sarif(Report(scan=ScanInfo(project_root="/p"), scopes=scopes, findings=findings))
    (run,) = log["runs"]
    assert len(run["results"]) == MAX_RESULTS
    assert sum(r["level"] == "error" for r in run["results"]) == 10  # errors are kept first
    described = sum(len(c["rules"]) for c in [run["tool"]["driver"], *run["tool"]["extensions"]])
    assert described == MAX_RULES
    ids = {n["descriptor"]["id"] for n in run["invocations"][0]["toolExecutionNotifications"]}
    assert ids == {"results_truncated", "rules_truncated"}
    assert run["invocations"][0]["executionSuccessful"] is False


def test_only_plain_http_links_from_a_tool_are_carried() -> None:
    from orchestrate_plugins._common import doc_url, rule_description
    from orchestrate_plugins.eslint_checker import _output_format

    assert doc_url("https://docs.astral.sh/ruff/rules/unused-import") is not None
    for bad in ("javascript:alert(1)", "https://a b", "https://x\n", "ftp://x", 3, None):
        assert doc_url(bad) is None
    assert rule_description("  Disallow\n unused  ") == "Disallow unused"
    assert rule_description("   ") is None
    # ESLint 8 and later have the formatter with rule metadata; older ones plain JSON.
    assert (_output_format("v9.39.5"), _output_format("8.57.0")) == ("json-with-metadata",) * 2
    assert (_output_format("v7.32.0"), _output_format(None)) == ("json", "json")


HOSTILE_PLUGIN = r"""
const rule = {
  meta: { type: "problem", docs: {
    description: "Bad [click to fix](https://evil.example/x) <img src=x> \u202eevil\u001b[2J",
    url: "https://ok.example/docs)![t](https://evil.example/t.png<b>" } },
  create(ctx) { return { Program(node) { ctx.report({ node, message: "m" }); } }; },
};
export default [{ plugins: { p: { rules: { r: rule } } }, rules: { "p/r": "error" } }];
"""


def test_a_plugins_rule_metadata_cannot_inject_markdown_or_controls(tmp_path: Path) -> None:
    from markdown_it import MarkdownIt

    eslint_path()
    root = new_repo(
        tmp_path / "r",
        {"eslint.config.js": HOSTILE_PLUGIN, "a.js": "var x = 1;\n"},
        initial_commit=False,
    )
    (run,) = _sarif(root)["runs"]
    (rule,) = [r for c in run["tool"]["extensions"] for r in c["rules"] if r["id"] == "eslint/p/r"]
    html = MarkdownIt("commonmark").render(rule["help"]["markdown"])
    # One link, to the tool's URL as it gave it (percent-encoded), no image, no tag.
    assert re.findall(r"<a href=\"([^\"]*)\"", html) == [
        "https://ok.example/docs)!%5Bt%5D(https://evil.example/t.png%3Cb%3E"
    ]
    assert "<img" not in html and "<b>" not in html
    assert "[click to fix](https://evil.example/x)" in html  # shown as text, not a link
    for text in (rule["shortDescription"]["text"], rule["fullDescription"]["text"]):
        assert text.isprintable() and "\\u202e" in text and "\\x1b" in text
