"""The `orchestrate_hygiene_rules` hook: a plugin's rules join the project rulebook."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from orchestrator.core import plugin_host
from orchestrator.core.hookspecs import hookimpl
from orchestrator.hygiene import service


def test_plugin_rules_are_used_by_check(git_repo: Path) -> None:
    @hookimpl
    def orchestrate_hygiene_rules():  # type: ignore[no-untyped-def]
        return [
            {
                "id": "plugin-scratch",
                "type": "file",
                "glob": "**/*.scratchpad",
                "lifetime": "temporary",
                "max_age_days": 0,
            }
        ]

    (git_repo / "ideas.scratchpad").write_text("notes\n")
    plugins = plugin_host.load(
        extra_modules=[
            ("rules", SimpleNamespace(orchestrate_hygiene_rules=orchestrate_hygiene_rules))
        ]
    )
    report = service.check(git_repo, plugins).report
    items = [i for i in report.shortlist if i.path == "ideas.scratchpad"]
    assert items and items[0].lifecycle.rule_ref == "plugin-scratch"
    # Without the plugin, nothing in the default rulebook claims that file.
    bare = service.check(git_repo, plugin_host.load()).report
    assert not [i for i in bare.shortlist if i.path == "ideas.scratchpad"]
