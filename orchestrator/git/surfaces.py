"""The git delivery surfaces: the staged index and a whole commit (pushes: `git.push`).

Every surface is read from git objects, never from the working tree: a file staged
clean but dirty on disk is judged by its staged bytes, and the reverse. The index
is the one git names (``GIT_INDEX_FILE`` is honoured, so ``git commit -a`` and
partial commits see what they will commit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.git.objects import (
    Entry,
    read_blobs,
    read_index,
    read_tree,
    resolve_commit,
    staged_changes,
)
from orchestrator.git.runner import Git
from orchestrator.model import languages
from orchestrator.model.checker import MAX_FILE_BYTES, FileTarget
from orchestrator.model.report import Scope
from orchestrator.vocab import ScopeStatus

#: Regular-file modes; symlinks (120000) and submodules (160000) carry no content to lint.
REGULAR_MODES = frozenset({"100644", "100755"})


@dataclass
class Surface:
    """What a gate will check: file targets, refused scopes, and notes for the report."""

    root: Path
    targets: list[FileTarget] = field(default_factory=list)
    refused: list[Scope] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    revision: str | None = None
    #: Where the judged content lives, for the files that govern it (a checker's
    #: allowlist or config): "index", a commit id, or None when no single source holds
    #: all of it (several pushed tips): then nothing governs from the work tree either.
    source: str | None = None
    #: The commit the judged content is delivered onto, when one is known (a push's
    #: remote commit or merge base): a strict gate's policy is also read there.
    base: str | None = None


def read_files_at(git: Git, source: str, names: Sequence[str]) -> dict[str, bytes]:
    """The bytes of the files `names` (project-relative) at `source` ("index" or a commit
    id); a name the source does not hold, or that is not a regular file, is left out."""
    entries = read_index(git) if source == "index" else read_tree(git, source)
    wanted = set(names)
    oids = {e.path: e.oid for e in entries if e.path in wanted and e.mode in REGULAR_MODES}
    blobs = read_blobs(git, oids.values())
    return {path: blobs[oid] for path, oid in oids.items() if oid in blobs}


def _refuse_kind(e: Entry, what: str) -> Scope:
    kind = "symlink" if e.mode == "120000" else "submodule" if e.mode == "160000" else "entry"
    return Scope(
        path=e.path,
        checker="selection",
        status=ScopeStatus.UNSUPPORTED,
        reason=f"{kind} in the {what}: no file content to check",
    )


def add_targets(git: Git, entries: Sequence[Entry], surface: Surface, what: str) -> None:
    """Turn entries into targets carrying their blob bytes; refuse what cannot be judged
    (links, submodules, blobs missing or over the file limit) with a reason."""
    regular = [e for e in entries if e.mode in REGULAR_MODES]
    surface.refused += [_refuse_kind(e, what) for e in entries if e.mode not in REGULAR_MODES]
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
                abs_path=git.root / e.path,
                **languages.detect_language(
                    e.path, content[: languages.HEAD_BYTES]
                ).target_fields(),
                content=content,
                size=len(content),
            )
        )


def commit_surface(git: Git) -> Surface:
    """What the next commit records: changed paths, judged by their bytes in the index.

    Deleted paths are not checked; renamed and copied paths are, under their new name.
    """
    surface = Surface(root=git.root, source="index")
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
    add_targets(git, wanted, surface, "index")
    return surface


def ci_surface(git: Git, rev: str = "HEAD") -> Surface:
    """The whole tree of an immutable commit id (`rev` is resolved once, then fixed)."""
    oid = resolve_commit(git, rev)
    surface = Surface(root=git.root, revision=oid, source=oid)
    add_targets(git, read_tree(git, oid), surface, f"commit {oid[:12]}")
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
