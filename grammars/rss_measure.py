"""Peak memory of the fallback's parse per source byte, every grammar the corpora hold.

    python grammars/rss_measure.py [--no-fetch] [--write]

For each bundled grammar, the largest real file (at most MAX_FILE_BYTES) that the pinned
corpora of the `default` and `qualify` groups hold and that orchestrate detects as that
grammar is parsed in a fresh process with the checker's own `parse` and
`candidate_regions` (what a lint run does), and the growth of the process's peak RSS
(VmHWM, this process image's own) is read around it. A grammar is within bounds when that growth is at most
PER_BYTE bytes per source byte plus FLOOR. `--write` stores the figures, the pins of the
items the measured files came from (each item's stamp) and the checker code's digest in
grammars/rss_results.json, atomically; tests/test_grammar_rss_results.py checks that file
in the fast tier (a stale one fails: re-run this script). A grammar with no file of its
own in any pinned corpus is measured on the largest file of its `STAND_INS` language
instead, and its row says so (`stand_in`, `why`); one with neither is listed as
`unmeasured`, never left out. Nothing fetched is committed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MANIFEST = HERE / "manifest.toml"
RESULTS = HERE / "rss_results.json"
GROUPS = ("default", "qualify")
#: Peak RSS growth allowed per source byte, plus a fixed floor (grammar tables, the
#: tree's first blocks): the bound tests/test_treesitter_memory.py holds too.
PER_BYTE = 128
FLOOR = 16 << 20
#: A grammar whose language has no file reachable from the registries here -> the
#: grammar whose largest real file it parses instead, and why. Memory is a property of
#: the grammar and the input's size and shape: a real file of the parent language,
#: mostly error recovery for the dialect's grammar, is a harder case, never an easier one.
STAND_INS = {
    "hack": (
        "php",
        "no Hack source is published where this machine can fetch (Debian 12 has no "
        "hhvm; no PyPI or npm package ships .hack/.hhi files): the Hack grammar parses "
        "the largest real PHP file, the language Hack grew from",
    ),
}

CHILD = """
import sys, time
from orchestrate_plugins.treesitter_checker import candidate_regions, parse

def hwm():
    # This process image's peak RSS (VmHWM). Not ru_maxrss: Linux keeps the parent's
    # peak in it across fork and exec, so a child of a big process reads that instead.
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

grammar, path = sys.argv[1], sys.argv[2]
src = open(path, "rb").read()
far = time.monotonic() + 600
parse(grammar, b"\\n", far)  # the grammar loaded: its tables are not the file's cost
before = hwm()
tree = parse(grammar, src, far)
candidate_regions(grammar, src, tree, far)
after = hwm()
print(len(src), before, after)
"""


def _corpora() -> Any:
    sys.path.insert(0, str(ROOT / "scripts"))
    import corpora

    return corpora


def bundled_grammars(manifest: Path = MANIFEST) -> list[str]:
    """Every grammar grammars/manifest.toml bundles, sorted."""
    data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    return sorted({entry["grammar"] for entry in data["language"]})


def checker_digest() -> str:
    """The digest of the fallback's parse code (the reuse identity's), so a change to
    it makes the stored figures stale."""
    from orchestrate_plugins import treesitter_checker

    return treesitter_checker._code_digest()


def pack_versions() -> dict[str, str]:
    """The installed tree-sitter and language pack versions (the grammars measured)."""
    from importlib.metadata import version

    return {d: version(d) for d in ("tree-sitter", "tree-sitter-language-pack")}


def pins(items: list[Any]) -> dict[str, str]:
    """Per item id, the sha256 of its stamp (what the figures were measured on)."""
    mod = _corpora()
    return {i.id: hashlib.sha256(mod.stamp_of(i).encode()).hexdigest()[:16] for i in items}


def chosen_items() -> list[Any]:
    """The manifest items of GROUPS, sorted by id."""
    mod = _corpora()
    return sorted(
        (i for i in mod.load_manifest().values() if i.group in GROUPS), key=lambda i: i.id
    )


def largest_per_grammar(items: list[Any], root: Path) -> dict[str, tuple[str, Path]]:
    """Per grammar, (item id, path) of its largest detected file in the fetched items."""
    from orchestrator.api import HEAD_BYTES, MAX_FILE_BYTES, detect, grammar_info

    best: dict[str, tuple[int, str, Path]] = {}
    for item in items:
        base = root / item.id
        for folder, _dirs, files in os.walk(base):
            for name in files:
                path = Path(folder, name)
                if path.is_symlink() or not path.is_file():
                    continue
                size = path.stat().st_size
                if not 0 < size <= MAX_FILE_BYTES:
                    continue
                with path.open("rb") as fh:
                    head = fh.read(HEAD_BYTES)
                if b"\0" in head:
                    continue
                info = grammar_info(detect(name, head))
                if info is not None and size > best.get(info.grammar, (0, "", path))[0]:
                    best[info.grammar] = (size, item.id, path)
    return {g: (item_id, p) for g, (_s, item_id, p) in sorted(best.items())}


def peak(grammar: str, path: Path) -> tuple[int, int, int]:
    """(source bytes, peak RSS growth in bytes, the process's peak RSS after) of one
    parse in a fresh process. The growth is over the peak before the parse (imports,
    the grammar, the file's bytes): 0 means the parse stayed under that peak."""
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, grammar, str(path)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{grammar} {path}: {proc.stderr[-2000:]}")
    size, before, after = (int(x) for x in proc.stdout.split())
    return size, after - before, after


def within(size: int, growth: int) -> bool:
    """Whether a parse's growth is inside the bound."""
    return growth <= PER_BYTE * size + FLOOR


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` in one step."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    """Fetch, measure, print; with --write store the figures. 0 when every measured
    grammar is within bounds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-fetch", action="store_true", help="use the cache as it is")
    parser.add_argument("--write", action="store_true", help=f"store {RESULTS.name}")
    args = parser.parse_args(argv)
    mod = _corpora()
    items = chosen_items()
    if not args.no_fetch:
        argv_fetch = [a for g in GROUPS if g != "default" for a in ("--group", g)]
        if mod.main([]) != 0 or mod.main(argv_fetch) != 0:
            return 1
    root = mod.cache_root()
    missing = [i.id for i in items if mod.ready(i, root) is None]
    if missing:
        print(f"not fetched: {', '.join(missing)} (run scripts/fetch --group qualify)")
        return 1
    files = largest_per_grammar(items, root)
    # Each grammar on its own largest file; then each stand-in on its language's.
    plan = [(g, *where, None) for g, where in files.items()] + [
        (g, *files[source], (source, why))
        for g, (source, why) in sorted(STAND_INS.items())
        if g not in files and source in files
    ]
    measured: dict[str, Any] = {}
    over = []
    for grammar, item_id, path, stand_in in plan:
        size, growth, after = peak(grammar, path)
        ok = within(size, growth)
        if not ok:
            over.append(grammar)
        measured[grammar] = {
            "item": item_id,
            "path": path.relative_to(root / item_id).as_posix(),
            "bytes": size,
            "growth": growth,
            "peak": after,
            "per_byte": round(growth / size, 1),
        }
        if stand_in is not None:
            measured[grammar].update(stand_in=stand_in[0], why=stand_in[1])
        print(
            f"{grammar:18} {size:>9} B  +{growth / 2**20:7.1f} MB  "
            f"{growth / size:7.1f} B/byte  peak {after / 2**20:6.1f} MB  "
            f"{'ok' if ok else 'OVER'}  ({item_id}"
            + (f", a {stand_in[0]} file: {stand_in[1]})" if stand_in else ")")
        )
    unmeasured = [g for g in bundled_grammars() if g not in measured]
    print(
        f"{len(measured)} grammars measured, {len(over)} over the bound; no file of: "
        f"{', '.join(unmeasured) or 'none'}"
    )
    if args.write:
        out = {
            "format": 1,
            "per_byte": PER_BYTE,
            "floor": FLOOR,
            "checker_digest": checker_digest(),
            "packages": pack_versions(),
            # The items the measured files came from: a new item elsewhere leaves these
            # figures true (it may hold a larger file: re-run to measure that one).
            "pins": pins([i for i in items if i.id in {m["item"] for m in measured.values()}]),
            "grammars": measured,
            "unmeasured": unmeasured,
        }
        write_atomic(RESULTS, json.dumps(out, indent=2, sort_keys=True) + "\n")
    return 1 if over else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
