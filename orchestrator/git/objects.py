"""Git objects read directly: index entries, tree entries, changed paths, blob bytes.

Nothing here looks at the working tree: a surface is judged by the bytes git would
record or has recorded.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

from orchestrator.git.listing import split_z
from orchestrator.git.runner import Git, GitError
from orchestrator.model.checker import MAX_FILE_BYTES

#: Bytes of blobs fetched per `git cat-file --batch` call.
BLOB_CHUNK_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Entry:
    """One file of a tree or the index: mode, blob id, path (POSIX, repo-relative)."""

    mode: str
    oid: str
    path: str


@dataclass(frozen=True)
class Change:
    """One changed path: status letter (A, M, R, C, D, T), path, previous path for R/C."""

    status: str
    path: str
    old_path: str | None = None


def read_index(git: Git) -> list[Entry]:
    """Stage-0 entries of the index git names (``git ls-files -s -z``), listed once
    per runner until it runs a subcommand that may change them (`Git.index`)."""
    if git.index is not None:
        return list(cast("tuple[Entry, ...]", git.index))
    entries: list[Entry] = []
    for rec in split_z(git.run("ls-files", "-s", "-z").stdout):
        meta, _, path = rec.partition("\t")
        mode, oid, stage = meta.split()
        if stage == "0":
            entries.append(Entry(mode, oid, path))
    git.index = tuple(entries)
    return entries


def read_tree(git: Git, rev: str) -> list[Entry]:
    """Blob and link entries of the tree of `rev`, recursively (``git ls-tree -r -z``).

    Where `rev` is a full object id, git is asked once per runner (`Git.trees`): the tree
    of an object id never changes."""
    by_id = is_full_object_id(rev)
    if by_id and rev in git.trees:
        return list(cast("tuple[Entry, ...]", git.trees[rev]))
    entries: list[Entry] = []
    for rec in split_z(git.run("ls-tree", "-r", "-z", "--full-tree", rev).stdout):
        meta, _, path = rec.partition("\t")
        mode, kind, oid = meta.split()
        if kind in ("blob", "commit"):
            entries.append(Entry(mode, oid, path))
    if by_id:
        git.trees[rev] = tuple(entries)
    return entries


def is_full_object_id(rev: str) -> bool:
    """True for a whole SHA-1 or SHA-256 object id in lower-case hex (never a name, a
    short id or an expression such as ``HEAD`` or ``abc^{tree}``)."""
    return len(rev) in (40, 64) and all(c in "0123456789abcdef" for c in rev)


def parse_name_status(data: bytes) -> list[Change]:
    """Parse ``git diff --name-status -z`` output (R and C carry two paths)."""
    parts = split_z(data)
    changes: list[Change] = []
    i = 0
    while i < len(parts):
        status = parts[i][:1]
        if status in ("R", "C"):
            changes.append(Change(status, parts[i + 2], parts[i + 1]))
            i += 3
        else:
            changes.append(Change(status, parts[i + 1]))
            i += 2
    return changes


def diff_changes(git: Git, base: str, tip: str | None = None) -> list[Change]:
    """Paths changed from `base` to `tip` (a commit), or to the index without `tip`;
    renames are detected, external diff drivers never run."""
    ends = ["--cached", base] if tip is None else [base, tip]
    args = ["diff", "--name-status", "-z", "-M", "--no-ext-diff", *ends]
    return parse_name_status(git.run(*args).stdout)


def empty_tree(git: Git) -> str:
    """The id of the empty tree in this repository's hash."""
    return git.run("hash-object", "-t", "tree", "--stdin", stdin=b"").stdout.decode().strip()


def has_commit(git: Git, rev: str) -> bool:
    """True when `rev` names a commit in this repository."""
    return git.ok("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")


def resolve_commit(git: Git, rev: str) -> str:
    """The full commit id `rev` names; `GitError` when it names no commit."""
    if rev.startswith("-"):
        raise GitError(f"not a revision: {rev[:64]!r}")
    return git.out("rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}")


def staged_changes(git: Git, base: str | None = "HEAD") -> list[Change]:
    """Paths the index changes against the commit `base` (HEAD by default), or against
    nothing when `base` is None or names no commit (before the first commit)."""
    base = base if base is not None and has_commit(git, base) else empty_tree(git)
    return diff_changes(git, base)


def read_blobs(git: Git, oids: Iterable[str]) -> dict[str, bytes]:
    """Blob contents by id through ``git cat-file --batch``, fetched in bounded chunks.

    Blobs larger than the checker's file limit, and ids that are not blobs, are absent.
    """
    wanted = list(dict.fromkeys(oids))
    sizes = _blob_sizes(git, wanted)
    out: dict[str, bytes] = {}
    chunk: list[str] = []
    chunk_bytes = 0
    for oid in wanted:
        size = sizes.get(oid)
        if size is None or size > MAX_FILE_BYTES:
            continue
        if chunk and chunk_bytes + size > BLOB_CHUNK_BYTES:
            out.update(fetch_objects(git, chunk, chunk_bytes))
            chunk, chunk_bytes = [], 0
        chunk.append(oid)
        chunk_bytes += size
    if chunk:
        out.update(fetch_objects(git, chunk, chunk_bytes))
    return out


def _blob_sizes(git: Git, oids: Sequence[str]) -> dict[str, int]:
    return {o: size for o, (_kind, size) in object_sizes(git, oids, ("blob",)).items()}


def object_sizes(git: Git, oids: Sequence[str], kinds: Sequence[str]) -> dict[str, tuple[str, int]]:
    """The kind and size of each of `oids` whose object is one of `kinds` (others absent)."""
    if not oids:
        return {}
    stdin = "".join(f"{o}\n" for o in oids).encode()
    sizes: dict[str, tuple[str, int]] = {}
    for line in git.run("cat-file", "--batch-check", stdin=stdin).stdout.decode().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in kinds:
            sizes[parts[0]] = (parts[1], int(parts[2]))
    return sizes


def fetch_objects(git: Git, oids: Sequence[str], total: int) -> dict[str, bytes]:
    """The raw contents of `oids` (`total`: their summed size) by ``git cat-file --batch``."""
    stdin = "".join(f"{o}\n" for o in oids).encode()
    data = git.run("cat-file", "--batch", stdin=stdin, budget=total + 256 * len(oids) + 4096).stdout
    out: dict[str, bytes] = {}
    pos = 0
    while pos < len(data):
        nl = data.index(b"\n", pos)
        header = data[pos:nl].decode().split()
        pos = nl + 1
        if len(header) != 3:
            continue  # "<oid> missing"
        size = int(header[2])
        out[header[0]] = data[pos : pos + size]
        pos += size + 1
    return out
