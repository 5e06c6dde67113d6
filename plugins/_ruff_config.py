"""Ruff's configuration as far as orchestrate needs to know it: which file governs a
path, which files that one extends, and which Ruff version it requires.

Ruff itself resolves the settings (run from the project root with no `--config`, it
finds each file's nearest config and follows its `extend` chain). This module only
names the files involved, for the config identity used by reuse and for the report,
and refuses a config that links outside the project root. Discovery follows CG-30:
only the candidate names in the file's ancestor folders inside the root are looked
at; nothing is enumerated.
"""

from __future__ import annotations

import copy
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.api import StatMemo

#: Ruff's own precedence inside one folder: `.ruff.toml`, then `ruff.toml`, then a
#: `pyproject.toml` with a `[tool.ruff]` table.
CONFIG_NAMES = (".ruff.toml", "ruff.toml", "pyproject.toml")
#: A longer `extend` chain is a cycle or a mistake; Ruff would reject it too.
MAX_EXTEND_DEPTH = 16


class ConfigProblem(Exception):
    """A config on a file's path that cannot be used (unreadable, links outside)."""


@dataclass(frozen=True)
class RuffConfig:
    """The nearest config of some files and what it brings along.

    `chain` is the config followed by every file its `extend` chain names (nearest
    first; a missing file stays in the chain, Ruff will say it is missing).
    `required_version` is the first `required-version` along the chain, with the file
    that declares it. `narrows_include` is True when a file of the chain sets `include`
    (replacing Ruff's default `*.py`, `*.pyi`, `*.ipynb`, `pyproject.toml`).
    """

    path: Path
    chain: tuple[Path, ...]
    required_version: tuple[str, Path] | None = None
    narrows_include: bool = False


_TABLES = StatMemo()


def ruff_table(path: Path) -> dict[str, Any] | None:
    """The Ruff settings table of a config file: the whole file for `ruff.toml` /
    `.ruff.toml`, `[tool.ruff]` for a `pyproject.toml` (None when it has none); a warm
    engine keeps it while the file keeps its stat (a copy each time: callers own it).

    Raises OSError / UnicodeDecodeError / TOMLDecodeError when the file is unreadable.
    """
    name = os.path.abspath(path)
    return copy.deepcopy(_TABLES.get(name, (name,), lambda: _read_table(Path(name))))


def _read_table(path: Path) -> dict[str, Any] | None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    if path.name != "pyproject.toml":
        return data
    table = data.get("tool", {}).get("ruff")
    return table if isinstance(table, dict) else None


def has_ruff_section(path: Path) -> bool | None:
    """True/False for a pyproject.toml with/without [tool.ruff]; None when unreadable."""
    try:
        return ruff_table(path) is not None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None


def _usable(root: Path, cand: Path) -> bool:
    """Whether `cand` is a config Ruff would take; ConfigProblem when it cannot be read."""
    label = cand.relative_to(root)
    try:
        real = cand.resolve(strict=True)
    except OSError as exc:
        raise ConfigProblem(f"config {label}: cannot resolve") from exc
    if not real.is_relative_to(root):
        raise ConfigProblem(f"config {label} links outside the root")
    if cand.name == "pyproject.toml":
        has = has_ruff_section(cand)
        if has is None:
            raise ConfigProblem(f"config {label} is unreadable")
        return has
    try:
        cand.read_bytes()
    except OSError as exc:
        raise ConfigProblem(f"config {label} is unreadable") from exc
    return True


def nearest_config(root: Path, rel_path: str, cache: dict[Path, Path | None]) -> Path | None:
    """The nearest Ruff config among the file's ancestors inside `root` (CG-30).

    Looks only at the three candidate names in each ancestor folder: no listing. A
    candidate that exists but cannot be read raises ConfigProblem (reported, not hidden).
    """
    folder = (root / rel_path).parent
    chain: list[Path] = []
    while True:
        if folder in cache:
            found = cache[folder]
            break
        chain.append(folder)
        found = None
        for name in CONFIG_NAMES:
            cand = folder / name
            if cand.is_file() and _usable(root, cand):
                found = cand
                break
        if found is not None or folder == root or not folder.is_relative_to(root):
            break
        folder = folder.parent
    for f in chain:
        cache[f] = found
    return found


def _table_or_none(path: Path) -> dict[str, Any] | None:
    try:
        return ruff_table(path)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None  # Ruff reports an unreadable config itself, with its own words


def describe(config: Path) -> RuffConfig:
    """The `extend` chain, the required version and whether `include` is set, for one
    nearest config.

    Relative `extend` paths are resolved against the folder of the file that names
    them, `~` against the home folder, as Ruff does.
    """
    chain: list[Path] = [config]
    required: tuple[str, Path] | None = None
    narrows = False
    current: Path | None = config
    while current is not None and len(chain) <= MAX_EXTEND_DEPTH:
        table = _table_or_none(current)
        if table is None:
            break
        spec = table.get("required-version")
        if required is None and isinstance(spec, str):
            required = (spec, current)
        narrows = narrows or "include" in table
        target = table.get("extend")
        folder, current = current.parent, None
        if isinstance(target, str):
            nxt = extend_target(folder, target)
            if nxt not in chain:
                chain.append(nxt)
                current = nxt
    return RuffConfig(
        path=config, chain=tuple(chain), required_version=required, narrows_include=narrows
    )


def extend_target(folder: Path, target: str) -> Path:
    """`target` (an `extend` value) as an absolute path, relative to `folder`."""
    p = Path(target).expanduser()
    # Lexical normalisation (`sub/../base.toml` -> `base.toml`), as Ruff names it.
    return Path(os.path.normpath(p if p.is_absolute() else folder / p))


_VERSION = re.compile(r"(\d+(?:\.\d+)*)")


def version_number(version_text: str | None) -> str | None:
    """The bare version number of `ruff --version` output (`ruff 0.8.4` -> `0.8.4`)."""
    m = _VERSION.search(version_text or "")
    return m.group(1) if m else None


def satisfies(version: str, spec: str) -> bool | None:
    """Whether `version` meets Ruff's `required-version` `spec` (a PEP 440 specifier;
    a bare version means `==`). None when the spec cannot be read."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    text = spec.strip()
    if text and text[0].isdigit():
        text = f"=={text}"
    try:
        return Version(version) in SpecifierSet(text)
    except (InvalidSpecifier, InvalidVersion):
        return None
