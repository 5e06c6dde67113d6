"""Unit tests of the run plan's claiming (core/plan) and the host adapters' shared
decoding and encoding (hosts/common), in process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from orchestrator.core.plan import claimed_by, faulted_outcomes
from orchestrator.hosts.common import dump, event_name
from orchestrator.model.checker import Checker, FileTarget
from orchestrator.vocab import ScopeStatus


class _Claims:
    """A checker that claims Python files and fails on one name."""

    name = "fake"

    def claims(self, t: FileTarget) -> bool:
        if t.path == "boom.py":
            raise RuntimeError("cannot tell")
        return t.path.endswith(".py")


def _targets(*paths: str) -> list[FileTarget]:
    return [FileTarget(path=p, abs_path=Path("/p") / p) for p in paths]


def test_claimed_by_takes_its_files_and_contains_a_failing_claim() -> None:
    checker = cast(Checker, _Claims())
    claim = claimed_by(checker, _targets("a.py", "b.js", "boom.py"))
    assert [t.path for t in claim.mine] == ["a.py"]
    assert [t.path for t in claim.faulted] == ["boom.py"]
    assert claim.paths == {"a.py", "boom.py"} and claim
    assert "RuntimeError: cannot tell" in claim.reason
    (outcome,) = faulted_outcomes(checker, claim)
    assert outcome.path == "boom.py" and outcome.status == ScopeStatus.TOOL_ERROR
    assert not claimed_by(checker, _targets("c.txt"))


def test_event_name_is_a_short_identifier_or_nothing() -> None:
    assert event_name({"hook_event_name": "PreToolUse"}) == "PreToolUse"
    assert event_name({"hook_event_name": "Pre Tool"}) == ""
    assert event_name({"hook_event_name": 3}) == ""
    assert event_name({}) == ""


def test_dump_is_one_ascii_json_line() -> None:
    obj: dict[str, Any] = {"reason": "é", "ok": True}
    data = dump(obj)
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert data.isascii() and json.loads(data) == obj
