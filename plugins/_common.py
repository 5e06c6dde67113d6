"""Shared helpers of the built-in checkers: tool lookup, config digests, text spans."""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path

from orchestrator.api import Deadline, run_bounded

_VERSION_CACHE: dict[tuple[str, float], str | None] = {}


def find_tool(
    name: str, override: str | None = None, extra_dirs: Iterable[Path] = ()
) -> str | None:
    """Resolve a tool to an absolute path, or None.

    Order: an explicit absolute override; the given directories (e.g. next to the
    running interpreter); then ABSOLUTE entries of PATH only: a relative PATH entry is
    never trusted.
    """
    if override:
        p = Path(override)
        return str(p) if p.is_absolute() and os.access(p, os.X_OK) and p.is_file() else None
    for d in extra_dirs:
        cand = Path(d) / name
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    safe_path = os.pathsep.join(
        e for e in os.environ.get("PATH", "").split(os.pathsep) if e and os.path.isabs(e)
    )
    found = shutil.which(name, path=safe_path)
    return str(Path(found)) if found else None


def interpreter_bin_dir() -> Path:
    """The scripts folder of the running interpreter (a venv's bin/)."""
    return Path(sys.executable).parent


def tool_version(
    path: str,
    args: tuple[str, ...] = ("--version",),
    timeout: float = 10.0,
    deadline: Deadline | None = None,
) -> str | None:
    """`TOOL --version`, first line, cached per (path, mtime). None when it fails."""
    try:
        key = (path, os.stat(path).st_mtime)
    except OSError:
        return None
    if key in _VERSION_CACHE:
        return _VERSION_CACHE[key]
    limit = min(timeout, deadline.remaining()) if deadline is not None else timeout
    res = run_bounded([path, *args], deadline=Deadline.after(limit), output_budget=65536)
    text = (res.stdout or res.stderr).decode("utf-8", "replace").strip()
    version = text.splitlines()[0].strip() if res.ok and res.returncode == 0 and text else None
    if version is not None:  # a failed probe is not remembered: it may be transient
        _VERSION_CACHE[key] = version
    return version


def cached_version(path: str | None) -> str | None:
    """The version `tool_version` already found for `path`, without running anything."""
    if path is None:
        return None
    try:
        return _VERSION_CACHE.get((path, os.stat(path).st_mtime))
    except OSError:
        return None


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
