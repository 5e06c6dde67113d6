"""The fallback's parse: memory bounded per source byte, still cancellable, same trees.

Real grammars on real files: the largest file of each bundled grammar found in the
default-group corpora (scripts/fetch; docs/corpora.md), parsed in a fresh process whose
peak RSS (VmHWM: its own, not the inherited `ru_maxrss`) is read before and after. The `perl-modules` item holds three
large Perl core modules: before the read window (`treesitter_checker._Window`), the
182 KiB Unicode/UCD.pm took the process to 572 MB and the 960 KiB Module/CoreList.pm
grew it by 348 MB (354 bytes per source byte), as py-tree-sitter keeps every chunk a
read callback returns.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import REPO, corpus
from orchestrate_grammars import rss_measure
from orchestrate_plugins.treesitter_checker import CHUNK, DeadlineHit, _parser, parse

from orchestrator.api import HEAD_BYTES, detect, grammar_info

#: The default-group items whose files are searched for each grammar's largest file.
ITEMS = (
    "attrs",
    "packaging",
    "qs",
    "dracut",
    "repo2docker",
    "hygiene-structlog",
    "eslint-8",
    "perl-modules",
)
PERL = "root/usr/share/perl/5.36.0"
#: Peak RSS growth allowed per source byte, plus a fixed floor (grammar tables, the
#: tree's first blocks): grammars/rss_measure.py's bound. Measured growth, fixed code:
#: Perl 48 B/byte (CoreList.pm, 47.6 MB), Python 35, Markdown 47, XML 96 on 56 KB, every
#: other grammar under 30 on files over 40 KB; small files stay within the floor (Julia
#: 754 bytes: 1.9 MB). Before the fix Perl was 354 B/byte.
PER_BYTE = rss_measure.PER_BYTE
FLOOR = rss_measure.FLOOR
#: The issue's case: a 183 KB Perl script must keep the whole process under this.
PERL_PEAK = 300 << 20


def _largest_per_grammar() -> dict[str, Path]:
    """Each bundled grammar's largest real file (at most MAX_FILE_BYTES) in ITEMS, chosen
    as grammars/rss_measure.py chooses (each item fetched, or the test fails saying so)."""
    folders = [corpus(item) for item in ITEMS]
    items = [SimpleNamespace(id=folder.name) for folder in folders]
    found = rss_measure.largest_per_grammar(items, folders[0].parent)
    return {g: path for g, (_item, path) in found.items()}


def _peak(grammar: str, path: Path) -> tuple[int, int, int]:
    """(source bytes, peak RSS growth, the child's own peak) of one parse in a fresh
    process (rss_measure.peak: VmHWM, never the xdist worker's inherited peak)."""
    return rss_measure.peak(grammar, path)


def test_peak_rss_per_source_byte_every_grammar_with_a_real_file() -> None:
    """Every grammar the corpora have a file of: peak growth <= PER_BYTE per byte + FLOOR."""
    files = _largest_per_grammar()
    # The corpora cover these at least (a smaller set means the walk broke, not a pass).
    assert {"bash", "html", "javascript", "markdown", "perl", "python", "yaml"} <= set(files)
    over = {}
    for grammar, path in files.items():
        size, growth, _after = _peak(grammar, path)
        if growth > PER_BYTE * size + FLOOR:
            over[grammar] = (path.name, size, growth)
    assert not over, over


def test_the_183_kb_perl_script_stays_under_300_mb() -> None:
    """Unicode/UCD.pm (182 KiB): 572 MB peak before the fix, 41 MB after."""
    size, _growth, after = _peak("perl", corpus("perl-modules") / PERL / "Unicode/UCD.pm")
    assert size > 180_000
    assert after < PERL_PEAK, after


def test_a_multi_megabyte_real_file_is_cancelled_near_the_deadline() -> None:
    """6.9 MB of real Perl (CoreList.pm seven times; 0.16 to 0.6 s to parse whole, by the
    machine) stops at a 0.05 s deadline: the progress callback still fires (a whole-bytes
    parse ignores it). The deadline is well under the fastest whole parse seen: at 0.2 s
    a quick machine finished the parse first."""
    src = (corpus("perl-modules") / PERL / "Module/CoreList.pm").read_bytes() * 7
    assert len(src) > 6_000_000
    start = time.monotonic()
    with pytest.raises(DeadlineHit):
        parse("perl", src, start + 0.05)
    assert time.monotonic() - start < 1.5
    # The parser stays usable after a cancelled parse.
    assert not parse("perl", b"my $x = 1;\n", time.monotonic() + 60).root_node.has_error


def _corpus_files() -> list[tuple[str, Path]]:
    out = []
    for folder in sorted((REPO / "grammars" / "corpus").iterdir()):
        for path in sorted(folder.iterdir()):
            info = grammar_info(detect(path.name, path.read_bytes()[:HEAD_BYTES]))
            if info is not None:
                out.append((info.grammar, path))
    return out


def test_the_window_gives_the_trees_of_a_whole_bytes_parse() -> None:
    """The refilled window is read correctly: every written corpus file, and a real
    file of many windows, parse to the tree the whole bytes give."""
    files = _corpus_files()
    assert len({g for g, _ in files}) >= 30
    files.append(("perl", corpus("perl-modules") / PERL / "Unicode/UCD.pm"))
    for grammar, path in files:
        src = path.read_bytes()
        whole = str(_parser(grammar).parse(src).root_node)
        windowed = parse(grammar, src, time.monotonic() + 60)
        assert str(windowed.root_node) == whole, path
    assert len(files[-1][1].read_bytes()) > 40 * CHUNK
