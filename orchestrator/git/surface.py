"""The git delivery surfaces: the staged index, a pushed ref range, a whole commit.

Every surface is read from git objects, never from the working tree: a file staged
clean but dirty on disk is judged by its staged bytes, and the reverse. The index
is the one git names (``GIT_INDEX_FILE`` is honoured, so ``git commit -a`` and
partial commits see what they will commit). Git runs with argv lists under one
deadline with bounded output (`orchestrator.procs.run_bounded`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.core import languages
from orchestrator.core.checker import MAX_FILE_BYTES, FileTarget
from orchestrator.core.report import Scope
from orchestrator.deadline import Deadline
from orchestrator.procs import ProcResult, run_bounded
from orchestrator.vocab import ScopeStatus

#: Regular-file modes; symlinks (120000) and submodules (160000) carry no content to lint.
REGULAR_MODES = frozenset({"100644", "100755"})
#: Bytes of blobs fetched per `git cat-file --batch` call.
BLOB_CHUNK_BYTES = 64 * 1024 * 1024
#: Bytes of pre-push protocol read from stdin.
MAX_PUSH_STDIN = 1024 * 1024
#: Output budget of listing commands (ls-files, ls-tree, diff) on huge trees.
LISTING_BUDGET = 256 * 1024 * 1024


class GitError(Exception):
    """Git could not answer: the surface cannot be established (an internal fault)."""


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


@dataclass
class Surface:
    """What a gate will check: file targets, refused scopes, and notes for the report."""

    root: Path
    targets: list[FileTarget] = field(default_factory=list)
    refused: list[Scope] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    revision: str | None = None


def git_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment git runs with: the caller's, with a relative index made absolute.

    Git exports ``GIT_INDEX_FILE`` to hooks, sometimes relative to the hook's cwd; the
    gate may run git elsewhere, so the path is pinned here.
    """
    out = dict(os.environ if env is None else env)
    index = out.get("GIT_INDEX_FILE")
    if index and not os.path.isabs(index):
        out["GIT_INDEX_FILE"] = os.path.abspath(index)
    out.setdefault("GIT_OPTIONAL_LOCKS", "0")
    out["LC_ALL"] = "C"
    return out


class Git:
    """A git runner bound to a work tree, one deadline and one environment."""

    def __init__(self, root: Path, deadline: Deadline, env: Mapping[str, str] | None = None):
        self.root = root
        self.deadline = deadline
        self.env = git_env(env)

    def run(
        self,
        *args: str,
        stdin: bytes | None = None,
        budget: int = LISTING_BUDGET,
        check: bool = True,
    ) -> ProcResult:
        """Run ``git ARGS``; with `check`, a failure raises `GitError` with a bounded reason."""
        res = run_bounded(
            ["git", *args],
            deadline=self.deadline,
            stdin=stdin,
            cwd=self.root,
            env=self.env,
            output_budget=budget,
        )
        if check and (not res.ok or res.returncode != 0):
            raise GitError(_describe(args, res))
        return res

    def ok(self, *args: str) -> bool:
        """True when ``git ARGS`` exits 0."""
        res = self.run(*args, check=False, budget=1024 * 1024)
        return res.ok and res.returncode == 0

    def out(self, *args: str) -> str:
        """Stdout of ``git ARGS`` as stripped text."""
        return self.run(*args).stdout.decode("utf-8", "surrogateescape").strip()


def _describe(args: Sequence[str], res: ProcResult) -> str:
    what = f"git {args[0] if args else ''}"
    if res.spawn_error:
        return f"{what}: could not start git ({res.spawn_error})"
    if res.timed_out:
        return f"{what}: timed out"
    if res.over_budget:
        return f"{what}: output over budget"
    err = " ".join(res.stderr.decode("utf-8", "replace").split())[:200]
    return f"{what}: exit {res.returncode}: {err}"


def find_repo(cwd: Path, deadline: Deadline, env: Mapping[str, str] | None = None) -> Path | None:
    """The top of the work tree containing `cwd`, or None when there is no git work tree."""
    res = run_bounded(
        ["git", "rev-parse", "--show-toplevel"],
        deadline=deadline,
        cwd=cwd,
        env=git_env(env),
        output_budget=64 * 1024,
    )
    if not res.ok or res.returncode != 0:
        return None
    top = res.stdout.decode("utf-8", "surrogateescape").strip()
    return Path(top) if top else None


def _split_z(data: bytes) -> list[str]:
    parts = data.decode("utf-8", "surrogateescape").split("\0")
    if parts and parts[-1] == "":
        parts.pop()
    return parts


def read_index(git: Git) -> list[Entry]:
    """Stage-0 entries of the index git names (``git ls-files -s -z``)."""
    entries: list[Entry] = []
    for rec in _split_z(git.run("ls-files", "-s", "-z").stdout):
        meta, _, path = rec.partition("\t")
        mode, oid, stage = meta.split()
        if stage == "0":
            entries.append(Entry(mode, oid, path))
    return entries


def read_tree(git: Git, rev: str) -> list[Entry]:
    """Blob and link entries of the tree of `rev`, recursively (``git ls-tree -r -z``)."""
    entries: list[Entry] = []
    for rec in _split_z(git.run("ls-tree", "-r", "-z", "--full-tree", rev).stdout):
        meta, _, path = rec.partition("\t")
        mode, kind, oid = meta.split()
        if kind in ("blob", "commit"):
            entries.append(Entry(mode, oid, path))
    return entries


def parse_name_status(data: bytes) -> list[Change]:
    """Parse ``git diff --name-status -z`` output (R and C carry two paths)."""
    parts = _split_z(data)
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


def empty_tree(git: Git) -> str:
    """The id of the empty tree in this repository's hash."""
    return git.run("hash-object", "-t", "tree", "--stdin", stdin=b"").stdout.decode().strip()


def _has_commit(git: Git, rev: str) -> bool:
    return git.ok("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")


def staged_changes(git: Git) -> list[Change]:
    """Paths the index changes against HEAD (or against nothing before the first commit)."""
    base = "HEAD" if _has_commit(git, "HEAD") else empty_tree(git)
    return parse_name_status(
        git.run("diff", "--cached", "--name-status", "-z", "-M", "--no-ext-diff", base).stdout
    )


def read_blobs(git: Git, oids: Iterable[str]) -> dict[str, bytes]:
    """Blob contents by id through ``git cat-file --batch``, fetched in bounded chunks."""
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
            out.update(_fetch(git, chunk, chunk_bytes))
            chunk, chunk_bytes = [], 0
        chunk.append(oid)
        chunk_bytes += size
    if chunk:
        out.update(_fetch(git, chunk, chunk_bytes))
    return out


def _blob_sizes(git: Git, oids: Sequence[str]) -> dict[str, int]:
    if not oids:
        return {}
    stdin = "".join(f"{o}\n" for o in oids).encode()
    sizes: dict[str, int] = {}
    for line in git.run("cat-file", "--batch-check", stdin=stdin).stdout.decode().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "blob":
            sizes[parts[0]] = int(parts[2])
    return sizes


def _fetch(git: Git, oids: Sequence[str], total: int) -> dict[str, bytes]:
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


def _targets_from(
    root: Path, git: Git, entries: Sequence[Entry], surface: Surface, what: str
) -> None:
    """Turn entries into targets carrying their blob bytes; refuse what cannot be judged."""
    regular = [e for e in entries if e.mode in REGULAR_MODES]
    for e in entries:
        if e.mode not in REGULAR_MODES:
            kind = (
                "symlink" if e.mode == "120000" else "submodule" if e.mode == "160000" else "entry"
            )
            surface.refused.append(
                Scope(
                    path=e.path,
                    checker="selection",
                    status=ScopeStatus.UNSUPPORTED,
                    reason=f"{kind} in the {what}: no file content to check",
                )
            )
    blobs = read_blobs(git, [e.oid for e in regular])
    for e in sorted(regular, key=lambda e: e.path):
        content = blobs.get(e.oid)
        if content is None:
            surface.refused.append(
                Scope(
                    path=e.path,
                    checker="selection",
                    status=ScopeStatus.UNSAFE,
                    reason=f"blob missing or larger than {MAX_FILE_BYTES} bytes: not checked",
                )
            )
            continue
        surface.targets.append(
            FileTarget(
                path=e.path,
                abs_path=root / e.path,
                language=languages.detect(e.path, content[: languages.HEAD_BYTES]),
                content=content,
                size=len(content),
            )
        )


def commit_surface(git: Git) -> Surface:
    """What the next commit records: changed paths, judged by their bytes in the index.

    Deleted paths are not checked; renamed and copied paths are, under their new name.
    """
    surface = Surface(root=git.root)
    changes = staged_changes(git)
    index = {e.path: e for e in read_index(git)}
    wanted: list[Entry] = []
    deleted = 0
    for ch in changes:
        if ch.status == "D":
            deleted += 1
            continue
        entry = index.get(ch.path)
        if entry is not None:
            wanted.append(entry)
    if deleted:
        surface.notes.append(f"{deleted} deleted path(s) in the commit: nothing to check there")
    if not changes:
        surface.notes.append("nothing staged: the index matches HEAD")
    _targets_from(git.root, git, wanted, surface, "index")
    return surface


def ci_surface(git: Git, rev: str = "HEAD") -> Surface:
    """The whole tree of an immutable commit id (`rev` is resolved once, then fixed)."""
    oid = resolve_commit(git, rev)
    surface = Surface(root=git.root, revision=oid)
    _targets_from(git.root, git, read_tree(git, oid), surface, f"commit {oid[:12]}")
    return surface


def resolve_commit(git: Git, rev: str) -> str:
    """The full commit id `rev` names; `GitError` when it names no commit."""
    if rev.startswith("-"):
        raise GitError(f"not a revision: {rev[:64]!r}")
    return git.out("rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}")


@dataclass(frozen=True)
class PushUpdate:
    """One line of the pre-push protocol."""

    local_ref: str
    local_oid: str
    remote_ref: str
    remote_oid: str

    @property
    def deletes(self) -> bool:
        return set(self.local_oid) == {"0"}

    @property
    def creates(self) -> bool:
        return set(self.remote_oid) == {"0"}


def parse_push_lines(data: bytes) -> list[PushUpdate]:
    """Parse ``<local ref> <local oid> <remote ref> <remote oid>`` lines; ValueError if malformed."""
    if len(data) > MAX_PUSH_STDIN:
        raise ValueError("pre-push input larger than 1 MiB")
    updates: list[PushUpdate] = []
    for raw in data.decode("utf-8", "surrogateescape").splitlines():
        if not raw.strip():
            continue
        parts = raw.split()
        if len(parts) != 4 or not all(_is_oid(p) for p in (parts[1], parts[3])):
            raise ValueError(
                "malformed pre-push line (want: local-ref local-oid remote-ref remote-oid)"
            )
        updates.append(PushUpdate(*parts))
    return updates


def _is_oid(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def _default_branch_base(git: Git, remote: str | None, oid: str) -> tuple[str | None, str]:
    """Merge base of `oid` with the remote's default branch, and how it was found."""
    candidates: list[str] = []
    if remote and not remote.startswith("-"):
        head = git.run("symbolic-ref", "--quiet", f"refs/remotes/{remote}/HEAD", check=False)
        if head.ok and head.returncode == 0:
            candidates.append(head.stdout.decode().strip())
        candidates += [f"refs/remotes/{remote}/main", f"refs/remotes/{remote}/master"]
    for ref in candidates:
        if not _has_commit(git, ref):
            continue
        base = git.run("merge-base", oid, ref, check=False)
        if base.ok and base.returncode == 0 and base.stdout.strip():
            return base.stdout.decode().strip(), ref
    return None, ""


def push_surface(git: Git, updates: Sequence[PushUpdate], remote: str | None = None) -> Surface:
    """The files changed in each pushed range, judged at the pushed commit.

    Deleted refs check nothing. A new branch is compared with its merge base with the
    remote's default branch, or checked whole when there is none. When one path is
    pushed with different contents in several refs, each version is checked.
    """
    surface = Surface(root=git.root)
    if not updates:
        surface.notes.append("no pre-push lines on stdin: no ref is being pushed, nothing to check")
    chosen: dict[tuple[str, str], Entry] = {}
    for up in updates:
        label = up.remote_ref
        if up.deletes:
            surface.notes.append(f"push deletes {label}: nothing to check")
            continue
        tip = up.local_oid
        if up.creates:
            base, ref = _default_branch_base(git, remote, tip)
            how = (
                f"new branch {label}: compared with its merge base with {ref}"
                if base
                else (f"new branch {label}: no remote default branch in common, whole tree checked")
            )
        elif _has_commit(git, up.remote_oid):
            base, how = up.remote_oid, ""
        else:
            base, ref = _default_branch_base(git, remote, tip)
            how = f"{label}: remote commit unknown locally, compared with {ref or 'nothing (whole tree)'}"
        if how:
            surface.notes.append(how)
        tree = {e.path: e for e in read_tree(git, tip)}
        if base is None:
            picked = list(tree.values())
        else:
            out = git.run("diff", "--name-status", "-z", "-M", "--no-ext-diff", base, tip).stdout
            picked = [
                tree[c.path] for c in parse_name_status(out) if c.status != "D" and c.path in tree
            ]
        for e in picked:
            chosen.setdefault((e.path, e.oid), e)
    _targets_from(git.root, git, list(chosen.values()), surface, "pushed commits")
    return surface


def split_rounds(targets: Sequence[FileTarget]) -> list[list[FileTarget]]:
    """Group targets so no round holds one path twice (a path pushed in two versions)."""
    rounds: list[list[FileTarget]] = []
    seen: list[set[str]] = []
    for t in targets:
        for i, paths in enumerate(seen):
            if t.path not in paths:
                paths.add(t.path)
                rounds[i].append(t)
                break
        else:
            seen.append({t.path})
            rounds.append([t])
    return rounds
