"""An exact parser's own resource limit is no verdict, never a confirmed syntax error.

Failed before: valid XML nested 257 levels deep was a "confirmed syntax error" (xmllint
stops at 256 levels and exits 1 with a located "parser error"); so were valid PHP whose
nesting outgrows the parser stack ("Parse error: memory exhausted") and valid Go past
go/parser's nesting depth ("exceeded max nesting depth"). Each parser of the table is
given valid sources that reach its limits, in several spellings; each must leave the
candidate standing with a reason that names the limit. Real errors still confirm.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import fail_or_skip
from orchestrate_plugins import exact_confirm
from orchestrate_plugins.exact_parsers import PARSERS
from test_exact_parsers import judge as checker_judge

from orchestrator.deadline import Deadline
from orchestrator.model.checker import FileTarget, RunContext
from orchestrator.vocab import SyntaxEvidence

PACKAGES = {p.name: p.package for p in PARSERS if p.command}


def _need(command: str) -> None:
    if shutil.which(command) is None:
        fail_or_skip(f"{command} is required for this test (./run setup)")


def _verdict(tmp_path: Path, name: str, language: str, src: bytes) -> exact_confirm.Verdict:
    target = FileTarget(path=name, abs_path=tmp_path / name, language=language, size=len(src))
    ctx = RunContext(project_root=tmp_path, deadline=Deadline.after(120))
    verdict = exact_confirm.judge(target, src, language, ctx)
    assert verdict is not None
    return verdict


def _nested(open_: str, close: str, n: int, inner: str = "") -> str:
    return open_ * n + inner + close * n


# (command, language, file name, source) — valid sources past each parser's limits.
XML = [
    _nested("<a>", "</a>", 260),
    _nested("<a>\n", "</a>\n", 300),
    _nested("<n:a xmlns:n='urn:x' k='v'>", "</n:a>", 1000, "text"),
    "<?xml version='1.0'?>\n<!-- deep -->\n" + _nested("<a><b>", "</b></a>", 200),
    "<a b='" + "x" * 10_000_001 + "'/>",  # an attribute value past 10 MB
]
LIMITS = [
    *[("xmllint", "xml", "deep.xml", s) for s in XML],
    ("php", "php", "deep.php", "<?php\n$x = " + _nested("[", "]", 10_000) + ";\n"),
    ("php", "php", "paren.php", "<?php\n$x = " + _nested("(", ")", 20_000, "1") + ";\n"),
    ("gofmt", "go", "deep.go", "package p\n\nvar x = " + _nested("(", ")", 100_001, "1") + "\n"),
    (
        "gofmt",
        "go",
        "lit.go",
        "package p\n\nvar x = " + _nested("[]any{", "}", 100_001) + "\n",
    ),
    ("node", "javascript", "deep.js", "x = " + _nested("[", "]", 20_000) + ";\n"),
    ("node", "javascript", "paren.js", "x = " + _nested("(", ")", 100_000, "1") + ";\n"),
    ("node", "javascript", "obj.js", "x = " + _nested("{a:", "}", 50_000, "1") + ";\n"),
    (
        "rustfmt",
        "rust",
        "deep.rs",
        "fn main() { let x = " + _nested("(", ")", 40_000, "1") + "; }\n",
    ),
]


@pytest.mark.parametrize(
    ("command", "language", "name", "text"),
    LIMITS,
    ids=[f"{c}-{n}-{i}" for i, (c, _l, n, _t) in enumerate(LIMITS)],
)
def test_a_parser_limit_is_no_verdict(
    tmp_path: Path, command: str, language: str, name: str, text: str
) -> None:
    _need(command)
    verdict = _verdict(tmp_path, name, language, text.encode())
    assert verdict.evidence is not SyntaxEvidence.CONFIRMED, verdict
    assert verdict.evidence is SyntaxEvidence.CANDIDATE, verdict
    assert "limit" in (verdict.reason or ""), verdict.reason


IN_PROCESS = [
    ("json", "deep.json", _nested("[", "]", 100_000)),
    ("json", "obj.json", _nested('{"a":', "}", 100_000, "1")),
    ("toml", "deep.toml", "x = " + _nested("[", "]", 2_000) + "\n"),
    ("toml", "inline.toml", "x = " + _nested("{a = ", "}", 2_000, "1") + "\n"),
    ("yaml", "deep.yaml", _nested("[", "]", 20_000) + "\n"),
    ("yaml", "map.yaml", _nested("{a: ", "}", 20_000, "1") + "\n"),
]


@pytest.mark.parametrize(
    ("language", "name", "text"), IN_PROCESS, ids=[n for _l, n, _t in IN_PROCESS]
)
def test_an_in_process_parser_limit_is_no_verdict(
    tmp_path: Path, language: str, name: str, text: str
) -> None:
    verdict = _verdict(tmp_path, name, language, text.encode())
    assert verdict.evidence is SyntaxEvidence.CANDIDATE, verdict
    reason = verdict.reason or ""
    assert "not an error in the file" in reason, reason


@pytest.mark.parametrize("depth", [1000, 5000])
def test_deep_valid_xml_is_never_a_confirmed_error_end_to_end(tmp_path: Path, depth: int) -> None:
    _need("xmllint")
    # Through the fallback checker's hand-off, as `lint` and the gates see it: the
    # grammar flags a tree this deep, and the hand-off to xmllint must not confirm it.
    outcome = checker_judge(tmp_path, "deep.xml", _nested("<a>", "</a>", depth).encode())
    assert outcome.syntax_evidence is SyntaxEvidence.CANDIDATE, outcome.reason
    assert not any(f.rule == "syntax/confirmed" for f in outcome.findings), outcome.findings
    assert "limit" in (outcome.reason or "")


@pytest.mark.parametrize(
    ("command", "language", "name", "text", "line"),
    [
        ("xmllint", "xml", "bad.xml", "<a>\n<b>\n</a>\n", 3),
        ("xmllint", "xml", "deep-bad.xml", _nested("<a>", "</a>", 100) + "<b>\n</a>\n", 2),
        ("php", "php", "bad.php", "<?php\necho 1\necho 2;\n", 3),
        ("gofmt", "go", "bad.go", "package p\n\nfunc f() {\n\tx := \n}\n", 5),
    ],
)
def test_real_errors_are_still_confirmed(
    tmp_path: Path, command: str, language: str, name: str, text: str, line: int
) -> None:
    _need(command)
    verdict = _verdict(tmp_path, name, language, text.encode())
    assert verdict.evidence is SyntaxEvidence.CONFIRMED, verdict
    assert verdict.errors and verdict.errors[0][0] >= 1
