"""Share of a lint run spent on language detection: `python bench/detect_share.py DIR...`.

For each DIR, runs `orchestrate lint DIR --no-tasks --format json` in this process
(reuse off, so every run does the whole work) RUNS times, with `detect_language`
wrapped by a timer, and prints the median run time, the median time inside detection
and detection's share of the run. Detection adds nothing else to a run: the first
bytes it reads are the ones file selection reads anyway (the NUL check), so its cost is
the time inside `detect_language`, including the one-off import of `identify` when a
name is unknown to the manifest. Plugins from other distributions are switched off so
the run is the built-in checkers only.

Fetch the real projects first: `scripts/fetch --group bench` (scripts/corpora.toml);
`--item ID` names a fetched item instead of a folder.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUNS = 5


def _item_dir(item_id: str) -> Path:
    sys.path.insert(0, str(REPO / "scripts"))
    import corpora  # scripts/corpora.py

    src = corpora.cache_root() / item_id / "src"
    if not src.is_dir():
        raise SystemExit(f"{item_id}: not fetched; run scripts/fetch --group bench")
    return src


def _traps() -> Path:
    """The tests' detection traps (every engine's template, front matter, each shared
    extension with each of its languages), ten copies each, in a temporary folder."""
    import tempfile

    sys.path.insert(0, str(REPO / "tests"))
    from test_detection_traps import TRAPS

    root = Path(tempfile.mkdtemp(prefix="orchestrate-traps-"))
    for copy in range(10):
        for rel, (content, _expected) in TRAPS.items():
            dest = root / f"c{copy}" / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(content, encoding="utf-8")
    return root


def measure(target: Path, runs: int = RUNS) -> tuple[int, int, float, float]:
    """(files, files decided by content or left undecided, median run seconds, median
    seconds inside detection) for `target`."""
    from orchestrator.cli.main import main
    from orchestrator.model import languages

    spent = [0.0]
    calls = [0]
    by_content = [0]
    real = languages.detect_language

    def timed(path: str, head: bytes = b"") -> languages.Detection:
        t = time.perf_counter()
        try:
            found = real(path, head)
            if found.detected_by == "heuristic" or found.undecided:
                by_content[0] += 1
            return found
        finally:
            spent[0] += time.perf_counter() - t
            calls[0] += 1

    languages.detect_language = timed  # type: ignore[assignment]
    totals, inside = [], []
    here = Path.cwd()
    os.chdir(target)  # the project root is the working folder
    try:
        for _ in range(runs + 1):  # the first run warms the file cache and is dropped
            spent[0], calls[0], by_content[0] = 0.0, 0, 0
            t = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                main(["lint", ".", "--no-tasks", "--format", "json", "--exit-zero"])
            totals.append(time.perf_counter() - t)
            inside.append(spent[0])
    finally:
        languages.detect_language = real  # type: ignore[assignment]
        os.chdir(here)
    return calls[0], by_content[0], statistics.median(totals[1:]), statistics.median(inside[1:])


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", type=lambda p: Path(p).resolve())
    parser.add_argument("--item", action="append", default=[], help="a fetched item id")
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument(
        "--traps", action="store_true", help="also the detection traps of the tests, copied x10"
    )
    args = parser.parse_args(argv)
    os.environ["ORCHESTRATE_REUSE"] = "0"
    sys.path.insert(0, str(REPO / "bench"))
    from run_bench import foreign_plugins

    os.environ["ORCHESTRATE_DISABLE_PLUGINS"] = ",".join(foreign_plugins())
    targets = [(str(d), d) for d in args.dirs] + [(i, _item_dir(i)) for i in args.item]
    if args.traps:
        targets.append(("detection traps x10", _traps()))
    print(f"load average: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        "| sample | files detected | by content or undecided | run (s, median)"
        " | inside detection (ms) | share |"
    )
    print("|---|---|---|---|---|---|")
    for name, target in targets:
        files, sniffed, total, inside = measure(target, args.runs)
        share = inside / total if total else 0.0
        print(f"| {name} | {files} | {sniffed} | {total:.3f} | {inside * 1000:.1f} | {share:.2%} |")
    print(f"load average: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main(sys.argv[1:])
