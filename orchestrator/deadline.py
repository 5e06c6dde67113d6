"""One overall deadline, inherited by every child process and retry."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Deadline:
    """An absolute point on the monotonic clock. `Deadline.after(s)` starts one now."""

    at: float
    started: float = field(default_factory=time.monotonic)

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        now = time.monotonic()
        return cls(at=now + max(0.0, seconds), started=now)

    def remaining(self) -> float:
        """Seconds left, never negative."""
        return max(0.0, self.at - time.monotonic())

    def expired(self) -> bool:
        return time.monotonic() >= self.at
