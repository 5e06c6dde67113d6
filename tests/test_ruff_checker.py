"""The Ruff plugin against the real Ruff: batching, config discovery, fixes, faults."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from orchestrate_plugins._ruff_config import describe, satisfies
from orchestrate_plugins.ruff_checker import RuffChecker, nearest_config

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.deadline import Deadline
from orchestrator.model.checker import FileTarget, RunContext
from orchestrator.vocab import ScopeStatus


def _ctx(root: Path, **kw) -> RunContext:  # type: ignore[no-untyped-def]
    return RunContext(project_root=root, deadline=Deadline.after(kw.pop("timeout", 30)), **kw)


def _target(root: Path, rel: str, content: bytes | None = None) -> FileTarget:
    return FileTarget(path=rel, abs_path=root / rel, language="python", content=content)


def _fake_tool(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_one_process_per_config_group(tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"m{i}.py").write_text("import os\n")
    checker = RuffChecker()
    targets = [_target(tmp_path, f"m{i}.py") for i in range(5)]
    plan = checker.plan(targets, _ctx(tmp_path))
    assert len(plan.batches) == 1 and len(plan.batches[0].targets) == 5
    outs = checker.run(plan.batches[0], _ctx(tmp_path))
    assert all(o.status == ScopeStatus.CHECKED for o in outs)
    assert all(any(f.rule == "F401" for f in o.findings) for o in outs)
    assert outs[0].tool and outs[0].tool.version and "ruff" in outs[0].tool.version


def test_safe_fix_is_auto_unsafe_fix_is_confirm(tmp_path: Path) -> None:
    (tmp_path / "ruff.toml").write_text('[lint]\nselect = ["F401", "F841"]\n')
    (tmp_path / "m.py").write_text("import os\n\n\ndef f():\n    x = 1\n")
    report = run_lint(LintRequest(project_root=tmp_path))
    by_rule = {f.rule: f for f in report.findings}
    f401, f841 = by_rule["F401"], by_rule["F841"]
    assert f401.safety_tier == "auto" and f401.fix_applicability == "safe"
    assert f401.exact_edit is not None and f401.exact_edit.kind == "replace-text"
    assert f401.exact_edit.match == "import os\n" and f401.exact_edit.replacement == ""
    assert f841.safety_tier == "confirm" and f841.fix_applicability == "unsafe"


def test_nearest_config_wins(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    sub = tmp_path / "pkg" / "inner"
    sub.mkdir(parents=True)
    (tmp_path / "pkg" / "ruff.toml").write_text("line-length = 80\n")
    (tmp_path / "pkg" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    cache: dict[Path, Path | None] = {}
    assert nearest_config(tmp_path, "pkg/inner/a.py", cache) == tmp_path / "pkg" / "ruff.toml"
    assert nearest_config(tmp_path, "b.py", cache) == tmp_path / "pyproject.toml"


def test_staged_content_goes_over_stdin(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x = 1\n")  # the worktree is clean...
    staged = b"import os\n"  # ...the staged bytes are not
    checker = RuffChecker()
    plan = checker.plan([_target(tmp_path, "m.py", staged)], _ctx(tmp_path))
    outs = checker.run(plan.batches[0], _ctx(tmp_path))
    assert [f.rule for f in outs[0].findings] == ["F401"]


def test_missing_tool_settles_missing_and_falls_back(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x = 1\n")
    ctx = _ctx(tmp_path, tool_overrides={"ruff": str(tmp_path / "nope" / "ruff")})
    plan = RuffChecker().plan([_target(tmp_path, "m.py")], ctx)
    assert not plan.batches
    (o,) = plan.settled
    assert o.status == ScopeStatus.MISSING and o.falls_back and o.hint


def test_fake_ruff_garbage_output_is_tool_error(tmp_path: Path) -> None:
    fake = _fake_tool(tmp_path / "fake_ruff", 'echo "ruff 0.0.0"; echo "not json at all"\n')
    (tmp_path / "m.py").write_text("x = 1\n")
    ctx = _ctx(tmp_path, tool_overrides={"ruff": fake})
    checker = RuffChecker()
    outs = checker.run(checker.plan([_target(tmp_path, "m.py")], ctx).batches[0], ctx)
    assert outs[0].status == ScopeStatus.TOOL_ERROR
    assert "unparsable" in (outs[0].reason or "")


def test_fake_ruff_flood_is_tool_error(tmp_path: Path) -> None:
    # Output over the budget is cut mid-stream: unparsable, so no result stands
    # (the shared ladder, orchestrator.model.outcomes; it was `partial` here only).
    fake = _fake_tool(
        tmp_path / "fake_ruff",
        'case "$1" in --version) echo "ruff 9.9.9"; exit 0;; esac\nyes flood\n',
    )
    (tmp_path / "m.py").write_text("x = 1\n")
    ctx = _ctx(tmp_path, tool_overrides={"ruff": fake}, output_budget=4096)
    checker = RuffChecker()
    outs = checker.run(checker.plan([_target(tmp_path, "m.py")], ctx).batches[0], ctx)
    assert outs[0].status == ScopeStatus.TOOL_ERROR
    assert "over budget" in (outs[0].reason or "")


def test_fake_ruff_crash_is_tool_error(tmp_path: Path) -> None:
    fake = _fake_tool(
        tmp_path / "fake_ruff",
        'case "$1" in --version) echo "ruff 9.9.9"; exit 0;; esac\necho "panic" >&2; exit 101\n',
    )
    (tmp_path / "m.py").write_text("x = 1\n")
    ctx = _ctx(tmp_path, tool_overrides={"ruff": fake})
    checker = RuffChecker()
    outs = checker.run(checker.plan([_target(tmp_path, "m.py")], ctx).batches[0], ctx)
    assert outs[0].status == ScopeStatus.TOOL_ERROR
    assert outs[0].exit_code == 101


def test_results_for_a_path_not_asked_about_make_the_batch_untrusted(tmp_path: Path) -> None:
    # Before, the stray result was dropped and m.py stood `checked` and clean.
    other = json.dumps(
        [{"filename": str(tmp_path / "other.py"), "code": "F401", "location": {"row": 1}}]
    )
    fake = _fake_tool(
        tmp_path / "fake-ruff",
        f"case \"$1\" in --version) echo 'ruff 9.9.9'; exit 0;; esac\necho '{other}'\n",
    )
    (tmp_path / "m.py").write_text("x = 1\n")
    ctx = _ctx(tmp_path, tool_overrides={"ruff": fake})
    checker = RuffChecker()
    (out,) = checker.run(checker.plan([_target(tmp_path, "m.py")], ctx).batches[0], ctx)
    assert out.status == ScopeStatus.TOOL_ERROR
    assert "not asked about" in (out.reason or "")


def test_a_listing_naming_other_files_is_untrusted(tmp_path: Path) -> None:
    # Lint says clean; the listing that should confirm m.py was checked names another file.
    fake = _fake_tool(
        tmp_path / "fake-ruff",
        'case "$1" in --version) echo "ruff 9.9.9"; exit 0;; esac\n'
        'for a in "$@"; do [ "$a" = --show-files ] && { echo /elsewhere/x.py; exit 0; }; done\n'
        "echo '[]'\n",
    )
    (tmp_path / "m.py").write_text("x = 1\n")
    ctx = _ctx(tmp_path, tool_overrides={"ruff": fake})
    checker = RuffChecker()
    (out,) = checker.run(checker.plan([_target(tmp_path, "m.py")], ctx).batches[0], ctx)
    assert out.status == ScopeStatus.TOOL_ERROR
    assert "--show-files" in (out.reason or "")


def test_extend_cycle_ends_and_bare_pins_mean_equal(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text('extend = "b.toml"\nrequired-version = "0.8.4"\n')
    (tmp_path / "b.toml").write_text('extend = "a.toml"\n')
    cfg = describe(tmp_path / "a.toml")
    assert cfg.chain == (tmp_path / "a.toml", tmp_path / "b.toml")
    assert cfg.required_version == ("0.8.4", tmp_path / "a.toml")
    assert satisfies("0.8.4", "0.8.4") and not satisfies("0.8.5", "0.8.4")
    assert satisfies("0.9.0", ">=0.8,<1") and satisfies("1.0", "not a pin") is None


#: Ruff warns on stderr about a malformed suppression in the project's own code.
_BAD_NOQA = "import os  # noqa:\n"
_NOQA_WARNING = "Invalid `# noqa` directive on"


def test_ruff_warnings_become_report_notes(tmp_path: Path) -> None:
    """Ruff's stderr `warning:` lines (here an invalid `# noqa`) reach the report as
    notes, once each. Before: the stderr was dropped and the warning was lost."""
    (tmp_path / "a.py").write_text(_BAD_NOQA)
    (tmp_path / "b.py").write_text("X = 1\n")
    report = run_lint(LintRequest(project_root=tmp_path))
    said = [n for n in report.notes if _NOQA_WARNING in n]
    assert len(said) == 1 and said[0].startswith("ruff warning:"), report.notes
    assert "a.py:1" in said[0]


def test_ruff_warning_notes_are_bounded() -> None:
    from orchestrate_plugins.ruff_checker import MAX_WARNINGS, warning_notes

    stderr = b"".join(b"warning: w%d " % i + b"x" * 1000 + b"\n" for i in range(30))
    notes = warning_notes(stderr + b"not a warning\n")
    assert len(notes) == MAX_WARNINGS + 1 and all(len(n) <= 320 for n in notes)
    assert notes[-1] == f"ruff: {30 - MAX_WARNINGS} more warning(s) not shown"


def test_ruff_warnings_never_reach_the_agent_feedback(tmp_path: Path) -> None:
    from helpers import git, new_repo

    from orchestrator.render.agent import edit_context, edit_message
    from orchestrator.usecases.agent import lint_here

    repo = new_repo(tmp_path / "r", {"a.py": "X = 1\n"})
    git(repo, "commit", "-q", "-m", "base")
    (repo / "a.py").write_text(_BAD_NOQA)
    result = lint_here(repo, ["a.py"], 60)
    assert any(_NOQA_WARNING in n for n in result.report.notes), result.report.notes
    text = edit_context(True, ["a.py"], result, (None, ()), [], False)
    line = edit_message(result, (), False)
    assert "noqa` directive" not in text and "noqa` directive" not in line, text
