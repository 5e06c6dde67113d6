"""Tool columns as code point columns, the unit an editor buffer's `str` is indexed in."""

from __future__ import annotations

from orchestrator.render.columns import codepoint_column

LINE = 'x = "\U0001f600é"; y'  # an astral character (2 UTF-16 units, 4 bytes), then é


def test_each_unit_lands_on_the_same_character() -> None:
    y = LINE.index("y") + 1  # 1-based code point column of `y`
    utf16 = len(LINE[: y - 1].encode("utf-16-le")) // 2 + 1
    utf8 = len(LINE[: y - 1].encode("utf-8")) + 1
    assert codepoint_column(LINE, y, "codepoint") == y
    assert codepoint_column(LINE, utf16, "utf16") == y
    assert codepoint_column(LINE, utf8, "utf8") == y


def test_a_column_inside_a_character_lands_on_it_and_past_the_end_keeps_its_distance() -> None:
    emoji = LINE.index("\U0001f600") + 1
    assert codepoint_column(LINE, emoji + 1, "utf16") == emoji  # its second surrogate unit
    assert codepoint_column(LINE, emoji + 2, "utf8") == emoji  # a byte inside it
    end_utf16 = len(LINE.encode("utf-16-le")) // 2 + 1
    assert codepoint_column(LINE, end_utf16 + 3, "utf16") == len(LINE) + 4
    assert codepoint_column(LINE, len(LINE.encode()) + 4, "utf8") == len(LINE) + 4
