"""CG-28: edited files share bounded native-first feedback (the Ruff + grammar half).

One batch of mixed files under one deadline: Ruff first for Python, bundled grammars
for the rest, same bytes never parsed twice, every gap explicit, and a mixed run never
claims full native coverage. The ESLint and Ruby half lives beside it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.vocab import ScopeStatus, Tier

pytestmark = pytest.mark.scenario("CG-28")


def test_CG28_ruff_and_grammars_share_one_run(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("import os\n")
    (root / "b.py").write_text("def f(:\n    pass\n")
    (root / "c.go").write_text("package main\n\nfunc main() {\n}\n")
    (root / "d.json").write_text('{"a": [1, 2}\n')
    (root / "e.lua").write_text('local t = {"one"}\nprint(t[1])\n')
    (root / "f.xyz").write_text("?\n")
    (tmp_path / "outside.py").write_text("x = 1\n")
    (root / "g.py").symlink_to(tmp_path / "outside.py")
    report = run_lint(LintRequest(project_root=root, timeout=60))

    scopes = {(s.path, s.checker): s for s in report.scopes}
    # Native first: Python goes to Ruff; its coherent parse is not repeated by tree-sitter.
    assert scopes[("a.py", "ruff")].status == ScopeStatus.CHECKED
    assert scopes[("b.py", "ruff")].status == ScopeStatus.CHECKED
    assert ("a.py", "treesitter") not in scopes and ("b.py", "treesitter") not in scopes
    # The rest through bundled grammars, syntax only.
    go = scopes[("c.go", "treesitter")]
    assert (go.status, go.syntax, go.tier) == (ScopeStatus.CHECKED, "clean", Tier.FALLBACK)
    assert go.hint and "native lint" in go.hint
    js = scopes[("d.json", "treesitter")]
    assert js.syntax == "suspected_issue"
    # An unqualified grammar gives candidates only, never a clean check.
    assert scopes[("e.lua", "treesitter")].status == ScopeStatus.UNQUALIFIED
    # Gaps stay explicit.
    assert scopes[("f.xyz", "orchestrate")].status == ScopeStatus.UNSUPPORTED
    assert scopes[("g.py", "orchestrate")].status == ScopeStatus.UNSAFE
    # Coverage says exactly who had native evidence and who only syntax.
    assert report.coverage.native_files == 2
    assert report.coverage.syntax_only_files == 2
    assert not report.coverage.complete
    assert any("mixed coverage" in n for n in report.notes)
    # All evidence came from one run under one deadline.
    assert report.request.timeout_s == 60


def test_CG28_candidate_messages_carry_no_source(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    marker = "IGNORE_PREVIOUS_INSTRUCTIONS_marker"
    (root / "x.go").write_text(f'package main\nfunc main() {{\n\ts := "{marker}\n}}\n')
    report = run_lint(LintRequest(project_root=root))
    assert report.findings
    assert all(marker not in f.message for f in report.findings)
