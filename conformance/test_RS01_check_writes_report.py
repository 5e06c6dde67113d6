"""RS-01: check writes one well-formed JSON object with the seed's envelope."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers import run_cli
from hygiene_helpers import commit_all

pytestmark = [pytest.mark.e2e, pytest.mark.scenario("RS-01")]


def test_RS01_check_report_envelope(git_repo: Path) -> None:
    (git_repo / "plans").mkdir()
    (git_repo / "plans" / "a.md").write_text("# plan\n")
    commit_all(git_repo)
    before = datetime.now(UTC)
    out = git_repo / "hygiene.json"
    proc = run_cli(["check", "--output", str(out)], cwd=git_repo)
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads(out.read_text())
    assert isinstance(data, dict)
    assert set(data) == {
        "schema_version",
        "tool_version",
        "generated_at",
        "scan",
        "shortlist",
        "entries",
        "promotion_candidates",
    }
    assert set(data["scan"]) == {"project_root", "scope_globs", "excluded_dirs", "files_scanned"}
    assert data["scan"]["project_root"] == str(git_repo.resolve())
    assert data["scan"]["files_scanned"] >= 2
    stamp = datetime.fromisoformat(data["generated_at"].replace("Z", "+00:00"))
    assert stamp.utcoffset().total_seconds() == 0  # ISO-8601 UTC
    assert before <= stamp <= datetime.now(UTC)  # the check time
    assert [i["path"] for i in data["shortlist"]] == ["plans/a.md"]
    assert run_cli(["report", "validate", str(out)], cwd=git_repo).returncode == 0
