"""`orchestrate lsp`: the language server over stdio (orchestrator/lsp/)."""

from __future__ import annotations

import argparse


def cmd_lsp(args: argparse.Namespace) -> int:
    """Serve editors over stdin/stdout until the client ends the session (needs the
    `lsp` extra: cli/extras.py)."""
    from orchestrator.cli.extras import require_extra

    require_extra("lsp", "lsp")
    from orchestrator.lsp.server import serve

    return serve()


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `orchestrate lsp`."""
    p = sub.add_parser(
        "lsp", help="language server over stdio: diagnostics and fixes in the editor"
    )
    p.add_argument(
        "--stdio", action="store_true", help="talk over stdin/stdout (the default and only mode)"
    )
    p.set_defaults(func=cmd_lsp)
