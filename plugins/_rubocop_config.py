"""RuboCop's configuration as far as orchestrate needs to know it: which `.rubocop.yml`
governs a file, which local files it inherits, and what it would have RuboCop do that
orchestrate refuses.

RuboCop itself resolves the settings (run from the project root, it takes each file's
nearest `.rubocop.yml` and follows `inherit_from`). This module names the files
involved (for the report and the config digest) and refuses, before any process
starts, what would fetch or write: a remote `inherit_from` (RuboCop downloads it and
writes a copy beside the config), ERB in a config (its `inherit_from` cannot be
known without running it), a `require:` / `plugins:` of a file rather than an
installed gem, and a `.rubocop` options file asking for anything but display
options; in a strict gate's private tree, an inherited file the tree does not hold. Discovery follows CG-30: only `.rubocop.yml` in the file's ancestor folders
inside the root is looked at; nothing is enumerated.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DOTFILE = ".rubocop.yml"
#: The options file RuboCop reads from its working directory before the command line.
OPTIONS_FILE = ".rubocop"
MAX_CONFIG_BYTES = 1024 * 1024
MAX_CHAIN = 32
#: `.rubocop` options that only change what RuboCop displays (never what it writes,
#: fixes or judges); any other option makes the options file refused.
DISPLAY_OPTIONS = frozenset(
    {
        "-D",
        "--display-cop-names",
        "--no-display-cop-names",
        "-E",
        "--extra-details",
        "-S",
        "--display-style-guide",
        "-P",
        "--parallel",
        "--no-parallel",
        "--color",
        "--no-color",
    }
)
REMOTE = ("http://", "https://")


@dataclass(frozen=True)
class Refusal:
    """Why the configuration is not run: the scope's reason and the remedy (hint)."""

    reason: str
    hint: str


@dataclass(frozen=True)
class RubocopConfig:
    """A nearest `.rubocop.yml` and the local files its `inherit_from` chain names
    (nearest first), or the refusal that keeps it from running."""

    path: Path
    chain: tuple[Path, ...]
    requires: tuple[str, ...] = ()
    refusal: Refusal | None = None


def nearest_config(root: Path, rel_path: str) -> Path | None:
    """The nearest `.rubocop.yml` among the file's ancestor folders inside `root`."""
    folder = (root / rel_path).parent
    while folder.is_relative_to(root):
        cand = folder / DOTFILE
        if cand.is_file():
            return cand
        if folder == root:
            break
        folder = folder.parent
    return None


def _label(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, str | int | float)]
    return []


def _load(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """(the YAML mapping of a config file, None) or (None, why it cannot be read)."""
    import yaml

    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        return None, f"cannot read it ({exc.strerror})"
    if len(raw) > MAX_CONFIG_BYTES:
        return None, "it is larger than 1 MiB"
    text = raw.decode("utf-8", "replace")
    if "<%" in text:
        return None, "it uses ERB, so what it inherits cannot be known without running it"
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return {}, None  # RuboCop reports the YAML error itself, with its own words
    return (data if isinstance(data, dict) else {}), None


def describe(root: Path, config: Path, gate_tree: bool = False) -> RubocopConfig:
    """The local `inherit_from` chain of `config`, its `require:` / `plugins:` gems,
    and a refusal when a file on the chain would fetch, run a file, or cannot be read."""
    chain: list[Path] = []
    requires: list[str] = []
    todo = [config]
    while todo and len(chain) < MAX_CHAIN:
        current = todo.pop(0)
        if current in chain:
            continue
        chain.append(current)
        data, problem = _load(current)
        where = _label(root, current)
        if data is None and gate_tree and not current.exists():
            return RubocopConfig(
                config,
                tuple(chain),
                refusal=Refusal(
                    f"RuboCop config {where} is not in the strict gate's tree (it holds the"
                    f" {DOTFILE}, {OPTIONS_FILE} and Gemfile.lock files on each judged path,"
                    " not other inherited files); not run",
                    f"run `orchestrate lint` for RuboCop's verdict, or move {where}'s settings"
                    f" into a {DOTFILE}",
                ),
            )
        if data is None:
            return RubocopConfig(
                config,
                tuple(chain),
                refusal=Refusal(
                    f"RuboCop config {where}: {problem}; not run",
                    f"make {where} plain YAML with local inherit_from files",
                ),
            )
        for target in _strings(data.get("inherit_from")):
            if target.startswith(REMOTE):
                return RubocopConfig(
                    config,
                    tuple(chain),
                    refusal=Refusal(
                        f"RuboCop config {where} inherits a remote config ({target[:120]}):"
                        " RuboCop would download it and write a copy into the project; not run",
                        f"vendor that config into the repository and inherit_from the local copy in {where}",
                    ),
                )
            todo.append(Path(os.path.normpath(current.parent / Path(target).expanduser())))
        for key in ("require", "plugins"):
            for name in _strings(data.get(key)):
                if name.startswith((".", "/", "~")) or name.endswith(".rb"):
                    return RubocopConfig(
                        config,
                        tuple(chain),
                        refusal=Refusal(
                            f"RuboCop config {where}: {key}: {name[:120]} loads a file, not an"
                            " installed gem; not run",
                            f"package the extension as a gem and name the gem under {key}: in {where}",
                        ),
                    )
                requires.append(name)
    return RubocopConfig(config, tuple(chain), tuple(dict.fromkeys(requires)))


def options_refusal(root: Path) -> Refusal | None:
    """A refusal when the root's `.rubocop` options file asks for more than display
    options (an autocorrect, an output file, another config ...); None otherwise."""
    path = root / OPTIONS_FILE
    if not path.is_file():
        return None
    try:
        with open(path, "rb") as fh:
            text = fh.read(MAX_CONFIG_BYTES).decode("utf-8", "replace")
        words = shlex.split(text)
    except (OSError, ValueError):
        words = ["<unreadable>"]
    odd = [w for w in words if w not in DISPLAY_OPTIONS]
    if not odd:
        return None
    return Refusal(
        f"the options file {OPTIONS_FILE} asks RuboCop for {odd[0][:80]!r}, which orchestrate does"
        " not pass on (it may fix, write or change what is judged); not run",
        f"move the setting from {OPTIONS_FILE} into .rubocop.yml, or keep only display options there",
    )
