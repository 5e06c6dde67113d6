"""Shared helpers of the built-in checkers: tool lookup, config digests, text spans."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from orchestrator.api import (
    Deadline,
    FileTarget,
    RunContext,
    ToolStamp,
    run_bounded,
    tool_refusal,
    tool_stamp,
)

_VERSION_CACHE: dict[tuple[str, ToolStamp], str | None] = {}
_DOC_URL = re.compile(r"https?://[!-~]{1,2000}")
_DESCRIPTION_CHARS = 300


def doc_url(value: object) -> str | None:
    """A rule documentation URL as the tool gave it, when it is a plain http(s) URL of
    printable ASCII without spaces (at most 2,000 characters); None otherwise."""
    return value if isinstance(value, str) and _DOC_URL.fullmatch(value) else None


def rule_description(value: object) -> str | None:
    """A tool's one-line rule description: whitespace collapsed, at most 300 characters;
    None when it is not a non-empty string."""
    if not isinstance(value, str) or not value.split():
        return None
    return " ".join(value.split())[:_DESCRIPTION_CHARS]


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
        ok = p.is_absolute() and os.access(p, os.X_OK) and p.is_file()
        return str(p) if ok and refused(str(p)) is None else None
    for d in extra_dirs:
        cand = Path(d) / name
        if cand.is_file() and os.access(cand, os.X_OK) and refused(str(cand)) is None:
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
    nor a tool `api.tool_refusal` refuses (an explicit one refused is None)."""
    explicit = ctx.tool_overrides.get(name)
    if explicit is not None:
        p = Path(explicit)
        ok = p.is_absolute() and p.is_file() and os.access(p, os.X_OK)
        return str(p) if ok and tool_refusal(str(p), ctx) is None else None
    env: Mapping[str, str] = ctx.env if ctx.env is not None else os.environ
    for entry in env.get("PATH", "").split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue  # a relative entry would run whatever the current folder holds
        cand = Path(entry) / name
        if cand.is_file() and os.access(cand, os.X_OK) and tool_refusal(str(cand), ctx) is None:
            return str(cand)
    return None


def interpreter_bin_dir() -> Path:
    """The scripts folder of the running interpreter (a venv's bin/)."""
    return Path(sys.executable).parent


#: The most a version probe may take, and less when the run's deadline comes sooner.
PROBE_SECONDS = 10.0


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
) -> VersionProbe:
    """`TOOL --version` within the run's `deadline` (and at most `cap` seconds).

    The first line of its output, cached per path and `tool_stamp`; a failed probe is not
    remembered (it may be transient). `timed_out` says the deadline or the cap ended
    it, so the caller can report `timed_out` rather than a broken tool. `cwd` and `env`
    let a tool that reads its config even for `--version` (RuboCop) start where it can
    write nothing into the project.
    """
    try:
        key = (path, tool_stamp(path))
    except OSError as exc:
        return VersionProbe(None, detail=f"cannot stat the tool: {exc.strerror}")
    if key in _VERSION_CACHE:
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
    if res.returncode != 0:
        return VersionProbe(None, detail=f"exit {res.returncode}")
    if not text:
        return VersionProbe(None, detail="no output")
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


def folders_up(root: Path, folder: Path) -> list[Path]:
    """`folder` and each folder above it, nearest first, up to `root`; none outside it."""
    out: list[Path] = []
    while folder.is_relative_to(root):
        out.append(folder)
        if folder == root:
            break
        folder = folder.parent
    return out


def root_configs(root: Path, names: Iterable[str]) -> tuple[str, ...]:
    """Which of the config `names` exist as files directly in `root` (for a probe)."""
    return tuple(n for n in names if (root / n).is_file())


def digest_files(paths: Iterable[Path]) -> str:
    """A digest of the named config files' paths and bytes (missing files count too)."""
    h = hashlib.sha256()
    for p in sorted({str(p) for p in paths}):
        h.update(p.encode("utf-8", "surrogateescape") + b"\0")
        try:
            h.update(Path(p).read_bytes())
        except OSError as exc:
            h.update(f"<unreadable:{exc.errno}>".encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def line_starts(text: str) -> list[int]:
    """Character offsets at which each line (1-based index - 1) starts."""
    starts = [0]
    find = text.find
    i = find("\n")
    while i != -1:  # str.find runs in C: no per-character Python loop
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts


def offset_of(starts: list[int], text: str, line: int, column: int) -> int:
    """Character offset of a 1-based (line, column), clamped to the text."""
    if line - 1 >= len(starts):
        return len(text)
    return min(len(text), starts[max(0, line - 1)] + max(0, column - 1))


#: Ruby files by suffix and by well-known name, for the Ruby checkers (ruby -c, RuboCop).
RUBY_SUFFIXES = (".rb", ".rake", ".gemspec", ".ru")
RUBY_FILENAMES = frozenset({"Gemfile", "Rakefile", "Guardfile", "Capfile", "Vagrantfile"})


def is_ruby_file(target: FileTarget) -> bool:
    """Ruby by the detected language, else by suffix or well-known name."""
    if target.language is not None:
        return target.language == "ruby"
    p = PurePosixPath(target.path)
    return p.suffix in RUBY_SUFFIXES or p.name in RUBY_FILENAMES
