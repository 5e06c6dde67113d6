"""What Ruff's result for one file depends on besides its bytes and its config: which
of the modules it imports are first-party, and which package it is in.

Ruff's isort categorisation (rule I001, and the first-/third-party split of TC001-3)
calls an absolute import `a.b` first-party when, in one of the source roots (`src`),
`a/b` is a folder or `a/b.py` / `a/b.pyi` is a file (links followed; older Ruff
versions looked at the first name only, so every prefix `a`, `a.b`, ... is probed);
and, with `detect-same-package` (the default), when `a` is the package the file is in:
the chain of folders holding an `__init__.py` file, from the file's folder up (INP001
and N999 read the same chain). Relative imports are always local. Found with the Ruff
this project pins (0.17.6, `ruff check -v` names each module's category and why).

`src` is the first one set along the file's `extend` chain (nearest config first),
each entry relative to the folder of the config that sets it; unset, it is `[".",
"src"]` relative to the nearest config's folder, and, for a file without a config
inside the root (`--isolated`), to the project root. A `src` entry that Ruff expands
(a glob, `~`, an environment variable) depends on folder listings no probe answers: the
file is then never reused.

Everything here is a path to probe with one `stat` (core/dependencies.py): no folder
is ever listed (CG-30).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from orchestrate_plugins._ruff_config import RuffConfig, ruff_table

#: Ruff's default source roots, relative to the project root.
DEFAULT_SRC = (".", "src")
#: What makes a module first-party in a source root: `name/`, `name.py`, `name.pyi`.
MODULE_SUFFIXES = ("", ".py", ".pyi")
#: Characters that make Ruff expand a `src` entry (globs, `~`, `$VAR`).
EXPANDED = re.compile(r"[*?\[\]{}~$]")
#: A module name has at most this many dotted parts probed (deeper is not a module).
MAX_PARTS = 32

# One statement's start: `import a.b as c, d` or `from a.b import ...`. Matched on each
# piece of the text split at newlines, `;` and `:` (a one-line `if x: import y`), after
# backslash continuations are joined. Text that only looks like an import (in a string)
# adds names to probe, never hides one.
_IMPORT = re.compile(r"\s*(?:from\s+([\w.]+)\s+import\b|import\s+(.+))")
_NAME = re.compile(r"\s*([\w.]+)")


def imported_modules(text: str) -> set[str]:
    """Every absolute module name `text` may import (`import a.b` -> `a.b`; `from a
    import b` -> `a`); relative imports are left out. Over-approximates, never misses
    an import statement."""
    joined = re.sub(r"\\\r?\n", " ", text)
    out: set[str] = set()
    for piece in re.split(r"[\n\r;:]", joined):
        m = _IMPORT.match(piece)
        if m is None:
            continue
        if m.group(1) is not None:
            if not m.group(1).startswith("."):
                out.add(m.group(1))
            continue
        for item in m.group(2).split(","):
            n = _NAME.match(item)
            if n is not None and not n.group(1).startswith("."):
                out.add(n.group(1))
    return {name for name in out if name and all(name.split("."))}


def notebook_text(source: bytes) -> str | None:
    """The code cells of a notebook, one after the other; None when it is not one."""
    try:
        data = json.loads(source)
    except (ValueError, RecursionError):
        return None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        return None
    parts: list[str] = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        src = cell.get("source")
        parts.append("".join(src) if isinstance(src, list) else str(src or ""))
    return "\n".join(parts)


def source_roots(root: Path, config: RuffConfig | None) -> list[Path] | None:
    """The `src` roots Ruff uses for a file whose nearest config is `config` (None:
    no config inside the root, run `--isolated` from `root`); None when they cannot be
    known without a listing (an expanded entry) or a config of the chain is unreadable."""
    if config is None:
        return [Path(os.path.normpath(root / s)) for s in DEFAULT_SRC]
    for path in config.chain:
        try:
            table = ruff_table(path)
        except (OSError, UnicodeDecodeError, ValueError):
            return None  # Ruff reports it; nothing is stored for a failed check anyway
        if table is None or "src" not in table:
            continue
        value = table["src"]
        if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
            return None
        if any(EXPANDED.search(s) for s in value):
            return None
        return [Path(os.path.normpath(path.parent / s)) for s in value]
    return [Path(os.path.normpath(config.path.parent / s)) for s in DEFAULT_SRC]


def module_paths(roots: Sequence[Path], modules: Iterable[str]) -> list[str]:
    """For each root and each dotted prefix of each module: the folder, `.py` and `.pyi`."""
    # Plain strings: a file names a hundred paths or more, pathlib would cost more
    # than the stats themselves.
    bases = [os.path.join(str(r), "") for r in roots]
    out: list[str] = []
    for module in sorted(set(modules)):
        parts = module.split(".")[:MAX_PARTS]
        for n in range(1, len(parts) + 1):
            rel = os.sep.join(parts[:n])
            out += [base + rel + suffix for base in bases for suffix in MODULE_SUFFIXES]
    return out


def package_paths(file: Path, root: Path) -> list[str]:
    """The `__init__.py` of every folder from the file's up to the project root, and
    on above it while each folder holds one (Ruff's package root may lie above the
    project root; a configured namespace package continues the chain past a folder
    without one, so the chain up to the root is probed whatever it holds)."""
    out: list[str] = []
    top = os.path.normpath(str(root))
    folder = os.path.dirname(os.path.normpath(str(file)))
    inside = folder.startswith(os.path.join(top, "")) or folder == top
    while True:
        init = os.path.join(folder, "__init__.py")
        out.append(init)
        inside = inside and folder != top
        if not inside and not os.path.isfile(init):
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return out


def dependencies(
    root: Path, file: Path, source: bytes, roots: Sequence[Path] | None, notebook: bool
) -> list[str] | None:
    """Every path whose kind decides Ruff's result for `file` beyond its bytes and its
    config (see the module docs), given its `source_roots`; None when they cannot all
    be named."""
    if roots is None:
        return None
    text = notebook_text(source) if notebook else source.decode("utf-8", "replace")
    if text is None:
        return None
    return module_paths(roots, imported_modules(text)) + package_paths(file, root)


__all__ = [
    "dependencies",
    "imported_modules",
    "module_paths",
    "notebook_text",
    "package_paths",
    "source_roots",
]
