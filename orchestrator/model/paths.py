"""The one lexical check of a project-relative path taken from an untrusted record.

A path in a task record, a hygiene report or an undo journal names a file of the
project. Before anything reads, re-checks or edits it, it must be in canonical form:
a non-empty POSIX path relative to the project root, with no `.`, `..` or empty
component, no trailing slash, no NUL or backslash, not absolute (nor a drive path),
and of bounded length. What an edit needs beyond that (no control character, nothing
inside `.git` or `.orchestrate`, resolved on disk) is hygiene/paths.py's part.
"""

from __future__ import annotations

import posixpath

#: Longest path accepted (PATH_MAX on Linux).
MAX_PATH_CHARS = 4096


#: Folders nested deeper than this are not entered: a walk says which folder it left
#: out, a gate refuses a file below it as a scope with this reason. Real projects nest
#: a few dozen levels (node_modules included); Linux paths stop near 2,000 one-letter
#: levels (PATH_MAX), and a tree built that deep is a hostile input.
MAX_DEPTH = 256
TOO_DEEP_REASON = f"nested deeper than {MAX_DEPTH} folders: not checked"


def too_deep(rel: str) -> bool:
    """Whether the relative POSIX path `rel` lies below more than MAX_DEPTH folders."""
    return rel.count("/") > MAX_DEPTH


def form_problem(rel: object) -> str | None:
    """Why `rel` is not a canonical project-relative POSIX path, or None when it is.

    The reason is our own words, never the path (it is untrusted).
    """
    if not isinstance(rel, str) or not rel:
        return "empty"
    if len(rel) > MAX_PATH_CHARS:
        return f"longer than {MAX_PATH_CHARS} characters"
    if "\x00" in rel or "\\" in rel:
        return "contains NUL or a backslash"
    if posixpath.isabs(rel) or (len(rel) > 1 and rel[1] == ":"):
        return "absolute"
    parts = rel.split("/")
    if ".." in parts:
        return "climbs out with '..'"
    if all(p in ("", ".") for p in parts):
        return "the project root itself"
    if "" in parts or "." in parts:
        return "not in canonical form (no './', '//' or trailing '/')"
    return None


__all__ = ["MAX_DEPTH", "MAX_PATH_CHARS", "TOO_DEEP_REASON", "form_problem", "too_deep"]
