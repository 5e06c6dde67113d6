"""Which config files govern a checker, and a digest of their bytes for reuse identities."""

from __future__ import annotations

import configparser
import hashlib
import json
import tomllib
from collections.abc import Iterable
from pathlib import Path

#: The most bytes of a shared config file read to find a tool's section in it.
MAX_SECTION_FILE_BYTES = 1024 * 1024


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


def holds_section(path: Path, section: str) -> bool:
    """Whether the shared config file `path` holds the tool's `section`: a dotted table
    of a `.toml` file (`tool.mypy` in pyproject.toml), else an INI section (`mypy` in
    setup.cfg), or a dotted key of a `.json` or `.yaml`/`.yml` file (`prettier` in
    package.json or package.yaml: any value, a shared config's name too). A file that
    is absent, too large or not readable as such holds none."""
    return _section(path, section) is True


def may_hold_section(path: Path, section: str) -> bool:
    """Whether `path` holds `section` or may: a file present but too large or not
    readable here as its format (a byte that is not UTF-8, a BOM, a syntax Python's
    parser refuses: the tool's own reader may take it) counts, so that a caller
    holding back what the section would run fails closed. An absent file holds none."""
    return _section(path, section) is not False


def _section(path: Path, section: str) -> bool | None:
    """`holds_section`'s answer, None when the file is present but not read."""
    try:
        if not path.is_file():
            return False
        if path.stat().st_size > MAX_SECTION_FILE_BYTES:
            return None
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if path.suffix in (".json", ".yaml", ".yml"):
        try:
            doc: object = _yaml(text) if path.suffix != ".json" else json.loads(text)
        except (ValueError, RecursionError):  # nested past the parser: not read here
            return None
        for part in section.split("."):
            if not isinstance(doc, dict) or part not in doc:
                return False
            doc = doc[part]
        return True
    if path.suffix == ".toml":
        try:
            node: object = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return None
        for part in section.split("."):
            if not isinstance(node, dict) or part not in node:
                return False
            node = node[part]
        return isinstance(node, dict)
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text, source=path.name)
    except configparser.Error:
        return None
    return parser.has_section(section)


def _yaml(text: str) -> object:
    """The first YAML document of `text` (safe_load: plain data), or ValueError."""
    import yaml  # imported only for a YAML config file

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(str(exc)) from exc


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
