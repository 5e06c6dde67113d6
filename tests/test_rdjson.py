"""`--format rdjson` (issue 31): reviewdog's Diagnostic Format, with suggestions.

The real Ruff on a file with a non-ASCII character before each finding: columns come
out in UTF-8 bytes (the format's unit), and every suggestion, applied by its byte
range, gives exactly the bytes `ruff check --fix` writes. The document is checked
against the structure of reviewdog's `reviewdog.proto` (DiagnosticResult) as written
here: reviewdog's own published JSON Schema is in no registry this project fetches
from (PyPI, npm and Debian carry neither reviewdog nor its schema), so it is not
vendored.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
from helpers import VENV_BIN

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.model.report import Finding, Report, ScanInfo
from orchestrator.render.formats import BUILTIN
from orchestrator.render.rdjson import rdjson_data
from orchestrator.vocab import BaselineState, Severity

_POSITION = {
    "type": "object",
    "properties": {
        "line": {"type": "integer", "minimum": 1},
        "column": {"type": "integer", "minimum": 1},
    },
    "additionalProperties": False,
}
_RANGE = {
    "type": "object",
    "required": ["start"],
    "properties": {"start": _POSITION, "end": _POSITION},
    "additionalProperties": False,
}
_NAMED = {
    "type": "object",
    "required": ["name"],
    "properties": {"name": {"type": "string"}, "url": {"type": "string"}},
    "additionalProperties": False,
}
#: reviewdog.proto's DiagnosticResult, as JSON data (proto3 JSON mapping).
SCHEMA = {
    "type": "object",
    "properties": {
        "source": _NAMED,
        "severity": {"enum": ["UNKNOWN_SEVERITY", "ERROR", "WARNING", "INFO"]},
        "diagnostics": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["message", "location"],
                "properties": {
                    "message": {"type": "string"},
                    "location": {
                        "type": "object",
                        "required": ["path"],
                        "properties": {"path": {"type": "string"}, "range": _RANGE},
                        "additionalProperties": False,
                    },
                    "severity": {"enum": ["UNKNOWN_SEVERITY", "ERROR", "WARNING", "INFO"]},
                    "source": _NAMED,
                    "code": {
                        "type": "object",
                        "required": ["value"],
                        "properties": {"value": {"type": "string"}, "url": {"type": "string"}},
                        "additionalProperties": False,
                    },
                    "suggestions": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["range", "text"],
                            "properties": {"range": _RANGE, "text": {"type": "string"}},
                            "additionalProperties": False,
                        },
                    },
                    "original_output": {"type": "string"},
                },
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}

SOURCE = 'x = "é𐐀"; import os\nimport sys\n\n\ndef f(a):\n    return "ü" if a == None else 1\n'


def _apply(text: bytes, suggestions: list[dict]) -> bytes:
    """Apply reviewdog suggestions (1-based lines, UTF-8 byte columns, end exclusive)."""
    lines = text.split(b"\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(pos: dict) -> int:
        return starts[pos["line"] - 1] + pos.get("column", 1) - 1

    out = text
    for s in sorted(suggestions, key=lambda s: offset(s["range"]["start"]), reverse=True):
        a, b = offset(s["range"]["start"]), offset(s["range"]["end"])
        out = out[:a] + s["text"].encode() + out[b:]
    return out


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.ruff.lint]\nselect = ["F", "E711"]\n')
    (tmp_path / "a.py").write_text(SOURCE)
    return tmp_path


def test_suggestions_applied_by_byte_range_give_ruffs_own_fix(project: Path) -> None:
    ruff = shutil.which("ruff", path=str(VENV_BIN))
    assert ruff, "ruff is installed with the test extra (./run setup)"
    report = run_lint(LintRequest(project_root=project, cwd=project, timeout=120))
    data = rdjson_data(report)
    jsonschema.validate(data, SCHEMA)
    diags = data["diagnostics"]
    assert {d["code"]["value"] for d in diags} >= {"F401", "E711"}
    by_rule = {d["code"]["value"]: d for d in diags}
    # `os` follows a 2-byte and a 4-byte character: code point 18 is byte 22.
    os_diag = next(d for d in diags if d["location"]["range"]["start"]["line"] == 1)
    assert os_diag["location"]["range"]["start"] == {"line": 1, "column": 22}
    assert by_rule["E711"]["severity"] == "ERROR"
    safe = [s for d in diags for s in d.get("suggestions", [])]
    assert len(safe) == 2  # the two unused imports; E711's fix is unsafe: no suggestion
    fixed = project / "fixed"
    fixed.mkdir()
    (fixed / "pyproject.toml").write_text((project / "pyproject.toml").read_text())
    (fixed / "a.py").write_text(SOURCE)
    subprocess.run(
        [ruff, "check", "--fix", "--select", "F401", "--no-cache", "-q", "a.py"],
        cwd=fixed,
        check=False,
    )
    assert _apply(SOURCE.encode(), safe) == (fixed / "a.py").read_bytes()


def test_a_candidate_and_an_unchanged_finding_are_info() -> None:
    findings = [
        Finding(
            checker="treesitter",
            rule="syntax",
            severity=Severity.ERROR,
            path="x.go",
            line=2,
            candidate=True,
        ),
        Finding(
            checker="ruff",
            rule="F401",
            severity=Severity.ERROR,
            path="a.py",
            line=1,
            column=8,
            baseline_state=BaselineState.UNCHANGED,
        ),
        Finding(checker="ruff", rule="F401", severity=Severity.ERROR, path="b.py"),
    ]
    report = Report(scan=ScanInfo(project_root="/nowhere"), findings=findings)
    data = json.loads(BUILTIN["rdjson"].render(report))
    jsonschema.validate(data, SCHEMA)
    assert [d["severity"] for d in data["diagnostics"]] == ["INFO", "INFO", "ERROR"]
    assert "range" not in data["diagnostics"][2]["location"]  # no line given, none made up
    assert data["diagnostics"][1]["location"]["range"]["start"] == {"line": 1, "column": 8}
