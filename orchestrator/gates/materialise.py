"""A private tree holding exactly what a strict gate judges, for the checkers to run in.

The judged files (their blob bytes) and every file that governs them (each loaded
checker's `config_names`, orchestrate's own config and git's attribute files, at every
folder from a judged file up to the root) are written as the surface's source (the
index or a commit) holds them into a fresh folder (mode 0700) under the user's cache
folder. The checkers then run there with the tree as their project root, so their own
config discovery (Ruff's hierarchy, ESLint's flat config) sees the committed
configuration, never the working tree's. The tree is removed when the gate ends, on
error too; a tree left by a killed process is swept by the next gate.

Every property of a file a checker can see is the surface's, not only its bytes: the
executable bit (a 100755 blob is written 0700, so Ruff's EXE rules and RuboCop's
`Lint/ScriptPermission` judge the committed mode), its name and depth (written under
its exact path), the `.gitattributes` over it (governing), and links: a symlink the
surface delivers, or one at a governing file's place (a shared config linked in), is a
symlink in the tree, with the regular file it points at written too. Only a link whose
target stays inside the tree is written: one that leaves it (absolute, too many `..`,
through a linked install) is left out, or a file outside the judged surface would
decide what the checker sees.

Machine-local installs that git does not hold and that the tools need are linked
from the real project, not copied: `.venv` (the project's own Ruff) and
`node_modules` (ESLint and its plugins), in each folder of the tree whose project
counterpart has one and whose surface does not track that name itself.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import shutil
import tempfile
import time
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from orchestrator.git.objects import Entry, read_blobs, read_index, read_tree
from orchestrator.git.runner import Git
from orchestrator.git.surfaces import REGULAR_MODES, SYMLINK, read_files_at
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
EXECUTABLE = "100755"


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


@dataclass
class SurfaceFiles:
    """What the judged source says of the tree's files beyond their bytes: each regular
    file's git mode, the links to write (path -> target, each inside the tree), and the
    regular files those links point at (path -> bytes), written so the links resolve."""

    modes: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    link_targets: dict[str, bytes] = field(default_factory=dict)


def link_inside(link: str, target: str) -> str | None:
    """The tree path `target` (a link's text at tree path `link`) names, or None when it
    leaves the tree: absolute, above the root, or into a linked install (those lead to
    the real project). Lexical: the tree holds no other link that could redirect it."""
    if not target or target.startswith("/") or "\0" in target:
        return None
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(link), target))
    parts = resolved.split("/")
    if resolved in (".", "") or parts[0] == ".." or any(p in LOCAL_INSTALLS for p in parts):
        return None
    return resolved


def read_surface_files(
    git: Git, source: str | None, link_paths: Iterable[str], never: Collection[str] = ()
) -> SurfaceFiles:
    """The modes of `source`'s regular files and, of `link_paths`, the links `source`
    holds whose target stays inside the tree (with the regular file each names); empty
    when there is no single source (several pushed tips). A file named in `never` (a
    policy file, whose reviewed bytes alone count) is neither a link nor a link's target."""
    if source is None:
        return SurfaceFiles()
    never = frozenset(never)
    entries: list[Entry] = read_index(git) if source == "index" else read_tree(git, source)
    by_path = {e.path: e for e in entries}
    wanted = {p for p in link_paths if posixpath.basename(p) not in never}
    links = [e for e in entries if e.mode == SYMLINK and e.path in wanted]
    texts = read_blobs(git, [e.oid for e in links])
    out = SurfaceFiles(modes={e.path: e.mode for e in entries if e.mode in REGULAR_MODES})
    pointed: dict[str, str] = {}
    for e in links:
        # Git stores a link's target as the blob's bytes; the OS reads them the same way.
        target = os.fsdecode(texts.get(e.oid, b""))
        inside = link_inside(e.path, target)
        if inside is None or posixpath.basename(inside) in never:
            continue
        out.links[e.path] = target
        hit = by_path.get(inside)
        if hit is not None and hit.mode in REGULAR_MODES:
            pointed[inside] = hit.oid
    blobs = read_blobs(git, pointed.values())
    out.link_targets = {p: blobs[oid] for p, oid in pointed.items() if oid in blobs}
    return out


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


def _parent(root: Path, rel: str) -> Path:
    """`rel`'s place under `root`, its folders created; UnsafePath when a folder on the
    way is a link or leaves the tree."""
    path = _inside(root, rel)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.parent.resolve() != path.parent or not path.parent.is_relative_to(root):
        raise UnsafePath(f"path leaves the gate tree: {rel!r}")
    return path


def _write(root: Path, rel: str, data: bytes, mode: str | None = None) -> None:
    """Create `rel` under `root` with `data`, executable for its owner when git's `mode`
    is 100755 (what a checkout gives it); never follows a link, never overwrites."""
    path = _parent(root, rel)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o700 if mode == EXECUTABLE else 0o600)
    with os.fdopen(fd, "wb") as fh:
        # The umask may have taken the owner's bits away: set them as git's mode says.
        os.fchmod(fh.fileno(), 0o700 if mode == EXECUTABLE else 0o600)
        fh.write(data)


def _symlink(root: Path, rel: str, target: str) -> bool:
    """Create the link `rel` -> `target` under `root` when its target stays inside the
    tree and nothing is at `rel` yet; whether it was created."""
    if link_inside(rel, target) is None:
        return False
    path = _parent(root, rel)
    if os.path.lexists(path):
        return False
    os.symlink(target, path)
    return True


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
                    shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def materialised(
    project: Path,
    targets: Sequence[FileTarget],
    governing: Mapping[str, bytes],
    files: SurfaceFiles | None = None,
) -> Iterator[Tree]:
    """A private tree holding `targets` (their `content`) and `governing`, with the
    project's machine-local installs linked in; removed on exit, whatever happens.

    The tree's targets are files on disk (`content` None, `abs_path` in the tree)
    under their project-relative paths, so the checkers judge them as files of a
    checkout: with `files` (read_surface_files), each with its git mode, and the
    surface's links inside the tree as links. Raises UnsafePath for a path that
    cannot live inside the tree.
    """
    files = files or SurfaceFiles()
    modes = files.modes
    parent = user_cache_dir(project, TREES_DIR)
    _sweep(parent)
    root = Path(tempfile.mkdtemp(prefix="tree-", dir=parent)).resolve()
    try:
        os.chmod(root, 0o700)
        tree = Tree(root=root, governing=dict(governing))
        written: set[str] = set()
        for rel, data in governing.items():
            _write(root, rel, data, modes.get(rel))
            written.add(rel)
        for t in targets:
            if t.path not in written:
                _write(root, t.path, t.read_bytes(), modes.get(t.path))
                written.add(t.path)
            tree.targets.append(replace(t, abs_path=_inside(root, t.path), content=None))
        for rel, data in files.link_targets.items():
            if rel not in written and rel not in files.links:
                _write(root, rel, data, modes.get(rel))
                written.add(rel)
        # Links last: a file written through a folder link would land elsewhere.
        for rel, target in sorted(files.links.items()):
            if rel not in written and _symlink(root, rel, target):
                written.add(rel)
        folders = folders_of(t.path for t in targets)
        tree.linked = _link_installs(project, root, folders, written)
        yield tree
    finally:
        shutil.rmtree(root, ignore_errors=True)


__all__ = [
    "BASE_GOVERNING",
    "LOCAL_INSTALLS",
    "SurfaceFiles",
    "Tree",
    "UnsafePath",
    "folders_of",
    "governing_paths",
    "link_inside",
    "materialised",
    "read_governing",
    "read_surface_files",
]
