"""The language version a project declares, for the exact parser tier.

A parser older than the language version the project declares may reject valid newer
syntax: it may refute a candidate (it accepted the file) but not confirm one. Read
here, from the nearest file between the source file and the project root:
`go.mod`'s `go` directive, `Cargo.toml`'s `rust-version` and `edition` (a workspace
member's `edition.workspace = true` reads the workspace's), `composer.json`'s
`require.php` (its lowest version), `.nvmrc` and `package.json`'s `engines.node`.
Reading is bounded and never fails: an unreadable or malformed file declares nothing.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_BYTES = 1024 * 1024
_NUMBER = re.compile(r"(\d+(?:\.\d+)*)")
#: The files each declaration kind reads, nearest folder first.
FILES = {
    "go": ("go.mod",),
    "rust": ("Cargo.toml",),
    "php": ("composer.json",),
    "node": (".nvmrc", "package.json"),
}
CONFIG_NAMES = tuple(sorted({n for names in FILES.values() for n in names}))


@dataclass(frozen=True)
class Declared:
    """What the project declares: the language `version` (None when only a dialect is
    declared), the `dialect` (a Rust edition), and the file that says so."""

    version: str | None
    where: str
    dialect: str | None = None


def _read(path: Path) -> str | None:
    try:
        with open(path, "rb") as fh:
            return fh.read(MAX_BYTES).decode("utf-8", "replace")
    except OSError:
        return None


def _go(text: str, _folder: Path, _root: Path) -> tuple[str | None, str | None] | None:
    m = re.search(r"^go[ \t]+(\d+(?:\.\d+)*)\s*$", text, re.MULTILINE)
    return (m.group(1), None) if m else None


def _table(data: Any, *keys: str) -> Any:
    for k in keys:
        data = data.get(k) if isinstance(data, dict) else None
    return data


def _workspace(folder: Path, root: Path) -> dict[str, Any]:
    """The `[workspace.package]` table of the nearest Cargo.toml above `folder` with one."""
    folder = folder.parent
    while folder.is_relative_to(root):
        text = _read(folder / "Cargo.toml")
        if text is not None:
            try:
                table = _table(tomllib.loads(text), "workspace", "package")
            except tomllib.TOMLDecodeError:
                table = None
            if isinstance(table, dict):
                return table
        if folder == root:
            break
        folder = folder.parent
    return {}


def _rust(text: str, folder: Path, root: Path) -> tuple[str | None, str | None] | None:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    package = _table(data, "package") or _table(data, "workspace", "package") or {}
    if not isinstance(package, dict):
        return None
    inherited: dict[str, Any] = {}
    out: list[str | None] = []
    for key in ("rust-version", "edition"):
        value = package.get(key)
        if isinstance(value, dict) and value.get("workspace") is True:
            inherited = inherited or _workspace(folder, root)
            value = inherited.get(key)
        out.append(str(value) if isinstance(value, str | int) else None)
    if out == [None, None]:
        return None
    return out[0], out[1]


def _lowest(constraint: str) -> str | None:
    numbers = _NUMBER.findall(constraint)
    if not numbers:
        return None
    return min(numbers, key=lambda n: tuple(int(x) for x in n.split(".")))


def _php(text: str, _folder: Path, _root: Path) -> tuple[str | None, str | None] | None:
    try:
        value = _table(json.loads(text), "require", "php")
    except ValueError:
        return None
    low = _lowest(value) if isinstance(value, str) else None
    return (low, None) if low else None


def _node(text: str, name: str) -> tuple[str | None, str | None] | None:
    if name == ".nvmrc":
        m = re.match(r"\s*v?(\d+(?:\.\d+)*)\s*$", text)
        return (m.group(1), None) if m else None
    try:
        value = _table(json.loads(text), "engines", "node")
    except ValueError:
        return None
    low = _lowest(value) if isinstance(value, str) else None
    return (low, None) if low else None


def declared(kind: str | None, root: Path, rel_path: str) -> Declared | None:
    """The declaration of `kind` nearest to the file at `rel_path` (inside `root`), or None."""
    if kind not in FILES:
        return None
    folder = (root / rel_path).parent
    while folder.is_relative_to(root):
        for name in FILES[kind]:
            text = _read(folder / name)
            if text is None:
                continue
            if kind == "node":
                got = _node(text, name)
            else:
                got = {"go": _go, "rust": _rust, "php": _php}[kind](text, folder, root)
            if got is not None:
                where = (folder / name).relative_to(root).as_posix()
                return Declared(version=got[0], where=where, dialect=got[1])
        if folder == root:
            break
        folder = folder.parent
    return None


def version_tuple(text: str | None) -> tuple[int, ...] | None:
    """The first dotted number of `text` as integers (`go1.19.8` -> (1, 19, 8))."""
    m = _NUMBER.search(text or "")
    return tuple(int(x) for x in m.group(1).split(".")) if m else None


def older(parser_version: str | None, wanted: str | None) -> bool | None:
    """True when the parser's version is below the declared one (compared on the parts the
    declaration gives); None when either is unknown."""
    have, want = version_tuple(parser_version), version_tuple(wanted)
    if have is None or want is None:
        return None
    return have[: len(want)] < want


def other_major(parser_version: str | None, wanted: str | None) -> bool:
    """True when the parser's major version differs from the declared one's."""
    have, want = version_tuple(parser_version), version_tuple(wanted)
    return have is None or want is None or have[0] != want[0]
