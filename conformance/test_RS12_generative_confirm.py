"""RS-12: a generative op is confirm; it goes to a pluggable generator, none configured = not applied."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hygiene_helpers import by_id, clean, commit_all, digest, entry, report, settle

from orchestrator.core import plugin_host
from orchestrator.core.hookspecs import hookimpl
from orchestrator.model.edits import derive_safety_tier
from orchestrator.model.report import utc_now

pytestmark = pytest.mark.scenario("RS-12")


class _Generator:
    calls = 0

    @hookimpl
    def orchestrate_generate(self, entry: dict[str, Any], project_root: str) -> dict[str, Any]:
        _Generator.calls += 1
        return {"path": entry["path"], "content": "# Log\nsummary\n"}


def test_RS12_always_confirm() -> None:
    for d in (True, False):
        for r in (True, False):
            assert derive_safety_tier("generative", d, r) == "confirm"
    assert entry(None, op_type="generative")["safety_tier"] == "confirm"


def test_RS12_no_generator_configured(git_repo: Path) -> None:
    log = git_repo / "log.md"
    log.write_text("# Log\nlong\nlong\n")
    commit_all(git_repo)
    e = entry(None, "log.md", op_type="generative", anchor_digest=digest(log))
    settle()
    rep = report([e], generated_at=utc_now())
    res = by_id(clean(git_repo, rep, approve_all_confirm=True, plugins=plugin_host.load()))[e["id"]]
    assert (res.status, res.reason) == ("not_applied", "not applied: no generator configured")
    assert log.read_text() == "# Log\nlong\nlong\n"


def test_RS12_generator_runs_only_when_approved(git_repo: Path) -> None:
    log = git_repo / "log.md"
    log.write_text("# Log\nlong\nlong\n")
    commit_all(git_repo)
    plugins = plugin_host.load(extra_modules=[("fake_generator", _Generator())])
    e = entry(None, "log.md", op_type="generative", anchor_digest=digest(log))
    settle()
    rep = report([e], generated_at=utc_now())
    res = by_id(clean(git_repo, rep, plugins=plugins))[e["id"]]
    assert (res.status, res.tier) == ("pending", "confirm") and _Generator.calls == 0
    res = by_id(clean(git_repo, rep, approve=frozenset({e["id"]}), plugins=plugins))[e["id"]]
    assert res.status == "applied" and _Generator.calls == 1
    assert log.read_text() == "# Log\nsummary\n"
