"""One overall deadline, inherited by every child process and retry.

A long-lived process (the warm engine) can also end the run it is serving early:
`cancel_all()` makes every deadline of the process read as passed (children are killed
as on a timeout) until `resume()`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

_CANCELLED = threading.Event()
#: How often a wait on a deadline looks whether the run was cancelled.
CANCEL_POLL_S = 0.05
#: Seconds: the one deadline of save feedback (`lint --feedback`, the editor's buffer
#: check, an agent's edit feedback), below the host timeouts in hooks/. Here, in the
#: foundation, because the warm engine's client must read it without the use cases.
FEEDBACK_DEADLINE_S = 20.0
#: Seconds, at most: the few git calls that read where git keeps its places (its folder,
#: the hooks folder) or its aliases, before an edit or a shell command runs; within the
#: event's own deadline when it is shorter.
GIT_LOOKUP_DEADLINE_S = 5.0


def cancel_all() -> None:
    """Expire every `Deadline` of this process now, until `resume()` (the run in
    progress ends as if its deadline had passed)."""
    _CANCELLED.set()


def resume() -> None:
    """Deadlines run on their clocks again (after `cancel_all`)."""
    _CANCELLED.clear()


def cancelled() -> bool:
    """Whether `cancel_all` is in force."""
    return _CANCELLED.is_set()


@dataclass(frozen=True)
class Deadline:
    """An absolute point on the monotonic clock. `Deadline.after(s)` starts one now."""

    at: float
    started: float = field(default_factory=time.monotonic)

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        now = time.monotonic()
        return cls(at=now + max(0.0, seconds), started=now)

    def within(self, seconds: float) -> Deadline:
        """The earlier of this deadline and `seconds` from now: a step's own bound
        that never outlasts the run it is part of."""
        now = time.monotonic()
        return Deadline(at=min(self.at, now + max(0.0, seconds)), started=now)

    def short_of(self, seconds: float) -> Deadline:
        """This deadline brought forward by `seconds` (never before it started): the
        share a step may use while the work after it keeps `seconds` of the whole."""
        return Deadline(at=max(self.started, self.at - max(0.0, seconds)), started=self.started)

    def remaining(self) -> float:
        """Seconds left, never negative (none once the process's runs are cancelled)."""
        if _CANCELLED.is_set():
            return 0.0
        return max(0.0, self.at - time.monotonic())

    def expired(self) -> bool:
        return _CANCELLED.is_set() or time.monotonic() >= self.at

    def wait(self, event: threading.Event) -> bool:
        """Wait for `event` until the deadline passes or the runs are cancelled;
        whether the event was set."""
        while not event.is_set():
            left = self.remaining()
            if left <= 0.0:
                break
            event.wait(min(left, CANCEL_POLL_S))
        return event.is_set()
