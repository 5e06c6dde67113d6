"""Qualify the fallback grammars on real code and write the measured bound into the manifest.

    python grammars/qualify.py [--no-fetch] [--only LANGUAGE]... [--report FILE]

For each language of grammars/qualify.toml: fetch its pinned items (scripts/corpora.toml,
group `qualify`) into the user's cache folder, pick files by the pinned globs, drop the
listed exclusions and the files the checker itself would not parse (too large, not UTF-8
text, detected as another language), confirm validity with the language's toolchain where
one is named, sample at most `cap` files with the pinned seed, parse each with the checker's
own `parse` and `candidate_regions` (what it reports), and count the files with any. The share of
flagged files gets a Wilson 95% upper bound; a language is qualified only when that bound
is at most MAX_BOUND. The result is written into grammars/manifest.toml (`measured`, and
`qualified = false` plus a note for a language that fails), atomically. Nothing fetched is
committed; the corpus id (a hash of the pins) ties the measurement to the list it came from.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import math
import os
import random
import re
import sys
import tempfile
import time
import tomllib
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
QUALIFY = HERE / "qualify.toml"
MANIFEST = HERE / "manifest.toml"
CORPORA = ROOT / "scripts" / "corpora.toml"
#: A qualified grammar flags at most this share of valid files (Wilson 95% upper bound).
MAX_BOUND = 0.02
Z95 = 1.959963984540054
GROUP = "qualify"
#: Seconds one parse may take; a valid file that takes longer counts as flagged.
PARSE_SECONDS = 30
#: Broken copies per language (the first unflagged files in order), each parsed at most
#: BROKEN_SECONDS: some grammars take very long to recover from a deleted bracket.
BROKEN_FILES = 100
BROKEN_SECONDS = 1


def _corpora() -> Any:
    sys.path.insert(0, str(ROOT / "scripts"))
    import corpora

    return corpora


def wilson_upper(flagged: int, n: int, z: float = Z95) -> float:
    """The Wilson score interval's upper bound for `flagged` of `n` (1.0 when n is 0)."""
    if n <= 0:
        return 1.0
    p = flagged / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return min(1.0, (centre + spread) / (1 + z * z / n))


def load_plan(path: Path = QUALIFY) -> dict[str, Any]:
    """The parsed qualification list; raises ValueError on an unknown format."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != 1:
        raise ValueError(f"{path}: unknown format {data.get('format')!r}")
    return data


def corpus_id(plan: dict[str, Any], language: str, corpora_manifest: Path = CORPORA) -> str:
    """A hash of everything that pins `language`'s corpus: its entry, the cap and seed,
    and the pins of its items. A changed list or pin gives a new id, so a stored
    measurement no longer counts."""
    mod = _corpora()
    items = mod.load_manifest(corpora_manifest)
    entry = next(e for e in plan["language"] if e["language"] == language)
    pins = [mod.stamp_of(items[i]) for i in entry["items"]]
    blob = json.dumps(
        {"entry": entry, "cap": plan["cap"], "seed": plan["seed"], "pins": pins}, sort_keys=True
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclass
class Result:
    """One language's measurement: what was parsed, what was flagged, what was left out."""

    language: str
    corpus: str
    candidates: int = 0
    files: list[str] = field(default_factory=list)
    flagged: list[str] = field(default_factory=list)
    #: Broken copies made (`broken`) and how many of them the grammar flagged (`caught`).
    broken: int = 0
    caught: int = 0
    excluded: dict[str, str] = field(default_factory=dict)

    @property
    def bound(self) -> float:
        """The Wilson 95% upper bound of the flagged share."""
        return wilson_upper(len(self.flagged), len(self.files))

    def fields(self, cap: int) -> dict[str, Any]:
        """The manifest's `measured` table for this result."""
        n = len(self.files)
        return {
            "corpus": self.corpus,
            "files": n,
            "flagged": len(self.flagged),
            "rate": round(len(self.flagged) / n, 4) if n else 1.0,
            "bound": round(self.bound, 4),
            "excluded": len(self.excluded),
            "cap": cap,
            "recall": round(self.caught / self.broken, 4) if self.broken else 0.0,
        }


def _excluded_by(rel: str, rules: list[dict[str, str]]) -> str | None:
    for rule in rules:
        if fnmatch.fnmatchcase(rel, rule["glob"].replace("**/", "*/").replace("/**", "/*")):
            return rule["reason"]
    return None


def _toolchain_rejects(kind: str, path: Path, src: bytes) -> str | None:
    """Why the language's own toolchain rejects `src`, or None when it accepts it."""
    if kind == "python-compile":
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile(src, str(path), "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            return f"rejected by Python's compile(): {type(exc).__name__}"
        return None
    raise ValueError(f"unknown toolchain check {kind!r}")


_END = re.compile(rb"\bend\b")


def broken_copy(src: bytes) -> bytes | None:
    """`src` with real breakage: its last closing bracket deleted, else its last `end`
    keyword; None when it has neither."""
    last = max(src.rfind(b")"), src.rfind(b"]"), src.rfind(b"}"))
    if last >= 0:
        return src[:last] + src[last + 1 :]
    ends = list(_END.finditer(src))
    if ends:
        return src[: ends[-1].start()] + src[ends[-1].end() :]
    return None


def measure(plan: dict[str, Any], entry: dict[str, Any], root: Path) -> Result:
    """Measure one language's grammar on its corpus under `root` (fetched items)."""
    from orchestrate_plugins.treesitter_checker import DeadlineHit, candidate_regions, parse

    from orchestrator.api import MAX_FILE_BYTES
    from orchestrator.model.languages import HEAD_BYTES, detect, manifest

    language = entry["language"]
    info = manifest()[language]
    result = Result(language, corpus_id(plan, language))
    pool: list[tuple[str, Path]] = []
    for item in entry["items"]:
        base = root / item
        found = {p for g in entry["globs"] for p in base.glob(g) if p.is_file()}
        pool += [(f"{item}/{p.relative_to(base).as_posix()}", p) for p in sorted(found)]
    valid: list[tuple[str, Path, bytes]] = []
    for rel, path in pool:
        why = _excluded_by(rel, entry.get("exclude", []))
        src = b""
        if why is None:
            src = path.read_bytes()
            if len(src) > MAX_FILE_BYTES:
                why = f"larger than the checker's limit ({MAX_FILE_BYTES} bytes)"
            elif b"\x00" in src:
                why = "binary (NUL bytes): the checker does not parse it"
        if why is None:
            try:
                src.decode("utf-8")
            except UnicodeDecodeError:
                why = "not UTF-8 text: the checker does not parse it"
        if why is None and detect(path.name, src[:HEAD_BYTES]) != language:
            why = "detected as another language: the checker would not use this grammar"
        if why is None and entry.get("toolchain"):
            why = _toolchain_rejects(entry["toolchain"], path, src)
        if why:
            result.excluded[rel] = why
        else:
            valid.append((rel, path, src))
    result.candidates = len(valid)
    if len(valid) > plan["cap"]:
        valid = random.Random(plan["seed"]).sample(valid, plan["cap"])
    for rel, _path, src in sorted(valid):
        result.files.append(rel)
        try:
            tree = parse(info.grammar, src, time.monotonic() + PARSE_SECONDS)
        except DeadlineHit:
            # The checker would not call it clean: it counts against the grammar.
            result.flagged.append(rel)
            continue
        # What the checker reports (its filters applied), not the raw recovery nodes.
        if candidate_regions(info.grammar, src, tree, time.monotonic() + PARSE_SECONDS):
            result.flagged.append(rel)
            continue
        broken = broken_copy(src) if result.broken < BROKEN_FILES else None
        if broken is not None:
            result.broken += 1
            try:
                tree = parse(info.grammar, broken, time.monotonic() + BROKEN_SECONDS)
            except DeadlineHit:
                continue  # not caught within the time: counts against recall
            result.caught += bool(
                candidate_regions(info.grammar, broken, tree, time.monotonic() + BROKEN_SECONDS)
            )
    return result


_BLOCK = re.compile(r"(?ms)^\[\[language\]\]\n.*?(?=^\[\[|\Z)")


def _toml_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def failing_note(fields: dict[str, Any]) -> str:
    """The manifest note of a language whose measured bound is above MAX_BOUND."""
    return (
        f"measured on real code: {fields['flagged']} of {fields['files']} valid files flagged "
        f"(rate {fields['rate']}, Wilson 95% upper bound {fields['bound']} > {MAX_BOUND})"
    )


#: What an earlier run or the written corpus put in a note; a new measurement replaces it.
_MEASURED_PARTS = re.compile(
    r"measured on real code: [^;]*|qualified by the written corpus only, not yet measured on real code"
)


def _kept_note(line: str) -> str:
    """The part of a `note = "..."` line that is not about a measurement (other people's
    notes on the grammar's gaps stay)."""
    text = tomllib.loads(line)["note"]
    parts = [p.strip() for p in _MEASURED_PARTS.sub("", text).split(";")]
    return "; ".join(p for p in parts if p)


def apply(text: str, language: str, fields: dict[str, Any]) -> str:
    """`text` (the manifest) with `language`'s `measured` table set to `fields`; a
    language whose bound exceeds MAX_BOUND becomes `qualified = false` with the rate in
    its note, and one an earlier measurement unqualified becomes `qualified = true` again
    when its bound passes. Other lines and comments stay as they are."""

    def edit(match: re.Match[str]) -> str:
        block = match.group(0)
        if not re.search(rf'(?m)^language = "{re.escape(language)}"$', block):
            return block
        lines = [ln for ln in block.splitlines(keepends=True) if not ln.startswith("measured =")]
        failing = fields["bound"] > MAX_BOUND
        notes = [tomllib.loads(ln)["note"] for ln in lines if ln.startswith("note =")]
        # Unqualified by an earlier measurement, and only by it: a passing run undoes it.
        demoted = any("measured on real code:" in n for n in notes)
        kept = [_kept_note(ln) for ln in lines if ln.startswith("note =")]
        rest = "; ".join(k for k in kept if k)
        out = []
        for ln in lines:
            if failing and ln.startswith("qualified = true"):
                ln = "qualified = false\n"
            elif not failing and demoted and ln.startswith("qualified = false"):
                ln = "qualified = true\n"
            if ln.startswith("note ="):
                continue
            out.append(ln)
            if ln.startswith("qualified ="):
                out.append(f"measured = {_toml_value(fields)}\n")
                note = "; ".join(n for n in (failing_note(fields) if failing else "", rest) if n)
                if note:
                    out.append(f"note = {_toml_value(note)}\n")
        return "".join(out)

    return _BLOCK.sub(edit, text)


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` in one rename (a reader sees the old file or the new)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def main(argv: list[str] | None = None) -> int:
    """Fetch, measure and record; 0 when every chosen language was measured."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="LANGUAGE")
    parser.add_argument("--no-fetch", action="store_true", help="use the cache as it is")
    parser.add_argument("--report", type=Path, help="write flagged and excluded files here")
    args = parser.parse_args(argv)
    plan = load_plan()
    mod = _corpora()
    entries = [e for e in plan["language"] if not args.only or e["language"] in args.only]
    if not args.no_fetch:
        ids = sorted({i for e in entries for i in e["items"]})
        if mod.main([arg for i in ids for arg in ("--only", i)]) != 0:
            return 1
    root = mod.cache_root()
    text = MANIFEST.read_text(encoding="utf-8")
    report: dict[str, Any] = {}
    for entry in entries:
        result = measure(plan, entry, root)
        fields = result.fields(plan["cap"])
        text = apply(text, entry["language"], fields)
        verdict = "qualified" if fields["bound"] <= MAX_BOUND else "NOT qualified"
        print(
            f"{result.language}: {fields['flagged']}/{fields['files']} flagged "
            f"(of {result.candidates} valid, {fields['excluded']} excluded), "
            f"bound {fields['bound']}, recall on broken copies {fields['recall']}: {verdict}"
        )
        report[result.language] = {
            **fields,
            "flagged_files": result.flagged,
            "excluded_files": result.excluded,
        }
    write_atomic(MANIFEST, text)
    if args.report:
        write_atomic(args.report, json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
