"""Which ESLint runs, where it came from, and the environment it runs under.

Tool, in order: an explicit absolute path from configuration; the project's own
`node_modules/.bin/eslint` nearest to the file (inside the project root); the pinned
managed install (`$ORCHESTRATE_ESLINT_HOME` when set; else a source checkout's
`tools/eslint` after `npm ci --prefix tools/eslint`, then the verified install
`orchestrate tools install` put in the user's cache folder). A relative PATH entry is
never consulted. `install_hint()` names the command for the way orchestrate was installed.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from orchestrate_plugins.eslint_config import (
    LAST_LEGACY_MAJOR,
    Setup,
    ancestors,
    major,
    range_differs,
)

from orchestrator.api import (
    RunContext,
    ToolIdentity,
    find_tool,
    managed_install_hint,
    managed_tool_homes,
    tool_refusal,
)

NAME = "eslint"
HOME_ENV = "ORCHESTRATE_ESLINT_HOME"
#: Environment that would switch ESLint to another config system or lookup mode.
SCRUBBED = ("ESLINT_USE_FLAT_CONFIG", "ESLINT_FLAGS")


def managed_homes() -> list[Path]:
    """Folders a managed ESLint install may be in, in order (`$ORCHESTRATE_ESLINT_HOME`,
    when set to an absolute path, is the only one)."""
    env = os.environ.get(HOME_ENV)
    if env and os.path.isabs(env):
        return [Path(env)]
    return managed_tool_homes(NAME)


def _home_of(tool: str) -> Path | None:
    """The managed install `tool` belongs to, or None (the project's, or configured)."""
    return next((h for h in managed_homes() if Path(tool).is_relative_to(h)), None)


def install_hint() -> str:
    """What to do when no ESLint is found: the command that installs the pinned one for
    the way orchestrate was installed, or the project's own / a configured one."""
    env = os.environ.get(HOME_ENV)
    usable = env and os.path.isabs(env)
    cmd = f"npm ci --prefix {shlex.quote(env)}" if usable and env else managed_install_hint(NAME)
    return (
        f"install the pinned ESLint: {cmd} "
        "(or add eslint to the project, or set ORCHESTRATE_TOOL_ESLINT=/abs/path)"
    )


def _executable(p: Path) -> bool:
    return p.is_file() and os.access(p, os.X_OK)


def resolve_tool(root: Path, rel_path: str, ctx: RunContext) -> str | None:
    """Absolute path of the ESLint to run for `rel_path`, or None (see module docs)."""
    explicit = ctx.tool_overrides.get(NAME)
    if explicit is not None:
        return find_tool(NAME, override=explicit, refuse=lambda p: tool_refusal(p, ctx))
    for folder in ancestors(root, rel_path):
        cand = folder / "node_modules" / ".bin" / NAME
        # A tracked node_modules, or any at a strict gate, is the change's code.
        if _executable(cand) and tool_refusal(str(cand), ctx) is None:
            return str(cand)
    for home in managed_homes():
        managed = home / "node_modules" / ".bin" / NAME
        if _executable(managed):
            return str(managed)
    return None


def managed_env(tool: str, env: dict[str, str]) -> dict[str, str]:
    """Let a project config's bare imports fall back to the managed install's packages.

    Node resolves a config's imports from the config's folder; a project that relies
    on the managed ESLint has no `@eslint/js` or `typescript-eslint` of its own. Only
    for the managed tool: a resolve hook (ESM) and NODE_PATH (CommonJS) retry from it.
    """
    home = _home_of(tool)
    hook = home / "resolve-managed.mjs" if home is not None else None
    if home is None or hook is None or not hook.is_file():
        return env
    opt = f"--import={hook.as_uri()}"
    opts = env.get("NODE_OPTIONS", "")
    env = dict(env, NODE_OPTIONS=f"{opts} {opt}".strip())
    paths = [str(home / "node_modules"), *filter(None, env.get("NODE_PATH", "").split(os.pathsep))]
    env["NODE_PATH"] = os.pathsep.join(paths)
    return env


def _source(tool: str) -> str:
    if _home_of(tool) is not None:
        return "orchestrate's pinned install"
    if f"{os.sep}node_modules{os.sep}" in tool:
        return "the project's node_modules"
    return "the configured path"


def version_note(
    root: Path, setup: Setup, tool: ToolIdentity, declared: tuple[str, Path] | None
) -> str:
    """What a checked scope says about how ESLint ran: legacy mode, the ESLint used (version
    and where it came from) and, when package.json declares an eslint range, whether the
    used version's major falls outside it."""
    note = f"eslint {tool.version} from {_source(str(tool.path))}"
    if setup.legacy:
        rel = setup.config.relative_to(root).as_posix()
        note = f"legacy config {rel} (ESLINT_USE_FLAT_CONFIG=false); {note}"
    if declared is not None:
        wanted, pkg = declared
        note += f"; {pkg.relative_to(root).as_posix()} declares eslint {wanted}"
        differs = range_differs(wanted, tool.version)
        note += {True: ": the majors differ", False: "", None: " (range not compared)"}[differs]
    return note


def run_env(base: dict[str, str], tool: str, setup: Setup, version: str | None) -> dict[str, str]:
    """The environment ESLint runs under: the config system the setup needs, stated
    explicitly (ESLint 8 and 9 both honour it; 10 has no legacy mode), and for a flat
    config under the managed tool, the managed module fallback."""
    env = {k: v for k, v in base.items() if k not in SCRUBBED}
    if setup.legacy:
        # The project's own plugins only: no fallback to the managed install's packages.
        return dict(env, ESLINT_USE_FLAT_CONFIG="false")
    if (major(version) or 0) <= LAST_LEGACY_MAJOR:
        env["ESLINT_USE_FLAT_CONFIG"] = "true"
    return managed_env(tool, env)
