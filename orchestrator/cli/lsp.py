"""`orchestrate lsp`: the language server over stdio (orchestrator/lsp/)."""

from __future__ import annotations

import argparse
from typing import IO, Any


def _start_server(reader: IO[bytes], writer: Any) -> int:
    """Load the full server (pygls, the engine) and serve the conversation."""
    from orchestrator.lsp.server import serve

    return serve(reader, writer)


def front_door() -> int | None:
    """Serve editors over stdin/stdout through the front door (lsp/front.py: the
    `initialize` answer before the server loads); None when the `lsp` extra is
    missing, so the command line says what to install."""
    import importlib.util

    from orchestrator.cli.extras import EXTRAS

    if any(importlib.util.find_spec(m) is None for m in EXTRAS["lsp"]):
        return None
    from orchestrator.lsp.front import serve

    return serve(_start_server)


def cmd_lsp(args: argparse.Namespace) -> int:
    """Serve editors over stdin/stdout until the client ends the session (needs the
    `lsp` extra: cli/extras.py)."""
    from orchestrator.cli.extras import require_extra

    require_extra("lsp", "lsp")
    code = front_door()
    return 0 if code is None else code


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `orchestrate lsp`."""
    p = sub.add_parser(
        "lsp", help="language server over stdio: diagnostics and fixes in the editor"
    )
    p.add_argument(
        "--stdio", action="store_true", help="talk over stdin/stdout (the default and only mode)"
    )
    p.set_defaults(func=cmd_lsp)
