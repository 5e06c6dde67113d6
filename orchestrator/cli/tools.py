"""`orchestrate tools install` and `orchestrate tools status`: the managed (pinned) tools.

A pip install of orchestrate carries the pinned lockfile of its managed ESLint, not the
packages: `tools install` runs `npm ci` into the user's cache folder (see
orchestrator/managed_tools.py). Exit codes: 0 every managed tool in place, 1 one is not
(npm absent, offline: the message says what to do), 2 usage error.
"""

from __future__ import annotations

import argparse
import sys

from orchestrator import managed_tools
from orchestrator.decisions.exits import tools_exit
from orchestrator.safetext import printable

#: The managed tools orchestrate can install.
TOOLS = tuple(managed_tools.DATA_PACKAGES)


def _tool(name: str) -> str:
    if name not in TOOLS:
        raise argparse.ArgumentTypeError(f"unknown tool (choose from {', '.join(TOOLS)})")
    return name


def cmd_install(args: argparse.Namespace) -> int:
    """Install each named (default: every) managed tool; one line per tool."""
    ok = True
    for name in args.tools or TOOLS:
        # Announced by the installer only when npm really runs (not for an install
        # already in place, nor without npm).
        res = managed_tools.install(name, on_start=lambda line: print(line, file=sys.stderr))
        print(printable(res.message), file=sys.stdout if res.ok else sys.stderr)
        ok = ok and res.ok
    return tools_exit(installed=ok)


def cmd_status(args: argparse.Namespace) -> int:
    """Where each managed tool is installed, or the command that installs it."""
    ok = True
    for name in args.tools or TOOLS:
        homes = managed_tools.homes(name)
        installed = [h for h in homes if (h / "node_modules").is_dir()]
        if installed:
            print(printable(f"{name}: installed at {installed[0]}"))
        else:
            ok = False
            print(printable(f"{name}: not installed; run: {managed_tools.install_hint(name)}"))
    return tools_exit(installed=ok)


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `tools install` and `tools status`."""
    tools = subparsers.add_parser("tools", help="the managed (pinned) tools: install, status")
    actions = tools.add_subparsers(dest="tools_action", metavar="ACTION")
    p = actions.add_parser(
        "install", help="install the pinned tools into the user's cache folder (npm ci)"
    )
    p.add_argument("tools", nargs="*", type=_tool, metavar="TOOL", help="default: all")
    p.set_defaults(func=cmd_install)
    p = actions.add_parser("status", help="where the managed tools are installed")
    p.add_argument("tools", nargs="*", type=_tool, metavar="TOOL", help="default: all")
    p.set_defaults(func=cmd_status)
