"""Unit tests of the editor server's diagnostics and edits (lsp/diagnostics,
lsp/actions), on in-memory documents: no editor, no server process."""

from __future__ import annotations

import argparse
from pathlib import Path
from types import SimpleNamespace
from typing import cast

from helpers import new_repo
from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from orchestrator.cli import lsp as cli_lsp
from orchestrator.lsp.actions import text_edit
from orchestrator.lsp.diagnostics import (
    buffer_diagnostics,
    coverage_note,
    failed_of,
    finding_diagnostic,
    severity_of,
)
from orchestrator.lsp.server import build_server, locate
from orchestrator.model.report import Finding, Report, ScanInfo, Scope
from orchestrator.vocab import ScopeStatus, Severity, Tier

DOC = TextDocument("file:///p/a.py", "import os\nx = 1\n")


def _finding(**kw: object) -> Finding:
    fields: dict[str, object] = {
        "checker": "ruff",
        "rule": "F401",
        "severity": Severity.ERROR,
        "path": "a.py",
        "line": 1,
        "column": 8,
        "end_line": 1,
        "end_column": 10,
        "message": "unused",
        "blocking": True,
    }
    fields.update(kw)
    return Finding.model_validate(fields)


def test_severity_of_blocking_warnings_and_candidates() -> None:
    assert severity_of(_finding()) == types.DiagnosticSeverity.Error
    assert severity_of(_finding(blocking=False, severity=Severity.WARNING)) == (
        types.DiagnosticSeverity.Warning
    )
    assert severity_of(_finding(candidate=True, blocking=False)) == (
        types.DiagnosticSeverity.Information
    )
    assert severity_of(_finding(candidate=True, severity=Severity.INFO, blocking=False)) == (
        types.DiagnosticSeverity.Hint
    )


def test_finding_diagnostic_spans_the_tools_range() -> None:
    d = finding_diagnostic(DOC, _finding(fingerprint="fp"))
    assert (d.range.start.line, d.range.start.character) == (0, 7)
    assert (d.range.end.line, d.range.end.character) == (0, 9)
    assert d.message == "unused" and d.data == {"fingerprint": "fp"}
    assert "ruff" in (d.source or "")


def _scope(status: ScopeStatus, tier: Tier, checker: str = "ruff") -> Scope:
    return Scope(path="a.py", checker=checker, status=status, tier=tier, language="python")


def test_coverage_note_says_what_was_left_unjudged() -> None:
    assert coverage_note([_scope(ScopeStatus.CHECKED, Tier.NATIVE)]) is None
    assert "no checker was planned" in (coverage_note([]) or "")
    gaps = coverage_note(
        [_scope(ScopeStatus.CHECKED, Tier.NATIVE), _scope(ScopeStatus.TIMED_OUT, Tier.NATIVE, "x")]
    )
    assert gaps is not None and gaps.startswith("orchestrate: checked, with gaps")
    assert "x: timed_out" in gaps
    syntax = coverage_note([_scope(ScopeStatus.CHECKED, Tier.FALLBACK, "treesitter")])
    assert syntax is not None and syntax.startswith("orchestrate: syntax only")


def test_buffer_diagnostics_put_the_coverage_note_first() -> None:
    report = Report(
        scan=ScanInfo(project_root="/p"),
        scopes=[_scope(ScopeStatus.TOOL_ERROR, Tier.NATIVE)],
        findings=[_finding()],
    )
    out = buffer_diagnostics(report, "a.py", DOC)
    assert len(out) == 2 and out[0].message.startswith("orchestrate: not checked")
    assert [s.status for s in failed_of(report, "a.py")] == [ScopeStatus.TOOL_ERROR]
    (unplanned,) = buffer_diagnostics(report, "b.py", DOC)
    assert "no checker was planned" in unplanned.message


def test_text_edit_replaces_only_the_changed_middle() -> None:
    edit = text_edit(DOC, "import re\nx = 1\n")
    assert edit.new_text == "re"
    assert (edit.range.start.line, edit.range.start.character) == (0, 7)
    assert (edit.range.end.line, edit.range.end.character) == (0, 9)


def test_locate_places_a_buffer_in_its_project(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"pkg/a.py": "x = 1\n"})
    uri = (root / "pkg" / "a.py").as_uri()
    # No workspace folder: the buffer's git top level is its project.
    bare = cast(LanguageServer, SimpleNamespace(workspace=SimpleNamespace(folders={})))
    assert locate(bare, uri) == (root.resolve(), "pkg/a.py")
    assert locate(bare, "untitled:Untitled-1") is None
    folder = SimpleNamespace(uri=(root / "pkg").as_uri())
    nested = cast(LanguageServer, SimpleNamespace(workspace=SimpleNamespace(folders={"f": folder})))
    assert locate(nested, uri) == ((root / "pkg").resolve(), "a.py")


def test_build_server_registers_the_document_features() -> None:
    features = set(build_server().protocol.fm.features)
    assert {"textDocument/didOpen", "textDocument/didSave", "textDocument/codeAction"} <= features


def test_the_lsp_command_is_registered_with_its_handler() -> None:
    parser = argparse.ArgumentParser()
    cli_lsp.add_parser(parser.add_subparsers())
    args = parser.parse_args(["lsp", "--stdio"])
    assert args.stdio and args.func is cli_lsp.cmd_lsp
