"""CLI: `orchestrate trust`: run the project's recipes in `lint`, the LSP and the agent
hooks, once you have read them (usecases/trust.py). Strict gates never ask this: they
run a project recipe only as the base commit holds it (docs/gates.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def cmd_trust(args: argparse.Namespace) -> int:
    """Trust the project's recipes (default), list their state, or revoke the trust."""
    from orchestrator.safetext import printable
    from orchestrator.usecases.requests import project_root
    from orchestrator.usecases.trust import (
        recipe_states,
        revoke_recipes,
        store_location,
        trust_recipes,
    )

    root = project_root(args.root, Path.cwd())
    if args.revoke:
        gone = revoke_recipes(root)
        print(printable(f"trust revoked for {len(gone)} recipe(s) in {root}"))
        for path in gone:
            print(printable(f"  {path}"))
        return 0
    states = recipe_states(root) if args.list else trust_recipes(root)
    if not states:
        print(printable(f"no project recipes in {root} (`recipes` in its orchestrate config)"))
        return 0
    for s in states:
        print(printable(f"{s.state}: {s.name} ({s.path}) sha256:{s.digest[:16]}"))
    if not args.list:
        print(printable(f"recorded in {store_location()}"))
    return 0


def add_parser(subparsers: Any) -> None:
    """Register `trust` on an argparse subparsers object."""
    p = subparsers.add_parser(
        "trust", help="trust the project's recipes (their digests) so lint runs them"
    )
    what = p.add_mutually_exclusive_group()
    what.add_argument("--list", action="store_true", help="show each recipe and its trust")
    what.add_argument("--revoke", action="store_true", help="forget the trust in this project")
    p.add_argument("--root", help="project root (default: git top level, else cwd)")
    p.set_defaults(func=cmd_trust)
