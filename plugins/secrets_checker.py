"""Secret scanning: sensitive file names and secret-shaped content, on any surface.

A policy-tier checker: it claims every file beside whatever language checker claims
it, and on a delivery surface its findings block. A finding carries the rule, the
path, the line and its fingerprint only; its message is the rule's fixed description.
The matched value never leaves this module (not in a message, a fingerprint or a
note). No global skip flag disables it: it declares itself `essential`, and the
plugin host loads an essential checker's plugin even when a block list names it.

Every file is scanned, lock files and generated files included; a binary through its
printable runs, UTF-16/32 text decoded (`secrets_decode`), compressed data unpacked
within a bound (`secrets_archive`: gzip, bzip2, xz, zip with its member names), and
the path itself (a token in a file or folder name is delivered too). What cannot be read is a
`partial` scope with the reason. Reviewed false positives are allowed through the
committed allowlist (`secrets_allow`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from orchestrate_plugins.secrets_allow import (
    ALLOWLIST_FILE,
    Allowlist,
    parse_allowlist,
    reviewed_allowlist,
)
from orchestrate_plugins.secrets_archive import expand, is_compressed
from orchestrate_plugins.secrets_decode import View, views
from orchestrate_plugins.secrets_rules import (
    CONTENT_RULES,
    DOTENV_ASSIGNMENT,
    KEY_STORE_FILE,
    PRIVATE_KEY_FILE,
    RULES,
    RULESET_VERSION,
    Rule,
)

from orchestrator.api import (
    MAX_FILE_BYTES,
    Batch,
    CheckerPlan,
    Deadline,
    FileOutcome,
    FileTarget,
    Finding,
    Probe,
    Purpose,
    RunContext,
    ScopeStatus,
    Severity,
    Tier,
    ToolIdentity,
    fingerprint,
    hookimpl,
    outcome_for_all,
)
from orchestrator.api import ORCHESTRATE_VERSION as __version__

__all__ = ["ALLOWLIST_FILE", "RULES", "SecretsChecker", "parse_allowlist", "scan"]

NAME = "secrets"
#: Only this many leading bytes are scanned for content rules (names are always checked);
#: a longer file is reported `partial`, never silently clean.
SCAN_LIMIT = MAX_FILE_BYTES
#: Policy files a strict gate takes from the judged surface for this checker.
CONFIG_NAMES = (ALLOWLIST_FILE,)
#: Path labels in notes are bounded like every label that may reach an agent.
MAX_LABEL = 128

_KEY_FILE_NAMES = frozenset(
    {"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk"}
)
#: Binary key stores. A `.pem` is text and usually a certificate: its private key
#: blocks are found by content, the name alone flags nothing.
_KEY_STORE_SUFFIXES = (".p12", ".pfx", ".keystore", ".jks")
#: .env templates are meant to be committed; their content rules still apply.
_DOTENV_TEMPLATES = (".example", ".sample", ".template", ".dist")


def _is_dotenv(name: str) -> bool:
    if name == ".env":
        return True
    if name.startswith(".env.") or name.endswith(".env"):
        return not name.endswith(_DOTENV_TEMPLATES)
    return False


def _name_hits(path: str) -> list[tuple[Rule, int | None]]:
    lowered = PurePosixPath(path).name.lower()
    hits: list[tuple[Rule, int | None]] = []
    if lowered in _KEY_FILE_NAMES:
        hits.append((PRIVATE_KEY_FILE, None))
    if lowered.endswith(_KEY_STORE_SUFFIXES):
        hits.append((KEY_STORE_FILE, None))
    return hits


class ScanTimedOut(Exception):
    """The deadline passed while a file's content was being scanned."""


#: How many matches of one rule are taken between two looks at the deadline.
_DEADLINE_EVERY = 256


def _scan_view(
    view: View,
    rules: Sequence[Rule],
    deadline: Deadline | None,
    seen: tuple[set[tuple[str, int]], set[tuple[str, bytes]]],
    hits: list[tuple[Rule, int | None]],
    *,
    lines: bool,
) -> None:
    """Add the hits of `rules` in `view` to `hits` (see scan_content); a view whose
    newlines are not the file's lines (`lines` False) gives hits without a line."""
    lines_seen, values_seen = seen
    for rule in rules:
        if deadline is not None and deadline.expired():
            raise ScanTimedOut
        for n, m in enumerate(rule.finditer(view.data), 1):
            if deadline is not None and n % _DEADLINE_EVERY == 0 and deadline.expired():
                raise ScanTimedOut
            value = (rule.id, m.group())
            if lines and view.lines:
                line = view.data.count(b"\n", 0, m.start()) + 1
                if (rule.id, line) not in lines_seen:
                    lines_seen.add((rule.id, line))
                    hits.append((rule, line))
            elif value not in values_seen:
                hits.append((rule, None))
            values_seen.add(value)
            if rule is DOTENV_ASSIGNMENT:
                break  # one assignment is enough to name the file


def path_hits(path: str) -> list[tuple[Rule, int | None]]:
    """The content rules' hits in the path itself (every folder and the file's name):
    a token is as delivered in a name as in a file. Without a line."""
    hits: list[tuple[Rule, int | None]] = []
    data = path.encode("utf-8", "surrogateescape")
    _scan_view(View(data, lines=False), CONTENT_RULES, None, (set(), set()), hits, lines=False)
    return hits


def scan_content(
    path: str, data: bytes, deadline: Deadline | None = None
) -> tuple[list[tuple[Rule, int | None]], str | None]:
    """Content hits for `path` with bytes `data`, and what could not be read (None: all).

    At most one hit per rule and line; in a view without lines (a binary's runs) one
    per rule and distinct match not already found. Compressed data (gzip, bzip2, xz,
    zip; secrets_archive) is unpacked within `SCAN_LIMIT` bytes and scanned too, with
    zip member names; its hits carry no line, and what was not unpacked is named.
    Matched values are compared here and dropped. With a `deadline`, raises
    `ScanTimedOut` once it has passed: it is looked at before each rule's pass over
    each view and every few hundred matches, so a file never runs the scan past the
    gate's one deadline by more than one pass of one linear-time rule over at most
    `SCAN_LIMIT` bytes.
    """
    read = views(data)
    hits: list[tuple[Rule, int | None]] = []
    seen: tuple[set[tuple[str, int]], set[tuple[str, bytes]]] = (set(), set())
    dotenv = _is_dotenv(PurePosixPath(path).name.lower())
    for view in read.views:
        rules = (DOTENV_ASSIGNMENT, *CONTENT_RULES) if dotenv and view.lines else CONTENT_RULES
        _scan_view(view, rules, deadline, seen, hits, lines=True)
    unreadable = [read.unreadable] if read.unreadable else []
    if is_compressed(data):
        inner = expand(data, SCAN_LIMIT)
        for _where, blob in inner.blobs:
            for view in views(blob).views:
                _scan_view(view, CONTENT_RULES, deadline, seen, hits, lines=False)
        for name in inner.names:
            hits += [h for h in _name_hits(name) + path_hits(name) if h not in hits]
        if inner.unread:
            shown = "; ".join(inner.unread[:3])
            more = f" and {len(inner.unread) - 3} more" if len(inner.unread) > 3 else ""
            unreadable.append(f"compressed content not fully scanned: {shown}{more}")
    return hits, "; ".join(unreadable) or None


def scan(path: str, data: bytes | None) -> list[tuple[Rule, int | None]]:
    """Every (rule, line) hit for `path` with bytes `data`; `data` None: name rules only."""
    hits = _name_hits(path) + path_hits(path)
    if data is not None:
        hits += scan_content(path, data)[0]
    return hits


def _label(path: str) -> str:
    return path if len(path) <= MAX_LABEL else path[: MAX_LABEL - 1] + "…"


def _findings(path: str, hits: list[tuple[Rule, int | None]]) -> list[Finding]:
    # The fingerprint anchors on rule, path and the n-th hit of that rule in the file:
    # never on the value, and stable when lines move.
    nth: dict[str, int] = {}
    out: list[Finding] = []
    for rule, line in hits:
        n = nth[rule.id] = nth.get(rule.id, -1) + 1
        fp = fingerprint(NAME, rule.id, path, str(n))
        out.append(
            Finding(
                checker=NAME,
                rule=rule.id,
                severity=Severity.ERROR,
                path=path,
                line=line,
                message=f"{rule.description} (fingerprint {fp})",
                blocking=True,
                fingerprint=fp,
            )
        )
    return out


def allowlist_for(ctx: RunContext) -> tuple[Allowlist, tuple[str, ...]]:
    """The allowlist this run applies and the notes saying where it came from.

    With `ctx.surface_files` set (a strict gate), only the judged surface's copy
    counts. A delivery run without it applies none: the working tree is not the
    surface. A feedback run reads the working tree's file.
    """
    if ctx.surface_files is not None:
        found = parse_allowlist(ctx.surface_files.get(ALLOWLIST_FILE))
        return found, found.problems
    disk = ctx.project_root / ALLOWLIST_FILE
    if ctx.purpose == Purpose.DELIVERY:
        if disk.is_file():
            return Allowlist(), (
                f"{ALLOWLIST_FILE} not applied: a strict gate reads it only from the "
                "judged surface, and none was supplied",
            )
        return Allowlist(), ()
    try:
        data = disk.read_bytes() if disk.is_file() else None
    except OSError:
        return Allowlist(), (f"{ALLOWLIST_FILE} could not be read: not applied",)
    found = parse_allowlist(data)
    return found, found.problems


class SecretsChecker:
    """The built-in secret scanner (policy tier, in-process, no external tool)."""

    name = NAME
    tier = Tier.POLICY
    #: Language-blind: it claims every file, whatever checker judges its language.
    languages: frozenset[str] = frozenset()
    #: The secret scan has no global skip: a block list cannot switch it off.
    essential = True
    #: Policy files a strict gate takes from the judged surface for this checker.
    config_names = CONFIG_NAMES
    #: Columns count Unicode code points.
    column_unit = "codepoint"

    def reviewed_policy_file(
        self, name: str, base: bytes | None, surface: bytes | None
    ) -> tuple[bytes | None, tuple[str, ...]]:
        """The copy of the policy file `name` a local strict gate applies (the entries
        the base holds too) and the entries the surface adds, which it does not apply."""
        return reviewed_allowlist(base, surface) if name == ALLOWLIST_FILE else (surface, ())

    def probe(self, root: Path) -> Probe:
        """In-process rules: there is no tool to find and nothing to configure."""
        return Probe()

    def claims(self, target: FileTarget) -> bool:
        """Every file: sensitive names matter whatever the language."""
        return True

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        """One in-process batch for all files; nothing to resolve."""
        if not targets:
            return CheckerPlan()
        return CheckerPlan(batches=(Batch(targets=tuple(targets), label=NAME),))

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        """Scan each file before the deadline; the rest of the batch is timed_out."""
        tool = ToolIdentity(path=None, version=f"orchestrate-{__version__}/rules-{RULESET_VERSION}")
        allow, notes = allowlist_for(ctx)
        outcomes: list[FileOutcome] = []
        for i, target in enumerate(batch.targets):
            if ctx.deadline.expired():
                rest = batch.targets[i:]
                outcomes += outcome_for_all(
                    self, rest, ScopeStatus.TIMED_OUT, "deadline passed before the secret scan"
                )
                break
            outcome = self._scan_one(target, tool, allow, ctx.deadline)
            outcomes.append(outcome.with_(notes=notes + outcome.notes) if notes else outcome)
        return outcomes

    def _scan_one(
        self, target: FileTarget, tool: ToolIdentity, allow: Allowlist, deadline: Deadline
    ) -> FileOutcome:
        reasons: list[str] = []
        status = ScopeStatus.CHECKED
        hits = _name_hits(target.path) + path_hits(target.path)
        try:
            data: bytes | None = target.read_bytes(SCAN_LIMIT + 1)
        except OSError as exc:
            data = None
            status = ScopeStatus.TOOL_ERROR
            reasons.append(f"file could not be read ({type(exc).__name__})")
        if data is not None:
            if len(data) > SCAN_LIMIT:
                data = data[:SCAN_LIMIT]
                status = ScopeStatus.PARTIAL
                reasons.append(f"only the first {SCAN_LIMIT} bytes were scanned")
            try:
                content, unreadable = scan_content(target.path, data, deadline)
            except ScanTimedOut:
                # Name hits still block; the content was not judged, so never `checked`.
                return FileOutcome(
                    path=target.path,
                    checker=NAME,
                    status=ScopeStatus.TIMED_OUT,
                    reason="deadline passed during the secret scan of this file",
                    findings=_findings(target.path, hits),
                    tool=tool,
                    language=target.language,
                )
            hits += content
            if unreadable is not None:
                status = ScopeStatus.PARTIAL if status == ScopeStatus.CHECKED else status
                reasons.append(unreadable)
        findings = _findings(target.path, hits)
        kept = tuple(f for f in findings if f.fingerprint not in allow.fingerprints)
        notes = tuple(
            f"secret allowed by {ALLOWLIST_FILE}: {f.rule} in {_label(f.path)}"
            f"{f':{f.line}' if f.line else ''} (fingerprint {f.fingerprint})"
            for f in findings
            if f.fingerprint in allow.fingerprints
        )
        return FileOutcome(
            path=target.path,
            checker=NAME,
            status=status,
            reason="; ".join(reasons) or None,
            findings=kept,
            tool=tool,
            language=target.language,
            notes=notes,
        )


@hookimpl
def orchestrate_checkers() -> list[SecretsChecker]:
    """The secret scanner."""
    return [SecretsChecker()]
