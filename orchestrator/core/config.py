"""Project configuration: `orchestrate.toml`, else `[tool.orchestrate]` in pyproject.toml."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from orchestrator.deadline import Deadline
from orchestrator.errors import UsageError
from orchestrator.git.repo import find_repo

CONFIG_FILES = ("orchestrate.toml", "pyproject.toml")
#: Seconds git may take to name the top level before the folder itself is the root.
ROOT_PROBE_SECONDS = 10.0


def find_project_root(start: Path) -> Path:
    """The git top level containing `start`, else `start` itself (resolved; a file's
    folder when `start` is a file)."""
    start = start.resolve()
    base = start if start.is_dir() else start.parent
    top = find_repo(base, Deadline.after(ROOT_PROBE_SECONDS))
    return top.resolve() if top is not None else base


def load_config(project_root: Path) -> dict[str, Any]:
    """The project's orchestrate settings as a dict ({} when none).

    `orchestrate.toml` (top-level keys, or a `[tool.orchestrate]` table) wins over
    pyproject.toml's `[tool.orchestrate]`. A file that does not parse is a usage error.
    """
    for name in CONFIG_FILES:
        path = project_root / name
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise UsageError(f"{path}: cannot read configuration: {exc}") from exc
        section = data.get("tool", {}).get("orchestrate")
        if name == "orchestrate.toml":
            cfg = section if isinstance(section, dict) else data
            cfg = {k: v for k, v in cfg.items() if k != "tool"} if section is None else cfg
            return dict(cfg)
        if isinstance(section, dict):
            return dict(section)
    return {}


def config_from_files(files: Mapping[str, bytes], label: str = ".") -> dict[str, Any]:
    """The orchestrate settings that the root files `files` (name -> bytes, as a commit or
    the index holds them) define, by the precedence of `load_config`; `label` says where
    they come from in the usage error for a file that does not parse."""
    for name in CONFIG_FILES:
        raw = files.get(name)
        if raw is None:
            continue
        try:
            data = tomllib.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise UsageError(f"{name} at {label}: cannot read configuration: {exc}") from exc
        section = data.get("tool", {}).get("orchestrate")
        if name == "orchestrate.toml":
            cfg = section if isinstance(section, dict) else data
            cfg = {k: v for k, v in cfg.items() if k != "tool"} if section is None else cfg
            return dict(cfg)
        if isinstance(section, dict):
            return dict(section)
    return {}


def tool_overrides(config: dict[str, Any]) -> dict[str, str]:
    """Explicit tool paths from `[tool.orchestrate.tools]`; only absolute paths count."""
    tools = config.get("tools", {})
    if not isinstance(tools, dict):
        return {}
    return {
        str(k): str(v) for k, v in tools.items() if isinstance(v, str) and Path(v).is_absolute()
    }
