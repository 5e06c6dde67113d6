"""`orchestrate server start|stop|status|run`: the optional warm engine of a project.

README "Warm engine". `start` runs it in the background (and waits until it answers),
`stop` ends it, `status` shows it (pid, requests served, memory), `run` serves in the
foreground (what `start` launches). Exit codes: 0 done / running, 1 not running or did
not start, 2 usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from orchestrator.vocab import ExitCode

#: Seconds without a request after which an engine exits, unless `[server]` says otherwise.
DEFAULT_IDLE_TIMEOUT_S = 1800
#: The same for an engine edit feedback started (README "Warm engine").
AUTO_IDLE_TIMEOUT_S = 300
#: `status` of no engine, `start` that did not come up.
NOT_RUNNING = 1


def _root(args: argparse.Namespace) -> Path:
    from orchestrator.server.client import find_root

    return find_root(Path.cwd(), args.root)


def _show(info: dict[str, Any], head: str, fmt: str) -> None:
    from orchestrator.safetext import printable

    if fmt == "json":
        print(json.dumps({"state": head, **info}, indent=2, sort_keys=True))
        return
    rss = info.get("rss_kib")
    memory = f", {rss / 1024:.0f} MiB resident" if isinstance(rss, int) else ""
    print(
        printable(
            f"warm engine {head}: pid {info.get('pid')}, root {info.get('root')}, "
            f"{info.get('served')} request(s) served{memory}, "
            f"idle timeout {info.get('idle_timeout_s')} s"
        )
    )


def cmd_server(args: argparse.Namespace) -> int:
    """Start, stop, show or run the project's warm engine."""
    from orchestrator.server import client

    root = _root(args)
    if args.action == "run":
        return _run(root, args.auto_started)
    if args.action == "start":
        info = client.start(root)
        if info is None:
            paths = client.runtime_paths(root)
            print(f"orchestrate: the warm engine did not start; see {paths.log}", file=sys.stderr)
            return NOT_RUNNING
        _show(info, "running", args.format)
        return ExitCode.PASS
    if args.action == "stop":
        info = client.stop(root)
        if info is None:
            print("warm engine not running")
            return ExitCode.PASS
        _show(info, "stopped", args.format)
        return ExitCode.PASS
    paths = client.runtime_paths(root)
    info = client.ping(paths)
    if info is None:
        if args.format == "json":
            print(json.dumps({"state": "not running", "root": str(root)}, indent=2))
        else:
            print("warm engine not running")
        return NOT_RUNNING
    _show(info, "running", args.format)
    return ExitCode.PASS


def _run(root: Path, auto: bool = False) -> int:
    """Serve `root` in the foreground until stopped, stale or idle (`auto`: started by
    edit feedback, so idle sooner unless `[server] idle_timeout` says otherwise)."""
    import importlib

    from orchestrator.server import services
    from orchestrator.server.engine import Engine
    from orchestrator.server.protocol import runtime_paths
    from orchestrator.usecases.settings import project_settings
    from orchestrator.usecases.warm import warm_up

    settings = project_settings(root).get("server", {})
    idle = float(
        settings.get("idle_timeout") or (AUTO_IDLE_TIMEOUT_S if auto else DEFAULT_IDLE_TIMEOUT_S)
    )
    # The CLI's own entry, found by name like the other subcommand modules: it imports
    # this module (a static import back would make a circle).
    main = importlib.import_module("orchestrator.cli.main").main
    warm_up()  # what every request needs, loaded now and kept between requests
    engine = Engine(
        root,
        runtime_paths(root),
        main,
        idle,
        hook_lint=services.hook_lint,
        buffer_lint=services.buffer_lint,
    )
    return engine.serve()


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `server ACTION`."""
    p = subparsers.add_parser(
        "server", help="the optional warm engine of this project: start, stop, status"
    )
    p.add_argument("action", choices=("start", "stop", "status", "run"))
    p.add_argument("--root", help="project root (default: git top level, else cwd)")
    p.add_argument("--format", choices=("human", "json"), default="human")
    # `run` as edit feedback launches it (server/client.start_once): not for users.
    p.add_argument("--auto-started", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_server)
