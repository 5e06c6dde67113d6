"""Measure the exact parser tier on the qualification corpus (docs/grammars.md).

    python grammars/confirm_measure.py [--no-fetch] [--only LANGUAGE]... [--clean]
        [--plan QUALIFY_TOML] [--corpora CORPORA_TOML] [--report FILE]

For each language of the qualification list that has an exact parser
(plugins/exact_parsers.py): take the valid files grammars/qualify.py samples (its own
`measure`, so the files and the grammar's flags are exactly what it counts), hand every
file the grammar flags to the exact parser as the checker does, and count what the parser
says: confirmed, refuted, or no verdict (with the reasons). The files are valid (shipped
in a released package, validity decided without the grammar and without this parser),
so a confirmed file is a false alarm of the exact tier: the script lists them and
exits 1. It prints, per language, the share of valid files still flagged after
refutation and its Wilson 95% upper bound.

`--clean` also times the exact parser on the files the grammar found clean (the
`exact_parse_clean` option) and counts what it confirms there (again false alarms).

Nothing is written but the optional `--report` (atomically); qualify.py and the
manifest are left alone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


@dataclass
class Tally:
    """One language's figures."""

    language: str
    parser: str
    identity: str = ""
    files: int = 0
    flagged: int = 0
    confirmed: list[str] = field(default_factory=list)
    refuted: int = 0
    undecided: Counter[str] = field(default_factory=Counter)
    clean_checked: int = 0
    clean_confirmed: list[str] = field(default_factory=list)
    clean_ms: float = 0.0
    flagged_ms: float = 0.0

    def row(self) -> dict[str, Any]:
        """The figures as a JSON-ready mapping."""
        from grammars.qualify import wilson_upper

        left = self.flagged - self.refuted
        out: dict[str, Any] = {
            "parser": self.identity or self.parser,
            "files": self.files,
            "flagged": self.flagged,
            "confirmed": len(self.confirmed),
            "refuted": self.refuted,
            "undecided": sum(self.undecided.values()),
            "flagged_share_before": round(self.flagged / self.files, 4) if self.files else None,
            "flagged_share_after": round(left / self.files, 4) if self.files else None,
            "bound_after": round(wilson_upper(left, self.files), 4),
            "ms_per_flagged_file": round(self.flagged_ms / self.flagged, 1)
            if self.flagged
            else None,
            "undecided_reasons": dict(self.undecided.most_common(5)),
            "confirmed_files": self.confirmed,
        }
        if self.clean_checked:
            out |= {
                "clean_checked": self.clean_checked,
                "clean_confirmed": len(self.clean_confirmed),
                "clean_confirmed_files": self.clean_confirmed,
                "ms_per_clean_file": round(self.clean_ms / self.clean_checked, 1),
            }
        return out


def _judge(path: Path, item_root: Path, rel: str, language: str) -> Any:
    """The checker's exact verdict on one corpus file, its package folder as the project."""
    from orchestrate_plugins.exact_confirm import judge

    from orchestrator.deadline import Deadline
    from orchestrator.model.checker import FileTarget, RunContext

    src = path.read_bytes()
    target = FileTarget(path=rel, abs_path=path, language=language, size=len(src))
    ctx = RunContext(project_root=item_root, deadline=Deadline.after(60))
    return judge(target, src, language, ctx)


def measure(entry: dict[str, Any], plan: dict[str, Any], root: Path, clean: bool) -> Tally | None:
    """The exact tier's figures for one language of the plan, or None without a parser."""
    from orchestrate_plugins.exact_parsers import PARSERS

    from grammars import qualify
    from orchestrator.vocab import SyntaxEvidence

    language = entry["language"]
    parsers = [p for p in PARSERS if language in p.languages]
    if not parsers:
        return None
    result = qualify.measure(plan, entry, root)
    tally = Tally(language, "/".join(p.name for p in parsers))
    tally.files, tally.flagged = len(result.files), len(result.flagged)
    flagged = set(result.flagged)
    for rel in result.files:
        is_flagged = rel in flagged
        if not (is_flagged or clean):
            continue
        item, _, inner = rel.partition("/")
        started = time.perf_counter()
        verdict = _judge(root / item / inner, root / item, inner, language)
        spent = (time.perf_counter() - started) * 1000
        if verdict is None:
            continue
        if verdict.parser and not tally.identity:
            tally.identity = verdict.parser.version or ""
        if is_flagged:
            tally.flagged_ms += spent
            if verdict.evidence == SyntaxEvidence.CONFIRMED:
                line = verdict.errors[0][0] if verdict.errors else "?"
                tally.confirmed.append(
                    f"{rel}:{line}: {verdict.errors[0][2] if verdict.errors else ''}"
                )
            elif verdict.evidence == SyntaxEvidence.REFUTED:
                tally.refuted += 1
            else:
                tally.undecided[(verdict.reason or "?")[:120]] += 1
        else:
            tally.clean_checked += 1
            tally.clean_ms += spent
            if verdict.evidence == SyntaxEvidence.CONFIRMED:
                tally.clean_confirmed.append(
                    f"{rel}:{verdict.errors[0][0] if verdict.errors else '?'}"
                )
    return tally


def _patch_corpora(corpora: Path) -> None:
    """Make qualify.py's corpus id read `corpora` (another list than the repository's)."""
    from grammars import qualify

    original = qualify.corpus_id
    qualify.corpus_id = lambda plan, language, _m=corpora: original(plan, language, _m)  # type: ignore[assignment]


def main(argv: list[str] | None = None) -> int:
    """Measure, print one line per language, 1 when any confirmed file is a false alarm."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="LANGUAGE")
    parser.add_argument("--no-fetch", action="store_true", help="use the cache as it is")
    parser.add_argument("--clean", action="store_true", help="also judge grammar-clean files")
    parser.add_argument("--plan", type=Path, default=HERE / "qualify.toml")
    parser.add_argument("--corpora", type=Path, default=ROOT / "scripts" / "corpora.toml")
    parser.add_argument("--report", type=Path, help="write the figures here (JSON)")
    args = parser.parse_args(argv)
    from grammars import qualify

    plan = qualify.load_plan(args.plan)
    _patch_corpora(args.corpora)
    mod = qualify._corpora()
    entries = [e for e in plan["language"] if not args.only or e["language"] in args.only]
    from orchestrate_plugins.exact_parsers import languages

    entries = [e for e in entries if e["language"] in languages()]
    if not args.no_fetch:
        ids = sorted({i for e in entries for i in e["items"]})
        fetch = [arg for i in ids for arg in ("--only", i)] + ["--manifest", str(args.corpora)]
        if mod.main(fetch) != 0:
            return 1
    root = mod.cache_root()
    rows: dict[str, Any] = {}
    false_alarms = 0
    for entry in entries:
        tally = measure(entry, plan, root, args.clean)
        if tally is None:
            continue
        row = rows[tally.language] = tally.row()
        false_alarms += row["confirmed"] + row.get("clean_confirmed", 0)
        clean = (
            f"; clean files: {row['clean_checked']} judged, {row['clean_confirmed']} confirmed, "
            f"{row['ms_per_clean_file']} ms each"
            if "clean_checked" in row
            else ""
        )
        print(
            f"{tally.language} ({row['parser']}): {row['flagged']}/{row['files']} flagged by the "
            f"grammar; confirmed {row['confirmed']}, refuted {row['refuted']}, undecided "
            f"{row['undecided']}; flagged share {row['flagged_share_before']} -> "
            f"{row['flagged_share_after']} (bound {row['bound_after']}){clean}"
        )
        for what in row["confirmed_files"] + row.get("clean_confirmed_files", []):
            print(f"  FALSE ALARM (confirmed on a valid file): {what}")
        for why, n in row["undecided_reasons"].items():
            print(f"  undecided x{n}: {why}")
    if args.report:
        qualify.write_atomic(args.report, json.dumps(rows, indent=2) + "\n")
    return 1 if false_alarms else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
