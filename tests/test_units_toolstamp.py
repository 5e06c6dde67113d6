"""Unit tests of `orchestrator.toolstamp`: what re-validates a cached tool identity."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orchestrator.toolstamp import facts, tool_stamp


def test_facts_are_device_inode_size_and_times(tmp_path: Path) -> None:
    f = tmp_path / "t"
    f.write_bytes(b"abc")
    st = os.stat(f)
    assert facts(st) == (st.st_dev, st.st_ino, 3, st.st_mtime_ns, st.st_ctime_ns)


def test_stamp_follows_links_and_names_a_scripts_interpreter(tmp_path: Path) -> None:
    interp = tmp_path / "interp"
    interp.write_bytes(b"\x7fELF")
    script = tmp_path / "tool"
    script.write_text(f"#!{interp}\necho hi\n")
    link = tmp_path / "link"
    link.symlink_to(script)
    stamp = dict(tool_stamp(str(link)))
    assert str(link) in stamp and str(script) in stamp
    assert stamp[str(interp)] == facts(os.stat(interp))


def test_stamp_changes_when_the_named_program_arrives(tmp_path: Path) -> None:
    target = tmp_path / "later"
    script = tmp_path / "tool"
    script.write_text(f'#!/bin/sh\nexec {target} "$@"\n')
    before = tool_stamp(str(script))
    assert dict(before)[str(target)] is None
    target.write_text("x")
    assert tool_stamp(str(script)) != before


def test_stamp_of_an_absent_tool_raises(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        tool_stamp(str(tmp_path / "absent"))
