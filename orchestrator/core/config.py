"""Project configuration: `orchestrate.toml`, else `[tool.orchestrate]` in pyproject.toml.

Both are validated against core/config_model.ProjectConfig: an unknown key or a value
of the wrong type is a usage error naming the file and the dotted key.
"""

from __future__ import annotations

import copy
import os
import tomllib
from collections.abc import Collection, Mapping
from pathlib import Path, PurePath
from typing import Any

from orchestrator.deadline import Deadline
from orchestrator.errors import UsageError
from orchestrator.git.repo import find_repo
from orchestrator.safetext import printable
from orchestrator.statmemo import StatMemo

CONFIG_FILES = ("orchestrate.toml", "pyproject.toml")
#: Seconds git may take to name the top level before the folder itself is the root.
ROOT_PROBE_SECONDS = 10.0
_SECTION = "tool.orchestrate."


def _validate_settings(table: dict[str, Any], source: str, prefix: str = "") -> dict[str, Any]:
    """`config_model.validate_settings`, imported on first use: a project without
    orchestrate settings never builds the configuration's models."""
    from orchestrator.core import config_model

    return config_model.validate_settings(table, source, prefix)


def find_project_root(start: Path) -> Path:
    """The git top level containing `start`, else `start` itself (resolved; a file's
    folder when `start` is a file)."""
    start = start.resolve()
    base = start if start.is_dir() else start.parent
    top = find_repo(base, Deadline.after(ROOT_PROBE_SECONDS))
    return top.resolve() if top is not None else base


def _section(data: dict[str, Any], source: str) -> dict[str, Any] | None:
    tool = data.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise UsageError(f"{printable(source)}: tool: want a table")
    section = tool.get("orchestrate")
    if section is not None and not isinstance(section, dict):
        raise UsageError(f"{printable(source)}: tool.orchestrate: want a table")
    return section


def parse_config(
    text: str, source_name: str, file_name: str | None = None
) -> dict[str, Any] | None:
    """The validated orchestrate settings in `text`, the content of a file `source_name`.

    The file's name decides its form: `orchestrate.toml` holds the settings at the top
    level or in a `[tool.orchestrate]` table (not both; other `[tool.*]` tables are
    left alone) and always answers, {} when empty; any other file (pyproject.toml)
    answers only through `[tool.orchestrate]`, None when it has none. TOML that does not
    parse, an unknown key or a wrong type is a UsageError naming `source_name` and the
    dotted key. Reachable for text from git as well as for files on disk; `file_name`
    gives the file's name when `source_name` is a label ("orchestrate.toml at HEAD").
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{printable(source_name)}: cannot read configuration: {exc}") from exc
    section = _section(data, source_name)
    if PurePath(file_name or source_name).name != "orchestrate.toml":
        return None if section is None else _validate_settings(section, source_name, _SECTION)
    top = {k: v for k, v in data.items() if k != "tool"}
    if section is None:
        return _validate_settings(top, source_name)
    if top:
        first = printable(next(iter(top)))
        raise UsageError(
            f"{printable(source_name)}: {first}: set at the top level beside a"
            " [tool.orchestrate] table; keep the settings in one of the two"
        )
    return _validate_settings(section, source_name, _SECTION)


_LOADED = StatMemo()


def load_config(project_root: Path) -> dict[str, Any]:
    """The project's validated orchestrate settings as a dict ({} when none).

    `orchestrate.toml` (top-level keys, or a `[tool.orchestrate]` table) wins over
    pyproject.toml's `[tool.orchestrate]`. A file that cannot be read or does not parse,
    an unknown key and a wrong type are usage errors (see parse_config). A warm engine
    keeps the settings while both files keep their stat (a copy each time: callers own
    it); an error is never kept.
    """
    root = Path(os.path.abspath(project_root))
    files = [str(root / name) for name in CONFIG_FILES]
    return copy.deepcopy(_LOADED.get(str(root), files, lambda: _load_config(project_root)))


def _load_config(project_root: Path) -> dict[str, Any]:
    for name in CONFIG_FILES:
        path = project_root / name
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"{printable(path)}: cannot read configuration: {exc}") from exc
        cfg = parse_config(text, str(path))
        if cfg is not None:
            return cfg
    return {}


def config_from_files(files: Mapping[str, bytes], label: str = ".") -> dict[str, Any]:
    """The validated orchestrate settings that the root files `files` (name -> bytes, as
    a commit or the index holds them) define, by the precedence of `load_config`; `label`
    says where they come from in the usage error (see parse_config)."""
    for name in CONFIG_FILES:
        raw = files.get(name)
        if raw is None:
            continue
        source = f"{name} at {label}"
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UsageError(f"{printable(source)}: cannot read configuration: {exc}") from exc
        cfg = parse_config(text, source, name)
        if cfg is not None:
            return cfg
    return {}


#: The checkers orchestrate ships (pyproject.toml's `orchestrate` entry points): a
#: `[tools]` key near one of them is a typo even while that plugin is disabled.
BUILTIN_CHECKERS = frozenset(
    {"ruff", "treesitter", "eslint", "ruby", "rubocop", "secrets", "recipes"}
)
#: An unknown `[tools]` key this close (edits) to a known name is taken for a typo of it.
TOOL_TYPO_DISTANCE = 2


def edit_distance(a: str, b: str) -> int:
    """The Levenshtein distance between `a` and `b` (insertions, deletions, changes)."""
    if len(a) < len(b):
        a, b = b, a
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def config_source(project_root: Path) -> tuple[str, str]:
    """The file `load_config` takes the settings from and the prefix of its dotted keys:
    ("orchestrate.toml", ""), ("pyproject.toml", "tool.orchestrate."), or a neutral
    label when neither holds settings (a config handed in as a mapping)."""
    if (project_root / "orchestrate.toml").is_file():
        return "orchestrate.toml", ""
    if (project_root / "pyproject.toml").is_file():
        return "pyproject.toml", _SECTION
    return "configuration", ""


def tool_key_warnings(
    tools: Mapping[str, Any], known: Collection[str], source: str, prefix: str = ""
) -> list[str]:
    """Check the keys of the `[tools]` table against the names a tool path is looked up
    by (`known`: the loaded checkers', the parsers they run, BUILTIN_CHECKERS).

    A key within TOOL_TYPO_DISTANCE of a known name is a typo: UsageError (exit 2) with
    the name meant, since the path would be ignored and the tool looked up elsewhere.
    A key far from every name may belong to a plugin not installed here: a warning,
    returned for the report's notes.
    """
    names = sorted(set(known) | BUILTIN_CHECKERS)
    errors: list[str] = []
    warnings: list[str] = []
    for key in tools:
        if key in names:
            continue
        label = printable(f"{prefix}tools.{key}")
        said = f"{printable(source)}: {label}: no checker or parser named {printable(repr(key))}"
        near = sorted((edit_distance(key, n), n) for n in names)
        if near and near[0][0] <= TOOL_TYPO_DISTANCE:
            errors.append(f"{said} (did you mean {near[0][1]!r}?)")
        else:
            warnings.append(f"warning: {said}; the path is not used (known: {', '.join(names)})")
    if errors:
        raise UsageError("; ".join(errors))
    return warnings
