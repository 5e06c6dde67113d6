"""Syntax candidates are candidates everywhere: JSON, SARIF, human output.

A tree-sitter recovery node is an unconfirmed finding: it never blocks, SARIF shows it
as a warning (never an error), the human report labels it "syntax candidate", and its
message says which native tool confirms it.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from helpers import run_cli, sarif_schema

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

BROKEN_GO = 'package main\n\nfunc main() {\n\tprintln("a"\n}\n'  # qualified grammar
BROKEN_DART = "void main() {\n  print('hi';\n}\n"  # unqualified grammar
PLAIN = {"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200"}


def _no_exact_parser(root: Path) -> dict[str, str]:
    """The environment that points Go's exact parser (gofmt) at a path that holds nothing
    (a tool path is the machine's, never the project's): the grammar's recovery nodes
    stay candidates whatever the machine has installed."""
    return {"ORCHESTRATE_TOOL_GOFMT": (root.parent / "absent" / "gofmt").as_posix()}


def _folder(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "main.go").write_text(BROKEN_GO)
    (root / "app.dart").write_text(BROKEN_DART)
    (root / "page.html").write_text("{% for x in xs %}<p>{{ x }}</p>{% endfor %}\n")
    return root


def test_json_candidates_do_not_block_and_say_how_to_confirm(tmp_path: Path) -> None:
    root = _folder(tmp_path)
    report = json.loads(
        run_cli(["lint", ".", "--format", "json"], cwd=root, env=_no_exact_parser(root)).stdout
    )
    cands = [f for f in report["findings"] if f["checker"] == "treesitter"]
    go = [f for f in cands if f["path"] == "main.go"]
    dart = [f for f in cands if f["path"] == "app.dart"]
    assert go and dart
    assert all(f["candidate"] and not f["blocking"] for f in cands)
    assert all("(tree-sitter recovery node); confirm with " in f["message"] for f in cands)
    assert all(f["message"].endswith("confirm with gofmt -e <file>") for f in go)
    assert all("confirm with dart analyze" in f["message"] for f in dart)
    # The message never quotes the source or the file name.
    assert not any("println" in f["message"] or "main.go" in f["message"] for f in cands)


def test_sarif_candidates_are_warnings_and_artifacts_carry_the_language(tmp_path: Path) -> None:
    root = _folder(tmp_path)
    log = json.loads(
        run_cli(["lint", ".", "--format", "sarif"], cwd=root, env=_no_exact_parser(root)).stdout
    )
    schema = sarif_schema()
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    (run,) = log["runs"]
    cands = [r for r in run["results"] if r["properties"]["candidate"]]
    assert cands
    assert {r["level"] for r in cands} <= {"warning", "note"}
    langs = {a["location"]["uri"]: a for a in run["artifacts"]}
    assert langs["main.go"]["sourceLanguage"] == "go"
    assert langs["main.go"]["properties"]["detected_by"] == "extension"
    assert langs["page.html"]["sourceLanguage"] == "jinja"
    assert langs["page.html"]["properties"]["detected_by"] == "heuristic"


def test_human_output_labels_syntax_candidates(tmp_path: Path) -> None:
    root = _folder(tmp_path)
    out = run_cli(["lint", "."], cwd=root, env={**PLAIN, **_no_exact_parser(root)}).stdout
    lines = [ln for ln in out.splitlines() if "treesitter/syntax/" in ln]
    assert lines
    assert all("(syntax candidate)" in ln and "confirm with" in ln for ln in lines)
