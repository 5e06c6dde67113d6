"""Bounded reads of a hook's standard input (git's pre-push lines)."""

from __future__ import annotations

import sys

from orchestrator.vocab import MAX_PUSH_STDIN


def read_stdin_bounded() -> bytes:
    """Hook stdin (the pre-push lines), at most 1 MiB plus one byte to detect overflow."""
    try:
        return sys.stdin.buffer.read(MAX_PUSH_STDIN + 1)
    except (OSError, ValueError, AttributeError):
        return b""
