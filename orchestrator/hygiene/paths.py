"""The one decision "may an op touch this path": used by the validator, the apply
engine and undo alike.

A path in a report or a journal is untrusted. It must be a canonical project-relative
POSIX path (model/paths.form_problem, shared with the task re-check: no `.`, `..` or
empty components, no trailing slash, no NUL or backslash, not absolute, bounded), hold
no control character, and none of its components may name `.git` or
`.orchestrate` in any spelling a file system might treat as that name (case, trailing
dots and spaces, ignorable Unicode, compatibility forms, the 8.3 short name). At apply
time the path is also resolved on disk: no symlink on the way, and the real location
stays inside the root and outside its protected folders.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

from orchestrator.model.paths import form_problem

#: Folders no op may touch, at any depth (a nested repository's .git is as dangerous).
PROTECTED = (".git", ".orchestrate")
#: Code points some file systems ignore in names (HFS+ folds them away); git refuses them too.
_IGNORABLE = re.compile("[\u00ad\u034f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
_SHORT_NAMES = re.compile(r"^(git|orches)~\d+$")  # NTFS 8.3 names of .git/.orchestrate


class UnsafePath(ValueError):
    """A path no op may touch; the message says why (our own words, never the path)."""


def _folded(part: str) -> str:
    # The name as a case-insensitive, normalising file system might see it.
    name = unicodedata.normalize("NFKC", _IGNORABLE.sub("", part)).casefold()
    return name.rstrip(". ")


def folded(rel: str) -> tuple[str, ...]:
    """`rel`'s components as a case-insensitive, normalising file system reads them:
    two paths with the same folded form may name one file."""
    return tuple(_folded(part) for part in rel.split("/"))


def path_problem(rel: str) -> str | None:
    """Why `rel` may not be edited by any op, or None when it may (a lexical check):
    the canonical form every untrusted path needs (model/paths.form_problem), no
    control character, and no component that names a protected folder."""
    if isinstance(rel, str) and any(ord(ch) < 32 or ch == "\x7f" for ch in rel):
        return "contains a control character"
    why = form_problem(rel)
    if why is not None:
        return why
    for part in rel.split("/"):
        folded = _folded(part)
        if not folded:  # only dots and spaces: some file systems read it as "." or ".."
            return "a name of only dots, spaces or ignorable characters"
        if folded in PROTECTED or _SHORT_NAMES.match(folded):
            return f"inside {folded}/"
    return None


def check(rel: str) -> None:
    """Raise UnsafePath when `rel` may not be edited (see path_problem)."""
    why = path_problem(rel)
    if why is not None:
        raise UnsafePath(why)


def resolve(root: Path, rel: str) -> Path:
    """The absolute path of an editable `rel` under `root`; UnsafePath otherwise.

    Beyond the lexical check: no component on the way is a symlink, and the real
    location of the parent folder is inside the root and outside its protected folders.
    """
    check(rel)
    cur = root
    for part in rel.split("/"):
        cur = cur / part
        if cur.is_symlink():
            raise UnsafePath("symlink")
    real_root = os.path.realpath(root)
    real_parent = os.path.realpath(cur.parent)
    inside = os.path.relpath(real_parent, real_root)
    if inside == ".." or inside.startswith("../") or os.path.isabs(inside):
        raise UnsafePath("resolves outside the project")
    if inside != "." and path_problem(inside) is not None:
        raise UnsafePath("resolves into a protected folder")
    return cur
