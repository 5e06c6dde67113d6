"""Syntax-only fallback: bundled tree-sitter grammars, candidates not verdicts.

For files no native checker judged, parse with the manifest's grammar and report one
candidate per recovery region (ERROR / MISSING node). A grammar recovers rather than
validates, so zero recovery nodes means "no syntax problem seen", never "valid", and
an unqualified grammar never yields `checked`; a grammar the manifest calls
`unreliable` reports no candidate at all (its files are `not_run`, not judged). Parses are cancellable at the shared
deadline (the read-callback form with `progress_callback`).

tree-sitter is imported lazily inside `run` so loading the plugin costs nothing.
Messages are fixed phrases: they never quote the source.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrate_plugins import treesitter_filters
from orchestrate_plugins.exact_versions import CONFIG_NAMES as EXACT_CONFIG_NAMES
from orchestrate_plugins.treesitter_filters import (
    drop_front_matter_regions,
    drop_html_regions,
    drop_preprocessor_regions,
)

from orchestrator.api import (
    HEAD_BYTES,
    MAX_FILE_BYTES,
    Batch,
    CheckerPlan,
    FileOutcome,
    FileTarget,
    Finding,
    Probe,
    ReuseIdentity,
    RunContext,
    ScopeStatus,
    Severity,
    SyntaxEvidence,
    SyntaxStatus,
    Tier,
    ToolIdentity,
    detect,
    display_name,
    fingerprint,
    grammar_info,
    grammar_manifest,
    hookimpl,
    needs_head,
    one_line,
)

if TYPE_CHECKING:  # the exact parser tier is imported where a file needs it (run)
    from orchestrate_plugins.exact_confirm import Verdict

NAME = "treesitter"
BATCH_SIZE = 64
#: The most source bytes a batch holds for files waiting for a shared exact-parser
#: run (gofmt); past it the waiting files are judged and let go.
HELD_BYTES = 8 << 20
#: Candidates reported per file; the rest are counted in the outcome's reason.
MAX_CANDIDATES = 20
#: Bytes handed to the parser per read callback: the size of the one reused window.
CHUNK = 4096

HINT_CLEAN = "only syntax was checked; native lint recommended for {language}"
HINT_SUSPECT = (
    "candidates: install or repair native lint, or confirm with the language's own parser"
)
HINT_CONFIRMED = "fix the syntax error {parser} reports, then re-run"
#: Why a file is judged by its exact parser alone (`exact_only`), the start of its
#: reason when that parser did not decide.
REASON_GENERATED_ONLY = "generated file, judged by its exact parser only"
REASON_EIGHT_BIT_ONLY = "not valid UTF-8 text, judged by its exact parser only (read as latin-1)"

#: The project setting that also hands files the grammar found clean to the exact parser.
CLEAN_OPTION = "exact_parse_clean"
REASON_UNQUALIFIED = "grammar not qualified: candidates only"
#: The reason of a file whose grammar the manifest calls `unreliable` (most files it
#: flags in released code are valid): its recovery regions are not reported at all.
REASON_UNRELIABLE = (
    "not judged: grammar unreliable for {language} (most files it flags in released "
    "code are valid); its recovery regions are not reported"
)
HINT_UNRELIABLE = "check syntax with {confirm}"
#: What a candidate's message proposes when the manifest names no confirming tool.
CONFIRM_DEFAULT = "the language's own parser (parse only)"
#: The exact parser's verdicts that decide a file (it accepted it, or located its error):
#: such a file is `checked` by the language's own parser, whatever the grammar's standing.
DECIDED = frozenset({SyntaxEvidence.CONFIRMED, SyntaxEvidence.REFUTED})


@dataclass(frozen=True)
class Region:
    """One recovery region: ERROR or MISSING, 0-based rows, byte columns."""

    kind: str  # "error" | "missing"
    node_type: str
    start_row: int
    start_col: int
    end_row: int
    end_col: int
    start_byte: int


def recovery_nodes(tree: Any) -> Iterator[tuple[str, Any]]:
    """("error" | "missing", node) for each recovery node of `tree` in document order.

    An ERROR's subtree is not entered. Walks with a TreeCursor and only descends into
    nodes whose subtree holds an error (`has_error`), so a clean tree costs one check.
    """
    cursor = tree.walk()
    if not cursor.node.has_error:
        return
    while True:
        node = cursor.node
        descend = False
        if node.is_missing:
            yield "missing", node
        elif node.is_error:
            yield "error", node
        elif node.has_error:
            # A MISSING token hidden behind an alias (e.g. C#'s `identifier`) is not
            # visible as a child: the innermost node carrying the error stands for it.
            if any(c.has_error or c.is_missing or c.is_error for c in node.children):
                descend = True
            else:
                yield "missing", node
        if descend and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def _region(kind: str, node: Any) -> Region:
    return Region(kind, node.type, *node.start_point, *node.end_point, node.start_byte)


def recovery_regions(tree: Any) -> Iterator[Region]:
    """ERROR and MISSING nodes of `tree` in document order; an ERROR's subtree is not entered."""
    for kind, node in recovery_nodes(tree):
        yield _region(kind, node)


def candidate_regions(grammar: str, src: bytes, tree: Any, deadline_at: float) -> list[Region]:
    """The recovery regions worth reporting: known false alarms of the grammar removed.

    C/C++ regions caused by the preprocessor, SCSS regions in a leading front matter
    block and HTML regions HTML5 allows are dropped
    (plugins/treesitter_filters.py); other grammars report every recovery region.
    """
    found = list(recovery_nodes(tree))
    nodes = [n for _, n in found]

    def reparse(variant: bytes) -> list[Any]:
        return [n for _, n in recovery_nodes(parse(grammar, variant, deadline_at))]

    if nodes and grammar in {"c", "cpp"}:
        kept = drop_preprocessor_regions(nodes, src, reparse)
    elif nodes and grammar == "scss":
        kept = drop_front_matter_regions(nodes, src, reparse)
    elif nodes and grammar == "html":
        kept = drop_html_regions(nodes, src)
    else:
        kept = nodes
    keep = {id(n) for n in kept}
    return [_region(kind, n) for kind, n in found if id(n) in keep]


_local = threading.local()


def _parser(grammar: str) -> Any:
    """A parser for `grammar`, one per thread (tree-sitter parsers are not thread-safe)."""
    cache: dict[str, Any] | None = getattr(_local, "parsers", None)
    if cache is None:
        cache = _local.parsers = {}
    parser = cache.get(grammar)
    if parser is None:
        from tree_sitter_language_pack import get_parser

        parser = cache[grammar] = get_parser(grammar)  # type: ignore[arg-type]
    return parser


class _Window:
    """One thread's read window: a fixed buffer refilled on each read callback.

    py-tree-sitter (0.26) keeps a reference to every object a read callback returns,
    for the parser's life: a fresh slice per call kept each one alive (a 183 KB Perl
    file read 25,513 times came to 1.45 GB), and a memoryview of the source kept the
    whole source alive after the parse. So the callback returns only views of this one
    buffer, one view per length, made once: what the parser retains is bounded by
    CHUNK views per thread, whatever the files. The parser reads a chunk only until its
    next read call, so refilling the buffer then is safe. Not re-entrant: `parse`
    finishes before the next one starts on the same thread.
    """

    def __init__(self) -> None:
        self.buffer = bytearray(CHUNK)
        self._views: dict[int, memoryview] = {}
        self._whole = memoryview(self.buffer)

    def fill(self, source: memoryview, byte: int) -> memoryview:
        """The window holding `source[byte : byte + CHUNK]`, as a view of that length."""
        part = source[byte : byte + CHUNK]
        size = len(part)
        self.buffer[:size] = part
        view = self._views.get(size)
        if view is None:
            view = self._views[size] = self._whole[:size]
        return view


def _window() -> _Window:
    window: _Window | None = getattr(_local, "window", None)
    if window is None:
        window = _local.window = _Window()
    return window


class DeadlineHit(Exception):
    """The parse was cancelled at the deadline."""


def parse(grammar: str, src: bytes, deadline_at: float) -> Any:
    """Parse `src` with cancellation at `deadline_at` (monotonic); raises DeadlineHit.

    The read-callback form, because a whole-bytes parse ignores the progress callback
    (it could not be cancelled); its memory stays bounded by the window (`_Window`).
    The tree's node text is not the source: read spans with `src[node.start_byte :
    node.end_byte]`.
    """
    parser = _parser(grammar)
    if time.monotonic() > deadline_at:
        raise DeadlineHit
    window = _window()
    source = memoryview(src)
    try:
        return parser.parse(
            lambda byte, _point: window.fill(source, byte),
            progress_callback=lambda _offset, _has_error: time.monotonic() > deadline_at,
        )
    except ValueError:
        parser.reset()
        if time.monotonic() > deadline_at:
            raise DeadlineHit from None
        raise
    finally:
        source.release()


@cache
def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


@cache
def _code_digest() -> str:
    """A digest of this checker's own code (this module, its region filters and the
    exact parser tier it consults): a stored outcome is the product of that code too,
    so an upgrade that changes how candidates are found, dropped or judged never
    answers with what the old code found."""
    from orchestrate_plugins import exact_confirm, exact_inprocess, exact_parsers

    h = hashlib.sha256()
    for module in (treesitter_filters, exact_confirm, exact_inprocess, exact_parsers):
        h.update(Path(module.__file__ or "").read_bytes())
    h.update(Path(__file__).read_bytes())
    return h.hexdigest()[:16]


@cache
def _in_process_parsers() -> str:
    """The identity of every in-process exact parser (`PyYAML 6.0.3 ...`, Python's
    json and tomllib): what a stable verdict besides the bytes depends on."""
    from orchestrate_plugins import exact_inprocess
    from orchestrate_plugins.exact_parsers import PARSERS

    return ";".join(
        exact_inprocess.identity(p.name)
        for p in sorted(PARSERS, key=lambda p: p.name)
        if p.command is None
    )


def _manifest_digest() -> str:
    """A digest of the grammar manifest as parsed (what `grammar_info` answers from),
    of the checker's own code (`_code_digest`) and of the in-process exact parsers."""
    blob = json.dumps(grammar_manifest(), sort_keys=True, default=repr)
    mixed = blob + _code_digest() + _in_process_parsers()
    return hashlib.sha256(mixed.encode()).hexdigest()[:16]


def tool_identity() -> ToolIdentity:
    """The bundled grammars' identity: the language pack and tree-sitter versions."""
    return ToolIdentity(
        path="tree-sitter-language-pack",
        version=f"tree-sitter-language-pack {_version('tree-sitter-language-pack')}; "
        f"tree-sitter {_version('tree-sitter')}",
    )


def _language(target: FileTarget) -> str | None:
    if target.language:
        return target.language
    head = b""
    if needs_head(target.path):
        try:
            head = target.read_bytes(HEAD_BYTES)
        except OSError:
            return None
    return detect(target.path, head)


def _is_text(src: bytes) -> str | None:
    """None when `src` looks like text; else why not."""
    if b"\x00" in src:
        return "binary file (NUL bytes): not text"
    try:
        src.decode("utf-8")
    except UnicodeDecodeError:
        return "not valid UTF-8 text"
    return None


def candidate_message(region: Region, confirm: str) -> str:
    """A syntax candidate's message: what the grammar saw and what to run to confirm it.

    Fixed phrases plus the grammar's symbol name and the manifest's command; never
    source text or the file name.
    """
    seen = (
        "possible syntax error"
        if region.kind == "error"
        # MISSING node types are grammar symbols (e.g. ")" or "identifier"), not source text.
        else f"possibly missing {one_line(region.node_type, 40)}"
    )
    return f"{seen} (tree-sitter recovery node); confirm with {confirm or CONFIRM_DEFAULT}"


def _finding(path: str, region: Region, severity: Severity, confirm: str) -> Finding:
    rule = f"syntax/{region.kind}"
    message = candidate_message(region, confirm)
    return Finding(
        checker=NAME,
        rule=rule,
        severity=severity,
        tool_severity="candidate",
        path=path,
        # Columns are byte offsets + 1 (tree-sitter points count bytes).
        line=region.start_row + 1,
        column=region.start_col + 1,
        end_line=region.end_row + 1,
        end_column=region.end_col + 1,
        message=message,
        candidate=True,
        fingerprint=fingerprint(NAME, rule, path, f"{region.node_type}@{region.start_byte}"),
        column_unit="utf8",
    )


def _confirmed_finding(path: str, error: tuple[int, int | None, str], verdict: Verdict) -> Finding:
    """A syntax error the language's own parser reported: a verdict, no longer a candidate."""
    line, column, text = error
    rule = "syntax/confirmed"
    return Finding(
        checker=NAME,
        rule=rule,
        severity=Severity.ERROR,
        tool_severity="confirmed",
        path=path,
        line=max(1, line),
        column=column if column and column > 0 else None,
        message=f"syntax error (confirmed by {verdict.label}): {one_line(text, 240)}",
        candidate=False,
        blocking=True,
        fingerprint=fingerprint(NAME, rule, path, f"{line}:{one_line(text, 80)}"),
    )


def _verdict(
    path: str, info: Any, regions: list[Region], verdict: Verdict | None = None
) -> dict[str, Any]:
    """The findings, syntax status and evidence, reason and hint of one parsed file.

    Without an exact verdict the grammar's recovery regions are candidates, unless the
    manifest calls the grammar `unreliable`: then they are no claim at all and the file
    is not judged (`_not_judged`). A confirmed verdict replaces them with the parser's
    errors (blocking); a refuted one drops them.
    """
    severity = Severity.ERROR if info.qualified else Severity.WARNING
    reasons = []
    evidence = verdict.evidence if verdict else None
    if info.unreliable and not info.qualified and evidence not in DECIDED:
        return _not_judged(info, verdict)
    if not info.qualified and evidence not in DECIDED:
        # A template names itself, so it is not read as a broken HTML/XML/CSS file.
        reasons.append(REASON_UNQUALIFIED + (f" ({info.note})" if info.template else ""))
    exact: dict[str, Any] = {
        "syntax_evidence": SyntaxEvidence.CANDIDATE if regions else None,
        "syntax_parser": verdict.parser if verdict else None,
    }
    if evidence == SyntaxEvidence.CONFIRMED:
        assert verdict is not None
        # The first error is the parser's verdict; the ones after it are often its own
        # recovery, so they are counted, not reported.
        first = verdict.errors[0] if verdict.errors else (1, None, "rejected")
        reasons.append(f"syntax error confirmed by {verdict.label}")
        if verdict.reason:  # read with a caveat (an 8-bit INI file read as latin-1)
            reasons.append(verdict.reason)
        more = len({e for e in verdict.errors if e != first})
        if more:
            reasons.append(f"{more} further error(s) reported after the first")
        return {
            "reason": "; ".join(reasons),
            "findings": (_confirmed_finding(path, first, verdict),),
            "syntax": SyntaxStatus.SUSPECTED_ISSUE,
            "hint": HINT_CONFIRMED.format(parser=verdict.label),
            **exact,
            "syntax_evidence": SyntaxEvidence.CONFIRMED,
        }
    if evidence == SyntaxEvidence.REFUTED and verdict is not None:
        if regions:
            reasons.append(
                f"{len(regions)} grammar candidate(s) refuted by {verdict.label} (it accepts the file)"
            )
            exact["syntax_evidence"] = SyntaxEvidence.REFUTED
        else:
            reasons.append(f"also accepted by {verdict.label}")
        if verdict.reason:  # accepted with a caveat (JSON valid only as JSONC)
            reasons.append(verdict.reason)
        return {
            "reason": "; ".join(reasons),
            "findings": (),
            "syntax": SyntaxStatus.CLEAN,
            "hint": HINT_CLEAN.format(language=info.language),
            **exact,
        }
    findings = tuple(_finding(path, r, severity, info.confirm) for r in regions[:MAX_CANDIDATES])
    omitted = len(regions) - len(findings)
    if omitted:
        reasons.append(f"{omitted} more candidates omitted (limit {MAX_CANDIDATES} per file)")
    if verdict is not None and verdict.reason and regions:
        reasons.append(verdict.reason)
    return {
        "reason": "; ".join(reasons) or None,
        "findings": findings,
        "syntax": SyntaxStatus.SUSPECTED_ISSUE if regions else SyntaxStatus.CLEAN,
        "hint": HINT_SUSPECT if regions else HINT_CLEAN.format(language=info.language),
        **exact,
    }


def _not_judged(info: Any, verdict: Verdict | None) -> dict[str, Any]:
    """The outcome fields of a file whose grammar is unreliable and that no exact parser
    decided: no finding, no syntax status, the reason (and the exact tier's, if any)."""
    reasons = [REASON_UNRELIABLE.format(language=display_name(info.language))]
    if verdict is not None and verdict.reason:
        reasons.append(verdict.reason)
    return {
        "reason": "; ".join(reasons),
        "findings": (),
        "syntax": None,
        "hint": HINT_UNRELIABLE.format(confirm=info.confirm or CONFIRM_DEFAULT),
        "syntax_evidence": None,
        "syntax_parser": verdict.parser if verdict else None,
    }


def exact_only(
    target: FileTarget, language: str | None, src: bytes, not_text: str | None
) -> str | None:
    """Why the file is judged by its exact parser alone, never the grammar (None: it is
    not): a generated file (core/plan.split_generated offered it for that), or a file
    that is not UTF-8 (`not_text`, no NUL byte) whose parser reads 8-bit text
    (`ExactParser.eight_bit`: INI)."""
    if target.generated:
        return REASON_GENERATED_ONLY
    if not_text is None or b"\x00" in src:
        return None
    from orchestrate_plugins.exact_parsers import parser_for

    parser = parser_for(language, target.path, src)
    return REASON_EIGHT_BIT_ONLY if parser is not None and parser.eight_bit else None


def check_clean(ctx: RunContext, language: str | None, target: FileTarget, src: bytes) -> bool:
    """Whether a file the grammar found clean goes to the exact parser too.

    By default, where the language's parser is marked `every_file` (the in-process JSON,
    TOML and YAML parsers, and `sh -n`, `bash -n`, `gofmt -e`, `xmllint --noout`: cheap,
    and they find what a grammar accepts, such as a key defined twice). The project's
    `exact_parse_clean` changes that for the parsers that are separate programs: true for
    every one, a list of languages for those too, false for none of them (the in-process
    parsers always judge their files).
    """
    from orchestrate_plugins.exact_parsers import parser_for

    parser = parser_for(language, target.path, src)
    if parser is None:
        return False
    if parser.command is None:
        return True
    value = ctx.config.get(CLEAN_OPTION)
    if value is None:
        return parser.every_file
    if isinstance(value, bool):
        return value
    return parser.every_file or (isinstance(value, list | tuple) and language in value)


def scope_status(info: Any, verdict: Verdict | None) -> ScopeStatus:
    """`checked` when the grammar is qualified or the language's own parser decided the
    file (it accepted it, or located its error); `not_run` when the grammar is
    unreliable (nothing judged the file: its bar counts it under "nothing"); otherwise
    `unqualified` (candidates only)."""
    if info.qualified or (verdict is not None and verdict.evidence in DECIDED):
        return ScopeStatus.CHECKED
    if info.unreliable:
        return ScopeStatus.NOT_RUN
    return ScopeStatus.UNQUALIFIED


class TreeSitterChecker:
    """Tier FALLBACK: parse with a bundled grammar, report recovery regions as candidates."""

    name = NAME
    tier = Tier.FALLBACK
    #: The exact parsers' confirmed errors count code points; a candidate says "utf8".
    column_unit = "codepoint"
    #: Files a strict gate materialises from the judged surface: the language versions
    #: a project declares, which decide whether an exact parser may confirm.
    config_names = EXACT_CONFIG_NAMES

    @property
    def tool_names(self) -> frozenset[str]:
        """The `[tools]` keys this checker reads: the exact parsers' commands."""
        from orchestrate_plugins.exact_parsers import PARSERS

        return frozenset(p.command for p in PARSERS if p.command)

    @property
    def languages(self) -> frozenset[str]:
        """Every language of the grammar manifest (read on first use, not at import)."""
        return frozenset(grammar_manifest())

    def probe(self, root: Path) -> Probe:
        """Bundled grammars, in process: nothing to find, nothing to configure."""
        return Probe()

    def claims(self, target: FileTarget) -> bool:
        """True when the file's language has a grammar in the manifest."""
        return grammar_info(_language(target)) is not None

    def judges_generated(self, target: FileTarget) -> bool:
        """True when an exact parser covers the generated file's language: it alone
        judges the file (no grammar runs on it: `_parse`)."""
        from orchestrate_plugins.exact_parsers import languages

        return self.claims(target) and _language(target) in languages()

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        """Chunks of `BATCH_SIZE` files; nothing to resolve up front (grammars are bundled)."""
        ordered = tuple(sorted(targets, key=lambda t: t.path))
        batches = tuple(
            Batch(targets=ordered[i : i + BATCH_SIZE], label=f"{NAME}[{i // BATCH_SIZE}]")
            for i in range(0, len(ordered), BATCH_SIZE)
        )
        return CheckerPlan(batches=batches)

    def reuse_identity(self, batch: Batch, ctx: RunContext) -> ReuseIdentity:
        """What fixes a file's outcome besides its bytes: the grammar pack and
        tree-sitter versions, the grammar manifest (grammars, qualification, confirm
        commands), this checker's own code and the in-process exact parsers'
        versions; per file (`facts`), the program parsers of its language (resolved
        path, stamp, version text) and the language version the project declares for
        it (plugins/exact_confirm.reuse_facts). The settings (`exact_parse_clean`,
        `max_parse_bytes`, tool paths) are folded in by core/reuse.py. A decided
        verdict is reused (`Verdict.stable`, `_finish`); no verdict (a missing tool, a
        crash, the deadline) never is."""
        memo: dict[str, str] = {}  # each program resolved once for the batch

        def facts(target: FileTarget) -> str:
            # A generated file is judged without its grammar: another outcome.
            mark = "generated;" if target.generated else ""
            language = _language(target)
            if language not in _program_languages():
                return mark
            from orchestrate_plugins.exact_confirm import reuse_facts

            return mark + reuse_facts(target.path, language, ctx, memo)

        return ReuseIdentity(
            tool=tool_identity(), config_digest=_manifest_digest(), rules="syntax", facts=facts
        )

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        """One outcome per file; faults and the deadline become outcomes, never exceptions.

        Files whose exact parser checks many files in one process (gofmt) wait for the
        batch's others (at most `HELD_BYTES` of their source held) and are judged
        together (plugins/exact_confirm.judge_all); every other file is judged as it
        is parsed."""
        tool = tool_identity()
        outcomes: list[FileOutcome | None] = []
        waiting: list[tuple[int, _Parsed]] = []
        held = 0
        for target in batch.targets:
            got = self._parse(target, ctx, tool)
            if isinstance(got, FileOutcome):
                outcomes.append(got)
                continue
            if got.waits:
                waiting.append((len(outcomes), got))
                outcomes.append(None)
                held += len(got.src)
                if held > HELD_BYTES:
                    self._judge_waiting(waiting, outcomes, ctx, tool)
                    waiting, held = [], 0
                continue
            outcomes.append(self._judge_one(got, ctx, tool))
        self._judge_waiting(waiting, outcomes, ctx, tool)
        return [o for o in outcomes if o is not None]

    def _judge_one(self, parsed: _Parsed, ctx: RunContext, tool: ToolIdentity) -> FileOutcome:
        verdict = None
        if parsed.judged:
            from orchestrate_plugins.exact_confirm import judge

            try:
                verdict = judge(parsed.target, parsed.src, parsed.language, ctx)
            except Exception as exc:  # noqa: BLE001 - never raised; an outcome if it were
                return parsed.out(tool, ScopeStatus.TOOL_ERROR, reason=_fault(exc))
        return _finish(parsed, verdict, tool)

    def _judge_waiting(
        self,
        waiting: Sequence[tuple[int, _Parsed]],
        outcomes: list[FileOutcome | None],
        ctx: RunContext,
        tool: ToolIdentity,
    ) -> None:
        if not waiting:
            return
        from orchestrate_plugins.exact_confirm import judge_all

        started = time.monotonic()
        try:
            verdicts = judge_all([(p.target, p.src, p.language) for _, p in waiting], ctx)
        except Exception as exc:  # noqa: BLE001 - never raised; outcomes if it were
            for i, parsed in waiting:
                outcomes[i] = parsed.out(tool, ScopeStatus.TOOL_ERROR, reason=_fault(exc))
            return
        share = (time.monotonic() - started) / len(waiting)
        for (i, parsed), verdict in zip(waiting, verdicts, strict=True):
            parsed.spent += share
            outcomes[i] = _finish(parsed, verdict, tool)

    def _parse(
        self, target: FileTarget, ctx: RunContext, tool: ToolIdentity
    ) -> FileOutcome | _Parsed:
        """The file parsed (its verdict still to come), or its outcome when it ends here."""
        started = time.monotonic()
        language = _language(target)
        info = grammar_info(language)

        def out(status: ScopeStatus, **kw: Any) -> FileOutcome:
            return FileOutcome(
                path=target.path,
                checker=NAME,
                status=status,
                tool=tool,
                language=language,
                duration_ms=int((time.monotonic() - started) * 1000),
                **kw,
            )

        if info is None:
            return out(ScopeStatus.UNSUPPORTED, reason="no bundled grammar for this file")
        if ctx.deadline.expired():
            return out(
                ScopeStatus.TIMED_OUT,
                reason="deadline reached before parsing",
                syntax=SyntaxStatus.INCOMPLETE,
            )
        try:
            # One byte past the limit tells a truncated read from a file that fits. The
            # tree takes 40 to 70 times the file in memory: larger files are refused
            # before they are read in full.
            limit = min(ctx.parse_limit(), MAX_FILE_BYTES)
            src = target.read_bytes(limit + 1)
            if len(src) > limit:
                return out(
                    ScopeStatus.NOT_RUN,
                    reason=f"file too large to parse (> {limit} bytes, the max_parse_bytes limit)",
                )
            why = _is_text(src)
            alone = exact_only(target, language, src, why)
            if why and alone is None:
                return out(ScopeStatus.NOT_RUN, reason=why)
            if alone is not None:
                # Its exact parser alone: no grammar noise, never a candidate.
                regions: list[Region] = []
                judged = True
            else:
                tree = parse(info.grammar, src, ctx.deadline.at)
                regions = candidate_regions(info.grammar, src, tree, ctx.deadline.at)
                del tree
                judged = bool(regions) or check_clean(ctx, language, target, src)
            waits = False
            if judged:
                from orchestrate_plugins.exact_confirm import shares

                waits = shares(target, src, language)
        except DeadlineHit:
            return out(
                ScopeStatus.TIMED_OUT,
                reason="parse cancelled at the deadline",
                syntax=SyntaxStatus.INCOMPLETE,
            )
        except Exception as exc:  # noqa: BLE001 - a broken grammar or unreadable file is an outcome
            return out(ScopeStatus.TOOL_ERROR, reason=_fault(exc))
        return _Parsed(
            target,
            language,
            info,
            regions,
            src,
            judged,
            waits,
            started,
            time.monotonic() - started,
            alone,
        )


def _fault(exc: Exception) -> str:
    return one_line(f"{type(exc).__name__}: {exc}")


@dataclass
class _Parsed:
    """A file the grammar parsed, its exact verdict still to come: whether it goes to
    the exact parser (`judged`), and whether it waits for the batch's others (`waits`:
    its parser checks many files in one process)."""

    target: FileTarget
    language: str | None
    info: Any
    regions: list[Region]
    src: bytes
    judged: bool
    waits: bool
    started: float
    #: Seconds spent on this file so far (its parse, its share of a shared run).
    spent: float
    #: Why its exact parser alone judges it (`exact_only`), or None.
    alone: str | None = None

    def out(self, tool: ToolIdentity, status: ScopeStatus, **kw: Any) -> FileOutcome:
        """This file's outcome."""
        return FileOutcome(
            path=self.target.path,
            checker=NAME,
            status=status,
            tool=tool,
            language=self.language,
            duration_ms=int(self.spent * 1000),
            **kw,
        )


def _finish(parsed: _Parsed, verdict: Verdict | None, tool: ToolIdentity) -> FileOutcome:
    """The outcome of a parsed file and its exact verdict (None: none was asked)."""
    if not parsed.waits:
        parsed.spent = time.monotonic() - parsed.started
    if parsed.alone is not None and (verdict is None or verdict.evidence not in DECIDED):
        # A file its exact parser alone judges and did not decide (a size cap, a
        # missing program): nothing judged it, and never a candidate.
        why = verdict.reason if verdict is not None and verdict.reason else None
        return parsed.out(
            tool,
            ScopeStatus.NOT_RUN,
            reason=parsed.alone + (f": {why}" if why else ": no verdict"),
            syntax_parser=verdict.parser if verdict else None,
            reusable=verdict is None or verdict.stable,
        )
    return parsed.out(
        tool,
        scope_status(parsed.info, verdict),
        # No verdict (a missing tool, a crash, the deadline) is not covered by this
        # checker's reuse identity (`reuse_identity`); a decided one is (`stable`).
        reusable=verdict is None or verdict.stable,
        **_verdict(parsed.target.path, parsed.info, parsed.regions, verdict),
    )


@cache
def _program_languages() -> frozenset[str]:
    """The languages some program parser (not one in this process) judges."""
    from orchestrate_plugins.exact_parsers import PARSERS

    return frozenset(lang for p in PARSERS if p.command for lang in p.languages)


@hookimpl
def orchestrate_checkers() -> list[TreeSitterChecker]:
    """The tree-sitter fallback checker."""
    return [TreeSitterChecker()]
