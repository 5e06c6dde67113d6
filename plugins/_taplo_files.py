"""Which files `taplo fmt --check` judges: the taplo recipe's file selection.

taplo reads each path on its command line as a glob pattern (`g[1].toml` names
`g1.toml`, `a*.toml` every such file), then drops the files its config's top-level
`include`/`exclude` leave out, named or not, and prints nothing of them: a file it
never read would be called `checked` clean. So:

- `glob_literal` writes each path as the pattern that matches that file only
  (`[`, `]`, `*`, `?` inside brackets, as the glob crate's own escape);
- run from the root with no path (as a project runs it), taplo walks the config's
  `include` patterns (else `**/*.toml`) with the glob crate, one path component at a
  time (`*.toml` is the root's files only, `**` any folders): named, a file is judged
  even where that walk would never find it (`deep/a.toml` under `include =
  ["*.toml"]`, a `Pipfile`), so `walk_finds` says whether the walk finds it (the
  components matched as the glob crate does: `*`, `?`, `[...]`, `[!...]`, and `**`
  for zero or more folders);
- where the root config sets `include` or `exclude`, `excluded` asks taplo itself which
  of a batch's files it leaves out: its `INFO ... found files total=T excluded=E` count
  (under `RUST_LOG=info`), over halves of the batch until each count is 0 or all, a
  few runs for a batch with a few excluded files. taplo's logger may lose that line
  when taplo exits at once (no file left to format): such a run is tried again
  (`count_lost`). A count over another number of files than asked, no count after
  those tries, or a run that fails, leaves the batch to that failure (never `checked`).
"""

from __future__ import annotations

import fnmatch
import os
import re
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath

from orchestrator.api import FileTarget, ProcResult, Unparsable

#: The configs taplo reads from the folder it runs in (the recipe's `config_names`).
CONFIG_NAMES = (".taplo.toml", "taplo.toml")
NOT_FOUND = "taplo fmt --check from the root never finds it (its config's include, else **/*.toml)"
EXCLUDED = "excluded by the project's taplo config (its include/exclude): taplo skips it"
_COUNT = re.compile(r"^\s*INFO\s.*\bfound files total=(?P<total>\d+) excluded=(?P<excluded>\d+)\b")
#: How many times a run whose count line was lost is tried (module docstring).
ATTEMPTS = 6
_GLOB = re.compile(r"([\[\]*?])")


def glob_literal(path: str) -> str:
    """`path` as a glob pattern that matches only that file (`g[1].toml` ->
    `g[[]1[]].toml`)."""
    return _GLOB.sub(r"[\1]", path)


def config(root: Path) -> dict[str, object] | None:
    """The root taplo config taplo loads (the first of `CONFIG_NAMES`), parsed; None
    when there is none or it cannot be read (taplo then says so itself)."""
    for name in CONFIG_NAMES:
        path = root / name
        if path.is_file():
            try:
                return tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                return None
    return None


def walk_patterns(root: Path) -> list[tuple[str, ...]] | None:
    """The patterns taplo walks from the root, as path components under it (the
    config's `include`, else `**/*.toml`); None when they cannot be known here."""
    data = config(root)
    include = (data or {}).get("include", ["**/*.toml"])
    if not isinstance(include, list) or not all(isinstance(p, str) for p in include):
        return None
    out = []
    for pattern in include:
        joined = os.path.normpath(os.path.join(root, pattern))
        rel = os.path.relpath(joined, root)
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            continue  # a pattern outside the root finds none of its files
        out.append(PurePosixPath(Path(rel).as_posix()).parts)
    return out


def walk_finds(path: str, patterns: Sequence[tuple[str, ...]]) -> bool:
    """Whether the walk of `patterns` (`walk_patterns`) finds the project file `path`."""
    parts = PurePosixPath(path).parts
    return any(_match(pat, parts) for pat in patterns)


def _match(pattern: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    if not pattern:
        return not parts
    if pattern[0] == "**":
        # Zero or more folders; the file itself is matched by the rest of the pattern.
        return any(_match(pattern[1:], parts[i:]) for i in range(len(parts)))
    if not parts:
        return False
    return fnmatch.fnmatchcase(parts[0], pattern[0]) and _match(pattern[1:], parts[1:])


def selects(root: Path) -> bool:
    """Whether the root taplo config sets `include` or `exclude` (or cannot be read:
    taplo says so itself, and then nothing is taken for granted)."""
    data = config(root)
    if data is None:
        return any((root / name).is_file() for name in CONFIG_NAMES)
    return "include" in data or "exclude" in data


def count_lost(res: ProcResult) -> bool:
    """Whether taplo ran to its end and its log lacks the count: when it has no file
    left to format it exits at once, and its logger may lose the line (about one run in
    three): such a run is tried again, at most `ATTEMPTS` times."""
    if not res.ok:
        return False
    return not any(map(_COUNT.match, res.stderr.decode("utf-8", "replace").splitlines()))


def excluded_count(res: ProcResult, asked: int) -> int:
    """How many of the `asked` files taplo's `found files` line says it excluded;
    `Unparsable` without that line, or when taplo found another number of files."""
    text = res.stderr.decode("utf-8", "replace")
    counts = [m for m in map(_COUNT.match, text.splitlines()) if m]
    if len(counts) != 1:
        raise Unparsable("taplo printed no count of the files it found")
    total, excluded = int(counts[0]["total"]), int(counts[0]["excluded"])
    if total != asked or excluded > total:
        raise Unparsable(f"taplo found {total} files ({excluded} excluded) for {asked} named")
    return excluded


def excluded(
    targets: Sequence[FileTarget], count: Callable[[Sequence[FileTarget]], int | None]
) -> set[str] | None:
    """The paths of `targets` taplo excludes, found with `count` (taplo's excluded
    count for some of them, or None when that run failed): None when a run failed."""
    n = count(targets)
    if n is None:
        return None
    return _split(list(targets), n, count)


def _split(
    targets: list[FileTarget], n: int, count: Callable[[Sequence[FileTarget]], int | None]
) -> set[str] | None:
    if n == 0:
        return set()
    if n == len(targets):
        return {t.path for t in targets}
    half = len(targets) // 2
    first = count(targets[:half])
    if first is None or first > n:
        return None
    left = _split(targets[:half], first, count)
    right = _split(targets[half:], n - first, count)
    return None if left is None or right is None else left | right
