"""legacy-v1: the old hook protocol, kept for existing installs behind an explicit flag.

Only here are the old escape hatches honoured: ``git config codeguard.skipGate``
(``git -c`` and included/chained config files count, because git resolves them)
and ``CODEGUARD_SKIP_GATE``. Both take one value rule, `is_accepted_skip_value`:
exactly ``1``, ``true`` or ``yes`` in any (ASCII) case; nothing is trimmed, and no
other boolean spelling (``on``, ``2``, a key without a value) skips. A skip is
audited in ``.orchestrate/audit/`` and reported as "skipped, not certified". The
secret scan is never skipped. Strict entries call `legacy_skip_sources` only to say
that a skip was present and ignored.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from orchestrator.git.repo import config_get
from orchestrator.git.runner import Git
from orchestrator.model.report import utc_now
from orchestrator.workspace import DIRNAME, atomic_write, locked, workspace_dir

ENV_VAR = "CODEGUARD_SKIP_GATE"
CONFIG_KEY = "codeguard.skipGate"
ACCEPTED_ENV_VALUES = frozenset({"1", "true", "yes"})
AUDIT_FILE = "audit/skips.jsonl"
#: Audit log size past which the oldest records are dropped (the count is kept).
AUDIT_MAX_BYTES = 1024 * 1024
NOT_CERTIFIED = "skipped, not certified"
#: Bytes a summary reads from the end of the audit log for the running count.
COUNT_TAIL_BYTES = 4096
#: The largest running count a summary shows; past it the count is unreadable.
MAX_SHOWN_COUNT = 10**9
#: `SkipCount.audit`: no skip record / a running count read / records, count unreadable.
AUDIT_NONE = "none"
AUDIT_RECORDED = "recorded"
AUDIT_UNREADABLE = "unreadable"


@dataclass(frozen=True)
class Skip:
    """An accepted legacy skip: where it came from and the value seen (bounded)."""

    source: str  # "git config codeguard.skipGate" | "CODEGUARD_SKIP_GATE"
    value: str


def is_accepted_skip_value(raw: str) -> bool:
    """Whether `raw` is a legacy skip value: exactly 1, true or yes, in any ASCII case.

    The whole value decides: no blank, tab or newline around it is trimmed, and no
    look-alike character folds into an accepted word (seed 004: "only 1/true/yes").
    """
    return raw.isascii() and raw.lower() in ACCEPTED_ENV_VALUES


def env_skip(env: Mapping[str, str]) -> Skip | None:
    """The environment skip (`is_accepted_skip_value`), or None."""
    raw = env.get(ENV_VAR)
    if raw is None or not is_accepted_skip_value(raw):
        return None
    return Skip(ENV_VAR, raw)


def config_skip(git: Git) -> Skip | None:
    """The git-config skip as git resolves it (``-c``, includes, every config level, the
    last setting winning), under the same value rule as the environment: git decides
    which value applies, `is_accepted_skip_value` whether that value skips."""
    raw = config_get(git, CONFIG_KEY, exact=True)
    if raw is None or not is_accepted_skip_value(raw):
        return None
    return Skip(f"git config {CONFIG_KEY}", raw)


def legacy_skip(git: Git, env: Mapping[str, str] | None = None) -> Skip | None:
    """The legacy skip that applies (git config first, then the environment), or None."""
    return config_skip(git) or env_skip(os.environ if env is None else env)


def legacy_skip_sources(git: Git | None, env: Mapping[str, str] | None = None) -> list[str]:
    """Every legacy skip setting present at all (any value): for strict entries to report."""
    env = os.environ if env is None else env
    found: list[str] = []
    if git is not None and config_get(git, CONFIG_KEY) is not None:
        found.append(f"git config {CONFIG_KEY}")
    if ENV_VAR in env:
        found.append(ENV_VAR)
    return found


def audit_skip(root: Path, event: str, skip: Skip, secrets_found: int) -> int:
    """Append one skip record to the audit log (atomic rewrite under the lock).

    Returns how many skips the log now records (the old protocol's counter).
    """
    with locked(root, "audit"):
        path = workspace_dir(root) / AUDIT_FILE
        try:
            old = path.read_bytes()
        except FileNotFoundError:
            old = b""
        lines = old.splitlines()
        count = 1
        if lines:
            try:
                count = int(json.loads(lines[-1]).get("count", len(lines))) + 1
            except (ValueError, AttributeError):
                count = len(lines) + 1
        record = {
            "time": utc_now(),
            "event": event,
            "protocol": "legacy-v1",
            "source": skip.source,
            "value": skip.value,
            "skipped": "language gate",
            "secret_scan": "ran",
            "secret_findings": secrets_found,
            "certified": False,
            "count": count,
        }
        lines.append(json.dumps(record, sort_keys=True).encode())
        data = b"\n".join(lines) + b"\n"
        while len(data) > AUDIT_MAX_BYTES and len(lines) > 1:
            lines.pop(0)
            data = b"\n".join(lines) + b"\n"
        atomic_write(path, data)
        return count


@dataclass(frozen=True)
class SkipCount:
    """What a summary may say about the skip audit: a number, never record text."""

    audit: str = AUDIT_NONE  # AUDIT_NONE | AUDIT_RECORDED | AUDIT_UNREADABLE
    #: The running count of the last record (AUDIT_RECORDED only), 1..MAX_SHOWN_COUNT.
    count: int | None = None


def _tail(path: Path, limit: int) -> bytes | None:
    """The last `limit` bytes of the regular file `path` (not followed when a link); b""
    when there is no such file; None when it cannot be read as one."""
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except FileNotFoundError:
        return b""
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        start = max(0, info.st_size - limit)
        os.lseek(fd, start, os.SEEK_SET)
        data = os.read(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)
    if start > 0:  # the first line read may be cut: only whole lines count
        cut = data.find(b"\n")
        data = data[cut + 1 :] if cut >= 0 else b""
        if not data.strip():
            return None  # a last record longer than the budget is not scanned for
    return data


def recorded_skip_count(root: Path, tail_bytes: int = COUNT_TAIL_BYTES) -> SkipCount:
    """The legacy skip count the audit log holds (the old protocol's running counter),
    for `orchestrate next` and the Stop summary.

    Bounded and read-only: at most `tail_bytes` from the end of
    `.orchestrate/audit/skips.jsonl`, never through a symbolic link, nothing created.
    Only the integer `count` of the last record leaves here; a record of any other
    shape, or a count out of 1..MAX_SHOWN_COUNT, makes the count unreadable. Never
    raises.
    """
    ws = root / DIRNAME
    audit_dir = (ws / AUDIT_FILE).parent
    try:
        if not ws.exists() and not ws.is_symlink():
            return SkipCount()
        if ws.is_symlink() or audit_dir.is_symlink():
            return SkipCount(AUDIT_UNREADABLE)
    except OSError:
        return SkipCount(AUDIT_UNREADABLE)
    data = _tail(ws / AUDIT_FILE, tail_bytes)
    if data is None:
        return SkipCount(AUDIT_UNREADABLE)
    lines = [line for line in data.splitlines() if line.strip()]
    if not lines:
        return SkipCount()
    try:
        record = json.loads(lines[-1])
    except (ValueError, RecursionError):  # RecursionError: a deeply nested last line
        return SkipCount(AUDIT_UNREADABLE)
    count = record.get("count") if isinstance(record, dict) else None
    if type(count) is not int or not 1 <= count <= MAX_SHOWN_COUNT:
        return SkipCount(AUDIT_UNREADABLE)
    return SkipCount(AUDIT_RECORDED, count)
