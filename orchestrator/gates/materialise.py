"""A private tree holding exactly what a strict gate judges, for the checkers to run in.

The judged files (their blob bytes) and every file that governs them (each loaded
checker's `config_names`, orchestrate's own config and git's attribute files, at every
folder from a judged file up to the root) are written as the surface's source (the
index or a commit) holds them into a fresh folder (mode 0700) under the user's cache
folder. The checkers then run there with the tree as their project root, so their own
config discovery (Ruff's hierarchy, ESLint's flat config) sees the committed
configuration, never the working tree's. The tree is removed when the gate ends, on
error too; a tree left by a killed process is swept by the next gate.

Machine-local installs that git does not hold and that the tools need are linked
from the real project, not copied: `.venv` (the project's own Ruff) and
`node_modules` (ESLint and its plugins), in each folder of the tree whose project
counterpart has one and whose surface does not track that name itself.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from orchestrator.core.walk import makedirs, rmtree
from orchestrator.git.runner import Git
from orchestrator.git.surfaces import read_files_at
from orchestrator.model.checker import FileTarget
from orchestrator.vocab import BASELINE_FILE
from orchestrator.workspace import user_cache_dir

#: Files that govern every judged file besides the checkers' own: orchestrate's config
#: and git's per-path attributes and ignores.
BASE_GOVERNING = (
    "orchestrate.toml",
    "pyproject.toml",
    ".gitattributes",
    ".gitignore",
    BASELINE_FILE,
)
#: Machine-local installs linked from the project (never in git, never copied).
LOCAL_INSTALLS = (".venv", "node_modules")
#: Cache sub-folder holding the trees; a tree older than this is a leftover of a
#: killed gate and is removed by the next one.
TREES_DIR = "gate-trees"
STALE_AFTER_S = 6 * 3600.0


class UnsafePath(ValueError):
    """A path from git that cannot be written inside the tree (absolute, `..`, empty)."""


@dataclass
class Tree:
    """A materialised surface: its folder, the targets as files in it, and the
    governing files written there (project-relative path -> bytes)."""

    root: Path
    targets: list[FileTarget] = field(default_factory=list)
    governing: dict[str, bytes] = field(default_factory=dict)
    linked: list[str] = field(default_factory=list)


def folders_of(paths: Iterable[str]) -> list[str]:
    """Every folder from each path's own up to the root ("" is the root), sorted."""
    out = {""}
    for p in paths:
        parent = PurePosixPath(p).parent
        while str(parent) not in ("", "."):
            out.add(parent.as_posix())
            parent = parent.parent
    return sorted(out)


def governing_paths(targets: Sequence[str], names: Iterable[str]) -> list[str]:
    """Candidate governing files: each of `names` (and BASE_GOVERNING) in every folder
    from a target up to the root, project-relative."""
    every = sorted(set(names) | set(BASE_GOVERNING))
    return sorted({f"{d}/{n}" if d else n for d in folders_of(targets) for n in every})


def read_governing(
    git: Git, source: str | None, targets: Sequence[str], names: Iterable[str]
) -> dict[str, bytes]:
    """The governing files of `targets` as `source` ("index" or a commit) holds them;
    none when there is no single source (several pushed tips)."""
    if source is None:
        return {}
    return read_files_at(git, source, governing_paths(targets, names))


def _inside(root: Path, rel: str) -> Path:
    """`root / rel` for a relative path with no empty, `.` or `..` part; UnsafePath else."""
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise UnsafePath(f"path not writable in the gate tree: {rel!r}")
    return root.joinpath(*parts)


def _write(root: Path, rel: str, data: bytes) -> None:
    """Create `rel` under `root` with `data`; never follows a link, never overwrites."""
    path = _inside(root, rel)
    makedirs(path.parent, mode=0o700)
    if path.parent.resolve() != path.parent or not path.parent.is_relative_to(root):
        raise UnsafePath(f"path leaves the gate tree: {rel!r}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


def _link_installs(project: Path, tree: Path, folders: Sequence[str], held: set[str]) -> list[str]:
    """Link each LOCAL_INSTALLS folder of the project into the tree's same folder,
    unless the surface holds something at or below that name. Returns what was linked."""
    linked = []
    for folder in folders:
        for name in LOCAL_INSTALLS:
            rel = f"{folder}/{name}" if folder else name
            real = project / rel
            dest = tree / rel
            if rel in held or any(h.startswith(rel + "/") for h in held):
                continue
            if not real.is_dir() or not dest.parent.is_dir() or dest.exists():
                continue
            os.symlink(real, dest, target_is_directory=True)
            linked.append(rel)
    return linked


def _sweep(folder: Path) -> None:
    """Remove trees left by a gate that was killed before it could clean up."""
    cutoff = time.time() - STALE_AFTER_S
    with contextlib.suppress(OSError):
        for old in folder.iterdir():
            with contextlib.suppress(OSError):
                if old.is_dir() and not old.is_symlink() and old.stat().st_mtime < cutoff:
                    rmtree(old)


@contextlib.contextmanager
def materialised(
    project: Path, targets: Sequence[FileTarget], governing: Mapping[str, bytes]
) -> Iterator[Tree]:
    """A private tree holding `targets` (their `content`) and `governing`, with the
    project's machine-local installs linked in; removed on exit, whatever happens.

    The tree's targets are plain files on disk (`content` None, `abs_path` in the
    tree) under their project-relative paths, so the checkers judge them as files of
    a checkout. Raises UnsafePath for a path that cannot live inside the tree.
    """
    parent = user_cache_dir(project, TREES_DIR)
    _sweep(parent)
    root = Path(tempfile.mkdtemp(prefix="tree-", dir=parent)).resolve()
    try:
        os.chmod(root, 0o700)
        tree = Tree(root=root, governing=dict(governing))
        written: set[str] = set()
        for rel, data in governing.items():
            _write(root, rel, data)
            written.add(rel)
        for t in targets:
            if t.path not in written:
                _write(root, t.path, t.read_bytes())
                written.add(t.path)
            tree.targets.append(replace(t, abs_path=_inside(root, t.path), content=None))
        folders = folders_of(t.path for t in targets)
        tree.linked = _link_installs(project, root, folders, written)
        yield tree
    finally:
        rmtree(root)


__all__ = [
    "BASE_GOVERNING",
    "LOCAL_INSTALLS",
    "Tree",
    "UnsafePath",
    "folders_of",
    "governing_paths",
    "materialised",
    "read_governing",
]
