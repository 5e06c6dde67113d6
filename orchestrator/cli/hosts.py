"""`orchestrate hook claude-code|codex|gemini` (event JSON on stdin) and `orchestrate mcp`."""

from __future__ import annotations

import argparse

from orchestrator.hosts.guard import REFUSALS


def cmd_hook(args: argparse.Namespace) -> int:
    """Read one event from stdin, answer on stdout in the host's protocol.

    The exit code follows the host's protocol (0 with JSON; 2 when the outer guard
    refused after a fault), never the CLI's exit-code table. The console script sends
    `hook HOST` to the same guard before the CLI loads (cli/entry.py).
    """
    from orchestrator.hosts.guard import answer

    return answer(args.host)


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve the MCP tools over stdio until the client disconnects (needs the `mcp`
    extra: cli/extras.py)."""
    from orchestrator.cli.extras import require_extra

    require_extra("mcp", "mcp")
    from orchestrator.hosts.mcp_server import serve

    serve()
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `hook HOST` and `mcp`."""
    hook = subparsers.add_parser(
        "hook", help="answer one agent-host hook event (JSON on stdin, host protocol on stdout)"
    )
    hook.add_argument("host", choices=sorted(REFUSALS), help="the agent host sending the event")
    hook.set_defaults(func=cmd_hook)

    mcp = subparsers.add_parser("mcp", help="serve lint / gate / task tools over MCP (stdio)")
    mcp.set_defaults(func=cmd_mcp)
