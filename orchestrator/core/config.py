"""Project configuration: `orchestrate.toml`, else `[tool.orchestrate]` in pyproject.toml.

Both are validated against core/config_model.ProjectConfig: an unknown key or a value
of the wrong type is a usage error naming the file and the dotted key.
"""

from __future__ import annotations

import copy
import os
import tomllib
from collections.abc import Mapping
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


def tool_overrides(config: dict[str, Any]) -> dict[str, str]:
    """Explicit tool paths from `[tool.orchestrate.tools]`; only absolute paths count."""
    tools = config.get("tools", {})
    if not isinstance(tools, dict):
        return {}
    return {
        str(k): str(v) for k, v in tools.items() if isinstance(v, str) and Path(v).is_absolute()
    }
