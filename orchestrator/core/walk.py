"""Walk a folder for selection, with every entry accounted for.

Git lists regular files and symlinks only: it passes over FIFOs, sockets and devices
without a word, and over a folder it cannot open with a warning on stderr. A plain
`os.walk` drops unreadable folders the same way. `scan_unlisted` finds what git did
not list, and `walk_files` (the walk without git) reports the folders it could not
read, so selection can turn each into a scope with its own reason.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from orchestrator.model.paths import MAX_DEPTH, TOO_DEEP_REASON


def walk(
    top: str | os.PathLike[str],
    onerror: Callable[[OSError], None] | None = None,
    max_depth: int | None = MAX_DEPTH,
    on_too_deep: Callable[[str], None] | None = None,
) -> Iterator[tuple[str, list[str], list[str]]]:
    """`os.walk(top, followlinks=False)`, top-down, without recursion.

    Python's own walks (os.walk, Path.rglob, shutil.rmtree before 3.12) recurse once
    per level, so a folder a few hundred levels deep raised RecursionError out of
    `check` and `gate`. Here one explicit stack holds the folders still to read. The
    caller may prune `dirnames` in place, as with os.walk; a symlink to a folder is
    listed in `dirnames` and never entered. A folder deeper than `max_depth` below
    `top` is not entered either: it goes to `on_too_deep` (its path) instead.
    """
    stack: list[tuple[str, int]] = [(os.fspath(top), 0)]
    while stack:
        dirpath, depth = stack.pop()
        try:
            with os.scandir(dirpath) as it:
                entries = list(it)
        except OSError as exc:
            if onerror is not None:
                onerror(exc)
            continue
        dirnames: list[str] = []
        filenames: list[str] = []
        links: set[str] = set()
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            (dirnames if is_dir else filenames).append(entry.name)
            if is_dir and entry.is_symlink():
                links.add(entry.name)
        yield dirpath, dirnames, filenames
        below = [os.path.join(dirpath, d) for d in dirnames if d not in links]
        if max_depth is not None and depth + 1 > max_depth:
            for path in below:
                if on_too_deep is not None:
                    on_too_deep(path)
            continue
        stack.extend((path, depth + 1) for path in reversed(below))


def makedirs(path: Path, mode: int = 0o777) -> None:
    """`path.mkdir(parents=True, exist_ok=True)` without recursion (pathlib's recurses
    once per missing level)."""
    missing: list[Path] = []
    cur = path
    while not cur.is_dir():
        missing.append(cur)
        if cur.parent == cur:
            break
        cur = cur.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=mode)
        except FileExistsError:
            if not folder.is_dir():
                raise


def rmtree(path: Path) -> None:
    """Remove the folder `path` and everything in it, without recursion and without
    following links; errors are ignored (what cannot be removed stays), as with
    `shutil.rmtree(path, ignore_errors=True)`, which recurses once per level."""
    folders: list[str] = []
    for dirpath, dirnames, filenames in walk(path, max_depth=None):
        folders.append(dirpath)
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(dirpath, name))
    for folder in reversed(folders):  # deepest first: each is empty by now
        with contextlib.suppress(OSError):
            os.rmdir(folder)


@dataclass(frozen=True)
class Unlisted:
    """An entry no checker can read: `kind` is fifo, socket, device or folder.

    `rel` is POSIX and relative to the walked folder; `error` is why a folder could
    not be read (its strerror).
    """

    rel: str
    kind: str
    error: str | None = None


def special_kind(mode: int) -> str | None:
    """fifo, socket or device for those file types; None for files, folders, links."""
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return None


def _join(base: str, name: str) -> str:
    return name if not base else f"{base}/{name}"


def parent_dirs(names: Iterable[str]) -> set[str]:
    """Every folder (relative, POSIX) that holds one of `names`, at any depth."""
    dirs: set[str] = set()
    for name in names:
        cut = name.rfind("/")
        while cut > 0:
            folder = name[:cut]
            if folder in dirs:
                break
            dirs.add(folder)
            cut = folder.rfind("/")
    return dirs


def _read_level(
    directory: Path, level: list[str], excluded: Collection[str], found: list[Unlisted]
) -> list[str]:
    """Scan each folder of `level`; report specials and unreadable folders into `found`;
    return the sub-folders to look at next."""
    below: list[str] = []
    for rel in level:
        try:
            with os.scandir(os.path.join(directory, rel) if rel else directory) as it:
                entries = list(it)
        except OSError as exc:
            found.append(Unlisted(rel or ".", "folder", exc.strerror or type(exc).__name__))
            continue
        if rel and any(e.name == ".git" for e in entries):
            continue  # a nested repository: its files are its own repository's business
        for entry in entries:
            path = _join(rel, entry.name)
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in excluded:
                        below.append(path)
                    continue
                if entry.is_file(follow_symlinks=False) or entry.is_symlink():
                    continue
                kind = special_kind(entry.stat(follow_symlinks=False).st_mode)
            except OSError:
                continue  # vanished while we looked: nothing left to report
            if kind is not None:
                found.append(Unlisted(path, kind))
    return below


def scan_unlisted(
    directory: Path,
    excluded: Collection[str],
    listed_dirs: Collection[str],
    ignored: Callable[[list[str]], set[str]],
) -> list[Unlisted]:
    """FIFOs, sockets, devices and unreadable folders under `directory` that are not
    ignored.

    `listed_dirs` are the folders that hold a listed file (git entered them); any other
    folder is entered only when `ignored` (asked once per depth, with every such folder
    of that depth) does not return it. Folders named in `excluded` and nested
    repositories are never entered. The specials found are filtered through `ignored`
    too. Regular files and symlinks are not reported: the caller lists those itself.
    """
    found: list[Unlisted] = []
    level = [""]
    while level:
        below = _read_level(directory, level, excluded, found)
        unknown = [d for d in below if d not in listed_dirs]
        skip = ignored(unknown) if unknown else set()
        level = [d for d in below if d not in skip]
    specials = [u.rel for u in found if u.kind != "folder"]
    skip = ignored(specials) if specials else set()
    return sorted((u for u in found if u.rel not in skip), key=lambda u: u.rel)


def walk_files(directory: Path, excluded: Sequence[str]) -> tuple[list[Path], list[Unlisted]]:
    """Every file under `directory` without git, and the folders that could not be read.

    Excluded folders are skipped and `.gitignore` files found on the way are honoured.
    FIFOs and sockets are listed like files (selection refuses them by type).
    """
    import pathspec  # only needed outside a git work tree: keep it off the start-up path

    specs: list[tuple[Path, pathspec.GitIgnoreSpec]] = []
    found: list[Path] = []
    unreadable: list[Unlisted] = []

    def on_error(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else directory
        rel = where.relative_to(directory).as_posix() if where != directory else "."
        unreadable.append(Unlisted(rel, "folder", exc.strerror or type(exc).__name__))

    def on_deep(path: str) -> None:
        rel = Path(path).relative_to(directory).as_posix()
        unreadable.append(Unlisted(rel, "folder", TOO_DEEP_REASON))

    def ignored(p: Path, is_dir: bool) -> bool:
        for base, spec in specs:
            if p.is_relative_to(base):
                rel = p.relative_to(base).as_posix() + ("/" if is_dir else "")
                if spec.match_file(rel):
                    return True
        return False

    for dirpath, dirnames, filenames in walk(directory, onerror=on_error, on_too_deep=on_deep):
        here = Path(dirpath)
        gi = here / ".gitignore"
        if os.path.isfile(gi):  # False, not an error, when it cannot be looked at
            try:
                lines = gi.read_text(encoding="utf-8", errors="replace").splitlines()
                specs.append((here, pathspec.GitIgnoreSpec.from_lines(lines)))
            except OSError:
                pass
        dirnames[:] = sorted(
            d for d in dirnames if d not in excluded and not ignored(here / d, True)
        )
        for name in sorted(filenames):
            p = here / name
            if not ignored(p, False):
                found.append(p)
    return found, sorted(unreadable, key=lambda u: u.rel)
