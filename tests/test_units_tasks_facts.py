"""Unit tests of `orchestrator.tasks.facts`: the bounded read of the task folder."""

from __future__ import annotations

from pathlib import Path

from helpers import task_backlog

from orchestrator.tasks.facts import (
    BYTES_OVER,
    ENTRIES_OVER,
    read_task_facts,
    task_folder,
)


def test_no_task_folder_reads_as_none(tmp_path: Path) -> None:
    assert read_task_facts(tmp_path) is None
    assert not task_folder(tmp_path).exists()


def test_records_are_read_and_a_bad_one_is_counted(tmp_path: Path) -> None:
    ids = task_backlog(tmp_path, 2)
    (task_folder(tmp_path) / "not-a-record.json").write_text("{")
    (task_folder(tmp_path) / "README").write_text("ignored")
    facts = read_task_facts(tmp_path)
    assert facts is not None and facts.over is None
    assert sorted(r.id for r in facts.records) == sorted(ids)
    assert facts.unreadable == 1 and facts.entries == 3 and facts.bytes_read > 0


def test_budgets_stop_the_read_before_it_reads(tmp_path: Path) -> None:
    task_backlog(tmp_path, 3)
    many = read_task_facts(tmp_path, max_entries=2)
    assert many is not None and many.over is not None and many.over[0] == ENTRIES_OVER
    assert many.records == ()
    big = read_task_facts(tmp_path, max_bytes=10)
    assert big is not None and big.over is not None and big.over[0] == BYTES_OVER
