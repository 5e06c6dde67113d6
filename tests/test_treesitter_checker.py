"""The tree-sitter fallback checker with the real bundled grammars."""

from __future__ import annotations

import time
from pathlib import Path

from orchestrate_plugins.treesitter_checker import (
    HINT_SUSPECT,
    MAX_CANDIDATES,
    REASON_UNQUALIFIED,
    TreeSitterChecker,
    parse,
    recovery_regions,
)

from orchestrator.core.plugin_host import load
from orchestrator.deadline import Deadline
from orchestrator.model.checker import MAX_FILE_BYTES, FileTarget, RunContext
from orchestrator.model.languages import detect
from orchestrator.vocab import ScopeStatus, Severity, SyntaxStatus, Tier

GO_MISSING_PAREN = b"""package main

import "fmt"

func main() {
\tx := add(1, 2
\tfmt.Println(x)
}

func add(a, b int) int { return a + b }
"""

GO_CLEAN = b"""package main

import "fmt"

func main() {
\tfmt.Println("hello")
}
"""


def _target(tmp_path: Path, name: str, data: bytes) -> FileTarget:
    p = tmp_path / name
    p.write_bytes(data)
    return FileTarget(path=name, abs_path=p, language=detect(name, data[:4096]), size=len(data))


def _run(tmp_path: Path, targets: list[FileTarget], seconds: float = 30.0, config=None):  # type: ignore[no-untyped-def]
    checker = TreeSitterChecker()
    # No exact parser (gofmt) confirms these candidates: its explicit path names nothing.
    ctx = RunContext(
        project_root=tmp_path,
        deadline=Deadline.after(seconds),
        tool_overrides={"gofmt": str(tmp_path / "absent" / "gofmt")},
        config=config or {},
    )
    plan = checker.plan(targets, ctx)
    out = [o for b in plan.batches for o in checker.run(b, ctx)]
    return {o.path: o for o in out}


def test_registered_through_the_entry_point() -> None:
    checkers = {c.name: c for c in load().checkers()}
    assert checkers["treesitter"].tier == Tier.FALLBACK


def test_go_missing_paren_gives_a_candidate_at_the_right_line(tmp_path: Path) -> None:
    o = _run(tmp_path, [_target(tmp_path, "main.go", GO_MISSING_PAREN)])["main.go"]
    assert o.status == ScopeStatus.CHECKED
    assert o.syntax == SyntaxStatus.SUSPECTED_ISSUE
    assert o.hint == HINT_SUSPECT
    assert o.findings
    first = o.findings[0]
    assert first.rule in {"syntax/error", "syntax/missing"}
    assert first.line == 6 and first.column is not None and first.column >= 1
    assert first.candidate and first.checker == "treesitter"
    assert first.severity == Severity.ERROR
    assert first.fingerprint
    assert o.tool is not None and "tree-sitter" in (o.tool.version or "")


def test_clean_file_is_syntax_clean_with_native_lint_recommended(tmp_path: Path) -> None:
    o = _run(tmp_path, [_target(tmp_path, "ok.go", GO_CLEAN)])["ok.go"]
    assert o.status == ScopeStatus.CHECKED
    assert o.syntax == SyntaxStatus.CLEAN
    assert o.findings == ()
    assert o.hint == "only syntax was checked; native lint recommended for go"


def test_staged_content_is_used_not_the_disk_file(tmp_path: Path) -> None:
    (tmp_path / "main.go").write_bytes(GO_CLEAN)
    t = FileTarget(path="main.go", abs_path=tmp_path / "main.go", content=GO_MISSING_PAREN)
    o = _run(tmp_path, [t])["main.go"]
    assert o.syntax == SyntaxStatus.SUSPECTED_ISSUE


def test_unqualified_grammar_gives_candidates_only(tmp_path: Path) -> None:
    clean = _target(tmp_path, "a.dart", b"void main() {\n  print('hi');\n}\n")
    broken = _target(tmp_path, "b.dart", b"void main() {\n  print('hi';\n}\n")
    out = _run(tmp_path, [clean, broken])
    assert out["a.dart"].status == ScopeStatus.UNQUALIFIED
    assert out["a.dart"].syntax == SyntaxStatus.CLEAN
    assert out["a.dart"].reason == REASON_UNQUALIFIED
    assert out["b.dart"].status == ScopeStatus.UNQUALIFIED
    assert out["b.dart"].syntax == SyntaxStatus.SUSPECTED_ISSUE
    assert all(f.severity == Severity.WARNING and f.candidate for f in out["b.dart"].findings)


#: Valid PowerShell (Ansible's wrappers open so) that the bundled grammar misparses.
PS_VALID_MISPARSED = b"""using namespace System.IO

[CmdletBinding()]
param (
    [Parameter(Mandatory)]
    [string]
    $Path
)

$users = "a", "b" | ForEach-Object { $_ }
"""
#: A real PowerShell syntax error (ansible-core's win_ping_syntax_error.ps1): the quote
#: in `can't` ends the string, and the rest opens one that never closes.
PS_BROKEN = b"$blah = 'I can't quote my strings correctly.'\n"


def test_unreliable_grammar_reports_no_candidate_and_says_not_judged(tmp_path: Path) -> None:
    # The grammar does flag both files: its regions exist and are withheld.
    for data in (PS_VALID_MISPARSED, PS_BROKEN):
        assert list(recovery_regions(parse("powershell", data, time.monotonic() + 30)))
    valid = _target(tmp_path, "wrapper.ps1", PS_VALID_MISPARSED)
    broken = _target(tmp_path, "broken.ps1", PS_BROKEN)
    clean = _target(tmp_path, "clean.ps1", b"Write-Output 'hello'\n")
    out = _run(tmp_path, [valid, broken, clean])
    for name in ("wrapper.ps1", "broken.ps1", "clean.ps1"):
        o = out[name]
        # Nothing judged it: `not_run` (never `unsupported`: the language is known).
        assert o.status == ScopeStatus.NOT_RUN, name
        assert o.findings == (), name
        assert o.syntax is None and o.syntax_evidence is None, name
        assert o.reason is not None
        assert o.reason.startswith("not judged: grammar unreliable for PowerShell"), o.reason
        assert o.hint is not None and "Invoke-ScriptAnalyzer" in o.hint
    # One reason for every file of the language: the readable formats' one gap line.
    assert len({o.reason for o in out.values()}) == 1


def test_candidates_are_bounded_per_file(tmp_path: Path) -> None:
    src = b"".join(b"func f%d() { x := (1 + \n}\n" % i for i in range(60))
    o = _run(tmp_path, [_target(tmp_path, "many.go", b"package main\n" + src)])["many.go"]
    assert len(o.findings) == MAX_CANDIDATES
    assert o.reason is not None and "omitted" in o.reason


def test_huge_file_with_tiny_deadline_times_out_quickly(tmp_path: Path) -> None:
    body = b"".join(
        b"def f%d(x):\n    return [x, (x + %d), {'k': x}]\n" % (i, i) for i in range(200_000)
    )
    t = _target(tmp_path, "huge.py", body)
    started = time.monotonic()
    # Over the default parse limit: the setting lets it be parsed, so the deadline cuts it.
    o = _run(tmp_path, [t], seconds=0.2, config={"max_parse_bytes": MAX_FILE_BYTES})["huge.py"]
    elapsed = time.monotonic() - started
    assert o.status == ScopeStatus.TIMED_OUT
    assert o.syntax == SyntaxStatus.INCOMPLETE
    assert elapsed < 1.5, elapsed
    # The per-thread parser is reusable after a cancelled parse.
    again = _run(tmp_path, [_target(tmp_path, "small.py", b"x = 1\n")])["small.py"]
    assert again.syntax == SyntaxStatus.CLEAN


def test_binary_and_non_utf8_files_are_not_run(tmp_path: Path) -> None:
    binary = FileTarget(
        path="blob.go", abs_path=tmp_path / "blob.go", language="go", content=b"\x00\x01go"
    )
    latin1 = FileTarget(
        path="old.go", abs_path=tmp_path / "old.go", language="go", content=b"// caf\xe9\n"
    )
    out = _run(tmp_path, [binary, latin1])
    assert out["blob.go"].status == ScopeStatus.NOT_RUN and "binary" in (
        out["blob.go"].reason or ""
    )
    assert out["old.go"].status == ScopeStatus.NOT_RUN and "UTF-8" in (out["old.go"].reason or "")


def test_unreadable_file_is_a_tool_error_not_an_exception(tmp_path: Path) -> None:
    t = FileTarget(path="gone.go", abs_path=tmp_path / "gone.go", language="go")
    o = _run(tmp_path, [t])["gone.go"]
    assert o.status == ScopeStatus.TOOL_ERROR
    assert o.reason and "\n" not in o.reason


def test_claims_and_plan(tmp_path: Path) -> None:
    checker = TreeSitterChecker()
    go = _target(tmp_path, "a.go", GO_CLEAN)
    assert checker.claims(go)
    assert not checker.claims(_target(tmp_path, "a.xyz", b"x"))
    # No language recorded: the checker sniffs a shared extension itself.
    qt = tmp_path / "app_de.ts"
    qt.write_bytes(b'<?xml version="1.0"?>\n<TS version="2.1"></TS>\n')
    ts_target = FileTarget(path="app_de.ts", abs_path=qt)
    assert checker.claims(ts_target)
    assert _run(tmp_path, [ts_target])["app_de.ts"].language == "xml"
    targets = [_target(tmp_path, f"f{i}.go", GO_CLEAN) for i in range(130)]
    plan = checker.plan(targets, RunContext(project_root=tmp_path, deadline=Deadline.after(5)))
    assert [len(b.targets) for b in plan.batches] == [64, 64, 2]


def test_import_is_lazy() -> None:
    import subprocess
    import sys

    code = (
        "import sys, orchestrate_plugins.treesitter_checker;"
        "print(any(m.startswith('tree_sitter') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_oversized_content_is_not_run_rather_than_parsed_truncated(tmp_path: Path) -> None:
    big = FileTarget(
        path="big.json", abs_path=tmp_path / "big.json", language="json",
        content=b"[" + b"1," * (MAX_FILE_BYTES // 2) + b"1]",
    )  # fmt: skip
    o = _run(tmp_path, [big])["big.json"]
    assert o.status == ScopeStatus.NOT_RUN and "too large" in (o.reason or "")
