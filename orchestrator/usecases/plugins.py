"""`orchestrate plugins`: the plugins found, each loaded, failed or blocked."""

from __future__ import annotations

from typing import Any


def plugin_rows() -> list[dict[str, Any]]:
    """One row per plugin the plugin host found, sorted by name: a loaded one with its
    display name, source, version and checkers; a failed one with why; a blocked one
    (disabled by the environment) by name only. Loads the plugins (core/plugin_host)."""
    from orchestrator.core import plugin_host

    ps = plugin_host.load()
    rows: list[dict[str, Any]] = [
        {
            "name": p.name,
            "display": p.display,
            "source": p.source,
            "version": p.version,
            "checkers": list(p.checkers),
            "status": "loaded",
        }
        for p in ps.loaded
    ]
    rows += [
        {"name": f.name, "source": f.source, "status": "failed", "reason": f.reason}
        for f in ps.failed
    ]
    rows += [{"name": n, "status": "blocked"} for n in ps.blocked]
    rows.sort(key=lambda r: str(r["name"]))
    return rows


__all__ = ["plugin_rows"]
