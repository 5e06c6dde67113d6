"""The `orchestrate` entry points, remembered between runs while the installed
distributions stay the same.

`importlib.metadata` finds entry points by reading every installed distribution's
`entry_points.txt`, and a plugin's name and version from its `METADATA` (a mail
header parse): on a start that is most of the plugin discovery. The list found is kept
in the user's cache folder under a key made of what that search reads: every
`sys.path` entry (resolved), the folder's own change time, and each distribution
folder in it (`*.dist-info`, `*.egg-info`, `*.egg`) with the change times of the
folder, its `entry_points.txt` and its `METADATA` / `PKG-INFO` (and their sizes). Installing, removing,
upgrading or editing a distribution changes one of them, so the list is searched
again. Where the key cannot see everything the search reads (a finder on
`sys.meta_path` other than the standard path finder that also finds distributions),
no list is kept: every run searches.

The cached list is data from disk: anything in it that is not the shape written
here is a miss, and the search runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from orchestrator import __version__
from orchestrator.workspace import atomic_write, user_cache_root

#: The fields one cached entry point holds: name, value (module:attr), dist, version.
Row = tuple[str, str, str | None, str | None]

_FORMAT = 1
_DIST_SUFFIXES = (".dist-info", ".egg-info", ".egg")
_META_FILES = ("entry_points.txt", "METADATA", "PKG-INFO")


def _stamp(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def _entry_key(entry: str) -> list[Any]:
    folder = os.path.abspath(entry or ".")
    row: list[Any] = [folder, _stamp(folder)]
    try:
        children = sorted(os.listdir(folder))
    except OSError:
        return row  # a zip (python3XX.zip), a path hook or nothing: its change time says it
    for name in children:
        if name.lower().endswith(_DIST_SUFFIXES):
            dist = os.path.join(folder, name)
            row.append([name, _stamp(dist), *(_stamp(os.path.join(dist, f)) for f in _META_FILES)])
    return row


def _standard_finders_only() -> bool:
    from importlib.machinery import PathFinder

    return all(
        finder is PathFinder or not hasattr(finder, "find_distributions")
        for finder in sys.meta_path
    )


def installed_key() -> list[Any] | None:
    """What the entry-point search of this interpreter reads, as change times; None when
    it cannot be told from sys.path alone (see the module docs)."""
    if not _standard_finders_only():
        return None
    return [_FORMAT, __version__, sys.version, [_entry_key(e) for e in sys.path]]


def _path() -> Path:
    """One file per interpreter and search path, so two environments do not take turns."""
    where = json.dumps([sys.executable, sys.path]).encode("utf-8", "surrogatepass")
    return user_cache_root() / f"entry-points-{hashlib.sha256(where).hexdigest()[:16]}.json"


def _rows(value: Any) -> list[Row] | None:
    if not isinstance(value, list):
        return None
    rows: list[Row] = []
    for item in value:
        if not (isinstance(item, list) and len(item) == 4):
            return None
        name, target, dist, version = item
        if not (isinstance(name, str) and isinstance(target, str)):
            return None
        if not all(v is None or isinstance(v, str) for v in (dist, version)):
            return None
        rows.append((name, target, dist, version))
    return rows


def cached(group: str, key: list[Any]) -> list[Row] | None:
    """The rows remembered for `group` under `key`, or None (no file, another key, or
    a file not in the shape written here)."""
    try:
        data = json.loads(_path().read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    groups = data.get("groups")
    return _rows(groups.get(group)) if isinstance(groups, dict) else None


def remember(group: str, key: list[Any], rows: list[Row]) -> None:
    """Keep `rows` for `group` under `key` (best effort: a cache that cannot be written
    is searched again next time). Atomic, not fsynced: a damaged file is a miss."""
    path = _path()
    blob = json.dumps({"key": key, "groups": {group: [list(r) for r in rows]}}).encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, blob, mode=0o600, durable=False)
    except OSError:
        pass
