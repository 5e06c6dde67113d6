"""Which ESLint configuration system governs a file, and which ESLint version a project declares.

Flat config (`eslint.config.*`) wins wherever one exists between the file and the
project root. Which one governs follows the ESLint that runs: ESLint < 10 uses only the
config found from its working directory upward (`eslint .` at the project root: the
outermost one, nested configs are ignored); ESLint >= 10 looks up from each file (the
nearest one). Only the version decides, never a lookup flag in the environment. Otherwise a legacy config (`.eslintrc*`, or
`eslintConfig` in `package.json`) is run in legacy mode (`ESLINT_USE_FLAT_CONFIG=false`),
which only ESLint <= 9 has. Only the file's own folders are looked at (no listing).
Which files `eslint .` lints under a legacy config is never read from the config here:
ESLint's own enumeration answers it (`eslint_files`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.api import folders_up

CONFIG_NAMES = tuple(f"eslint.config.{e}" for e in ("js", "mjs", "cjs", "ts", "mts", "cts"))
#: In ESLint's own order of precedence within one folder (package.json comes last).
LEGACY_NAMES = (
    ".eslintrc.js",
    ".eslintrc.cjs",
    ".eslintrc.yaml",
    ".eslintrc.yml",
    ".eslintrc.json",
    ".eslintrc",
)
IGNORE_FILE = ".eslintignore"
#: The last ESLint major with the legacy (eslintrc) configuration system.
LAST_LEGACY_MAJOR = 9
#: The first ESLint major that looks up the flat config from each linted file.
FILE_LOOKUP_MAJOR = 10
_ROOT_TRUE = re.compile(r"""["']?\broot["']?\s*:\s*true\b""")
_EXT_FLAG = re.compile(r"--ext(?:=|\s+)([.\w,]+)")
_MAJOR = re.compile(r"(\d+)")


@dataclass(frozen=True)
class Setup:
    """How ESLint is run for a file: config system, the folder to run in, the config
    files that fix the result (for the digest), and (legacy) the `--ext` values the
    project's own package.json scripts give ESLint (empty: none given)."""

    legacy: bool
    config: Path
    cwd: Path
    files: tuple[Path, ...]
    ext_flag: tuple[str, ...] = ()


def ancestors(root: Path, rel_path: str) -> list[Path]:
    """The file's folders from nearest to `root`, all inside `root`."""
    return folders_up(root, (root / rel_path).parent)


def nearest_config(root: Path, rel_path: str) -> Path | None:
    """The nearest flat config between the file's folder and `root`."""
    for folder in ancestors(root, rel_path):
        for name in CONFIG_NAMES:
            if (folder / name).is_file():
                return folder / name
    return None


def outermost_config(root: Path, rel_path: str) -> Path | None:
    """The flat config `eslint .` run from the project root finds (ESLint < 10): the one
    in the outermost folder between `root` and the file that holds one."""
    for folder in reversed(ancestors(root, rel_path)):
        for name in CONFIG_NAMES:
            if (folder / name).is_file():
                return folder / name
    return None


def looks_up_from_file(version: str | None) -> bool:
    """Whether this ESLint finds the flat config from each file (>= 10) rather than from
    its working directory (< 10; an unreadable version counts as the latter)."""
    return (major(version) or 0) >= FILE_LOOKUP_MAJOR


def _package(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def legacy_in(folder: Path) -> Path | None:
    """The one legacy config ESLint reads in `folder`, or None."""
    for name in LEGACY_NAMES:
        if (folder / name).is_file():
            return folder / name
    pkg = _package(folder)
    if pkg is not None and isinstance(pkg.get("eslintConfig"), dict):
        return folder / "package.json"
    return None


def _is_root(config: Path) -> bool:
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    if config.name == "package.json":
        pkg = _package(config.parent) or {}
        return bool((pkg.get("eslintConfig") or {}).get("root") is True)
    return bool(_ROOT_TRUE.search(text))


def _script_extensions(folders: list[Path]) -> tuple[str, ...]:
    """`--ext` values of the package.json scripts that run eslint (how the project runs it)."""
    exts: set[str] = set()
    for folder in folders:
        scripts = (_package(folder) or {}).get("scripts")
        for cmd in scripts.values() if isinstance(scripts, dict) else ():
            if isinstance(cmd, str) and "eslint" in cmd:
                for match in _EXT_FLAG.finditer(cmd):
                    exts |= {"." + e.strip(".") for e in match.group(1).split(",") if e.strip(".")}
    return tuple(sorted(exts))


def legacy_setup(root: Path, rel_path: str) -> Setup | None:
    """The legacy cascade for a file: its configs up to `root: true` or the project root,
    run from the outermost folder holding one of them or an `.eslintignore` (ESLint reads
    that file from its working directory only)."""
    folders = ancestors(root, rel_path)
    chain: list[Path] = []
    for folder in folders:
        config = legacy_in(folder)
        if config is not None:
            chain.append(config)
            if _is_root(config):
                break
    if not chain:
        return None
    ignores = [f / IGNORE_FILE for f in folders if (f / IGNORE_FILE).is_file()]
    cwd = min((p.parent for p in [*chain, *ignores]), key=lambda p: len(p.parts))
    packages = [f / "package.json" for f in folders if (f / "package.json").is_file()]
    files = tuple(dict.fromkeys([*chain, *ignores, *packages]))
    return Setup(True, chain[0], cwd, files, _script_extensions(folders))


def find_setup(root: Path, rel_path: str, from_file: bool = True) -> Setup | None:
    """Flat config if one governs the file, else its legacy cascade, else None. The flat
    config is the nearest to the file when `from_file` (ESLint >= 10), else the outermost
    (ESLint < 10 run at the root); whether one exists does not depend on it."""
    flat = nearest_config(root, rel_path) if from_file else outermost_config(root, rel_path)
    if flat is not None:
        return Setup(False, flat, flat.parent, (flat,))
    return legacy_setup(root, rel_path)


def declared_eslint(root: Path, rel_path: str) -> tuple[str, Path] | None:
    """The `eslint` range in the nearest package.json that declares one, and that file."""
    for folder in ancestors(root, rel_path):
        pkg = _package(folder)
        for key in ("devDependencies", "dependencies"):
            deps = (pkg or {}).get(key)
            if isinstance(deps, dict) and isinstance(deps.get("eslint"), str):
                return deps["eslint"], folder / "package.json"
    return None


def major(version: str | None) -> int | None:
    """The major number of a version string such as `v9.39.5`."""
    match = _MAJOR.search(version or "")
    return int(match.group(1)) if match else None


def range_differs(declared: str, version: str | None) -> bool | None:
    """Whether the used version falls outside the declared range, judged by major only
    (`^8`, `~8.1`, `8.x`, `>=8`, `a || b`); None when the range cannot be read."""
    used = major(version)
    alternatives = [a.strip() for a in declared.split("||") if a.strip()]
    if used is None or not alternatives:
        return None
    verdicts: list[bool] = []
    for alt in alternatives:
        first = alt.split()[0]
        want = major(first) if re.fullmatch(r"[\^~>=v]*\d+[\w.\-+]*", first) else None
        if want is None:
            return None
        verdicts.append(used < want if first.startswith(">") else used != want)
    return all(verdicts)
