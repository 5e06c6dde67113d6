"""CG-31: Ruby edits get line-only native evidence from the pinned Ruby stdin parser.

The Ruby parser (`ruby -c`, source on stdin) runs for the selected files only, on the
run's deadline, from an explicit absolute tool or an absolute PATH entry. Findings have
line positions only. A selected file whose check fails (timeout, crash) never switches
to the grammar fallback; only an absent Ruby hands the files to the bundled grammar.
The source is never executed.
"""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

import pytest
from helpers import deadline_passes_at, hang_marker, require_tool

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.model.report import Report, Scope
from orchestrator.vocab import ScopeStatus, Tier

pytestmark = pytest.mark.scenario("CG-31")

MISSING_END = "class Greeter\n  def hi\n    puts 'hi'\n  end\n"


def _project(root: Path) -> Path:
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "broken.rb").write_text(MISSING_END)
    (root / "lib" / "fine.rb").write_text("puts 1\n")
    (root / "lib" / "other.rb").write_text("def nope(\n")  # never selected
    return root


def _scopes(report: Report) -> dict[tuple[str, str], Scope]:
    return {(s.path, s.checker): s for s in report.scopes}


def _fake_ruby(path: Path, body: str) -> str:
    path.write_text(
        '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "ruby 3.1.2 (fake)"; exit 0; fi\n'
        + body
        + "\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_CG31_line_only_findings_for_selected_files(tmp_path: Path) -> None:
    require_tool("ruby", "install ruby (Debian: apt-get install ruby)")
    root = _project(tmp_path / "ws")
    marker = tmp_path / "executed"
    (root / "lib" / "fine.rb").write_text(f"BEGIN {{ File.write({str(marker)!r}, '1') }}\n")
    report = run_lint(
        LintRequest(project_root=root, paths=["lib/broken.rb", "lib/fine.rb"], cwd=root)
    )
    scopes = _scopes(report)
    broken, fine = scopes[("lib/broken.rb", "ruby")], scopes[("lib/fine.rb", "ruby")]
    for s in (broken, fine):
        assert s.status == ScopeStatus.CHECKED and s.tier == Tier.NATIVE
        assert s.tool and s.tool.path and os.path.isabs(s.tool.path)
        assert s.tool.version and s.tool.version.startswith("ruby ")
        assert s.reason and "the parser of ruby" in s.reason
    # A coherent native parse: the grammar does not parse the same bytes again.
    assert not [k for k in scopes if k[1] == "treesitter"]
    (finding,) = [f for f in report.findings if f.checker == "ruby"]
    assert finding.path == "lib/broken.rb" and finding.rule == "ruby/syntax"
    assert finding.line == 4 and finding.column is None and finding.end_column is None
    # Only the selected files; the source was compiled, never run.
    assert all(s.path != "lib/other.rb" for s in report.scopes)
    assert not marker.exists()


def test_CG31_pinned_project_version_is_named_when_it_differs(tmp_path: Path) -> None:
    require_tool("ruby", "install ruby (Debian: apt-get install ruby)")
    root = _project(tmp_path / "ws")
    (root / ".ruby-version").write_text("3.3.6\n")
    report = run_lint(LintRequest(project_root=root, paths=["lib/fine.rb"], cwd=root))
    s = _scopes(report)[("lib/fine.rb", "ruby")]
    assert s.reason and "3.3.6" in s.reason and "differ" in s.reason
    assert s.hint and "3.3.6" in s.hint


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ("touch {marker}; sleep 30", ScopeStatus.TIMED_OUT),
        ("cat >/dev/null; kill -SEGV $$", ScopeStatus.TOOL_ERROR),
    ],
    ids=["hang", "crash"],
)
def test_CG31_selected_failures_never_switch_to_the_grammar(
    tmp_path: Path, body: str, status: ScopeStatus
) -> None:
    root = _project(tmp_path / "ws")
    marker = hang_marker(tmp_path)  # the hanging fake says it runs: the deadline passes
    fake = _fake_ruby(tmp_path / "fake_ruby", body.format(marker=shlex.quote(str(marker))))
    with deadline_passes_at(marker):
        report = run_lint(
            LintRequest(
                project_root=root,
                paths=["lib/broken.rb", "lib/fine.rb"],
                cwd=root,
                timeout=3,
                tools={"ruby": fake},
            )
        )
    scopes = _scopes(report)
    for path in ("lib/broken.rb", "lib/fine.rb"):
        assert scopes[(path, "ruby")].status == status
        assert (path, "treesitter") not in scopes
    assert not [f for f in report.findings if f.checker in ("ruby", "treesitter")]
    assert not report.coverage.complete


def test_CG31_absent_ruby_keeps_bundled_grammar_candidates(tmp_path: Path) -> None:
    root = _project(tmp_path / "ws")
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    env = dict(os.environ, PATH=str(empty))
    report = run_lint(
        LintRequest(project_root=root, paths=["lib/broken.rb", "lib/fine.rb"], cwd=root, env=env)
    )
    scopes = _scopes(report)
    for path in ("lib/broken.rb", "lib/fine.rb"):
        native = scopes[(path, "ruby")]
        assert native.status == ScopeStatus.MISSING
        assert native.hint and "apt-get install ruby" in native.hint
        assert scopes[(path, "treesitter")].tier == Tier.FALLBACK
    candidates = [f for f in report.findings if f.path == "lib/broken.rb"]
    assert candidates and all(f.candidate and f.checker == "treesitter" for f in candidates)
    assert report.coverage.native_files == 0


@pytest.mark.e2e
def test_CG31_ruby_task_recheck_keeps_line_only_evidence_and_never_closes(
    tmp_path: Path,
) -> None:
    from orchestrator.tasks import store as tasks
    from orchestrator.tasks import verify

    require_tool("ruby", "install ruby (Debian: apt-get install ruby)")
    root = _project(tmp_path / "ws")
    report = run_lint(LintRequest(project_root=root, paths=["lib/broken.rb"], cwd=root))
    sync = tasks.sync_tasks(report, root)
    (task_id,) = sync.created
    rec = tasks.load_task(root, task_id)
    assert rec is not None and rec.basis.checker == "ruby" and rec.basis.path == "lib/broken.rb"
    # The original checker still sees it: the same task, still open.
    still = verify.verify_task(root, task_id, timeout=60)
    assert (still.outcome, still.checker) == (verify.STILL_PRESENT, "ruby")
    # Repaired: zero diagnostics is an observation, never a closure.
    (root / "lib" / "broken.rb").write_text(MISSING_END + "end\n")
    gone = verify.verify_task(root, task_id, timeout=60)
    assert gone.outcome == verify.ABSENT_UNVERIFIED
    after = tasks.load_task(root, task_id)
    assert after is not None and after.is_open()
