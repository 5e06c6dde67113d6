"""A program parser's version text, asked once per binary and kept in the user cache.

The fallback's reuse identity holds each program parser's identity (its resolved path,
its `tool_stamp` and its version text, plugins/exact_confirm.reuse_facts), and a cold
run asks it before any file is judged. `probe_version` keeps an answer for the process;
this store keeps it across runs, in one small JSON file in the user's cache folder
(`VERSIONS_FILE`), per path, `tool_stamp` and version arguments: a replaced binary, a
link swapped or a wrapper's target changed is another stamp, so it is asked again. The
file is written atomically and only when it gains an answer; a missing, unreadable or
malformed file is empty (every binary is asked again), never trusted in part.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from orchestrator.api import atomic_write, tool_stamp, user_cache_root

VERSIONS_FILE = "exact-versions.json"
SCHEMA = "orchestrate.exact-versions/1"
#: Answers the file holds; past it the store starts again (binaries come and go rarely).
MAX_ANSWERS = 256
#: The longest version text kept (a first line; longer is not a version).
MAX_TEXT = 256

#: The store as read by this process, with the file it was read from (the user cache
#: folder can change within a process: a test's, a warm engine's environment).
_loaded: tuple[Path, dict[str, str]] | None = None


def _path() -> Path:
    return user_cache_root() / VERSIONS_FILE


def stamp_digest(tool: str) -> str:
    """A digest of the tool's `tool_stamp` (its path, links, program and a script's
    named paths, by their stat facts); OSError when the tool cannot be read."""
    return hashlib.sha256(repr(tool_stamp(tool)).encode("utf-8", "surrogateescape")).hexdigest()[
        :24
    ]


def _key(tool: str, args: tuple[str, ...]) -> str:
    return json.dumps([tool, stamp_digest(tool), list(args)], separators=(",", ":"))


def _answers() -> dict[str, str]:
    global _loaded
    where = _path()
    if _loaded is not None and _loaded[0] == where:
        return _loaded[1]
    answers: dict[str, str] = {}
    try:
        data = json.loads(where.read_bytes())
    except (OSError, ValueError, RecursionError):
        data = None
    if isinstance(data, dict) and data.get("schema") == SCHEMA:
        stored = data.get("answers")
        if isinstance(stored, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in stored.items()
        ):
            answers = dict(stored)
    _loaded = (where, answers)
    return answers


def kept(tool: str, args: tuple[str, ...]) -> str | None:
    """The version text `tool ARGS` answered before, for the binary as it is now, or None."""
    try:
        key = _key(tool, args)
    except OSError:
        return None
    return _answers().get(key)


def keep(tool: str, args: tuple[str, ...], text: str) -> None:
    """Remember `tool ARGS`'s version text for this binary (best effort: a cache)."""
    if len(text) > MAX_TEXT:
        return
    try:
        key = _key(tool, args)
    except OSError:
        return
    answers = _answers()
    if answers.get(key) == text:
        return
    if len(answers) >= MAX_ANSWERS:
        answers.clear()
    answers[key] = text
    blob = json.dumps({"schema": SCHEMA, "answers": answers}, sort_keys=True).encode()
    try:
        atomic_write(_path(), blob, durable=False)
    except OSError:
        return


def forget() -> None:
    """Drop what this process read of the store (tests; a new user cache folder)."""
    global _loaded
    _loaded = None
