"""The stored peak-memory figures of every grammar (grammars/rss_measure.py) are current
and within bounds.

The measurement is a slow real-corpus job (the largest real file of each bundled grammar
in the pinned `default` and `qualify` corpora, each parsed in a fresh process); this
fast test reads what it stored. It fails when the figures are stale (other pins, other
parse code, other grammar packages: re-run `python grammars/rss_measure.py --write`),
when a grammar is over the bound, or when a bundled grammar is neither measured nor
listed as unmeasured. Hack is measured on a stand-in: the largest real PHP file
(`rss_measure.STAND_INS` says why).
"""

from __future__ import annotations

import json
from importlib.metadata import version

import pytest
from helpers import REPO
from orchestrate_grammars import rss_measure

RESULTS = json.loads((REPO / "grammars" / "rss_results.json").read_text(encoding="utf-8"))
RERUN = "stale: re-run python grammars/rss_measure.py --write"


def test_the_figures_are_for_the_current_pins_code_and_grammars() -> None:
    assert RESULTS["format"] == 1
    manifest = {item.id: item for item in rss_measure.chosen_items()}
    assert set(RESULTS["pins"]) <= set(manifest), RERUN  # an item it used was removed
    assert RESULTS["pins"] == rss_measure.pins([manifest[i] for i in RESULTS["pins"]]), RERUN
    assert {row["item"] for row in RESULTS["grammars"].values()} == set(RESULTS["pins"])
    assert RESULTS["checker_digest"] == rss_measure.checker_digest(), RERUN
    for dist, measured in RESULTS["packages"].items():
        assert version(dist) == measured, RERUN
    assert (RESULTS["per_byte"], RESULTS["floor"]) == (rss_measure.PER_BYTE, rss_measure.FLOOR)


def test_every_bundled_grammar_is_measured_or_named_unmeasured() -> None:
    bundled = set(rss_measure.bundled_grammars())
    measured = set(RESULTS["grammars"])
    unmeasured = set(RESULTS["unmeasured"])
    assert not measured & unmeasured
    assert measured | unmeasured == bundled
    # The corpora held a file of at least these when the figures were written: fewer
    # would mean the walk broke, not that memory got better.
    assert len(measured) >= 74


@pytest.mark.parametrize("grammar", sorted(RESULTS["grammars"]))
def test_each_measured_grammar_stays_within_its_per_byte_bound(grammar: str) -> None:
    row = RESULTS["grammars"][grammar]
    assert rss_measure.within(row["bytes"], row["growth"]), row


def test_the_largest_perl_file_keeps_the_process_under_300_mb() -> None:
    row = RESULTS["grammars"]["perl"]
    assert row["bytes"] > 900_000
    assert row["peak"] < 300 << 20, row


def test_every_bundled_grammar_has_a_real_file_measured() -> None:
    assert not RESULTS["unmeasured"]
    assert set(RESULTS["grammars"]) == set(rss_measure.bundled_grammars())


def test_a_stand_in_is_only_for_a_grammar_without_files_of_its_own_and_says_so() -> None:
    """A grammar measured on another language's file (hack on PHP) is one STAND_INS
    names, with its reason in the row; the stand-in language was measured on the
    very same file (its own largest), so the row is a real file of the pinned corpora."""
    rows = RESULTS["grammars"]
    stood_in = {g for g, row in rows.items() if "stand_in" in row}
    assert stood_in <= set(rss_measure.STAND_INS)
    for grammar in stood_in:
        source, why = rss_measure.STAND_INS[grammar]
        assert (rows[grammar]["stand_in"], rows[grammar]["why"]) == (source, why)
        own = rows[source]
        assert (rows[grammar]["item"], rows[grammar]["path"]) == (own["item"], own["path"])
