"""Coverage completeness: the one definition every surface uses.

A report is complete when it has scopes, no plugin failed to load and every scope is
`checked`. The engine's `coverage` block, the lint exit under `--require complete`,
the human verdict, host summaries and MCP all take their answer from `is_complete`
(or, per scope, `is_checked`); the gate's stricter, policy-relative question
("is the *required* coverage there?") lives in decisions/gate.py and builds on the
same per-scope test.

A report merged from shards (`orchestrate report merge`) is complete only when it
holds every shard of one run: `shard_gaps` says what is missing, and both
`failed_checks` and `is_complete` count it, so a merge is never silently smaller.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from orchestrator.model.report import MERGE_ENTRY, Coverage, Report, Scope, files_digest
from orchestrator.vocab import (
    BINARY_REASON,
    LINK_TO_FOLDER_REASON,
    NO_CHECKER_REASON,
    SELECTION_CHECKER,
    UNREADABLE_REASONS,
    ScopeStatus,
    Tier,
)

#: A planned check that started and did not finish: the run is incomplete by default.
#: Every other status that is not `checked` is a reported gap (nothing ran, on purpose
#: or for want of a tool, grammar or configuration) that fails only under `--require`.
FAILED_STATUSES = frozenset({ScopeStatus.TOOL_ERROR, ScopeStatus.TIMED_OUT, ScopeStatus.PARTIAL})


#: The outcomes per-file reuse (core/reuse.py) may store and hand back, and a kept warm
#: run (core/run_memo.py) marks reused: complete results, fixed by their identity.
#: `checked`, and `unqualified` (the fallback parsed the whole file; its grammar is not
#: qualified, so its regions are candidates: the same bytes, grammars and settings give
#: the same candidates). Never `timed_out`, `partial`, `tool_error` (incomplete or
#: failed), `missing` or `configuration_required` (a tool or config may appear), nor
#: `not_run`, `unsupported`, `unsafe` (nothing was checked; they cost nothing to redo).
REUSABLE_STATUSES = frozenset({ScopeStatus.CHECKED, ScopeStatus.UNQUALIFIED})


def is_reusable(status: ScopeStatus | str) -> bool:
    """Whether an outcome of this status may be reused while its identity is unchanged
    (the checker may still refuse one outcome: `FileOutcome.reusable`)."""
    return status in REUSABLE_STATUSES


def is_checked(s: Scope) -> bool:
    """A scope is evidence only when its checker ran to completion."""
    return s.status == ScopeStatus.CHECKED


def nothing_to_check(s: Scope) -> bool:
    """A file nobody lints: refused before any checker because no checker, grammar or
    parser knows its language, because it is binary, or because it is a symlink to a
    folder inside the project (its files are checked under their own paths). Still a scope that is not
    `checked` (JSON and SARIF list it); the readable formats count these in one line."""
    if s.checker != SELECTION_CHECKER:
        return False
    if s.status == ScopeStatus.UNSUPPORTED:
        return (s.reason or "").startswith(NO_CHECKER_REASON) or s.reason == LINK_TO_FOLDER_REASON
    return s.status == ScopeStatus.NOT_RUN and s.reason == BINARY_REASON


def is_failed_check(s: Scope) -> bool:
    """A scope whose check was planned, should have run, and failed (crashed, printed
    something unusable, timed out, or gave only part of its output)."""
    return s.status in FAILED_STATUSES


#: Shards named one by one in a gap; past it the gap says how many more.
_SHARDS_NAMED = 16


def _named(labels: Sequence[str]) -> str:
    more = len(labels) - _SHARDS_NAMED
    return ", ".join(labels[:_SHARDS_NAMED]) + (f" and {more} more" if more > 0 else "")


def shard_gaps(report: Report) -> list[str]:
    """Why a merged report does not hold one whole sharded run: no shard, shards of
    different N or of different file lists, a shard missing, a shard given twice, or
    merged files that are not the list the shards were chosen from (`files_digest`).
    Empty for every report that is not a merge (a shard's own report is its share)."""
    if report.request.entry != MERGE_ENTRY:
        return []
    ids = report.shards
    if not ids:
        return ["no shard was merged"]
    gaps: list[str] = []
    counts = sorted({s.count for s in ids})
    if len(counts) > 1:
        gaps.append(f"shards of different N merged: {', '.join(f'N={n}' for n in counts)}")
    lists = sorted({(s.files_digest, s.files) for s in ids})
    if len(lists) > 1:
        described = [f"{d[:12]} ({n} files)" for d, n in lists]
        gaps.append(f"shards chosen from different file lists merged: {_named(described)}")
    for n in counts:
        seen = Counter(s.index for s in ids if s.count == n)
        missing = [f"{i}/{n}" for i in range(1, n + 1) if not seen[i]]
        twice = [f"{i}/{n}" for i in sorted(seen) if seen[i] > 1]
        if missing:
            gaps.append(f"shard(s) missing: {_named(missing)}")
        if twice:
            gaps.append(f"shard(s) given more than once: {_named(twice)}")
    if len(lists) == 1:
        gaps += _files_gap(report, *lists[0])
    return gaps


def _files_gap(report: Report, digest: str, count: int) -> list[str]:
    """Why the merged files are not the run's list its shards name (a shard's report
    short of files of its share, or naming shares it does not hold); empty when they are."""
    held = {s.path for s in report.scopes}
    if files_digest(held) == digest:
        return []
    return [f"the shards' reports hold {len(held)} of the {count} files of their run"]


#: A checker that cannot run at all (no tool, the tool refuses the project's config).
_CANNOT_RUN = frozenset({ScopeStatus.MISSING, ScopeStatus.CONFIGURATION_REQUIRED})


def is_unreadable(s: Scope) -> bool:
    """A file the user named or the walk found that is there but cannot be read (its
    refused scope says so, vocab.UNREADABLE_REASONS): nothing could judge it."""
    return s.status == ScopeStatus.NOT_RUN and (s.reason or "").startswith(UNREADABLE_REASONS)


def is_configured_gap(s: Scope) -> bool:
    """A checker the project configures that cannot run: a `missing` or
    `configuration_required` scope naming the project's config file for that checker
    (`config_files`: a `ruff.toml` whose `required-version` the Ruff found does not
    meet, an ESLint config with no ESLint, a `.rubocop.yml` with no RuboCop). The
    project asked for that evidence: it is not a quiet gap."""
    return s.status in _CANNOT_RUN and bool(s.config_files)


def failed_checks(report: Report, allow_gaps: Collection[str] | None = None) -> list[str]:
    """Why this run is incomplete whatever the caller required, in report order: what
    a merged report lacks of its sharded run (`shard_gaps`), each plugin that failed to
    load, each failed planned check (`is_failed_check`), each file that cannot be read
    (`is_unreadable`) and each checker the project configures that cannot run
    (`is_configured_gap`), unless its checker is in `allow_gaps` (`--allow-gap`; by
    default what the report records in `request.allow_gaps`)."""
    allowed = set(report.request.allow_gaps if allow_gaps is None else allow_gaps)
    reasons = shard_gaps(report)
    reasons += [f"plugin {p.name} failed to load" for p in report.plugin_failures]
    for s in report.scopes:
        if is_failed_check(s):
            reasons.append(f"{s.path}: {s.checker} {s.status}")
        elif is_unreadable(s):
            reasons.append(f"{s.path}: {s.reason}")
        elif is_configured_gap(s) and s.checker not in allowed:
            configs = ", ".join(s.config_files)
            reasons.append(f"{s.path}: {s.checker} {s.status}, configured by {configs}")
    return reasons


def adds_only(s: Scope) -> bool:
    """A project recipe's scope (tier `project`): it adds findings, never coverage; a
    project recipe that did not run (untrusted, new policy) leaves no gap either."""
    return s.tier == Tier.PROJECT


def complete_scopes(scopes: Sequence[Scope], failures: int = 0) -> bool:
    """True when there are scopes, no plugin failed and every scope is checked (a
    project recipe's only needs not to have failed: `adds_only`)."""
    return (
        failures == 0
        and bool(scopes)
        and all(is_checked(s) or (adds_only(s) and not is_failed_check(s)) for s in scopes)
    )


def _failures(report: Report) -> int:
    """What makes a report incomplete outside its scopes: plugins that failed to load
    and, for a merge, the gaps in its set of shards."""
    return len(report.plugin_failures) + len(shard_gaps(report))


def is_complete(report: Report) -> bool:
    """The one answer to "is this report's coverage complete?"."""
    return complete_scopes(report.scopes, _failures(report))


def report_coverage(report: Report) -> Coverage:
    """The coverage block of `report` from its scopes, failed plugins and shard gaps
    (what the engine computes for a run, computed the same way for a merge)."""
    return coverage_of(report.scopes, _failures(report))


def unchecked(report: Report) -> list[Scope]:
    """The scopes that are not evidence, in report order."""
    return [s for s in report.scopes if not is_checked(s)]


_NATIVE, _FALLBACK, _OTHER = 1, 2, 4
#: Tiers whose scopes are no file's coverage evidence: the policy checks (beside every
#: file) and project recipes (they only add: checkers/project_recipes.py).
_NO_EVIDENCE = frozenset({Tier.POLICY, Tier.PROJECT})


def _tier_bit(s: Scope) -> int:
    """What a scope adds to its file's evidence: its tier when checked, else nothing."""
    if not is_checked(s):
        return 0
    return _NATIVE if s.tier == Tier.NATIVE else _FALLBACK if s.tier == Tier.FALLBACK else _OTHER


def coverage_of(scopes: Sequence[Scope], failures: int = 0) -> Coverage:
    """Counts per status and which files had native evidence, only syntax, or none.

    Each file's evidence is a set of tier bits; scopes that come sorted by path (rows
    read back from disk, model/rows.py) are taken one file at a time, so 100,000 files
    need no table of them."""
    by_status: dict[str, int] = defaultdict(int)
    files = native = syntax = 0
    ordered = getattr(scopes, "path_ordered", False)
    per_file: dict[str, int] = {}
    last: str | None = None
    for s in scopes:
        by_status[str(s.status)] += 1
        if s.tier in _NO_EVIDENCE:
            continue
        if ordered and s.path != last:
            if last is not None:
                files, native, syntax = _count(per_file.pop(last), files, native, syntax)
            last = s.path
        per_file[s.path] = per_file.get(s.path, 0) | _tier_bit(s)
    for bits in per_file.values():
        files, native, syntax = _count(bits, files, native, syntax)
    return Coverage(
        by_status=dict(sorted(by_status.items())),
        native_files=native,
        syntax_only_files=syntax,
        uncovered_files=files - native - syntax,
        complete=complete_scopes(scopes, failures),
    )


def syntax_only_languages(scopes: Sequence[Scope]) -> list[str]:
    """The languages (sorted, each once) of the files only the syntax tier checked and
    no native checker claimed at all: no linter exists for them here, so only their
    syntax was judged. A file a native checker claimed but could not check (missing,
    unconfigured, failed) is that checker's gap, not listed here."""
    bits: dict[str, int] = {}
    language: dict[str, str] = {}
    for s in scopes:
        if s.tier in _NO_EVIDENCE:
            continue
        claimed = _NATIVE if s.tier == Tier.NATIVE else 0
        bits[s.path] = bits.get(s.path, 0) | _tier_bit(s) | claimed
        if s.language:
            language.setdefault(s.path, s.language)
    return sorted({language[p] for p, b in bits.items() if b == _FALLBACK and p in language})


#: The classes of a file's coverage, best first: a native checker checked it; only the
#: syntax tier did (a qualified grammar or the language's own parser); only an unqualified
#: grammar's candidates; nothing at all.
COVERAGE_CLASSES = ("native", "syntax", "candidates", "nothing")
_CANDIDATES = 8


def _class_of(bits: int) -> str:
    if bits & _NATIVE:
        return "native"
    if bits & _FALLBACK:
        return "syntax"
    return "candidates" if bits & _CANDIDATES else "nothing"


def language_coverage(scopes: Sequence[Scope]) -> dict[str, dict[str, int]]:
    """Per language, how many files fall in each of `COVERAGE_CLASSES` (the human
    summary's bar). Policy scopes (the secret scan) add nothing; files nobody lints
    (`nothing_to_check`) are counted elsewhere and left out; a file whose language no
    scope names is under "other". Scopes sorted by path are taken one file at a time."""
    out: dict[str, dict[str, int]] = {}
    ordered = getattr(scopes, "path_ordered", False)
    per_file: dict[str, list[Any]] = {}
    last: str | None = None

    def settle(entry: list[Any]) -> None:
        bits, language, skip = entry
        if skip:
            return
        row = out.setdefault(language or "other", dict.fromkeys(COVERAGE_CLASSES, 0))
        row[_class_of(bits)] += 1

    for s in scopes:
        if s.tier in _NO_EVIDENCE:
            continue
        if ordered and s.path != last:
            if last is not None and last in per_file:
                settle(per_file.pop(last))
            last = s.path
        entry = per_file.setdefault(s.path, [0, None, False])
        entry[0] |= _tier_bit(s) | (_CANDIDATES if s.status == ScopeStatus.UNQUALIFIED else 0)
        entry[1] = entry[1] or s.language
        entry[2] = entry[2] or nothing_to_check(s)
    for entry in per_file.values():
        settle(entry)
    return dict(sorted(out.items(), key=lambda kv: (-sum(kv[1].values()), kv[0])))


def _count(bits: int, files: int, native: int, syntax: int) -> tuple[int, int, int]:
    """The file counts with one more file of evidence `bits`: native if a native
    checker checked it, syntax-only if only the fallback did."""
    return files + 1, native + bool(bits & _NATIVE), syntax + (bits == _FALLBACK)


def missing_required(
    report: Report, require: Sequence[str], native: Mapping[str, str]
) -> list[str]:
    """Reasons why the coverage the caller asked for (`--require`) is incomplete.

    `native` maps a language to the native checker that declares it: the loaded
    checkers' declarations (`PluginSet.native_languages()`), never a table of names."""
    reasons: list[str] = []
    want = set(require)
    if not want:
        return reasons
    native_checkers = native
    if not report.scopes:
        # Nothing was judged: no requirement can be met by an empty run, and the answer
        # must agree with `is_complete` (an empty report is never complete).
        return ["no file was checked: the run has no scopes"]
    by_file: dict[str, list[Scope]] = defaultdict(list)
    for s in report.scopes:
        by_file[s.path].append(s)
    if "complete" in want:
        # A plugin that failed to load checked nothing: the run cannot be complete.
        reasons += [f"plugin {p.name} failed to load" for p in report.plugin_failures]
    for path, every in sorted(by_file.items()):
        # A project recipe's scope satisfies nothing, and its not running is no gap.
        scopes = [s for s in every if not adds_only(s) or is_failed_check(s)]
        checked = [s for s in scopes if is_checked(s) and s.tier not in _NO_EVIDENCE]
        lang = next((s.language for s in every if s.language), None)
        if "complete" in want and not all(is_checked(s) for s in scopes):
            bad = next(s for s in scopes if not is_checked(s))
            reasons.append(f"{path}: {bad.checker} {bad.status}")
        elif "native" in want and lang in native_checkers:
            if not any(s.tier == Tier.NATIVE for s in checked):
                reasons.append(f"{path}: no native ({native_checkers[lang]}) evidence")
        elif "syntax" in want and not checked:
            reasons.append(f"{path}: no checker produced evidence")
    return reasons


def outside_native(report: Report, native: Mapping[str, str]) -> list[str]:
    """The files `--require native` asks nothing of, sorted: no native checker declares
    their language (`native`, as in `missing_required`), or none was recognised. They
    need `--require syntax` (or `complete`) to count."""
    native_checkers = native
    langs: dict[str, str | None] = {}
    for s in report.scopes:
        langs[s.path] = langs.get(s.path) or s.language
    return sorted(p for p, lang in langs.items() if lang not in native_checkers)


__all__ = [
    "FAILED_STATUSES",
    "complete_scopes",
    "coverage_of",
    "failed_checks",
    "is_checked",
    "is_complete",
    "is_configured_gap",
    "is_failed_check",
    "is_unreadable",
    "missing_required",
    "outside_native",
    "report_coverage",
    "shard_gaps",
    "unchecked",
]
