"""Which files `ruff format --check` judged: the ruff-format recipe's file selection.

`ruff format --check --force-exclude` named files skips those the project's Ruff config
excludes (`exclude`, `extend-exclude`, `[format] exclude`, Ruff's default exclude list)
and prints nothing for them, nor for a file it formatted and found clean. Its `-v` log
names each file it formatted (`format_path; path=/abs/a.py`) and their count
(`Formatted 3 files in ...`), or says `No Python files found` when it skipped them all:
`formatted_paths` reads that, and a log that does not add up is `Unparsable` (the
files are `tool_error`, never `checked`). A file it skipped is `not_run`, as the native
Ruff checker reports the files `ruff check` excludes.

A file named on the command line bypasses the config's `include` (which only narrows
what Ruff finds walking folders), so `ruff format --check .` from the project root
would skip a file `include` leaves out that Ruff formats when named: for a config that
sets `include`, `not_included` asks Ruff's own listing of the files' folders
(`ruff check --show-files`: the same file discovery as `ruff format`) and a file absent
from it is `not_run` too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from orchestrate_plugins._common import top_folders
from orchestrate_plugins._ruff_config import ConfigProblem, describe, nearest_config

from orchestrator.api import (
    FileOutcome,
    FileTarget,
    ProcResult,
    RunContext,
    ScopeStatus,
    ToolIdentity,
    Unparsable,
    local_path,
    one_line,
    outcome_from,
    run_bounded,
)

NAME = "ruff-format"

EXCLUDED = "ruff format excludes it (the project's Ruff config or Ruff's default exclude list)"
NOT_INCLUDED = "not included by the project's Ruff config (ruff format --check . skips it)"
#: Ruff's `-v` log line prefix: `[DATE][TIME][TARGET][LEVEL] `.
LOG_LINE = r"^\[\d{4}-\d\d-\d\d\]\[\d\d:\d\d:\d\d\]\[[^\]\s]+\]\[(?:TRACE|DEBUG|INFO)\] "
_FORMATTED = re.compile(LOG_LINE + r"format_path; path=(?P<path>.+)$")
_COUNT = re.compile(LOG_LINE + r"Formatted (?P<n>\d+) files? in ")
_NONE = "warning: No Python files found under the given path(s)"


def formatted_paths(stderr: bytes, root: Path) -> set[str]:
    """The project-relative paths `ruff format -v` says it formatted (module docstring);
    raises `Unparsable` when its log does not add up."""
    text = stderr.decode("utf-8", "replace")
    paths = [local_path(m["path"], root) for m in map(_FORMATTED.match, text.splitlines()) if m]
    counts = [int(m["n"]) for m in map(_COUNT.match, text.splitlines()) if m]
    if counts:
        if counts != [len(paths)] or len(set(paths)) != len(paths):
            raise Unparsable(f"ruff format's log names {len(paths)} files, its count {counts}")
    elif paths or _NONE not in text:
        raise Unparsable("ruff format's log names no count of the files it formatted")
    return set(paths)


def left_out(res: ProcResult, targets: Sequence[FileTarget], root: Path) -> dict[str, str]:
    """The targets `ruff format --check -v` did not format, each with the reason."""
    done = formatted_paths(res.stderr, root)
    stray = sorted(done - {t.path for t in targets})
    if stray:
        raise Unparsable(
            f"ruff format formatted a file not asked about: {one_line(stray[0], 80)!r}"
        )
    return {t.path: EXCLUDED for t in targets if t.path not in done}


def narrowed(targets: Sequence[FileTarget], root: Path) -> list[FileTarget]:
    """The targets whose nearest Ruff config (or its `extend` chain) sets `include`."""
    cache: dict[Path, Path | None] = {}
    described: dict[Path, bool] = {}
    out = []
    for t in targets:
        try:
            config = nearest_config(root, t.path, cache)
        except ConfigProblem:
            continue  # Ruff says so itself: the run is a tool_error
        if config is None:
            continue
        if config not in described:
            described[config] = describe(config).narrows_include
        if described[config]:
            out.append(t)
    return out


def not_included(
    tool: str,
    targets: Sequence[FileTarget],
    ctx: RunContext,
    env: Mapping[str, str] | None,
    ident: ToolIdentity,
) -> list[FileOutcome]:
    """`not_run` outcomes for the `targets` (each under a config that sets `include`)
    Ruff's listing of their folders leaves out; for all of them the listing's own
    failure (`tool_error`, `timed_out`) when it fails."""
    root = ctx.project_root
    tops = top_folders(t.path for t in targets)
    argv = [tool, "check", "--no-cache", "--force-exclude", "--show-files", "--"]
    res = run_bounded(
        [*argv, *[f.as_posix() for f in tops]],
        deadline=ctx.deadline,
        cwd=root,
        output_budget=ctx.output_budget,
        env=env,
    )

    def parse(r: ProcResult) -> list[FileOutcome]:
        lines = r.stdout.decode("utf-8").splitlines()
        listed = {local_path(x.strip(), root) for x in lines if x.strip()}
        return [
            FileOutcome(
                path=t.path,
                checker=NAME,
                status=ScopeStatus.NOT_RUN,
                reason=NOT_INCLUDED,
                language=t.language,
                tool=ident,
            )
            for t in targets
            if t.path not in listed
        ]

    label = "ruff check --show-files (include)"
    return outcome_from(
        res, targets, checker=NAME, label=label, parse=parse, exits=(0,), quiet_ok=True, tool=ident
    )
