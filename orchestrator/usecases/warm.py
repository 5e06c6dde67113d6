"""What a warm engine's process keeps loaded between requests (README "Warm engine")."""

from __future__ import annotations


def warm_up() -> None:
    """Make this process a warm one: file answers kept while their files keep their
    stat (statmemo), unchanged trees answered from the kept run (core/run_memo), and
    what every request needs loaded now: the report model, the plugins and their
    grammars. Called once, before the engine serves its first request."""
    from orchestrator import statmemo
    from orchestrator.core import plugin_host, run_memo
    from orchestrator.model import report  # noqa: F401 - imported to be warm

    statmemo.enable()
    run_memo.hold()
    plugin_host.load()


__all__ = ["warm_up"]
