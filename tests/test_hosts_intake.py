"""The skim of an event over the budget (orchestrator.hosts.intake): the fields it keeps,
its read cap and its deadline, and a time linear in the event's size.

A Write of a large file is one long JSON string. Read in 64 KiB pieces, the C JSON
parser re-scans the unfinished string on each piece: a 20 MB Write took longer than the
skim's 10 s deadline and was refused, where one outside the protected paths goes on
unchecked. The skim now hands the parser what it read in one piece.
"""

from __future__ import annotations

import io
import json
import time

import pytest

from orchestrator.hosts import intake
from orchestrator.hosts.budgets import MAX_EVENT_BYTES


def _write_event(size: int, path: str = "/p/big.py") -> bytes:
    return json.dumps(
        {
            "session_id": "s",
            "cwd": "/p",
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": path, "content": "x = 1\n" * (size // 6)},
        }
    ).encode()


def test_a_20_mb_write_is_skimmed_well_within_the_deadline() -> None:
    data = _write_event(20 * 1024 * 1024)
    started = time.monotonic()
    event = intake.read_event(io.BufferedReader(io.BytesIO(data)))  # type: ignore[arg-type]
    took = time.monotonic() - started
    assert event.over_budget and len(event.data) == MAX_EVENT_BYTES + 1
    assert event.skimmed == {
        "cwd": "/p",
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": "/p/big.py"},
    }
    # Quadratic reading took over 10 s here; linear reading about a second at most.
    assert took < intake.OVERSIZE_READ_S / 2, took


def test_an_event_over_the_read_cap_is_not_skimmed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(intake, "OVERSIZE_READ_MAX", 3 * 1024 * 1024)
    event = intake.read_event(io.BytesIO(_write_event(4 * 1024 * 1024)))  # type: ignore[arg-type]
    assert event.over_budget and event.skimmed is None
    exact = _write_event(2 * 1024 * 1024)
    ok = intake.read_event(io.BytesIO(exact))  # type: ignore[arg-type]
    assert ok.skimmed is not None and ok.skimmed["tool_name"] == "Write"


class _SlowStream(io.RawIOBase):
    """A stream whose every read moves the skim's clock (a fake clock) by a second."""

    def __init__(self, data: bytes, clock: list[float]) -> None:
        self._data = io.BytesIO(data)
        self._clock = clock

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray) -> int:  # type: ignore[override]
        self._clock[0] += 1.0
        chunk = self._data.read(min(len(b), 64 * 1024))
        b[: len(chunk)] = chunk
        return len(chunk)


def test_the_deadline_is_checked_between_the_pieces_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = [0.0]
    monkeypatch.setattr(intake.time, "monotonic", lambda: clock[0])
    data = _write_event(2 * 1024 * 1024)
    event = intake.read_event(io.BufferedReader(_SlowStream(data, clock)))
    # 1 MiB of head, then about 16 pieces of 64 KiB: past the 10 s deadline on the way.
    assert event.over_budget and event.skimmed is None
    clock[0] = 0.0
    monkeypatch.setattr(intake, "OVERSIZE_READ_S", 1000.0)
    event = intake.read_event(io.BufferedReader(_SlowStream(data, clock)))
    assert event.skimmed is not None and event.skimmed["tool_input"] == {"file_path": "/p/big.py"}


def test_a_field_given_twice_or_bytes_after_the_object_are_not_kept() -> None:
    data = _write_event(2 * 1024 * 1024).replace(b'"content"', b'"file_path": "/x", "content"')
    assert intake.read_event(io.BytesIO(data)).skimmed is None  # type: ignore[arg-type]
    trailing = _write_event(2 * 1024 * 1024) + b" {}"
    assert intake.read_event(io.BytesIO(trailing)).skimmed is None  # type: ignore[arg-type]
