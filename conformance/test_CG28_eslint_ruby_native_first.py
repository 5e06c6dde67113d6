"""CG-28: edited files share bounded native-first feedback (the ESLint + Ruby half).

One mixed batch (py, js, ts, rb, go, json, md, .xyz) under one deadline: Ruff and
ESLint first, the Ruby parser, the rest through bundled grammars. A file parsed
coherently by its native checker is not parsed again; an unconfigured TypeScript file
is `configuration_required` for ESLint and gets grammar candidates; coverage says who
had native evidence and who only syntax; a mixed run never claims full coverage.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import eslint_path, require_tool

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.vocab import ScopeStatus, Tier

pytestmark = pytest.mark.scenario("CG-28")

ESLINT_CONFIG = 'export default [{ rules: { "no-unused-vars": "error", "no-var": "warn" } }];\n'


def _mixed(root: Path) -> None:
    files = {
        "web/eslint.config.js": ESLINT_CONFIG,
        "web/unused.js": 'var x = 1;\nconsole.log("hi");\n',
        "web/broken.js": "function (\n",
        "ts/app.ts": "let a: number = ;\n",
        "rb/bad.rb": "def greet\n  if true\n    1\n",
        "rb/good.rb": "puts 1\n",
        "a.py": "import os\n",
        "c.go": "package main\n\nfunc main() {\n}\n",
        "d.json": '{"a": 1}\n',
        "e.md": "# Title\n",
        "f.xyz": "?\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_CG28_eslint_and_ruby_run_first_in_one_mixed_run(tmp_path: Path) -> None:
    eslint_path()
    require_tool("ruby", "install ruby (Debian: apt-get install ruby)")
    root = tmp_path / "ws"
    _mixed(root)
    report = run_lint(LintRequest(project_root=root, timeout=120))
    scopes = {(s.path, s.checker): s for s in report.scopes}

    # ESLint: findings with derived tiers; the tool and its version are recorded.
    unused = scopes[("web/unused.js", "eslint")]
    assert unused.status == ScopeStatus.CHECKED and unused.tier == Tier.NATIVE
    assert unused.tool and unused.tool.version and unused.tool.version.startswith("v9.")
    assert unused.config_files == ["web/eslint.config.js"]
    tiers = {f.rule: f.safety_tier for f in report.findings if f.path == "web/unused.js"}
    assert tiers == {"no-var": "auto", "no-unused-vars": "confirm"}
    # A parse error is native syntax evidence; tree-sitter does not parse it again.
    assert scopes[("web/broken.js", "eslint")].status == ScopeStatus.CHECKED
    assert any(f.rule == "eslint/parse-error" for f in report.findings if f.path == "web/broken.js")
    # No ESLint config for the TypeScript file: configuration_required + a one-line
    # hint, and the grammar's candidates clearly marked as fallback.
    ts = scopes[("ts/app.ts", "eslint")]
    assert ts.status == ScopeStatus.CONFIGURATION_REQUIRED
    assert ts.hint and "eslint.config.js" in ts.hint and "\n" not in ts.hint
    ts_fb = scopes[("ts/app.ts", "treesitter")]
    assert ts_fb.tier == Tier.FALLBACK and ts_fb.syntax == "suspected_issue"
    ts_findings = [f for f in report.findings if f.path == "ts/app.ts"]
    assert ts_findings and all(f.candidate for f in ts_findings)

    # Ruby: the parser's line-only verdict, and a clean scope for the valid file.
    bad = [f for f in report.findings if f.path == "rb/bad.rb"]
    assert [(f.checker, f.line, f.column) for f in bad] == [("ruby", 3, None)]
    assert scopes[("rb/good.rb", "ruby")].status == ScopeStatus.CHECKED
    assert not [f for f in report.findings if f.path == "rb/good.rb"]

    # Same bytes never parsed twice: no grammar scope for natively parsed files.
    for path in ("web/unused.js", "web/broken.js", "rb/bad.rb", "rb/good.rb", "a.py"):
        assert (path, "treesitter") not in scopes
    assert scopes[("c.go", "treesitter")].tier == Tier.FALLBACK
    assert scopes[("f.xyz", "orchestrate")].status == ScopeStatus.UNSUPPORTED

    # Coverage: exactly who had native evidence and who only syntax; never complete.
    native = {"web/unused.js", "web/broken.js", "web/eslint.config.js", "rb/bad.rb"}
    native |= {"rb/good.rb", "a.py"}
    assert report.coverage.native_files == len(native)
    assert report.coverage.syntax_only_files >= 2  # ts/app.ts, c.go (+ json)
    assert not report.coverage.complete
    assert any("mixed coverage" in n for n in report.notes)
    assert report.request.timeout_s == 120
