"""Which executables a checker may run: tool paths are machine-local facts.

A tool path is never read from a committed or work-tree file: a project's
`orchestrate.toml` / `[tool.orchestrate]` `[tools]` table is ignored (with a note saying
where the setting belongs), since a change that sets `ruff = "/bin/bash"` would
otherwise pick what its own gate runs. The explicit paths come from the machine only:

- the user-level config file (`<user config dir>/orchestrate/config.toml`, platformdirs;
  only its `[tools]` table is read), overlaid by
- the environment: `ORCHESTRATE_TOOL_<NAME>=/abs/path` (NAME upper-cased, `-` as `_`).

Whatever found a tool (an explicit path, a project virtualenv, PATH), `tool_refusal`
decides whether it may run, in one place: an executable git tracks inside the project
is never a tool, and at a strict gate (delivery purpose) nothing that lives inside the
judged tree or the repository runs, except orchestrate's own install (the folder of the
running interpreter, the managed installs), which runs the gate itself.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from orchestrator.errors import UsageError
from orchestrator.safetext import printable
from orchestrator.vocab import Purpose

USER_CONFIG = "config.toml"
#: `ORCHESTRATE_TOOL_RUFF=/abs/ruff`: a tool path from the environment.
ENV_PREFIX = "ORCHESTRATE_TOOL_"
#: Seconds git may take to say whether a project-local tool is tracked.
TRACKED_PROBE_SECONDS = 5.0


def user_config_path() -> Path:
    """The user-level config file (machine-local settings), whether or not it exists."""
    import platformdirs

    return Path(platformdirs.user_config_dir("orchestrate")) / USER_CONFIG


def env_name(tool: str) -> str:
    """The environment variable that names `tool`'s path (`ORCHESTRATE_TOOL_RUFF`)."""
    return ENV_PREFIX + tool.upper().replace("-", "_").replace(".", "_")


def machine_tools(env: Mapping[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """The explicit absolute tool paths of this machine and notes on what was ignored.

    The user-level config's `[tools]` table, overlaid by `ORCHESTRATE_TOOL_<NAME>`
    variables of `env` (the process's environment when None). A relative path is
    ignored with a note; a user config that cannot be read is a usage error naming it.
    """
    env = os.environ if env is None else env
    out: dict[str, str] = {}
    notes: list[str] = []
    path = user_config_path()
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise UsageError(
                f"{printable(path)}: cannot read the user configuration: {exc}"
            ) from exc
        extra = sorted(k for k in data if k != "tools")
        if extra:
            notes.append(
                f"user configuration {printable(str(path))}: only [tools] is read; ignored: "
                + ", ".join(printable(str(k)) for k in extra)
            )
        user = data.get("tools", {})
        if isinstance(user, dict):
            for key, value in user.items():
                if isinstance(value, str) and os.path.isabs(value):
                    out[str(key)] = value
                else:
                    notes.append(
                        f"user configuration {printable(str(path))}: tools.{printable(str(key))}:"
                        " not an absolute path; ignored"
                    )
    for var, value in env.items():
        if not var.startswith(ENV_PREFIX) or len(var) == len(ENV_PREFIX):
            continue
        name = var[len(ENV_PREFIX) :].lower().replace("_", "-")
        if os.path.isabs(value):
            # The variable's spelling loses `-` versus `_`: both names are set.
            out[name] = value
            out[name.replace("-", "_")] = value
        else:
            notes.append(f"{printable(var)}: not an absolute path; ignored")
    return out, notes


def committed_tools_note(config: Mapping[str, Any], source: str, prefix: str = "") -> str | None:
    """The note for a project config that sets `[tools]`: it is ignored, and where a
    tool path belongs instead; None when the project sets none."""
    tools = config.get("tools")
    if not tools:
        return None
    names = ", ".join(printable(str(k)) for k in tools) if isinstance(tools, dict) else ""
    example = env_name(next(iter(tools))) if isinstance(tools, dict) else env_name("ruff")
    return (
        f"{printable(source)}: {prefix}tools is ignored ({names}): a tool path is a fact of "
        f"the machine, never of the project; set it in {printable(str(user_config_path()))} "
        f"([tools]) or the environment ({example}=/abs/path)"
    )


def _own_install_dirs() -> list[Path]:
    """orchestrate's own install: the running interpreter's folder and the managed
    tool installs (they run the gate itself; a change cannot write them)."""
    from orchestrator.managed_tools import DATA_PACKAGES, homes

    dirs = [Path(os.path.realpath(Path(sys.executable).parent))]
    for name in DATA_PACKAGES:
        dirs += [Path(os.path.realpath(h)) for h in homes(name)]
    return dirs


def _inside(path: Path, roots: Iterable[Path]) -> bool:
    return any(path.is_relative_to(r) for r in roots)


def is_tracked(root: Path, path: Path) -> bool:
    """Whether git tracks `path` (inside the repository at `root`). Any doubt (git
    fails or does not answer in time) counts as tracked: the tool is then not run."""
    from orchestrator.git.listing import tracks_path

    try:
        rel = path.relative_to(root)
    except ValueError:
        return False
    if not (root / ".git").exists():
        return False
    return tracks_path(root, rel.as_posix(), TRACKED_PROBE_SECONDS)


def tool_refusal(
    tool: str, root: Path, purpose: Purpose, untrusted: Iterable[Path] = ()
) -> str | None:
    """Why the executable `tool` may not run for a run over `root`, or None when it may.

    Refused: a path through /proc; a file git tracks inside `root` (a committed `.venv/bin/ruff` is the
    change's code), and at a strict gate (`purpose` delivery) any file that lives,
    after links are resolved, inside `root` or another `untrusted` folder (the real
    repository), unless it is orchestrate's own install.
    """
    if Path(tool).is_relative_to("/proc"):
        # /proc/self/... names another file in each process: never the same tool twice.
        return "is a path through /proc, which names a different file in each process"
    real = Path(os.path.realpath(tool))
    roots = [Path(os.path.realpath(r)) for r in (root, *untrusted)]
    if not _inside(real, roots):
        return None
    if _inside(real, _own_install_dirs()):
        return None
    if purpose is Purpose.DELIVERY:
        return "lives inside the judged tree or the repository: a strict gate runs no code from it"
    base = Path(os.path.realpath(root))
    if real.is_relative_to(base) and is_tracked(base, real):
        return "is tracked by git: a committed executable is never a tool"
    return None


__all__ = [
    "ENV_PREFIX",
    "USER_CONFIG",
    "committed_tools_note",
    "env_name",
    "is_tracked",
    "machine_tools",
    "tool_refusal",
    "user_config_path",
]
