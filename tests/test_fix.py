"""`orchestrate fix REPORT`: lint fixes go through the hygiene apply engine and tiers."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import git, run_cli


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
