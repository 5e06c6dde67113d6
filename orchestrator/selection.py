"""Turn the paths a user named into safe file targets, or into refused scopes.

Every path is resolved against the project root. Outside the root, a symlink that
escapes it, a non-regular file, a vanished file, a binary or oversized file: each
becomes a scope row with a reason. Nothing is silently dropped, nothing unsafe is read.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

import pathspec

from orchestrator import languages
from orchestrator.checker import MAX_FILE_BYTES, FileTarget
from orchestrator.report import Scope
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


def inspect_file(root: Path, abs_path: Path, label: str) -> FileTarget | Scope:
    """Check one candidate file; a FileTarget when it is safe to read, else a Scope."""
    try:
        lst = os.lstat(abs_path)
    except FileNotFoundError:
        return _refuse(label, ScopeStatus.NOT_RUN, "file vanished or does not exist")
    except OSError as exc:
        return _refuse(label, ScopeStatus.NOT_RUN, f"cannot stat: {exc.strerror}")
    try:
        real = abs_path.resolve(strict=True)
    except (FileNotFoundError, RuntimeError):
        return _refuse(label, ScopeStatus.UNSAFE, "dangling or looping symlink")
    except OSError as exc:
        return _refuse(label, ScopeStatus.NOT_RUN, f"cannot resolve: {exc.strerror}")
    if not real.is_relative_to(root):
        why = (
            "symlink escapes the project root"
            if stat.S_ISLNK(lst.st_mode)
            else "outside the project root"
        )
        return _refuse(label, ScopeStatus.UNSAFE, why)
    st = real.stat()
    if not stat.S_ISREG(st.st_mode):
        return _refuse(label, ScopeStatus.UNSAFE, "not a regular file")
    if st.st_size > MAX_FILE_BYTES:
        return _refuse(
            label, ScopeStatus.NOT_RUN, f"file too large ({st.st_size} bytes > {MAX_FILE_BYTES})"
        )
    try:
        with open(real, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError as exc:
        return _refuse(label, ScopeStatus.NOT_RUN, f"cannot read: {exc.strerror}")
    if b"\x00" in head:
        return _refuse(label, ScopeStatus.NOT_RUN, "binary file (NUL bytes): not text")
    rel = _rel(root, abs_path) if abs_path.is_relative_to(root) else _rel(root, real)
    return FileTarget(
        path=rel,
        abs_path=root / rel,
        language=languages.detect(rel, head),
        size=st.st_size,
    )


def _git_files(root: Path, directory: Path) -> list[Path] | None:
    """Tracked and untracked-but-not-ignored files under `directory`, via git; None if no git."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "."],
            cwd=directory,
            capture_output=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    names = sorted({n for n in out.stdout.decode("utf-8", "surrogateescape").split("\0") if n})
    return [directory / n for n in names]


def _walk(root: Path, directory: Path, excluded: Sequence[str]) -> list[Path]:
    """Walk without git: skip excluded dirs, honour .gitignore files found on the way."""
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
            files = _git_files(root, real_dir)
            if files is None:
                files = _walk(root, real_dir, excluded_dirs)
            files = [
                f
                for f in files
                if not any(part in excluded_dirs for part in f.relative_to(root).parts[:-1])
            ]
            for f in files:
                rel = _rel(root, f)
                if rel in targets or rel in refused:
                    continue
                got = inspect_file(root, f, rel)
                if isinstance(got, FileTarget):
                    targets[got.path] = got
                else:
                    refused[got.path] = got
            continue
        got = inspect_file(root, absolute, label)
        if isinstance(got, FileTarget):
            targets.setdefault(got.path, got)
        else:
            refused.setdefault(got.path, got)
    return [targets[k] for k in sorted(targets)], [refused[k] for k in sorted(refused)]
