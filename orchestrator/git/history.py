"""Commit ranges and the blobs they add: what a push or a merge brings that the other
side did not have, commit by commit (a secret added in one commit and removed in the
next is still delivered by both)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from orchestrator.git.objects import Entry, fetch_objects, object_sizes
from orchestrator.git.runner import Git

#: Modes whose blob is content git delivers: regular files and symlinks (the link text).
BLOB_MODES = frozenset({"100644", "100755", "120000"})
#: A submodule entry: a commit id of another repository, no blob here.
GITLINK = "160000"


@dataclass(frozen=True)
class Added:
    """One blob a commit of the range records at a path: the entry and the commit."""

    entry: Entry
    commit: str


def range_commits(git: Git, tip: str, exclude: Sequence[str]) -> list[str]:
    """Commits reachable from `tip` and from none of `exclude`, oldest first.

    `tip` and `exclude` are commit ids or ref names git gave us; none starts with "-".
    """
    args = ["rev-list", "--reverse", "--topo-order", "--end-of-options", tip]
    return git.out(*args, *(f"^{e}" for e in exclude)).split()


def pushed_objects(git: Git, tip: str, exclude: Sequence[str]) -> list[tuple[str, str]]:
    """Every object reachable from `tip` (a commit, tag, tree or blob id) and from none
    of `exclude` (``git rev-list --objects``: commits, tags, trees and blobs, as git's
    pack for a push is built), each with the name git walked it under (a path in a
    tree, or empty). A line that does not start with an object id is left out (a name
    holding a newline); at worst that names a blob by its id instead of its path."""
    args = ["rev-list", "--objects", "--end-of-options", tip, *(f"^{e}" for e in exclude)]
    out: list[tuple[str, str]] = []
    for line in git.run(*args).stdout.decode("utf-8", "surrogateescape").splitlines():
        oid, _, name = line.partition(" ")
        if len(oid) in (40, 64) and all(c in "0123456789abcdef" for c in oid):
            out.append((oid, name))
    return out


#: Bytes of `.git/shallow` read (one commit id a line).
MAX_SHALLOW_FILE = 1024 * 1024


def shallow_boundary(git: Git, commits: Sequence[str]) -> list[str]:
    """The `commits` (in order) that are a shallow boundary of this repository: listed
    in `.git/shallow`, so git walks them as if they had no parent. A range that holds
    one ends there for git as for the gates (git sends nothing below it), and its
    diff against nothing is every file of its tree."""
    name = git.answer("rev-parse", "--git-path", "shallow")
    path = git.root / name if name else None
    if path is None or not path.is_file():
        return []
    with path.open("rb") as fh:
        listed = set(fh.read(MAX_SHALLOW_FILE).decode("ascii", "replace").split())
    return [c for c in commits if c in listed]


def added_blobs(git: Git, commits: Sequence[str]) -> list[Added]:
    """Every entry the `commits` record at a path against each of their parents
    (against nothing for a root commit): blobs (file or link text) and submodule
    entries (which carry no blob); the first commit naming an entry at a path wins.
    Deletions are left out."""
    if not commits:
        return []
    data = git.run(
        "diff-tree",
        "--stdin",
        "-r",
        "-z",
        "--root",
        "-m",
        "--no-renames",
        "--no-ext-diff",
        stdin="".join(f"{c}\n" for c in commits).encode(),
    ).stdout
    out: list[Added] = []
    seen: set[tuple[str, str]] = set()
    parts = data.split(b"\0")
    commit = ""
    i = 0
    while i < len(parts):
        token = parts[i].decode("utf-8", "surrogateescape")
        i += 1
        if not token.startswith(":"):
            commit = token.strip() or commit
            continue
        path = parts[i].decode("utf-8", "surrogateescape") if i < len(parts) else ""
        i += 1
        meta = token[1:].split()
        if len(meta) != 5:
            continue
        mode, oid, status = meta[1], meta[3], meta[4]
        if status.startswith("D") or mode not in BLOB_MODES | {GITLINK} or (path, oid) in seen:
            continue
        seen.add((path, oid))
        out.append(Added(Entry(mode, oid, path), commit))
    return out


@dataclass(frozen=True)
class Message:
    """The message of a commit or an annotated tag object, and what a tag points at."""

    oid: str
    kind: str
    text: bytes
    #: For a tag: the object it names (a commit, or another tag); else None.
    target: str | None = None


def read_messages(git: Git, oids: Sequence[str], limit: int) -> tuple[list[Message], list[str]]:
    """The messages of the commit and tag objects `oids` (in order), read from git's
    object store; and the ids whose object is over `limit` bytes (not read). An id
    that names another kind of object is left out."""
    wanted = list(dict.fromkeys(oids))
    sizes = object_sizes(git, wanted, ("commit", "tag"))
    large = [o for o in wanted if o in sizes and sizes[o][1] > limit]
    small = [o for o in wanted if o in sizes and o not in large]
    raw = fetch_objects(git, small, sum(sizes[o][1] for o in small)) if small else {}
    out: list[Message] = []
    for oid in small:
        if oid not in raw:
            continue
        head, _, text = raw[oid].partition(b"\n\n")
        kind = sizes[oid][0]
        target = None
        if kind == "tag":
            for field_line in head.split(b"\n"):
                if field_line.startswith(b"object "):
                    target = field_line[7:].decode("ascii", "replace").strip()
        out.append(Message(oid, kind, text, target))
    return out, large


def tag_chain(git: Git, oid: str, limit: int) -> list[Message]:
    """The annotated tag objects from `oid` down to what they finally name (a tag of a
    tag is followed; at most 32 levels); empty when `oid` is not a tag object."""
    chain: list[Message] = []
    current: str | None = oid
    while current and len(chain) < 32:
        found, _large = read_messages(git, [current], limit)
        if not found or found[0].kind != "tag":
            break
        chain.append(found[0])
        current = found[0].target
    return chain
