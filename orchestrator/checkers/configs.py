"""Which config files govern a checker, and a digest of their bytes for reuse identities."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path


def folders_up(root: Path, folder: Path) -> list[Path]:
    """`folder` and each folder above it, nearest first, up to `root`; none outside it."""
    out: list[Path] = []
    while folder.is_relative_to(root):
        out.append(folder)
        if folder == root:
            break
        folder = folder.parent
    return out


def root_configs(root: Path, names: Iterable[str]) -> tuple[str, ...]:
    """Which of the config `names` exist as files directly in `root` (for a probe)."""
    return tuple(n for n in names if (root / n).is_file())


def digest_files(paths: Iterable[Path]) -> str:
    """A digest of the named config files' paths and bytes (missing files count too)."""
    h = hashlib.sha256()
    for p in sorted({str(p) for p in paths}):
        h.update(p.encode("utf-8", "surrogateescape") + b"\0")
        try:
            h.update(Path(p).read_bytes())
        except OSError as exc:
            h.update(f"<unreadable:{exc.errno}>".encode())
        h.update(b"\0")
    return h.hexdigest()[:16]
