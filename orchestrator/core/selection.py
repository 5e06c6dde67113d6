"""Turn the paths a user named into safe file targets, or into refused scopes.

Every path is resolved against the project root. Outside the root, a symlink that
escapes it, a non-regular file (also a FIFO or socket inside a walked folder, which
git does not list), a folder that cannot be read, a vanished file, a file name that is
not UTF-8, a binary or oversized file: each becomes a scope row with a reason. Nothing
is silently dropped (a file git tracks inside an excluded folder is `not_run` naming it;
an empty folder git lists, a submodule not checked out, is `not_run` too), nothing
unsafe is read.

`take_shard` keeps one deterministic share of a selection (`lint --shard I/N`).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.core.walk import Unlisted, parent_dirs, scan_unlisted, walk_files
from orchestrator.deadline import Deadline
from orchestrator.errors import UsageError
from orchestrator.git.listing import check_ignore, ls_files
from orchestrator.git.runner import Git, GitError
from orchestrator.model import languages
from orchestrator.model.checker import MAX_FILE_BYTES, FileTarget
from orchestrator.model.paths import TOO_DEEP_REASON
from orchestrator.model.report import MAX_SHARDS, Scope, ShardIdentity, files_digest
from orchestrator.vocab import BINARY_REASON, LINK_TO_FOLDER_REASON, SELECTION_CHECKER, ScopeStatus

SELECTION = SELECTION_CHECKER  # the checker name of scopes refused before any checker ran
EXCLUDED_DIRS = (
    ".git",
    ".hg",
    ".svn",
    ".orchestrate",
    "node_modules",
    ".venv",
    "venv",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".tox",
)
SNIFF_BYTES = 8192
VANISHED = "file vanished or does not exist"
#: An empty folder where git lists an entry: a gitlink whose submodule is not checked out.
SUBMODULE_NOT_CHECKED_OUT = "submodule not checked out: there are no files to check"
#: Seconds git may take to list a folder before selection walks it without git.
GIT_LIST_SECONDS = 60.0


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _label(root: Path, raw: Path) -> str:
    """A path label for a refused path: relative when it lies under the root lexically."""
    try:
        return raw.absolute().relative_to(root).as_posix()
    except ValueError:
        return str(raw)


def _refuse(path: str, status: ScopeStatus, reason: str) -> Scope:
    return Scope(path=path, checker=SELECTION, status=status, reason=reason)


def is_utf8(name: str) -> bool:
    """Whether `name` (from the file system, surrogate escapes for bytes that are not
    UTF-8) is valid UTF-8 text."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def escaped_name(name: str) -> str:
    r"""`name` as printable UTF-8: each byte that is not UTF-8 becomes ``\xNN``.

    File names come from the file system as surrogate escapes (`os.fsdecode`); a report
    cannot carry those (JSON has no such characters), so a scope shows the escaped form.
    """
    return os.fsencode(name).decode("utf-8", "backslashreplace")


NOT_UTF8_REASON = (
    "file name is not valid UTF-8 (shown with \\x escapes): no checker can report on it"
    " by its name, so it is not checked"
)
UNLISTED_REASONS = {
    "fifo": "not a regular file (a FIFO)",
    "socket": "not a regular file (a socket)",
    "device": "not a regular file (a device)",
}


def _unlisted_scope(base_rel: str, entry: Unlisted) -> Scope:
    parts = [part for part in (base_rel, entry.rel) if part != "."]
    label = escaped_name("/".join(parts) or ".")
    if entry.kind == "folder" and entry.error == TOO_DEEP_REASON:
        return _refuse(label, ScopeStatus.NOT_RUN, f"folder {TOO_DEEP_REASON}")
    if entry.kind == "folder":
        reason = f"folder cannot be read ({entry.error}): the files in it are not checked"
        return _refuse(label, ScopeStatus.NOT_RUN, reason)
    return _refuse(label, ScopeStatus.UNSAFE, UNLISTED_REASONS[entry.kind])


def _lstat_is_dir(path: Path) -> bool:
    """A real folder (not a symlink to one); False when it cannot be looked at (the
    file inspection then says why)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


class _Inspector:
    """Per-file safety checks on plain strings: a directory walk checks thousands of
    files, and pathlib's per-call parsing cost more than the system calls themselves.

    The real path of a file that is not a symlink is the real path of its folder plus
    its name, so folders are resolved once each (cached); a symlink is resolved in full.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.root_s = str(root)
        self.prefix = self.root_s.rstrip(os.sep) + os.sep
        self.real_dirs: dict[str, str] = {}

    def under_root(self, path: str) -> bool:
        return path == self.root_s or path.startswith(self.prefix)

    def _real_dir(self, folder: str) -> str:
        real = self.real_dirs.get(folder)
        if real is None:
            real = self.real_dirs[folder] = os.path.realpath(folder, strict=True)
        return real

    def inspect(self, abs_s: str, label: str, rel: str | None) -> FileTarget | Scope:
        """`abs_s` is absolute and normalised; `rel` its project path when known."""
        if not is_utf8(label):
            return _refuse(escaped_name(label), ScopeStatus.UNSAFE, NOT_UTF8_REASON)
        try:
            lst = os.lstat(abs_s)
        except FileNotFoundError:
            return _refuse(label, ScopeStatus.NOT_RUN, VANISHED)
        except OSError as exc:
            return _refuse(label, ScopeStatus.NOT_RUN, f"cannot stat: {exc.strerror}")
        if stat.S_ISDIR(lst.st_mode) and _empty_dir(abs_s):
            # Only a gitlink puts an empty folder among the names git lists (git lists no
            # folder of its own): nothing was checked out, so nothing unsafe is there.
            return _refuse(label, ScopeStatus.NOT_RUN, SUBMODULE_NOT_CHECKED_OUT)
        is_link = stat.S_ISLNK(lst.st_mode)
        try:
            if is_link:
                real = os.path.realpath(abs_s, strict=True)
            else:
                folder, name = os.path.split(abs_s)
                real = os.path.join(self._real_dir(folder), name)
        except OSError as exc:
            if isinstance(exc, FileNotFoundError) or exc.errno == errno.ELOOP:
                return _refuse(label, ScopeStatus.UNSAFE, "dangling or looping symlink")
            return _refuse(label, ScopeStatus.NOT_RUN, f"cannot resolve: {exc.strerror}")
        if not self.under_root(real):
            why = "symlink escapes the project root" if is_link else "outside the project root"
            return _refuse(label, ScopeStatus.UNSAFE, why)
        if is_link:
            try:
                st = os.stat(real)
            except OSError as exc:
                return _refuse(label, ScopeStatus.NOT_RUN, f"cannot stat: {exc.strerror}")
        else:
            st = lst  # lstat of a non-link is its stat: no second system call
        if is_link and stat.S_ISDIR(st.st_mode):
            # Inside the root (checked above): nothing unsafe, and nothing of its own.
            return _refuse(label, ScopeStatus.UNSUPPORTED, LINK_TO_FOLDER_REASON)
        if not stat.S_ISREG(st.st_mode):
            return _refuse(label, ScopeStatus.UNSAFE, "not a regular file")
        if st.st_size > MAX_FILE_BYTES:
            return _refuse(
                label,
                ScopeStatus.NOT_RUN,
                f"file too large ({st.st_size} bytes > {MAX_FILE_BYTES})",
            )
        try:
            with open(real, "rb") as fh:
                head = fh.read(SNIFF_BYTES)
        except FileNotFoundError:
            return _refuse(label, ScopeStatus.NOT_RUN, VANISHED)
        except OSError as exc:
            return _refuse(label, ScopeStatus.NOT_RUN, f"cannot read: {exc.strerror}")
        if b"\x00" in head:
            return _refuse(label, ScopeStatus.NOT_RUN, BINARY_REASON)
        if rel is None:
            inside = abs_s if self.under_root(abs_s) else real
            rel = inside[len(self.prefix) :].replace(os.sep, "/")
        return FileTarget(
            path=rel,
            abs_path=self.root / rel,
            **languages.detect_language(rel, head).target_fields(),
            size=st.st_size,
        )


def _empty_dir(path: str) -> bool:
    """Whether the folder at `path` holds no entry (False when it cannot be read: the
    inspection then judges it as any other folder)."""
    try:
        with os.scandir(path) as it:
            return next(it, None) is None
    except OSError:
        return False


def excluded_reason(folder: str) -> str:
    """The reason of a tracked file inside a folder the walk excludes (`node_modules/`,
    `.venv/`, ...): named, never dropped silently."""
    return f"inside {folder}/, a folder orchestrate does not lint (tracked by git)"


def _lister(directory: Path) -> Git | None:
    """The git runner that lists `directory` (its drivers read once for the listing, the
    ignore checks and the tracked files below); None if git cannot say."""
    try:
        return Git(directory, Deadline.after(GIT_LIST_SECONDS))
    except GitError:
        return None


def _listing(git: Git) -> Git:
    # Each listing gets the whole bound, as a runner of its own did.
    return git.for_deadline(Deadline.after(GIT_LIST_SECONDS))


def _tracked(git: Git | None) -> frozenset[str] | None:
    """The files git tracks under the runner's folder (relative to it); None if git
    cannot say."""
    if git is None:
        return None
    try:
        return frozenset(ls_files(_listing(git), "."))
    except GitError:
        return None


def _git_names(git: Git | None) -> list[str] | None:
    """Tracked and untracked-but-not-ignored files under the runner's folder (paths
    relative to it, sorted), via git; None if no git."""
    if git is None:
        return None
    try:
        names = ls_files(_listing(git), ".", untracked=True)
    except GitError:
        return None
    return sorted(set(names))


def _git_unlisted(git: Git, names: list[str], excluded: Sequence[str]) -> list[Unlisted]:
    """What git passed over under the runner's folder (whose listing is `names`): FIFOs,
    sockets, devices and unreadable folders that git does not ignore."""
    asker = _listing(git)

    def ignored(paths: list[str]) -> set[str]:
        # When git cannot say, an entry it cannot rule out is reported, not dropped.
        return check_ignore(asker, paths) or set()

    return scan_unlisted(git.root, frozenset(excluded), parent_dirs(names), ignored)


def _select_dir(
    root: Path,
    real_dir: Path,
    excluded_dirs: Sequence[str],
    inspector: _Inspector,
    targets: dict[str, FileTarget],
    refused: dict[str, Scope],
) -> None:
    """Every file under `real_dir` into `targets` or `refused`, and every entry git or
    the walk passed over (FIFOs, sockets, unreadable folders) into `refused`."""
    base_rel = _rel(root, real_dir)
    git = _lister(real_dir)
    names = _git_names(git)
    if git is None or names is None:
        files, unlisted = walk_files(real_dir, excluded_dirs)
        names = [_rel(real_dir, f) for f in files]
    else:
        unlisted = _git_unlisted(git, names, excluded_dirs)
    for entry in unlisted:
        scope = _unlisted_scope(base_rel, entry)
        refused.setdefault(scope.path, scope)
    dir_s = str(real_dir)
    excluded_set = frozenset(excluded_dirs)
    # Asked of git only when a listed name lies in an excluded folder.
    tracked: frozenset[str] | None = None
    for name in names:
        rel = name if base_rel == "." else f"{base_rel}/{name}"
        if rel in targets or rel in refused:
            continue
        folder = next((p for p in rel.split("/")[:-1] if p in excluded_set), None)
        if folder is not None:
            # An untracked file there (an unignored node_modules/) is the folder's
            # content, not the project's; a tracked one is named with its reason.
            if tracked is None:
                # Where the listing's runner could not be built, asked again (as before).
                tracked = _tracked(git or _lister(real_dir)) or frozenset()
            if name in tracked:
                refused[rel] = _refuse(rel, ScopeStatus.NOT_RUN, excluded_reason(folder))
            continue
        got = inspector.inspect(os.path.join(dir_s, name), rel, rel)
        if isinstance(got, FileTarget):
            targets[got.path] = got
        else:
            refused[got.path] = got


def _absolute(raw: str, base: Path) -> Path:
    given = Path(raw)
    return Path(os.path.normpath(given if given.is_absolute() else base / given))


def named_files(
    project_root: Path, paths: Iterable[str], cwd: Path | None = None
) -> frozenset[str]:
    """The project paths of the files (not folders) that `paths` name directly, as
    `select` labels them: a generated file named this way is checked."""
    root = project_root.resolve()
    base = (cwd or Path.cwd()).absolute()
    out: set[str] = set()
    for raw in paths:
        absolute = _absolute(raw, base)
        if _lstat_is_dir(absolute):
            continue
        inside = str(absolute)
        if not inside.startswith(str(root).rstrip(os.sep) + os.sep):
            inside = os.path.realpath(absolute)
        try:
            out.add(Path(inside).relative_to(root).as_posix())
        except ValueError:
            continue
    return frozenset(out)


def select(
    project_root: Path,
    paths: Iterable[str],
    excluded_dirs: Sequence[str] = EXCLUDED_DIRS,
    cwd: Path | None = None,
    walk: bool = True,
) -> tuple[list[FileTarget], list[Scope]]:
    """Expand `paths` (files and directories) into targets and refused scopes.

    Directories are walked with .gitignore respected (git itself when the folder is in
    a work tree). Each file appears once; each entry that is not one (a FIFO, a socket,
    an unreadable folder) and each path that cannot be looked at is a refused scope,
    never an error. No paths means the whole project root.

    With `walk` False each path names one entry as git lists it (a hook's scope
    re-determined from `git status`): a folder there (in place of a tracked file, a
    nested repository) is inspected like any entry, `unsafe` as not a regular file,
    exactly as the whole-project walk judges a git-listed name; it is never walked.
    """
    root = project_root.resolve()
    base = (cwd or Path.cwd()).absolute()
    targets: dict[str, FileTarget] = {}
    refused: dict[str, Scope] = {}
    inspector = _Inspector(root)
    raw_paths = list(paths) or [str(root)]
    for raw in raw_paths:
        absolute = _absolute(raw, base)
        label = _label(root, absolute)
        if walk and _lstat_is_dir(absolute):
            real_dir = absolute.resolve()
            if not real_dir.is_relative_to(root):
                label = escaped_name(label)
                refused[label] = _refuse(label, ScopeStatus.UNSAFE, "outside the project root")
                continue
            _select_dir(root, real_dir, excluded_dirs, inspector, targets, refused)
            continue
        got = inspector.inspect(str(absolute), label, None)
        if isinstance(got, FileTarget):
            targets.setdefault(got.path, got)
        else:
            refused.setdefault(got.path, got)
    return [targets[k] for k in sorted(targets)], [refused[k] for k in sorted(refused)]


def unsaved_target(project_root: Path, rel: str, content: bytes) -> FileTarget | Scope:
    """An editor buffer whose file does not exist (never saved, or untitled) as a target
    judged from `content`: the same name, language detection, size and binary checks a
    file on disk gets. The path must stay inside the root through every folder that
    exists (a symlinked folder that escapes it is unsafe) and must still not exist (an
    existing entry is inspected as any file, by `select`)."""
    root = project_root.resolve()
    label = rel
    if not is_utf8(rel):
        return _refuse(escaped_name(rel), ScopeStatus.UNSAFE, NOT_UTF8_REASON)
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        return _refuse(label, ScopeStatus.UNSAFE, "outside the project root")
    abs_s = os.path.join(str(root), *parts)
    if os.path.lexists(abs_s):
        return _refuse(label, ScopeStatus.NOT_RUN, "exists on disk: it is selected as a file")
    inspector = _Inspector(root)
    if not inspector.under_root(os.path.realpath(abs_s)):
        return _refuse(label, ScopeStatus.UNSAFE, "outside the project root")
    if len(content) > MAX_FILE_BYTES:
        reason = f"file too large ({len(content)} bytes > {MAX_FILE_BYTES})"
        return _refuse(label, ScopeStatus.NOT_RUN, reason)
    if b"\x00" in content[:SNIFF_BYTES]:
        return _refuse(label, ScopeStatus.NOT_RUN, BINARY_REASON)
    return FileTarget(
        path=rel,
        abs_path=root / rel,
        **languages.detect_language(rel, content[:SNIFF_BYTES]).target_fields(),
        content=content,
        size=len(content),
    )


# --- sharding: a deterministic share of the selection (`lint --shard I/N`) ---------


@dataclass(frozen=True)
class Shard:
    """Share `index` (1-based) of `count` shares."""

    index: int
    count: int


_SHARD_SPEC = re.compile(r"([0-9]{1,6})/([0-9]{1,6})")


def parse_shard(text: str) -> Shard:
    """`I/N` with 1 <= I <= N <= MAX_SHARDS as a Shard; UsageError otherwise."""
    m = _SHARD_SPEC.fullmatch(text)
    if m is None:
        raise UsageError(f"--shard wants I/N, such as 2/4 (got {text[:32]!r})")
    index, count = int(m[1]), int(m[2])
    if not 1 <= count <= MAX_SHARDS:
        raise UsageError(f"--shard: N must be between 1 and {MAX_SHARDS} (got {count})")
    if not 1 <= index <= count:
        raise UsageError(f"--shard: I must be between 1 and N={count} (got {index})")
    return Shard(index, count)


def _weight(path: str, index: int) -> bytes:
    raw = f"{index}\x00{path}".encode("utf-8", "surrogateescape")
    return hashlib.blake2b(raw, digest_size=8).digest()


def shard_of(path: str, count: int) -> int:
    """The share (1..count) a project path belongs to: rendezvous hashing of the path,
    so the answer depends on the path and `count` alone. Adding or removing a file
    moves no other file; changing `count` moves only the files of the new or gone
    shares. Shares are balanced as far as a uniform hash balances them."""
    if count == 1:
        return 1
    return max(range(1, count + 1), key=lambda i: _weight(path, i))


def tree_digest(targets: Sequence[FileTarget], refused: Sequence[Scope]) -> str:
    """SHA-256 over each selected file's path and the digest of its bytes (a refused
    path, or a file that cannot be read, counts by its path and a marker), in path
    order: equal for two runs exactly when they judged the same contents."""
    rows: dict[str, str] = {s.path: "refused" for s in refused}
    for t in targets:
        try:
            rows[t.path] = hashlib.sha256(t.read_bytes()).hexdigest()
        except OSError as exc:
            rows[t.path] = f"unreadable:{exc.errno}"
    h = hashlib.sha256()
    for path in sorted(rows):
        h.update(path.encode("utf-8", "surrogateescape") + b"\0" + rows[path].encode() + b"\0")
    return h.hexdigest()


def config_digest(settings: Mapping[str, Any]) -> str:
    """SHA-256 of the run's validated orchestrate settings (canonical JSON)."""
    blob = json.dumps(settings, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode("utf-8", "surrogateescape")).hexdigest()


def take_shard(
    targets: Sequence[FileTarget],
    refused: Sequence[Scope],
    shard: Shard,
    settings: Mapping[str, Any] | None = None,
) -> tuple[list[FileTarget], list[Scope], ShardIdentity]:
    """The targets and refused scopes of `shard`'s share, and the identity the shard's
    report records: the share, a digest of the full list it was chosen from, of every
    file's bytes in that list (`tree_digest`: the revision, uncommitted edits included)
    and of the run's `settings` (`config_digest`), so shards of two commits with the
    same file list, or of two configurations, never pass for one run."""
    every = [t.path for t in targets] + [s.path for s in refused]
    identity = ShardIdentity(
        index=shard.index,
        count=shard.count,
        files_digest=files_digest(every),
        files=len(set(every)),
        tree_digest=tree_digest(targets, refused),
        config_digest=config_digest(settings or {}),
    )
    mine_t = [t for t in targets if shard_of(t.path, shard.count) == shard.index]
    mine_r = [s for s in refused if shard_of(s.path, shard.count) == shard.index]
    return mine_t, mine_r, identity
