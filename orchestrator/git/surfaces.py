"""The git delivery surfaces: the staged index and a whole commit (pushes: `git.push`).

A surface has two kinds of targets: the files delivered as they will stand (the index,
the pushed tip), which every checker judges, and the other versions the delivery
carries in its history (each blob a pushed or merged commit adds), which only the
policy checks (the secret scan) judge: a secret removed again is still delivered.

Every surface is read from git objects, never from the working tree: a file staged
clean but dirty on disk is judged by its staged bytes, and the reverse. The index
is the one git names (``GIT_INDEX_FILE`` is honoured, so ``git commit -a`` and
partial commits see what they will commit).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.git.history import Added, Message, added_blobs, range_commits, read_messages
from orchestrator.git.objects import (
    Entry,
    has_commit,
    read_blobs,
    read_index,
    read_tree,
    resolve_commit,
    staged_changes,
)
from orchestrator.git.runner import Git
from orchestrator.model import languages
from orchestrator.model.checker import MAX_FILE_BYTES, FileTarget
from orchestrator.model.paths import TOO_DEEP_REASON, too_deep
from orchestrator.model.report import Scope
from orchestrator.vocab import ScopeStatus

#: Regular-file modes; symlinks (120000) and submodules (160000) carry no content to lint.
REGULAR_MODES = frozenset({"100644", "100755"})
SYMLINK = "120000"
GITLINK = "160000"


@dataclass(frozen=True)
class ScanTarget:
    """A version judged by the policy checks only (the secret scan), and what it is: the
    version a commit adds, or a link's target text (`origin`, a phrase for the report)."""

    target: FileTarget
    origin: str
    #: The commit that adds this version, when it comes from a delivered history.
    commit: str | None = None


@dataclass
class Surface:
    """What a gate will check: file targets, refused scopes, and notes for the report."""

    root: Path
    targets: list[FileTarget] = field(default_factory=list)
    refused: list[Scope] = field(default_factory=list)
    #: Versions only the policy checks judge (history of a push or a merge, link texts).
    scan_only: list[ScanTarget] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    revision: str | None = None
    #: Where the judged content lives, for the files that govern it (a checker's
    #: allowlist or config): "index", a commit id, or None when no single source holds
    #: all of it (several pushed tips): then nothing governs from the work tree either.
    source: str | None = None
    #: The commit the judged content is delivered onto, when one is known (a push's
    #: remote commit or merge base, an amend's parent): a strict gate's policy is also
    #: read there.
    base: str | None = None
    #: The commit an amend replaces (HEAD), when the commit gate judges an amend.
    amends: str | None = None
    #: The delivered symlinks' paths: the private tree shows them to the checkers as
    #: links where their targets stay inside it (gates/materialise.py).
    links: list[str] = field(default_factory=list)


def read_files_at(git: Git, source: str, names: Sequence[str]) -> dict[str, bytes]:
    """The bytes of the files `names` (project-relative) at `source` ("index" or a commit
    id); a name the source does not hold, or that is not a regular file, is left out."""
    entries = read_index(git) if source == "index" else read_tree(git, source)
    wanted = set(names)
    oids = {e.path: e.oid for e in entries if e.path in wanted and e.mode in REGULAR_MODES}
    blobs = read_blobs(git, oids.values())
    return {path: blobs[oid] for path, oid in oids.items() if oid in blobs}


def _gitlink_scope(e: Entry) -> Scope:
    return Scope(
        path=e.path,
        checker="selection",
        status=ScopeStatus.NOT_RUN,
        reason=(
            f"submodule at commit {e.oid[:12]}: this repository records only the commit id; "
            "the submodule's files live in its own repository and were not judged here"
        ),
        hint=(
            "judge the submodule where its files live (run `orchestrate gate ci` inside it, "
            "or install orchestrate's hooks there): this gate cannot see into it and stays "
            "incomplete while the delivery changes the submodule"
        ),
    )


def _symlink_scope(e: Entry) -> Scope:
    return Scope(
        path=e.path,
        checker="selection",
        status=ScopeStatus.UNSUPPORTED,
        reason=(
            "symlink: git records only the link's target path, no file content to lint; "
            "the target path was scanned for secrets, and the file it points at is judged "
            "under its own path when the delivery carries it"
        ),
    )


def _too_large(path: str, where: str = "") -> Scope:
    return Scope(
        path=path,
        checker="selection",
        status=ScopeStatus.UNSAFE,
        reason=f"blob{where} missing or larger than {MAX_FILE_BYTES} bytes: not checked",
    )


def _target(
    git: Git, path: str, content: bytes, detection: languages.Detection | None
) -> FileTarget:
    return FileTarget(
        path=path,
        abs_path=git.root / path,
        **(detection.target_fields() if detection else {}),
        content=content,
        size=len(content),
    )


def add_targets(git: Git, entries: Sequence[Entry], surface: Surface, what: str) -> None:
    """Turn entries into targets carrying their blob bytes. A symlink's target text is
    scanned for secrets only; a submodule is refused as not judged here, saying where
    its files are judged; a blob missing or over the file limit is refused as unsafe."""
    regular = [e for e in entries if e.mode in REGULAR_MODES]
    links = [e for e in entries if e.mode == SYMLINK]
    for e in entries:
        if e.mode == GITLINK:
            surface.refused.append(_gitlink_scope(e))
        elif e.mode == SYMLINK:
            surface.refused.append(_symlink_scope(e))
        elif e.mode not in REGULAR_MODES:
            surface.refused.append(_too_large(e.path, f" of mode {e.mode} in the {what}"))
    blobs = read_blobs(git, [e.oid for e in regular + links])
    for e in sorted(regular, key=lambda e: e.path):
        content = blobs.get(e.oid)
        if content is None:
            surface.refused.append(_too_large(e.path))
            continue
        if too_deep(e.path):
            # Not materialised (a tree that deep breaks path limits and every recursive
            # walk a checker makes) and not linted: refused with the reason, so a strict
            # gate blocks on it. Its bytes are at hand, so the secret scan still reads it.
            surface.refused.append(
                Scope(
                    path=e.path,
                    checker="selection",
                    status=ScopeStatus.UNSAFE,
                    reason=TOO_DEEP_REASON,
                )
            )
            surface.scan_only.append(
                ScanTarget(_target(git, e.path, content, None), "a file nested too deep")
            )
            continue
        detection = languages.detect_language(e.path, content[: languages.HEAD_BYTES])
        surface.targets.append(_target(git, e.path, content, detection))
    surface.links += [e.path for e in links]
    for e in links:
        if e.oid not in blobs:
            surface.refused.append(_too_large(e.path, " of the link"))
            continue
        surface.scan_only.append(
            ScanTarget(_target(git, e.path, blobs[e.oid], None), "the link's target text")
        )


def add_history(git: Git, added: Sequence[Added], surface: Surface, delivered: set[Entry]) -> None:
    """Queue for the secret scan every blob in `added` that is not one of the `delivered`
    entries (those are judged whole already), named by the commit that adds it."""
    rest = [a for a in added if a.entry not in delivered and a.entry.mode != GITLINK]
    blobs = read_blobs(git, [a.entry.oid for a in rest])
    for a in rest:
        where = f"the version added by commit {a.commit[:12]}"
        content = blobs.get(a.entry.oid)
        if content is None:
            surface.refused.append(_too_large(a.entry.path, f" ({where})"))
            continue
        target = _target(git, a.entry.path, content, None)
        surface.scan_only.append(ScanTarget(target, where, a.commit))


def object_label(oid: str, name: str) -> str:
    """The name a pushed blob outside every pushed commit's changes is scanned under: the
    path git walked it at when that is a plain relative path (so rules that read a
    file's name still apply), else the synthetic `<blob 1a2b3c4d5e6f>` (never written
    to, opened in, or fixed in the user's repository)."""
    parts = name.split("/")
    plain = (
        name
        and not too_deep(name)
        and all(p not in ("", ".", "..") and p.lower() != ".git" and p.isprintable() for p in parts)
    )
    return name if plain else f"<blob {oid[:12]}>"


def add_objects(git: Git, blobs: dict[str, tuple[str, str]], surface: Surface) -> None:
    """Queue for the secret scan each pushed blob in `blobs` (id -> (name it was walked
    under, the remote ref whose push delivers it)): a blob a tag, a tree or a notes ref
    names carries content to the remote as a commit's file does. One too large to read
    is refused as unsafe."""
    contents = read_blobs(git, list(blobs))
    for oid, (name, ref) in blobs.items():
        label = object_label(oid, name)
        where = (
            f"a blob ({oid[:12]}) the push of {ref} delivers outside any pushed commit's changes"
        )
        content = contents.get(oid)
        if content is None:
            surface.refused.append(_too_large(label, f" ({where})"))
            continue
        surface.scan_only.append(ScanTarget(_target(git, label, content, None), where))


def message_label(message: Message) -> str:
    """The synthetic name a message is judged under: `<commit 1a2b3c4d5e6f message>`.
    Not a project path: it is never written to, opened in, or fixed in the user's repo."""
    return f"<{message.kind} {message.oid[:12]} message>"


def add_messages(
    git: Git, commits: Sequence[str], tags: Sequence[Message], surface: Surface
) -> None:
    """Queue for the secret scan the message of each of `commits` and of each annotated
    tag in `tags`: a message is delivered content too (a pushed commit or tag carries
    it to the remote). One too large to read is refused as unsafe."""
    found, large = read_messages(git, commits, MAX_FILE_BYTES)
    for oid in large:
        surface.refused.append(_too_large(f"<commit {oid[:12]} message>", " (commit object)"))
    for message in [*found, *tags]:
        label = message_label(message)
        origin = (
            f"the message of {message.kind} {message.oid[:12]} (reword it, e.g. "
            + (
                "git commit --amend or an interactive rebase"
                if message.kind == "commit"
                else "re-create the tag"
            )
            + ", and revoke the credential)"
        )
        surface.scan_only.append(ScanTarget(_target(git, label, message.text, None), origin))


#: The label of the message a commit-msg hook judges (not yet a commit: no id).
PENDING_MESSAGE = "<commit message>"
#: git's scissors line: what `git commit -v` appends below it is not recorded.
SCISSORS = b"# ------------------------ >8 ------------------------"


def scissors_at(text: bytes) -> int:
    """Where git's scissors line starts in `text` (a whole line, at the start or after a
    newline, as git looks for it), or -1."""
    line = SCISSORS + b"\n"
    if text.startswith(line):
        return 0
    at = text.find(b"\n" + line)
    return at + 1 if at >= 0 else -1


def message_surface(git: Git, data: bytes, cut: bool = False) -> Surface:
    """The message git is about to record (the commit-msg hook's file bytes `data`), as
    one secret-scan-only target; the policy files come from the index. With `cut` (git
    drops what follows its scissors line: `git commit -v`, gates/amend.cuts_at_scissors)
    the text below that line is not judged; without, every line is. A message longer
    than the file limit (before any scissors line) is refused as unsafe: its first part
    is still scanned, the rest was not judged."""
    text = data[:MAX_FILE_BYTES]
    at = scissors_at(text) if cut else -1
    surface = Surface(root=git.root, source="index")
    if at >= 0:
        text = text[:at]
    elif len(data) > MAX_FILE_BYTES:
        surface.refused.append(
            Scope(
                path=PENDING_MESSAGE,
                checker="selection",
                status=ScopeStatus.UNSAFE,
                reason=(
                    f"the message is longer than {MAX_FILE_BYTES} bytes: only its first "
                    f"{MAX_FILE_BYTES} were scanned, and git records all of it"
                ),
            )
        )
    target = _target(git, PENDING_MESSAGE, text, None)
    surface.scan_only.append(
        ScanTarget(
            target, "the message being committed (leave the credential out of it, and revoke it)"
        )
    )
    return surface


def merge_history(git: Git) -> list[Added]:
    """The blobs the commits of a merge being committed add (each merged head and every
    commit it brings that `HEAD` lacks); none when no merge is in progress."""
    # `git commit` finishing a merge finds MERGE_HEAD; `git merge` runs pre-merge-commit
    # before writing it, naming each merged head in a GITHEAD_<id> variable instead.
    # Either source can only add commits to scan, never take any away.
    named = [k.removeprefix("GITHEAD_") for k in git.env if k.startswith("GITHEAD_")]
    merge_file = git.answer("rev-parse", "--git-path", "MERGE_HEAD")
    path = git.root / merge_file if merge_file else None
    if path is not None and path.is_file():
        named += path.read_bytes()[:65536].decode("ascii", "replace").split()
    heads = list(dict.fromkeys(h for h in named if _is_hex(h) and has_commit(git, h)))
    base = ["HEAD"] if has_commit(git, "HEAD") else []
    commits: list[str] = []
    for head in heads:
        commits += [c for c in range_commits(git, head, base) if c not in commits]
    return added_blobs(git, commits)


def _is_hex(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def commit_surface(git: Git, amend: bool = False) -> Surface:
    """What the next commit records: changed paths, judged by their bytes in the index.

    The paths are those the index changes against the commit's parent: HEAD, or for an
    `amend` HEAD's first parent (nothing when HEAD is a root commit), so what HEAD
    changed is judged again. Deleted paths are not checked; renamed and copied paths
    are, under their new name.
    """
    surface = Surface(root=git.root, source="index")
    head = git.answer("rev-parse", "--verify", "-q", "HEAD^{commit}")
    parent = head
    if amend and head is not None:
        parent = git.answer("rev-parse", "--verify", "-q", "HEAD^1^{commit}")
        surface.amends, surface.base = head, parent
        against = f"its parent {parent[:12]}" if parent else "nothing (HEAD is a root commit)"
        surface.notes.append(
            f"amending {head[:12]} (git commit --amend): the index is judged against "
            f"{against}, as the amended commit records it, under that commit's policy"
        )
    changes = staged_changes(git, parent)
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
    merged = merge_history(git)
    if not changes and not merged:
        surface.notes.append(
            "nothing staged: the index matches " + ("the parent" if surface.amends else "HEAD")
        )
    add_targets(git, wanted, surface, "index")
    if merged:
        commits = len({a.commit for a in merged})
        add_history(git, merged, surface, set(wanted))
        surface.notes.append(
            f"merge in progress: every blob the {commits} merged commit(s) add was scanned "
            "for secrets, besides the merge result in the index"
        )
    return surface


def ci_surface(git: Git, rev: str = "HEAD") -> Surface:
    """The whole tree of an immutable commit id (`rev` is resolved once, then fixed),
    and its message for the secret scan (the commit delivers it as much as its files)."""
    oid = resolve_commit(git, rev)
    surface = Surface(root=git.root, revision=oid, source=oid)
    add_targets(git, read_tree(git, oid), surface, f"commit {oid[:12]}")
    add_messages(git, [oid], [], surface)
    return surface


def revision_files(git: Git, commit: str, paths: Iterable[str]) -> Surface:
    """`commit`'s versions of `paths` as targets carrying their bytes (those it holds;
    a link, a submodule or an oversized blob is refused as `add_targets` refuses it)."""
    wanted = set(paths)
    surface = Surface(root=git.root, revision=commit, source=commit)
    if wanted:
        entries = [e for e in read_tree(git, commit) if e.path in wanted]
        add_targets(git, entries, surface, f"commit {commit[:12]}")
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
