"""Turn the paths a user named into safe file targets, or into refused scopes.

Every path is resolved against the project root. Outside the root, a symlink that
escapes it, a non-regular file, a vanished file, a binary or oversized file: each
becomes a scope row with a reason. Nothing is silently dropped, nothing unsafe is read.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.git.listing import ls_files
from orchestrator.git.runner import Git, GitError
from orchestrator.model import languages
from orchestrator.model.checker import MAX_FILE_BYTES, FileTarget
from orchestrator.model.report import Scope
from orchestrator.vocab import ScopeStatus

SELECTION = "orchestrate"  # the checker name of scopes refused before any checker ran
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
        try:
            lst = os.lstat(abs_s)
        except FileNotFoundError:
            return _refuse(label, ScopeStatus.NOT_RUN, "file vanished or does not exist")
        except OSError as exc:
            return _refuse(label, ScopeStatus.NOT_RUN, f"cannot stat: {exc.strerror}")
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
        except OSError as exc:
            return _refuse(label, ScopeStatus.NOT_RUN, f"cannot read: {exc.strerror}")
        if b"\x00" in head:
            return _refuse(label, ScopeStatus.NOT_RUN, "binary file (NUL bytes): not text")
        if rel is None:
            inside = abs_s if self.under_root(abs_s) else real
            rel = inside[len(self.prefix) :].replace(os.sep, "/")
        return FileTarget(
            path=rel,
            abs_path=self.root / rel,
            language=languages.detect(rel, head),
            size=st.st_size,
        )


def _git_names(directory: Path) -> list[str] | None:
    """Tracked and untracked-but-not-ignored files under `directory` (paths relative to
    it, sorted), via git; None if no git."""
    try:
        names = ls_files(Git(directory, Deadline.after(GIT_LIST_SECONDS)), ".", untracked=True)
    except GitError:
        return None
    return sorted(set(names))


def _walk(root: Path, directory: Path, excluded: Sequence[str]) -> list[Path]:
    """Walk without git: skip excluded dirs, honour .gitignore files found on the way."""
    import pathspec  # only needed outside a git work tree: keep it off the start-up path

    specs: list[tuple[Path, pathspec.GitIgnoreSpec]] = []
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(directory, followlinks=False):
        here = Path(dirpath)
        gi = here / ".gitignore"
        if gi.is_file():
            try:
                lines = gi.read_text(encoding="utf-8", errors="replace").splitlines()
                specs.append((here, pathspec.GitIgnoreSpec.from_lines(lines)))
            except OSError:
                pass

        def ignored(p: Path, is_dir: bool) -> bool:
            for base, spec in specs:
                if p.is_relative_to(base):
                    rel = p.relative_to(base).as_posix() + ("/" if is_dir else "")
                    if spec.match_file(rel):
                        return True
            return False

        dirnames[:] = sorted(
            d for d in dirnames if d not in excluded and not ignored(here / d, True)
        )
        for name in sorted(filenames):
            p = here / name
            if not ignored(p, False):
                found.append(p)
    return found


def select(
    project_root: Path,
    paths: Iterable[str],
    excluded_dirs: Sequence[str] = EXCLUDED_DIRS,
    cwd: Path | None = None,
) -> tuple[list[FileTarget], list[Scope]]:
    """Expand `paths` (files and directories) into targets and refused scopes.

    Directories are walked with .gitignore respected (git itself when the folder is in
    a work tree). Each file appears once. No paths means the whole project root.
    """
    root = project_root.resolve()
    base = (cwd or Path.cwd()).absolute()
    targets: dict[str, FileTarget] = {}
    refused: dict[str, Scope] = {}
    inspector = _Inspector(root)
    raw_paths = list(paths) or [str(root)]
    for raw in raw_paths:
        given = Path(raw)
        absolute = given if given.is_absolute() else base / given
        absolute = Path(os.path.normpath(absolute))
        label = _label(root, absolute)
        if absolute.is_dir() and not absolute.is_symlink():
            real_dir = absolute.resolve()
            if not real_dir.is_relative_to(root):
                refused[label] = _refuse(label, ScopeStatus.UNSAFE, "outside the project root")
                continue
            names = _git_names(real_dir)
            if names is None:
                names = [_rel(real_dir, f) for f in _walk(root, real_dir, excluded_dirs)]
            dir_s = str(real_dir)
            base_rel = _rel(root, real_dir)
            excluded_set = frozenset(excluded_dirs)
            for name in names:
                rel = name if base_rel == "." else f"{base_rel}/{name}"
                if rel in targets or rel in refused:
                    continue
                if any(part in excluded_set for part in rel.split("/")[:-1]):
                    continue
                got = inspector.inspect(os.path.join(dir_s, name), rel, rel)
                if isinstance(got, FileTarget):
                    targets[got.path] = got
                else:
                    refused[got.path] = got
            continue
        got = inspector.inspect(str(absolute), label, None)
        if isinstance(got, FileTarget):
            targets.setdefault(got.path, got)
        else:
            refused.setdefault(got.path, got)
    return [targets[k] for k in sorted(targets)], [refused[k] for k in sorted(refused)]
