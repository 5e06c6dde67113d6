"""File names a hook hands over are paths, never options.

pre-commit runs `entry + args + file names` with no `--` between them, so a committed
file named `--output=a.py` or `--exit-zero` would otherwise be read as an option (and
write the report over `a.py`, or hide every finding). For `lint --from-hook`, a word
that starts with `-` and names an existing path is rewritten to `./word`: the same
file, which argparse can only read as a path.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

#: The flag that says the paths come from a hook (orchestrator/cli/main.py defines it).
FROM_HOOK = "--from-hook"


def shielded(argv: Sequence[str], cwd: Path | None = None) -> list[str]:
    """`argv` with each `-`-leading word that names an existing path (relative to
    `cwd`, default the current folder) turned into `./word`, when `argv` is a
    `lint --from-hook` command line; any other command line is returned unchanged."""
    words = list(argv)
    if FROM_HOOK not in words or "lint" not in words:
        return words
    base = cwd or Path.cwd()
    out: list[str] = []
    for word in words:
        after_end = "--" in out  # argparse reads every later word as a path already
        if word.startswith("-") and not after_end and os.path.lexists(base / word):
            out.append(f"./{word}")
        else:
            out.append(word)
    return out
