"""`orchestrate hook claude-code|codex|gemini` (event JSON on stdin) and `orchestrate mcp`."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

HOSTS = {
    "claude-code": "orchestrator.hosts.claude_code",
    "codex": "orchestrator.hosts.codex",
    "gemini": "orchestrator.hosts.gemini",
}


def cmd_hook(args: argparse.Namespace) -> int:
    """Read one event from stdin, answer on stdout in the host's protocol.

    The exit code follows the host's protocol (always 0 with JSON), never the CLI's
    exit-code table.
    """
    from orchestrator.hosts.events import read_stdin

    module = importlib.import_module(HOSTS[args.host])
    data = read_stdin(sys.stdin.buffer)
    code, out = module.run(data, dict(os.environ))
    sys.stdout.buffer.write(out)
    sys.stdout.buffer.flush()
    return int(code)


def cmd_mcp(args: argparse.Namespace) -> int:
    """Serve the MCP tools over stdio until the client disconnects."""
    from orchestrator.hosts.mcp_server import serve

    serve()
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `hook HOST` and `mcp`."""
    hook = subparsers.add_parser(
        "hook", help="answer one agent-host hook event (JSON on stdin, host protocol on stdout)"
    )
    hook.add_argument("host", choices=sorted(HOSTS), help="the agent host sending the event")
    hook.set_defaults(func=cmd_hook)

    mcp = subparsers.add_parser("mcp", help="serve lint / gate / task tools over MCP (stdio)")
    mcp.set_defaults(func=cmd_mcp)
