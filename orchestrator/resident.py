"""Whether this process is a long-lived one (the warm engine), and what ends with it.

A plugin may keep a helper process warm between requests only while the process is
resident (`is_resident`), and registers how to end it (`at_exit`); whoever owns the
long-lived process wraps its life in `residency()`, which runs those closers when it
ends. A one-shot run is never resident: nothing outlives it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

_LOCK = threading.Lock()
_STATE = {"resident": False}
_CLOSERS: list[Callable[[], None]] = []


def is_resident() -> bool:
    """True while inside `residency()`: state kept now may serve later requests."""
    return _STATE["resident"]


def at_exit(closer: Callable[[], None]) -> None:
    """Run `closer` once when the residency ends (its errors are ignored). Outside a
    residency it is not kept: call it yourself."""
    with _LOCK:
        if _STATE["resident"] and closer not in _CLOSERS:
            _CLOSERS.append(closer)


@contextlib.contextmanager
def residency() -> Iterator[None]:
    """Mark the process resident for the duration; on exit run every closer
    registered with `at_exit` (latest first)."""
    with _LOCK:
        _STATE["resident"] = True
    try:
        yield
    finally:
        with _LOCK:
            _STATE["resident"] = False
            closers = list(reversed(_CLOSERS))
            _CLOSERS.clear()
        for closer in closers:
            with contextlib.suppress(Exception):
                closer()
