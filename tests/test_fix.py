"""`orchestrate fix REPORT`: lint fixes go through the hygiene apply engine and tiers."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from helpers import git, run_cli

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


def test_fix_applies_safe_ruff_fix_and_holds_unsafe(git_repo: Path) -> None:
    (git_repo / "ruff.toml").write_text('[lint]\nselect = ["F401", "F841"]\n')
    (git_repo / "m.py").write_text("import os\n\n\ndef f():\n    x = 1\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "add m")
    report = git_repo.parent / "lint.json"
    res = run_cli(["lint", "m.py", "--format", "json", "--output", str(report)], cwd=git_repo)
    assert res.returncode == 1
    tiers = {f["rule"]: f["safety_tier"] for f in json.loads(report.read_text())["findings"]}
    assert tiers == {"F401": "auto", "F841": "confirm"}

    res = run_cli(["fix", str(report), "--no-input"], cwd=git_repo)
    text = (git_repo / "m.py").read_text()
    assert "import os" not in text  # the safe fix was applied without a prompt
    assert "x = 1" in text  # the unsafe fix waits for approval
    assert res.returncode == 1, res.stdout + res.stderr  # something is still pending


def test_fix_derives_the_tier_and_absent_fields_are_conservative() -> None:
    from orchestrator.hygiene.service import lint_entries
    from orchestrator.model.edits import Anchor, ReplaceText
    from orchestrator.model.report import Finding, Report, ScanInfo

    edit = ReplaceText(
        kind="replace-text", anchor=Anchor(start_line=1, end_line=1), match="a", replacement="b"
    )

    def finding(**fields: object) -> Finding:
        base = {"checker": "x", "rule": "r", "severity": "error", "path": "m.py"}
        return Finding.model_validate({**base, "exact_edit": edit, **fields})

    report = Report(
        scan=ScanInfo(project_root="/p"),
        findings=[
            # The plugin says auto but gives none of the fields the tier derives from.
            finding(rule="bare", safety_tier="auto"),
            # No recorded tier at all: still derived, not skipped.
            finding(
                rule="untiered", op_type="deterministic", is_destructive=False, is_reversible=True
            ),
            finding(
                rule="full",
                op_type="deterministic",
                is_destructive=False,
                is_reversible=True,
                safety_tier="auto",
            ),
        ],
    )
    tiers = {e.reason: e.safety_tier for e in lint_entries(report)}
    assert tiers == {"x:bare": "confirm", "x:untiered": "auto", "x:full": "auto"}


def test_a_fix_tier_never_beats_its_kind() -> None:
    """One derivation for lint fixes: the kind's character and the checker's claims,
    each on the conservative side (a checker cannot make a delete auto)."""
    from orchestrator.model.edits import tier_for_fix

    assert tier_for_fix("deterministic", "replace-text", False, True) == "auto"
    assert tier_for_fix("deterministic", "replace-text", None, None) == "confirm"
    assert tier_for_fix("deterministic", "replace-text", True, True) == "confirm"
    assert tier_for_fix("deterministic", "delete-range", False, True) == "confirm"
    assert tier_for_fix("generative", "replace-text", False, True) == "confirm"
    assert tier_for_fix(None, "delete", False, True) == "confirm"


def _printed_commands(text: str) -> list[list[str]]:
    """The orchestrate commands a hint prints after "with: " (argv without the program)."""
    out = []
    for line in text.splitlines():
        _head, sep, cmd = line.partition("with: orchestrate ")
        if sep and "--undo" not in cmd:
            out.append(shlex.split(cmd.strip().strip("`")))
    return out


def _lint_report(repo: Path, *paths: str) -> Path:
    report = repo.parent / "lint report.json"  # a space: the hint must quote it
    res = run_cli(["lint", *paths, "--format", "json", "--output", str(report)], cwd=repo)
    assert res.returncode == 1, res.stdout + res.stderr
    return report


def _follow_the_hint(repo: Path, report: Path) -> str:
    res = run_cli(["fix", str(report), "--no-input"], cwd=repo)
    assert res.returncode == 1, res.stdout + res.stderr  # a confirm-tier fix is pending
    commands = _printed_commands(res.stdout)
    assert commands, res.stdout
    for argv in commands:
        done = run_cli(argv, cwd=repo)
        assert done.returncode in (0, 1), done.stdout + done.stderr
    return res.stdout


def test_the_printed_approval_of_a_pending_fix_applies_it(git_repo: Path) -> None:
    """Failed before (issue 32): `fix REPORT` printed `orchestrate clean --approve ID`,
    which reads the hygiene report, not REPORT, and applied nothing."""
    (git_repo / "ruff.toml").write_text('[lint]\nselect = ["F401", "F841"]\n')
    (git_repo / "a.py").write_text("import os\n")
    (git_repo / "b.py").write_text("def f():\n    x = 1\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "add a and b")
    report = _lint_report(git_repo, "a.py", "b.py")
    out = _follow_the_hint(git_repo, report)
    assert f"orchestrate fix {shlex.quote(str(report))} --approve " in out, out
    assert "import os" not in (git_repo / "a.py").read_text()
    assert "x = 1" not in (git_repo / "b.py").read_text()  # the approved fix applied


def test_a_pending_fix_in_a_file_this_run_changed_gets_a_command_that_applies_it(
    git_repo: Path,
) -> None:
    """Failed before: the auto fix changed m.py, so approving the pending fix from the
    same report could only be skipped ("changed since check"); the hint now re-lints."""
    (git_repo / "ruff.toml").write_text('[lint]\nselect = ["F401", "F841"]\n')
    (git_repo / "m.py").write_text("import os\n\n\ndef f():\n    x = 1\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "add m")
    report = _lint_report(git_repo, "m.py")
    out = _follow_the_hint(git_repo, report)
    assert "changed in this run" in out, out
    text = (git_repo / "m.py").read_text()
    assert "import os" not in text and "x = 1" not in text, text
