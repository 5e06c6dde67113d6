"""Unit tests of a clean's summary (hygiene/summary) and its wording (hygiene/render)."""

from __future__ import annotations

from hygiene_helpers import entry

from orchestrator.hygiene.hygiene_report import Entry
from orchestrator.hygiene.render import label, summary_text, undo_text
from orchestrator.hygiene.summary import Row, lines_changed, plan_summary, rule_of


def _entry(kind: str | None, path: str = "doc.md") -> Entry:
    return Entry.model_validate(entry(kind, path=path, id=f"e-{kind}-{path}"))


def test_rule_and_lines_of_an_entry() -> None:
    assert rule_of(_entry("delete-range")) == "delete-range"
    assert rule_of(_entry("delete")) == "plans"  # its lifecycle rule
    assert rule_of(_entry(None)) == "generative"
    assert lines_changed(_entry("delete-range")) == 2
    assert lines_changed(_entry("insert-frontmatter")) == 1


def test_plan_summary_counts_per_tier_and_rule_auto_first() -> None:
    entries = [_entry("delete-range", "a.md"), _entry("delete-range", "b.md"), _entry(None)]
    rows = plan_summary(entries)
    tiers = [r.tier for r in rows]
    assert tiers == sorted(tiers, key=lambda t: t != "auto")
    by_rule = {r.rule: r for r in rows}
    assert (by_rule["delete-range"].ops, by_rule["delete-range"].files) == (2, 2)
    assert by_rule["delete-range"].lines == 4


def test_summary_text_and_labels() -> None:
    rows = [Row("auto", "delete-range", 2, 2, 4), Row("confirm", "dedupe", 1, 1, 1)]
    text = summary_text(rows, dry_run=True)
    assert text.startswith("clean would change (per tier and rule):")
    assert "  auto (without a prompt): 2 files, 4 lines" in text
    assert "  confirm (once approved): 1 file, 1 line" in text
    assert summary_text([], dry_run=False) == ""
    assert label("a\nb") == "a\\nb"
    assert label("x" * 200).endswith("…") and len(label("x" * 200)) == 128
    assert undo_text([("op1", "a.md", "restored")]) == "restored     op1  a.md"
