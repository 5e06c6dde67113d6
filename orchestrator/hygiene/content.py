"""Reading anchored content: line spans, digests, newest mtimes, frontmatter.

Content is untrusted data: it is hashed and compared, never executed or echoed.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

from orchestrator.core.walk import walk
from orchestrator.model.edits import Anchor

#: Files larger than this are never edited line by line (deletes still work).
MAX_EDIT_BYTES = 8 * 1024 * 1024
_CHECK_ITEM = re.compile(rb"^\s*(?:[-*+]|\d+[.)])\s+\[([ xX])\]", re.MULTILINE)
_FROZEN = re.compile(rb"^hygiene\s*:\s*[\"']?frozen[\"']?\s*$", re.IGNORECASE | re.MULTILINE)


def lines_of(data: bytes) -> list[bytes]:
    """Lines with their endings kept, so joining them gives the bytes back."""
    return data.splitlines(keepends=True)


def span(data: bytes, anchor: Anchor) -> bytes | None:
    """The bytes of the anchored lines (all of it for a whole anchor); None if out of range."""
    if anchor.whole:
        return data
    lines = lines_of(data)
    if anchor.end_line > len(lines):
        return None
    return b"".join(lines[anchor.start_line - 1 : anchor.end_line])


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tree_digest(path: Path) -> str:
    """A digest of a directory tree: every relative path, its kind and its bytes."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in walk(path, max_depth=None):
        dirnames.sort()
        rel_dir = Path(dirpath).relative_to(path).as_posix()
        h.update(b"D\0" + rel_dir.encode("utf-8", "surrogateescape") + b"\0")
        for name in sorted(filenames + [d for d in dirnames if (Path(dirpath) / d).is_symlink()]):
            p = Path(dirpath) / name
            rel = p.relative_to(path).as_posix().encode("utf-8", "surrogateescape")
            if p.is_symlink():
                h.update(b"L\0" + rel + b"\0" + os.readlink(p).encode("utf-8", "surrogateescape"))
            elif p.is_file():
                h.update(b"F\0" + rel + b"\0" + sha256(p.read_bytes()).encode())
        h.update(b"\n")
    return h.hexdigest()


def path_digest(path: Path, anchor: Anchor) -> str | None:
    """Digest of what an anchor covers now: the span, the file, or the directory tree."""
    try:
        if path.is_dir() and not path.is_symlink():
            return tree_digest(path)
        data = path.read_bytes()
    except OSError:
        return None
    got = span(data, anchor)
    return None if got is None else sha256(got)


def newest_mtime(path: Path) -> float:
    """The latest mtime of a file, or of a directory and everything under it."""
    newest = path.lstat().st_mtime
    if path.is_dir() and not path.is_symlink():
        for dirpath, _dirs, files in walk(path, max_depth=None):
            newest = max(newest, os.lstat(dirpath).st_mtime)
            for name in files:
                newest = max(newest, os.lstat(os.path.join(dirpath, name)).st_mtime)
    return newest


BOM = b"\xef\xbb\xbf"


def read_head(path: Path, size: int) -> bytes:
    """The first `size` bytes of a regular file; b"" for anything else (a FIFO would
    block, a symlink points elsewhere, a device never ends) or when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        return os.read(fd, size)
    except OSError:
        return b""
    finally:
        os.close(fd)


def is_frozen_bytes(data: bytes) -> bool:
    """True when the document opens with frontmatter that says `hygiene: frozen` (a
    UTF-8 byte order mark before it counts as no byte)."""
    data = data.removeprefix(BOM)
    if not data.startswith(b"---"):
        return False
    end = data.find(b"\n---", 3)
    if end < 0:
        return False
    return bool(_FROZEN.search(data[3:end]))


def is_frozen(path: Path) -> bool:
    """Frozen frontmatter on a file, or on any document inside a directory."""
    try:
        if path.is_dir():
            for dirpath, _dirs, files in walk(path, max_depth=None):
                for name in files:
                    if is_frozen(Path(dirpath) / name):
                        return True
            return False
        if not path.is_file() or path.is_symlink():
            return False
        with path.open("rb") as fh:
            return is_frozen_bytes(fh.read(16384))
    except OSError:
        return False


def whole_anchor(path: Path) -> Anchor:
    """A full-file (or whole-directory) anchor."""
    n = 1
    if path.is_file():
        try:
            n = max(1, len(lines_of(path.read_bytes())))
        except OSError:
            n = 1
    return Anchor(start_line=1, end_line=n, whole=True)


def checklist_done(data: bytes) -> bool:
    """True when the document holds a Markdown checklist and every item is checked off."""
    marks = _CHECK_ITEM.findall(data)
    return bool(marks) and all(m in (b"x", b"X") for m in marks)


def has_frontmatter(data: bytes) -> bool:
    """True when the document opens with a closed `---` front matter block (after a
    UTF-8 byte order mark, if any: a second block would break the page)."""
    data = data.removeprefix(BOM)
    if not data.startswith(b"---"):
        return False
    first = data.split(b"\n", 1)[0].strip()
    return first == b"---" and data.find(b"\n---", 3) >= 0
