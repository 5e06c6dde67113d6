"""Host event intake: bounded decoding and the path checks every adapter shares.

A host event is untrusted input. Only the event name, a few booleans and bounded
path fields are ever used; free text (prompts, tool output, error text, patches,
last messages) is never parsed, echoed or used to choose a scope.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from orchestrator.hosts.budgets import MAX_EVENT_BYTES, RAW_PATH_MAX_BYTES


class Kind(StrEnum):
    """Host-neutral event kinds the router knows."""

    SESSION_START = "session_start"
    PROMPT_SUBMITTED = "prompt_submitted"
    FILE_CHANGED = "file_changed"  # confirmed successful write, paths validated
    WRITE_UNKNOWN = "write_unknown"  # outcome or path undeterminable
    WRITE_FAILED = "write_failed"
    REPAIR_READY = "repair_ready"
    SHELL_COMMAND = "shell_command"  # before a shell tool runs (git commit / push gate)
    EDIT_PENDING = "edit_pending"  # before a file-edit tool runs (protected paths)
    STOP = "stop"
    IGNORED = "ignored"
    INVALID = "invalid"  # the event itself could not be trusted


@dataclass(frozen=True)
class RouterEvent:
    """What an adapter hands the router: kind plus the few trusted, bounded fields."""

    kind: Kind
    project_root: Path | None = None
    #: Project-relative POSIX paths that passed `resolve_target`.
    paths: tuple[str, ...] = ()
    #: Why the scope is undetermined (a fixed reason code, never host text).
    scope_reason: str | None = None
    #: The shell command (text, or an argv list), only to read what it commits or
    #: pushes; never echoed, never executed.
    command: object = None
    #: The directory the shell command starts in (the event's `cwd`), when valid.
    shell_cwd: Path | None = None
    #: The raw path field of a file-edit tool about to run; only compared, never echoed.
    target: object = None
    stop_hook_active: bool = False
    task_id: str | None = None
    host: str = "generic"
    #: SessionStart: the host's own fixed sentence on what its hooks cannot refuse.
    host_gap: str = ""


def decode_event(data: bytes) -> dict[str, Any] | None:
    """The event object, or None when oversized, not UTF-8 JSON, or not an object."""
    if not isinstance(data, bytes | bytearray) or len(data) > MAX_EVENT_BYTES:
        return None
    try:
        obj = json.loads(bytes(data).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def read_stdin(stream: Any) -> bytes:
    """At most MAX_EVENT_BYTES + 1 bytes from a binary stream (one extra to spot overflow)."""
    try:
        return stream.read(MAX_EVENT_BYTES + 1) or b""
    except (OSError, ValueError):
        return b""


def str_field(obj: object, key: str, limit: int = 256) -> str | None:
    """A bounded string field of a dict, else None (wrong type, too long, NUL)."""
    if not isinstance(obj, dict):
        return None
    value = obj.get(key)
    if not isinstance(value, str) or len(value) > limit or "\x00" in value:
        return None
    return value


def bool_field(obj: object, key: str) -> bool:
    """True only for a JSON true; anything else is False."""
    return isinstance(obj, dict) and obj.get(key) is True


def _is_dir(path: str) -> Path | None:
    try:
        p = Path(path)
        if not p.is_absolute():
            return None
        real = Path(os.path.realpath(p))
        return real if real.is_dir() else None
    except (OSError, ValueError):
        return None


def existing_dir(path: object) -> Path | None:
    """`path` resolved when it is a bounded absolute path of an existing directory."""
    if (
        not isinstance(path, str)
        or "\x00" in path
        or len(path.encode("utf-8", "surrogateescape")) > RAW_PATH_MAX_BYTES
    ):
        return None
    return _is_dir(path)


def project_root_for(env_value: str | None, cwd: str | None) -> Path | None:
    """The project root: the host's project-dir variable, else the event's cwd.

    Either must be an absolute path of an existing directory (symlinks resolved).
    """
    for candidate in (env_value, cwd):
        if (
            isinstance(candidate, str)
            and candidate
            and len(candidate.encode("utf-8", "surrogateescape")) <= RAW_PATH_MAX_BYTES
            and "\x00" not in candidate
        ):
            root = _is_dir(candidate)
            if root is not None:
                return root
    return None


@dataclass(frozen=True)
class Target:
    """A validated edit target (rel_path set) or the fixed reason it was refused."""

    rel_path: str | None
    reason: str | None = None


def resolve_target(raw: object, root: Path) -> Target:
    """Validate a host-supplied edit path against the project root.

    Accepted only when: a string of bounded size without NUL, absolute, lexically
    inside the root, inside the root after resolving symlinks, a regular file that
    is still present. Every refusal is a fixed reason code.
    """
    if not isinstance(raw, str):
        return Target(None, "path_missing_or_wrong_type")
    if not raw or "\x00" in raw or len(raw.encode("utf-8", "surrogateescape")) > RAW_PATH_MAX_BYTES:
        return Target(None, "path_invalid")
    try:
        given = Path(raw)
        if not given.is_absolute():
            return Target(None, "path_not_absolute")
        lexical = Path(os.path.normpath(given))
        if lexical != root and root not in lexical.parents:
            # The root is already resolved; a non-resolved spelling of it is tried too.
            real_parent = Path(os.path.realpath(lexical.parent))
            if real_parent != root and root not in real_parent.parents:
                return Target(None, "path_outside_project")
        real = Path(os.path.realpath(lexical))
        if root not in real.parents:
            return Target(
                None, "symlink_escape" if os.path.islink(lexical) else "path_outside_project"
            )
        st = os.stat(real)
    except FileNotFoundError:
        return Target(None, "file_vanished")
    except (OSError, ValueError, RuntimeError):
        return Target(None, "path_unreadable")
    if not stat.S_ISREG(st.st_mode):
        return Target(None, "not_a_regular_file")
    return Target(real.relative_to(root).as_posix())
