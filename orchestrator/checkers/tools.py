"""Finding a checker's tool and asking its version: absolute paths only, bounded probes.

A tool is resolved to an absolute path, never through a relative PATH entry (that
would run whatever the current folder holds). A version probe runs under the run's
deadline, and its answer is kept per tool path and `tool_stamp` for the process, so a
replaced binary is asked again and an unchanged one never twice.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from orchestrator.core.tool_paths import tool_refusal as _tool_refusal
from orchestrator.deadline import Deadline
from orchestrator.model.checker import RunContext
from orchestrator.procs import run_bounded
from orchestrator.toolstamp import ToolStamp, tool_stamp

_VERSION_CACHE: dict[tuple[str, ToolStamp], str | None] = {}
#: Whole probe outputs (`probe_version(whole=True)`), per path, stamp and arguments.
_OUTPUT_CACHE: dict[tuple[str, ToolStamp, tuple[str, ...]], str] = {}

#: The most a version probe may take, and less when the run's deadline comes sooner.
PROBE_SECONDS = 10.0


def is_executable(path: Path) -> bool:
    """True when `path` is a regular file this process may execute."""
    return path.is_file() and os.access(path, os.X_OK)


def tool_refusal(tool: str, ctx: RunContext) -> str | None:
    """Why the executable `tool` may not run in the run `ctx`, or None when it may: a
    file git tracks inside the project is never a tool, and a strict gate (delivery)
    runs nothing that lives inside the judged tree or the repository (orchestrate's own
    install aside). Every checker asks this of the tool it found before running it."""
    return _tool_refusal(tool, ctx.project_root, ctx.purpose, ctx.untrusted_roots)


def find_tool(
    name: str,
    override: str | None = None,
    extra_dirs: Iterable[Path] = (),
    refuse: Callable[[str], str | None] | None = None,
) -> str | None:
    """Resolve a tool to an absolute path, or None.

    Order: an explicit absolute override; the given directories (e.g. next to the
    running interpreter); then ABSOLUTE entries of PATH only: a relative PATH entry is
    never trusted. A candidate `refuse` gives a reason for (`api.tool_refusal`) is
    passed over; a refused override is None.
    """
    refused = refuse or (lambda _path: None)
    if override:
        p = Path(override)
        return str(p) if p.is_absolute() and is_executable(p) and refused(str(p)) is None else None
    for d in extra_dirs:
        cand = Path(d) / name
        if is_executable(cand) and refused(str(cand)) is None:
            return str(cand)
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue  # a relative entry would run whatever the current folder holds
        found = shutil.which(name, path=entry)
        if found and refused(str(Path(found))) is None:
            return str(Path(found))
    return None


def find_on_path(name: str, ctx: RunContext) -> str | None:
    """The run's explicit tool path for `name` (`ctx.tool_overrides`, absolute and
    executable, else None), or the first ABSOLUTE entry of the run's PATH (`ctx.env`,
    else the process's) holding an executable `name`. A relative entry is never used,
    nor a tool `tool_refusal` refuses (an explicit one refused is None)."""
    explicit = ctx.tool_overrides.get(name)
    if explicit is not None:
        p = Path(explicit)
        ok = p.is_absolute() and is_executable(p)
        return str(p) if ok and tool_refusal(str(p), ctx) is None else None
    env: Mapping[str, str] = ctx.env if ctx.env is not None else os.environ
    for entry in env.get("PATH", "").split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue  # a relative entry would run whatever the current folder holds
        cand = Path(entry) / name
        if is_executable(cand) and tool_refusal(str(cand), ctx) is None:
            return str(cand)
    return None


def interpreter_bin_dir() -> Path:
    """The scripts folder of the running interpreter (a venv's bin/)."""
    return Path(sys.executable).parent


@dataclass(frozen=True)
class VersionProbe:
    """What `TOOL --version` answered: the first line, or why there is none."""

    version: str | None
    timed_out: bool = False
    detail: str | None = None


def probe_version(
    path: str,
    deadline: Deadline,
    args: tuple[str, ...] = ("--version",),
    cap: float = PROBE_SECONDS,
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    whole: bool = False,
    exits: tuple[int, ...] = (0,),
) -> VersionProbe:
    """`TOOL --version` within the run's `deadline` (and at most `cap` seconds).

    With `whole`, `version` is the probe's whole output (stdout, else stderr), for a
    caller that reads the version from it with its own pattern (a recipe).

    The first line of its output, cached per path and `tool_stamp`; a failed probe is not
    remembered (it may be transient). `timed_out` says the deadline or the cap ended
    it, so the caller can report `timed_out` rather than a broken tool. `cwd` and `env`
    let a tool that reads its config even for `--version` (RuboCop) start where it can
    write nothing into the project. `exits`: the exit codes of an answer (a tool whose
    only version output is its help, which exits 2).
    """
    try:
        key = (path, tool_stamp(path))
    except OSError as exc:
        return VersionProbe(None, detail=f"cannot stat the tool: {exc.strerror}")
    output_key = (*key, tuple(args))
    if whole and output_key in _OUTPUT_CACHE:
        return VersionProbe(_OUTPUT_CACHE[output_key])
    if not whole and key in _VERSION_CACHE:
        return VersionProbe(_VERSION_CACHE[key])
    limit = Deadline.after(min(cap, deadline.remaining()))
    res = run_bounded([path, *args], deadline=limit, output_budget=65536, cwd=cwd, env=env)
    if res.timed_out:
        return VersionProbe(None, timed_out=True, detail="no answer before the deadline")
    text = (res.stdout or res.stderr).decode("utf-8", "replace").strip()
    if res.spawn_error:
        return VersionProbe(None, detail=res.spawn_error)
    if res.over_budget:
        return VersionProbe(None, detail="output over budget")
    if res.returncode not in exits:
        return VersionProbe(None, detail=f"exit {res.returncode}")
    if not text:
        return VersionProbe(None, detail="no output")
    if whole:
        _OUTPUT_CACHE[output_key] = text
        return VersionProbe(text)
    version = text.splitlines()[0].strip()
    _VERSION_CACHE[key] = version
    return VersionProbe(version)


def tool_version(
    path: str,
    args: tuple[str, ...] = ("--version",),
    timeout: float = PROBE_SECONDS,
    deadline: Deadline | None = None,
) -> str | None:
    """`TOOL --version`, first line, cached per path and `tool_stamp`. None when it fails.

    Pass the run's `deadline`: without one the probe may take `timeout` seconds
    whatever the run's own deadline says. `probe_version` also says why it failed.
    """
    return probe_version(path, deadline or Deadline.after(timeout), args, cap=timeout).version


def cached_version(path: str | None) -> str | None:
    """The version `tool_version` already found for `path`, without running anything."""
    if path is None:
        return None
    try:
        return _VERSION_CACHE.get((path, tool_stamp(path)))
    except OSError:
        return None


def remember_version(path: str, version: str) -> None:
    """Keep `version` for the tool at `path` as `tool_version` would, per path and
    `tool_stamp`: a version read elsewhere (a wheel's metadata) spares a later probe a
    process."""
    try:
        _VERSION_CACHE[(path, tool_stamp(path))] = version
    except OSError:
        return
