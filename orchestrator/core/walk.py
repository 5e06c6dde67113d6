"""Walk a folder for selection, with every entry accounted for.

Git lists regular files and symlinks only: it passes over FIFOs, sockets and devices
without a word, and over a folder it cannot open with a warning on stderr. A plain
`os.walk` drops unreadable folders the same way. `scan_unlisted` finds what git did
not list, and `walk_files` (the walk without git) reports the folders it could not
read, so selection can turn each into a scope with its own reason.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path


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

    def ignored(p: Path, is_dir: bool) -> bool:
        for base, spec in specs:
            if p.is_relative_to(base):
                rel = p.relative_to(base).as_posix() + ("/" if is_dir else "")
                if spec.match_file(rel):
                    return True
        return False

    for dirpath, dirnames, filenames in os.walk(directory, onerror=on_error, followlinks=False):
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
