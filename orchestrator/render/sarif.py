"""SARIF 2.1.0 presentation of the report, shaped for code scanning; coverage travels inside it.

One run. `tool.driver` is orchestrate; each checker is one `tool.extensions` component
(its name, the tool version its scopes recorded, its rules), and every result points at
its rule through `rule.toolComponent`. A rule carries what its tool said about it: the
documentation URL (`helpUri`; Ruff's `url`, ESLint's `meta.docs.url`; plain http(s)
only) and description, never a made-up link. What a finding does not carry (Ruff's rule
names and summaries, its home page as the component's `informationUri`) comes from the
checker's plugin (hook `orchestrate_rule_docs`), asked only here, while SARIF is
rendered, never during a lint. The description is display text: control
and bidirectional characters are shown as escapes, and in `help.markdown` every
punctuation character of it is literal, so a plugin's metadata cannot add a link, an
image or a tag to the code scanning page. Levels come from `render.levels` (a syntax candidate is a `note`).
Locations are relative to `%SRCROOT%` (`originalUriBaseIds`), regions are as complete
as the tool gave them, and each result has `partialFingerprints.primaryLocationLineHash`.
Columns count UTF-16 code units, as the run says (`columnKind`, SARIF's default and what
code scanning reads), whatever unit the tool counted in (`render.columns`).

Every scope that is not `checked` becomes one toolExecutionNotification, and the
invocation is `executionSuccessful: false` whenever coverage is incomplete. GitHub
rejects a run over 25,000 results; this run keeps at most MAX_RESULTS (errors first)
and at most MAX_RULES rule descriptors, and says what it left out in a notification.
It also refuses an upload over 10 MB gzip-compressed: when a cheap bound on the log's
size says it could be that large, the log is measured through a real compressor before
it is written, and what does not fit is left out in this order of need (the
notifications, then the results, errors first, then the artifacts), each cut named.
A shard's report, or one merged from shards, names every shard's identity in the
invocation's properties (`shards`), and each gap in a merged set of shards is a
notification.
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from orchestrator import __version__
from orchestrator.decisions.coverage import is_checked, shard_gaps
from orchestrator.decisions.findings import is_blocking
from orchestrator.model.report import Finding, Report, Scope, ToolIdentity, rule_label
from orchestrator.render.columns import Utf16Columns
from orchestrator.render.levels import level
from orchestrator.safetext import printable
from orchestrator.vocab import ScopeStatus

#: No `informationUri` for orchestrate's own driver: `orchestrate` on the package index is
#: another project and `orchestrate-lint` is not published (anyone could claim it), and a
#: link in every uploaded report must not point at a page a stranger may write.
SRCROOT = "%SRCROOT%"
#: GitHub code scanning's limits per run (results: hard limit; rules: kept well below).
MAX_RESULTS = 25_000
MAX_RULES = 1_000
#: Code scanning refuses an upload whose gzip-compressed SARIF is over 10 MB; this is
#: 10 MB in decimal (below 10 MiB), the log's compressed size at most.
MAX_GZIP_BYTES = 10_000_000
#: Room kept below MAX_GZIP_BYTES for what the compressor still buffers when measured,
#: the end of the document and the notes that say what was cut.
_GZIP_RESERVE = 512 * 1024
#: Bytes of JSON an item holds beyond its texts (keys, indentation, numbers, hashes).
_ITEM_FRAME = 1_000
#: Worst growth of one character of text in the log: JSON's \u00XX escape (6), and a
#: path's percent-encoded UTF-8 in a URI (4 bytes, 3 characters each: 12).
_TEXT_GROWTH = 6
_PATH_GROWTH = 12
_LEVEL_ORDER = {"error": 0, "warning": 1, "note": 2}
# Statuses that are only an absence of coverage are "warning"; faults "error".
_FAULTS = {ScopeStatus.TOOL_ERROR, ScopeStatus.TIMED_OUT, ScopeStatus.PARTIAL, ScopeStatus.UNSAFE}
#: ASCII punctuation: CommonMark lets a backslash make each one literal.
_MD_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")
#: A link a rule may carry: http(s), printable ASCII, no space (plugins/_common.doc_url).
_HTTP_URL = re.compile(r"https?://[!-~]+")


def uri(path: str) -> str:
    """A report path (relative, `/`-separated) as a relative URI reference: percent-encoded
    (a `:` too, so a first segment never reads as a scheme; non-UTF-8 bytes as themselves)."""
    return quote(path, safe="/", errors="surrogateescape")


def _location(path: str) -> dict[str, Any]:
    return {"uri": uri(path), "uriBaseId": SRCROOT}


def _region(f: Finding, columns: Utf16Columns) -> dict[str, int]:
    """The finding's region, its columns in UTF-16 code units (render/columns.py)."""
    region: dict[str, int] = {}
    if f.line:
        column, end_column = columns.region(f)
        region["startLine"] = f.line
        if column:
            region["startColumn"] = column
        if f.end_line:
            region["endLine"] = f.end_line
        if end_column and f.end_line:
            region["endColumn"] = end_column
    return region


def line_hash(f: Finding) -> str:
    """The hash part of `primaryLocationLineHash` (to_sarif appends `:n` for the n-th
    identical one in a file): what GitHub's own value is in spirit, a hash of the
    flagged line's content and the rule.

    The content part is the finding's `fingerprint`, the checker's digest of rule, path
    and the stripped text of the flagged line (Ruff, ESLint), or of the n-th hit of a
    rule (the secret scan, which never hashes a secret's value); it survives the line
    moving. A finding without one falls back to rule, path and message.
    """
    basis = f.fingerprint or "\x1f".join((f.path, f.message))
    raw = "\x1f".join((rule_label(f.checker, f.rule), basis)).encode("utf-8", "surrogateescape")
    return hashlib.sha256(raw).hexdigest()[:16]


def md_text(text: str) -> str:
    """`text` as literal Markdown: every ASCII punctuation character backslash-escaped,
    so a tool's words cannot open a link, an image, emphasis or an HTML tag."""
    return _MD_PUNCT.sub(r"\\\1", text)


def md_link(url: str) -> str:
    """`url` as a Markdown link destination: in angle brackets, with `<`, `>` and `\\`
    percent-encoded, so no character of it can close the link early."""
    return "<" + url.replace("\\", "%5C").replace("<", "%3C").replace(">", "%3E") + ">"


#: What a checker's plugin says about its tool: (checker, the tool its scopes recorded)
#: -> {"information_uri": ..., "rules": {code: {"name", "short_description",
#: "help_uri"}}} or None (hook `orchestrate_rule_docs`).
RuleDocs = Callable[[str, ToolIdentity | None], Mapping[str, Any] | None]


def plugin_rule_docs(
    checker: str, tool: ToolIdentity | None, project_root: str | None = None
) -> Mapping[str, Any] | None:
    """The plugins' answer to `orchestrate_rule_docs`; None when there is none or a
    plugin fails (a SARIF log is never lost to a plugin's rule metadata).

    The plugins asked are the ones this process's run loaded (with the blocks of its
    policy); with no run in this process (`report merge`), the plugins of
    `project_root`'s configuration, its `disable_plugins` honoured."""
    try:
        from orchestrator.core import plugin_host

        plugins = plugin_host.last_loaded()
        if plugins is None:
            from orchestrator.core.config import load_config

            config = load_config(Path(project_root)) if project_root else {}
            plugins = plugin_host.load(block=tuple(config.get("disable_plugins", []) or ()))
        docs = plugins.rule_docs(
            checker, tool.path if tool else None, tool.version if tool else None
        )
    except Exception:  # noqa: BLE001 - optional metadata: the finding's own words remain
        return None
    return docs if isinstance(docs, Mapping) else None


def _text(value: object) -> str | None:
    return " ".join(value.split())[:300] if isinstance(value, str) and value.split() else None


def _rule(f: Finding, rule_id: str, meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One rule descriptor from the first finding of the rule and what the checker's
    plugin said about the rule (`meta`): the tool's own words and link. The words are
    display text (escaped as the human view escapes them; Markdown made literal); a link
    that is not plain http(s) is left out."""
    meta = meta or {}
    described = printable(
        f.rule_description or _text(meta.get("short_description")) or f"{f.checker} rule {f.rule}"
    )
    name = _text(meta.get("name"))
    rule: dict[str, Any] = {
        "id": rule_id,
        "name": printable(name) if name else f.rule,
        "shortDescription": {"text": described},
        "fullDescription": {"text": described},
    }
    help_uri = next(
        (
            u
            for u in (f.help_uri, meta.get("help_uri"))
            if isinstance(u, str) and _HTTP_URL.fullmatch(u)
        ),
        None,
    )
    if help_uri:
        rule["helpUri"] = help_uri
        rule["help"] = {
            "text": f"{described}. Documentation: {help_uri}",
            "markdown": f"{md_text(described)}. "
            f"[Documentation for {md_text(printable(rule_id))}]({md_link(help_uri)})",
        }
    else:
        rule["help"] = {"text": f"{described} ({printable(f.checker)} gave no documentation link)."}
    rule["properties"] = {"tags": [f.checker]}
    return rule


def _result(f: Finding, rule_id: str, fp: str, columns: Utf16Columns) -> dict[str, Any]:
    loc: dict[str, Any] = {"artifactLocation": _location(f.path)}
    if region := _region(f, columns):
        loc["region"] = region
    props: dict[str, Any] = {"candidate": f.candidate, "blocking": is_blocking(f)}
    if f.safety_tier:
        props["safety_tier"] = f.safety_tier
    result = {
        "ruleId": rule_id,
        "level": level(f),
        "message": {"text": f.message or rule_id},
        "locations": [{"physicalLocation": loc}],
        "partialFingerprints": {"primaryLocationLineHash": fp}
        | ({"orchestrate/v1": f.fingerprint} if f.fingerprint else {}),
        "properties": props,
    }
    if f.baseline_state is not None:  # `lint --new-from-rev`: SARIF's own field
        result["baselineState"] = str(f.baseline_state)
    return result


def _scope_note(s: Scope) -> dict[str, Any]:
    """One scope that is not `checked` as a toolExecutionNotification."""
    text = f"{s.checker}: {s.status}" + (f" ({s.reason})" if s.reason else "")
    return {
        "level": "error" if s.status in _FAULTS else "warning",
        "message": {"text": text},
        "descriptor": {"id": str(s.status)},
        "locations": [{"physicalLocation": {"artifactLocation": _location(s.path)}}],
        "properties": {"checker": s.checker, "status": str(s.status)}
        | ({"detected_by": str(s.detected_by)} if s.detected_by else {}),
    }


def _artifacts(report: Report) -> Iterator[dict[str, Any]]:
    """One artifact per file whose language was detected: SARIF's `sourceLanguage`,
    with how it was decided (`detected_by`) as a property; in path order, from the
    first scope of the file that names a language."""
    if not getattr(report.scopes, "path_ordered", False):
        seen: dict[str, Scope] = {}
        for s in report.scopes:
            if s.language and s.path not in seen:
                seen[s.path] = s
        yield from (_artifact(seen[p]) for p in sorted(seen))
        return
    last = None
    for s in report.scopes:  # rows read back from disk come sorted by path
        if s.language and s.path != last:
            last = s.path
            yield _artifact(s)


def _artifact(s: Scope) -> dict[str, Any]:
    return {
        "location": _location(s.path),
        "sourceLanguage": s.language,
        "properties": {"detected_by": str(s.detected_by) if s.detected_by else None},
    }


#: The descriptor ids of a scope's notification (its status).
_SCOPE_NOTE_IDS = frozenset(str(status) for status in ScopeStatus)


def _notes(
    report: Report, truncation: list[dict[str, Any]], most: int | None
) -> Iterator[dict[str, Any]]:
    """The notifications: each shard gap, the first `most` (None: every) scope that was
    not checked, each plugin that failed, and `truncation`."""
    for gap in shard_gaps(report):
        yield {"level": "error", "message": {"text": gap}, "descriptor": {"id": "shard_missing"}}
    left = most
    for s in report.scopes:
        if not is_checked(s):
            if left is not None:
                if left <= 0:
                    continue
                left -= 1
            yield _scope_note(s)
    for pf in report.plugin_failures:
        yield {
            "level": "error",
            "message": {"text": f"plugin {pf.name} failed to load: {pf.reason}"},
            "descriptor": {"id": "plugin_failure"},
        }
    yield from truncation


def _note_count(report: Report, truncation: list[dict[str, Any]]) -> int:
    unchecked_scopes = sum(1 for s in report.scopes if not is_checked(s))
    return (
        len(shard_gaps(report)) + unchecked_scopes + len(report.plugin_failures) + len(truncation)
    )


def _room(findings: Sequence[Finding]) -> dict[int, int] | None:
    """How many findings of each level (by rank) a run of at most MAX_RESULTS keeps,
    the loudest levels first; None when every finding fits."""
    if len(findings) <= MAX_RESULTS:
        return None
    per_level = Counter(_LEVEL_ORDER[level(f)] for f in findings)
    room: dict[int, int] = {}
    left = MAX_RESULTS
    for rank in sorted(_LEVEL_ORDER.values()):
        room[rank] = min(left, per_level[rank])
        left -= room[rank]
    return room


def _kept(findings: Sequence[Finding], room: Mapping[int, int] | None) -> Iterator[Finding]:
    """The findings `room` keeps (None: all), in report order: the first ones of each
    level, as many as its room."""
    if room is None:
        yield from findings
        return
    left = dict(room)
    for f in findings:
        rank = _LEVEL_ORDER[level(f)]
        if left[rank] > 0:
            left[rank] -= 1
            yield f


def _tools(report: Report) -> dict[str, ToolIdentity]:
    """The first tool identity with a version each checker's scopes recorded."""
    tools: dict[str, ToolIdentity] = {}
    for s in report.scopes:
        if s.tool and s.tool.version and s.checker not in tools:
            tools[s.checker] = s.tool
    return tools


def _components(
    checkers: list[str], tools: Mapping[str, ToolIdentity], docs: Mapping[str, Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """One tool component per checker: its name, the tool version its scopes recorded
    and the tool's home page when its plugin names one."""
    out = []
    for name in checkers:
        comp: dict[str, Any] = {"name": name, "rules": []}
        if name in tools:
            comp["version"] = tools[name].version
        home = docs.get(name, {}).get("information_uri")
        if isinstance(home, str) and _HTTP_URL.fullmatch(home):
            comp["informationUri"] = home
        out.append(comp)
    return out


#: What a cut for size says of the upload.
_OVER_CAP = f"over {MAX_GZIP_BYTES // 1_000_000} MB gzip-compressed"


def _truncation_notes(
    results: int, kept: int, rules: int, size: _SizeCut | None = None
) -> list[dict[str, Any]]:
    notes = []
    if kept < results:
        why = (
            f"the upload would be {_OVER_CAP}, which code scanning refuses"
            if size and size.results_cut
            else f"code scanning accepts at most {MAX_RESULTS} per run"
        )
        notes.append(
            {
                "level": "warning",
                "message": {
                    "text": f"{results - kept} of {results} results left out: {why} "
                    "(errors were kept first); --format json has them all"
                },
                "descriptor": {"id": "results_truncated"},
            }
        )
    if size and size.notes is not None:
        notes.append(
            {
                "level": "warning",
                "message": {
                    "text": f"only the first {size.notes} scopes that were not checked have a "
                    f"notification: the upload would be {_OVER_CAP}; the run's properties hold the coverage counts and "
                    "--format json every scope"
                },
                "descriptor": {"id": "notifications_truncated"},
            }
        )
    if size and not size.artifacts:
        notes.append(
            {
                "level": "note",
                "message": {
                    "text": "artifacts (each file's language) left out: the upload would "
                    f"be {_OVER_CAP}"
                },
                "descriptor": {"id": "artifacts_truncated"},
            }
        )
    if rules > MAX_RULES:
        notes.append(
            {
                "level": "note",
                "message": {
                    "text": f"rule descriptors kept for the {MAX_RULES} rules with most results "
                    f"of {rules}; the other results name their rule by ruleId only"
                },
                "descriptor": {"id": "rules_truncated"},
            }
        )
    return notes


@dataclass
class _Plan:
    """What the results need before the first is written: the rule descriptors (with
    their component) and how many findings are kept."""

    components: list[dict[str, Any]]
    comp_index: dict[str, int]
    rule_index: dict[str, int]
    kept: int
    rules: int
    #: How many findings of each level are kept (None: all).
    room: dict[int, int] | None
    #: An upper bound on the bytes of JSON the kept results take.
    bound: int


@dataclass
class _SizeCut:
    """What the log leaves out to stay under MAX_GZIP_BYTES compressed."""

    #: Scope notifications kept (None: every one).
    notes: int | None = None
    #: Whether the results were cut for size (not only for MAX_RESULTS).
    results_cut: bool = False
    artifacts: bool = True


class _Compressed:
    """The gzip-compressed size of the JSON items fed so far, as code scanning's upload
    compresses it (deflate at zlib's default level); up to what the compressor still
    buffers, which _GZIP_RESERVE covers."""

    def __init__(self) -> None:
        self._z = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, 31)
        self.size = 0

    def feed(self, item: object, depth: int = 8) -> None:
        """Count `item` as the log writes it, indented `depth` spaces."""
        text = json.dumps(item, indent=2, ensure_ascii=False).replace("\n", "\n" + " " * depth)
        self.size += len(self._z.compress(text.encode("utf-8", "surrogatepass")))

    def fits(self) -> bool:
        """Whether what was fed leaves the reserve below MAX_GZIP_BYTES."""
        return self.size + _GZIP_RESERVE <= MAX_GZIP_BYTES


def _plan(report: Report, room: dict[int, int] | None, rule_docs: RuleDocs | None = None) -> _Plan:
    """One pass over the findings `room` keeps: how often each rule is used and the
    first finding of each, in order, and a bound on the results' size; the components
    and their rule descriptors from those (with what `rule_docs`, default the plugins,
    says about each checker's rules)."""
    uses: Counter[str] = Counter()
    first: dict[str, Finding] = {}
    kept = 0
    bound = 0
    for f in _kept(report.findings, room):
        kept += 1
        label = rule_label(f.checker, f.rule)
        uses[label] += 1
        first.setdefault(label, f)
        bound += (
            _ITEM_FRAME
            + _TEXT_GROWTH * (len(f.message or "") + 2 * len(label))
            + _PATH_GROWTH * len(f.path)
        )
    described = {label for label, _ in uses.most_common(MAX_RULES)}
    checkers = sorted({f.checker for f in first.values()})
    tools = _tools(report)
    root = report.scan.project_root
    ask = rule_docs or (lambda name, tool: plugin_rule_docs(name, tool, root))
    docs: dict[str, Mapping[str, Any]] = {}
    for name in checkers:
        found = ask(name, tools.get(name))
        docs[name] = found if isinstance(found, Mapping) else {}
    components = _components(checkers, tools, docs)
    comp_index = {c["name"]: i for i, c in enumerate(components)}
    rule_index: dict[str, int] = {}
    for label, f in first.items():
        if label in described:
            comp = components[comp_index[f.checker]]
            rule_index[label] = len(comp["rules"])
            rules = docs[f.checker].get("rules")
            meta = rules.get(f.rule) if isinstance(rules, Mapping) else None
            comp["rules"].append(_rule(f, label, meta if isinstance(meta, Mapping) else None))
    return _Plan(components, comp_index, rule_index, kept, len(uses), room, bound)


def _scopes_bound(report: Report) -> int:
    """An upper bound on the bytes of JSON the notifications and artifacts take."""
    bound = _ITEM_FRAME * (len(report.plugin_failures) + len(shard_gaps(report)) + 4)
    for s in report.scopes:
        bound += 2 * (_ITEM_FRAME + _PATH_GROWTH * len(s.path)) + _TEXT_GROWTH * (
            len(s.reason or "") + len(s.checker)
        )
    for pf in report.plugin_failures:
        bound += _TEXT_GROWTH * (len(pf.name) + len(pf.reason or ""))
    return bound


def _fit(report: Report, plan: _Plan) -> tuple[_SizeCut, dict[int, int] | None]:
    """Measure the log through a compressor and cut it to fit MAX_GZIP_BYTES: every
    notification that fits (what was not checked comes first), then the results a level
    at a time, errors first, then the artifacts if they still fit. The cut, and the
    findings kept of each level."""
    size = _Compressed()
    size.feed(plan.components, 6)
    cut = _SizeCut()
    notes = 0
    for note in _notes(report, [], None):
        size.feed(note, 10)
        if not size.fits():
            cut.notes = notes
            cut.artifacts = False
            cut.results_cut = bool(report.findings)
            return cut, dict.fromkeys(_LEVEL_ORDER.values(), 0)
        notes += 1 if note.get("descriptor", {}).get("id") in _SCOPE_NOTE_IDS else 0
    room = plan.room or dict(Counter(_LEVEL_ORDER[level(f)] for f in report.findings))
    fitted = dict.fromkeys(_LEVEL_ORDER.values(), 0)
    columns = Utf16Columns(report.scan.project_root)
    full = True
    for rank in sorted(_LEVEL_ORDER.values()):
        if not full:
            break
        for f in _kept(report.findings, room):
            if _LEVEL_ORDER[level(f)] != rank:
                continue
            label = rule_label(f.checker, f.rule)
            result = _result(f, label, f"{line_hash(f)}:1", columns)
            result["rule"] = {"id": label, "index": 0, "toolComponent": {"index": 0}}
            size.feed(result)
            if not size.fits():
                full = False
                cut.results_cut = True
                break
            fitted[rank] += 1
    for artifact in _artifacts(report):
        size.feed(artifact)
        if not size.fits():
            cut.artifacts = False
            break
    return cut, (fitted if cut.results_cut else plan.room)


def _results(report: Report, plan: _Plan) -> Iterator[dict[str, Any]]:
    """One result per kept finding; the n-th identical line hash in a file gets `:n`."""
    occurrences: Counter[tuple[str, str]] = Counter()
    ordered = getattr(report.findings, "path_ordered", False)
    last = None
    columns = Utf16Columns(report.scan.project_root)
    for f in _kept(report.findings, plan.room):
        if ordered and f.path != last:
            occurrences.clear()  # sorted by path: no later finding shares this one's file
            last = f.path
        label = rule_label(f.checker, f.rule)
        base = line_hash(f)
        occurrences[(f.path, base)] += 1
        result = _result(f, label, f"{base}:{occurrences[(f.path, base)]}", columns)
        if label in plan.rule_index:
            result["rule"] = {
                "id": label,
                "index": plan.rule_index[label],
                "toolComponent": {"index": plan.comp_index[f.checker]},
            }
        yield result


#: The run's lists that are written item by item (`sarif_chunks`), in document order.
_STREAMED = ("toolExecutionNotifications", "artifacts", "results")


def _log(
    report: Report, rule_docs: RuleDocs | None = None
) -> tuple[dict[str, Any], dict[str, Iterator[dict[str, Any]]]]:
    """The SARIF log with its long lists empty, and those lists' items, to come."""
    plan = _plan(report, _room(report.findings), rule_docs)
    cut = None
    head = len(json.dumps(plan.components, ensure_ascii=False)) + _ITEM_FRAME
    if head + plan.bound + _scopes_bound(report) + _GZIP_RESERVE > MAX_GZIP_BYTES:
        cut, room = _fit(report, plan)  # it could be too large: measure it
        if room != plan.room:
            plan = _plan(report, room, rule_docs)
    truncation = _truncation_notes(len(report.findings), plan.kept, plan.rules, cut)
    root_uri = Path(report.scan.project_root).as_uri().rstrip("/") + "/"
    driver = {
        "name": "orchestrate",
        "version": __version__,
        "rules": [],
    }
    invocation = {
        "executionSuccessful": bool(report.coverage.complete)
        and not _note_count(report, truncation),
        "toolExecutionNotifications": [],
        "properties": {
            "gate": str(report.gate.decision),
            "coverage": report.coverage.model_dump(mode="json"),
            # What each checker cost the run (the report's `timings`).
            "checkerTimes": [t.model_dump(mode="json") for t in report.timings],
        }
        | ({"shards": [s.model_dump(mode="json") for s in report.shards]} if report.shards else {}),
    }
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver, "extensions": plan.components},
                # The category (before the last `/`) is stable per entry; the rest names the run.
                "automationDetails": {
                    "id": f"orchestrate/{report.request.entry}/{report.generated_at}"
                },
                "originalUriBaseIds": {SRCROOT: {"uri": root_uri}},
                "columnKind": "utf16CodeUnits",
                "invocations": [invocation],
                "artifacts": [],
                "results": [],
            }
        ],
    }
    items = {
        "toolExecutionNotifications": _notes(report, truncation, cut.notes if cut else None),
        "artifacts": _artifacts(report) if cut is None or cut.artifacts else iter(()),
        "results": _results(report, plan),
    }
    return log, items


def to_sarif(report: Report, rule_docs: RuleDocs | None = None) -> dict[str, Any]:
    """The report as one SARIF 2.1.0 log with a single run (see the module docstring);
    `rule_docs` replaces the plugins as the source of rule metadata (tests, embedders)."""
    log, items = _log(report, rule_docs)
    run = log["runs"][0]
    run["invocations"][0]["toolExecutionNotifications"] = list(items["toolExecutionNotifications"])
    run["artifacts"] = list(items["artifacts"])
    run["results"] = list(items["results"])
    return log


def sarif_chunks(report: Report, rule_docs: RuleDocs | None = None) -> Iterator[str]:
    """The text of `json.dumps(to_sarif(report), indent=2, ensure_ascii=False)`, in
    pieces: the notifications, artifacts and results one at a time, so none of the long
    lists is held. Each item is dumped alone and indented by its depth (JSON strings
    hold no raw newline, so re-indenting by line is exact)."""
    log, items = _log(report, rule_docs)
    text = json.dumps(log, indent=2, ensure_ascii=False)
    for name in _STREAMED:
        found = re.search(f'\n( *)"{name}": \\[\\]', text)
        if found is None:  # pragma: no cover - the log always has the three lists
            raise AssertionError(f"SARIF log without {name}")
        yield text[: found.start()]
        text = text[found.end() :]
        pad = "\n" + found[1] + "  "
        opened = False
        for item in items[name]:
            yield ("," if opened else found[0][:-1]) + pad
            yield json.dumps(item, indent=2, ensure_ascii=False).replace("\n", pad)
            opened = True
        yield "\n" + found[1] + "]" if opened else found[0]
    yield text
