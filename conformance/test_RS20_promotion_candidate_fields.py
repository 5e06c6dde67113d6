"""RS-20: a promotion candidate names the judged entry's path, the convention and its pitch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hygiene_helpers import commit_all

from orchestrator.hygiene import service

pytestmark = pytest.mark.scenario("RS-20")

CONVENTIONS = [
    {
        "name": "session-done-marker",
        "pitch": "End a session log with a .done marker so cleanup is provable.",
        "applies_to": ["session-logs"],
        "adopted": False,
    },
    {"name": "adopted-already", "pitch": "x", "applies_to": ["session-logs"], "adopted": True},
    {"name": "plans-only", "pitch": "y", "applies_to": ["plans"], "adopted": False},
]


def test_RS20_candidate_for_judged_entry(git_repo: Path) -> None:
    (git_repo / "sessions").mkdir()
    (git_repo / "sessions" / "s1.md").write_text("log\n")
    (git_repo / "plans").mkdir()
    (git_repo / "plans" / "p.md").write_text("# P\n")  # served_when_path: not classifier-judged
    (git_repo / "conventions.json").write_text(json.dumps(CONVENTIONS))
    commit_all(git_repo)
    out = git_repo / "r.json"
    service.write_report(service.check(git_repo).report, out)
    data = json.loads(out.read_text())
    assert data["promotion_candidates"] == [
        {
            "path": "sessions/s1.md",
            "convention": "session-done-marker",
            "pitch": CONVENTIONS[0]["pitch"],
        }
    ]
