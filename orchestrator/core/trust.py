"""The user's trust in project recipes: a digest per recipe, kept outside every project.

A project recipe (checkers/project_recipes.py) names a program the project chose; in
`lint`, the LSP and the agent hooks it runs only once the user ran `orchestrate trust`
in that project, which records here the digest of each recipe (`recipe_digest`: its
path, its bytes and the `recipes` list that names it). A recipe whose digest is not
recorded, or whose bytes or naming config changed since, is untrusted.

The store is one JSON file in the user's data folder (platformdirs:
`<user data dir>/orchestrate/trusted-recipes.json`), keyed by the project's resolved
root, written atomically under a lock file beside it. It is the user's own word: strict gates never read it (what
anything running as the user can write is no policy; a gate trusts the base commit).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from orchestrator.workspace import atomic_write

STORE_NAME = "trusted-recipes.json"
#: The store's format version: a store of another version is read as empty.
STORE_VERSION = 1
#: The most bytes of the store read (a larger one is read as empty, trusting nothing).
MAX_STORE_BYTES = 4 * 1024 * 1024


def store_path() -> Path:
    """The trust store's file, whether or not it exists."""
    import platformdirs

    return Path(platformdirs.user_data_dir("orchestrate")) / STORE_NAME


def recipe_digest(path: str, data: bytes, named_by: Sequence[str]) -> str:
    """The digest trust records for the recipe file `path` holding `data`, named by the
    config's `recipes` list `named_by`: any change to one of the three changes it."""
    h = hashlib.sha256(b"orchestrate-project-recipe\0")
    h.update(path.encode("utf-8", "surrogateescape") + b"\0")
    h.update(json.dumps(list(named_by), ensure_ascii=True).encode() + b"\0")
    h.update(data)
    return h.hexdigest()


def _read() -> dict[str, dict[str, str]]:
    """Root -> {recipe path: digest}; a missing, damaged or foreign store is empty."""
    try:
        raw = store_path().read_bytes()
        if len(raw) > MAX_STORE_BYTES:
            return {}
        doc = json.loads(raw)
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or doc.get("version") != STORE_VERSION:
        return {}
    roots = doc.get("roots")
    if not isinstance(roots, dict):
        return {}
    out: dict[str, dict[str, str]] = {}
    for root, entries in roots.items():
        if isinstance(root, str) and isinstance(entries, dict):
            out[root] = {
                str(p): d for p, d in entries.items() if isinstance(p, str) and isinstance(d, str)
            }
    return out


def _write(roots: Mapping[str, Mapping[str, str]]) -> None:
    doc: dict[str, Any] = {
        "version": STORE_VERSION,
        "roots": {r: dict(sorted(e.items())) for r, e in sorted(roots.items()) if e},
    }
    data = (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode()
    atomic_write(store_path(), data, mode=0o600)


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """Hold the store's lock file (POSIX `flock`) while it is read and rewritten, so two
    `orchestrate trust` runs never lose each other's entries. Without `fcntl` (Windows)
    the write stays atomic, only unserialised."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    lock = store_path().with_suffix(".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _key(root: Path) -> str:
    return str(root.resolve())


def trusted(root: Path) -> dict[str, str]:
    """The recipe path -> digest the user trusted in the project at `root`."""
    return dict(_read().get(_key(root), {}))


def record(root: Path, digests: Mapping[str, str]) -> None:
    """Trust exactly `digests` (recipe path -> digest) in the project at `root`: a recipe
    trusted before and not among them is no longer trusted."""
    with _locked():
        roots = _read()
        roots[_key(root)] = dict(digests)
        _write(roots)


def revoke(root: Path) -> dict[str, str]:
    """Forget every recipe trusted in the project at `root`; returns what was trusted."""
    with _locked():
        roots = _read()
        gone = roots.pop(_key(root), {})
        if gone:
            _write(roots)
    return gone


__all__ = ["recipe_digest", "record", "revoke", "store_path", "trusted"]
