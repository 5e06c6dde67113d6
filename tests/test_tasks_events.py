"""Event log: append-only, de-duplication only of repeated feedback on one snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.tasks import events


def test_repeated_edit_of_same_snapshot_is_merged(tmp_path: Path) -> None:
    snap = events.snapshot_key([("a.py", "d1")])
    first = events.record_event(tmp_path, "edit", snapshot=snap, outcome="checked")
    again = events.record_event(tmp_path, "edit", snapshot=snap, outcome="checked")
    assert not first.merged and again.merged and again.event.id == first.event.id
    other = events.record_event(
        tmp_path, "edit", snapshot=events.snapshot_key([("a.py", "d2")]), outcome="checked"
    )
    assert not other.merged
    assert len(events.recent_events(tmp_path)) == 2


def test_a_different_outcome_is_not_merged(tmp_path: Path) -> None:
    snap = events.snapshot_key([("a.py", "d1")])
    events.record_event(tmp_path, "feedback", snapshot=snap, outcome="checked")
    assert not events.record_event(tmp_path, "feedback", snapshot=snap, outcome="timed_out").merged


@pytest.mark.parametrize("kind", sorted(events.NEVER_MERGED))
def test_delivery_rechecks_and_reverification_are_never_swallowed(
    tmp_path: Path, kind: str
) -> None:
    snap = events.snapshot_key([("a.py", "d1")])
    for _ in range(3):
        r = events.record_event(
            tmp_path, kind, snapshot=snap, task_id="T-0123456789ab", outcome="recheck_incomplete"
        )
        assert not r.merged and r.persisted
    assert len(events.recent_events(tmp_path)) == 3


def test_log_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(events, "MAX_LOG_BYTES", 2048)
    for i in range(100):
        events.record_event(tmp_path, "delivery", outcome=str(i))
    folder = tmp_path / ".orchestrate" / "events"
    assert sorted(p.name for p in folder.iterdir()) == ["events.jsonl", "events.jsonl.1"]
    assert all(p.stat().st_size < 4096 for p in folder.iterdir())
    assert events.recent_events(tmp_path)[-1]["outcome"] == "99"


def test_oversized_data_is_dropped_not_stored(tmp_path: Path) -> None:
    r = events.record_event(tmp_path, "delivery", data={"x": "y" * 10_000})
    assert r.event.data == {"dropped": "event data over budget"}
