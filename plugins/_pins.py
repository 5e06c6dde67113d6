"""The tool versions a project declares, and whether the version that ran is that one.

A scope records the tool version used against the project's own pin, so a finding
that only one version reports is not mistaken for the project's verdict. Pins read
here: a gem's version in the nearest `Gemfile.lock` (RuboCop), and the `rev` of a
hook repository in `.pre-commit-config.yaml` (Ruff's `ruff-pre-commit`). Reading is
bounded and never fails: an unreadable or malformed file is no pin.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from orchestrator.api import StatMemo

#: The most of a pin file that is read.
MAX_PIN_BYTES = 1024 * 1024
_NUMBER = re.compile(r"(\d+(?:\.\d+)*)")


@dataclass(frozen=True)
class Pin:
    """A version the project declares (`version`), and the file that declares it
    (`where`, root-relative POSIX)."""

    version: str
    where: str


def _read(path: Path) -> str | None:
    try:
        with open(path, "rb") as fh:
            return fh.read(MAX_PIN_BYTES).decode("utf-8", "replace")
    except OSError:
        return None


def version_number(text: str | None) -> str | None:
    """The first dotted number of a version text (`rubocop 1.39.0` -> `1.39.0`)."""
    m = _NUMBER.search(text or "")
    return m.group(1) if m else None


def gemfile_lock_pin(root: Path, rel_path: str, gem: str) -> Pin | None:
    """The version of `gem` locked in the `Gemfile.lock` nearest to the file (inside
    `root`), or None when no lock file on the way names it."""
    spec = re.compile(rf"^ {{4}}{re.escape(gem)} \(([^)\s]+)\)\s*$", re.MULTILINE)
    folder = (root / rel_path).parent
    while folder.is_relative_to(root):
        text = _read(folder / "Gemfile.lock")
        if text is not None:
            m = spec.search(text)
            if m:
                return Pin(m.group(1), (folder / "Gemfile.lock").relative_to(root).as_posix())
            return None  # the nearest lock file is the project's bundle: it does not lock it
        if folder == root:
            break
        folder = folder.parent
    return None


_REVS = StatMemo()


def precommit_rev(root: Path, repo_name: str) -> Pin | None:
    """The `rev` of the first `.pre-commit-config.yaml` repository whose URL ends in
    `repo_name` (e.g. `ruff-pre-commit`), leading `v` dropped; None without one. A warm
    engine keeps the answer while the file keeps its stat."""
    name = os.path.join(os.path.abspath(root), ".pre-commit-config.yaml")
    return _REVS.get((name, repo_name), (name,), lambda: _precommit_rev(Path(name), repo_name))


def _precommit_rev(config: Path, repo_name: str) -> Pin | None:
    text = _read(config)
    if text is None:
        return None
    if repo_name not in text and "\\" not in text:
        # No URL can end in `repo_name`: YAML spells a scalar's characters only as
        # written or through a backslash escape. Parsing is what costs here.
        return None
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    repos = data.get("repos") if isinstance(data, dict) else None
    for repo in repos if isinstance(repos, list) else ():
        if not isinstance(repo, dict):
            continue
        url, rev = str(repo.get("repo", "")).rstrip("/"), repo.get("rev")
        if url.removesuffix(".git").endswith("/" + repo_name) and isinstance(rev, str | int):
            return Pin(str(rev).removeprefix("v"), ".pre-commit-config.yaml")
    return None


def differs(pinned: str, used: str | None) -> bool | None:
    """True when the used version is not the pinned one (each dotted part of the pin
    must match); None when either cannot be read as a version."""
    want, have = version_number(pinned), version_number(used)
    if want is None or have is None:
        return None
    parts = want.split(".")
    return parts != have.split(".")[: len(parts)]


def pin_sentence(tool: str, used: str | None, pin: Pin) -> str:
    """`<file> pins <tool> <pin>: <tool> <used> ran, they differ` (or `... matches`)."""
    number = version_number(used) or "?"
    verdict = {True: "they differ", False: "it matches", None: "not compared"}
    head = f"{pin.where} pins {tool} {pin.version}"
    return f"{head}: {tool} {number} ran, {verdict[differs(pin.version, used)]}"
