"""CG-29 (native side): when ESLint is unconfigured or Ruby is absent, the fallback's
dialogue is actionable and the native gap stays visible beside it.

The native scope says what to do (one-line configuration or install hint); the
grammar's candidates ask for native lint/compiler repair and confirmation; nothing of
the source travels in the findings' messages.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from orchestrate_plugins.treesitter_checker import HINT_SUSPECT

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.vocab import ScopeStatus, SyntaxStatus, Tier

pytestmark = pytest.mark.scenario("CG-29")

MARKER = "IGNORE_ALL_PREVIOUS_INSTRUCTIONS_marker"


def test_CG29_unconfigured_eslint_and_absent_ruby_give_actionable_fallback(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.ts").write_text(f'const s: string = "{MARKER}";\nlet n: number = ;\n')
    (root / "task.rb").write_text(f'def go\n  puts "{MARKER}"\n')
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    env = dict(os.environ, PATH=str(empty))  # no ruby reachable
    report = run_lint(LintRequest(project_root=root, timeout=60, env=env))
    scopes = {(s.path, s.checker): s for s in report.scopes}

    eslint = scopes[("app.ts", "eslint")]
    assert eslint.status == ScopeStatus.CONFIGURATION_REQUIRED
    assert eslint.hint and eslint.hint.startswith("add eslint.config.js")
    ruby = scopes[("task.rb", "ruby")]
    assert ruby.status == ScopeStatus.MISSING
    assert ruby.hint == "install ruby (Debian: apt-get install ruby)"
    for path in ("app.ts", "task.rb"):
        fb = scopes[(path, "treesitter")]
        assert fb.tier == Tier.FALLBACK and fb.syntax == SyntaxStatus.SUSPECTED_ISSUE
        assert fb.hint == HINT_SUSPECT
    findings = report.findings
    assert {f.path for f in findings} == {"app.ts", "task.rb"}
    assert all(f.candidate and f.checker == "treesitter" for f in findings)
    assert MARKER not in "".join(f.model_dump_json() for f in findings)
    assert report.coverage.native_files == 0 and not report.coverage.complete
