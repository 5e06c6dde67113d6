"""Identity-keyed reuse of fast-feedback results (CG-17), from one persistent index.

A result for one file x checker may be reused only when its whole identity is
equal: source bytes digest, effective config digest, tool identity (path and
version), rule set, scope (path, checker, purpose) and completeness. Only complete
results of feedback runs are stored (`decisions/coverage.is_reusable`: `checked`, and
the fallback's `unqualified`), and only those their checker did not mark
`reusable=False`; timed-out, partial or otherwise incomplete results never are, and
delivery (commit, push, CI) never reuses.

The results live in one index file per repository in the user's cache folder
(`index_path`), never in the project: a cold process reads it once. The file is JSON
lines: a header `{"schema": INDEX_SCHEMA}`, then one line per entry, `HEAD<TAB>BODY`,
where HEAD is the small JSON array `[key, stored_at, stat | null, source_digest]` and
BODY the compact JSON object `{"parts": ..., "outcome": ...}`. Reading parses only the
heads; each body stays its raw bytes in memory (`RawEntry`) and is decoded only when
its file is looked up, and saving writes the raw pieces back as they are, so holding
and rewriting an index of 10,000 results costs about its size on disk, not a dict per
field. Each entry also keeps the file's stat (size, mtime_ns, ctime_ns, inode,
device) from when its digest was taken, so an unchanged file is not digested again: a file
whose stat is equal has the stored digest; any other file is read and digested, and
its identity compared as before. A stat is kept only when the file's mtime is older
than the digest by more than `RACY_NS` (a write within the same timestamp tick could
otherwise keep the stat): such a "racily clean" file is digested every time until it
is old enough. The index is bounded (`MAX_ENTRIES`, `MAX_INDEX_BYTES`, an age limit
on every lookup), written atomically and only when it changed, and is safe to delete
at any time: a missing, corrupt or mismatching index or entry is a miss, never
trusted, and a corrupt index is rebuilt by the next run that stores anything.

Engine hook: `plan = consult(root, work, ctx)` before running the batches (reused
outcomes, the work left to run, the reused (path, checker) keys whose scope gets
`reused = REUSE_REASON`), and `record(root, plan, ctx, outcomes)` after. A checker
opts in by declaring `reuse_identity(batch, ctx) -> ReuseIdentity | None` (read once
into its `model/declared.LoadedChecker`); any other checker is never reused. `ORCHESTRATE_REUSE=0` turns reuse off.

A checker whose result for a file depends on other files declares it too
(`reuse_dependencies`, core/dependencies.py): the paths it names are probed (their
kind, one stat each, never a listing) before the batch runs, the answers are part of
the identity (`KeyParts.depends`), and the entry keeps the path list, so a later
lookup probes the same paths without reading the file. A result is stored only when
the answers after the run are those from before it; a file whose dependencies the
checker cannot name is never reused.

A checker whose result for a file depends on facts no probe of a kind answers (the
fallback: which program parser judges the file, and the Go version the nearest go.mod
declares) gives them as text (`ReuseIdentity.facts`): their digest is part of the
identity (`KeyParts.facts`), asked before the batch runs and again before storing, so
a fact that changed while the batch ran is not stored.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import pydantic_core
from pydantic import BaseModel, TypeAdapter

from orchestrator.core import dependencies
from orchestrator.core.dependencies import Answers
from orchestrator.decisions.coverage import is_reusable
from orchestrator.model.checker import Batch, FileOutcome, FileTarget, RunContext
from orchestrator.model.declared import LoadedChecker
from orchestrator.model.report import Finding, Scope, ToolIdentity, compact
from orchestrator.vocab import Purpose, ScopeStatus
from orchestrator.workspace import atomic_write, user_cache_dir

CACHE_DIR = "cache/reuse"
INDEX_NAME = "index.json"
REUSE_REASON = "identity equal"
#: Entries one index holds; past it the oldest results are dropped when it is written.
MAX_ENTRIES = 50_000
#: An index file larger than this is not read (a miss for every file) and is rebuilt.
MAX_INDEX_BYTES = 128 << 20
MAX_AGE_S = 24 * 3600.0
#: An outcome with more findings than this is not kept (the index stays small; a file
#: with thousands of findings is a clean-up, not a save loop).
MAX_ENTRY_FINDINGS = 2000
#: A stat is trusted only for a file whose mtime is this much older than its digest.
RACY_NS = 2_000_000_000
#: Version 3: one index per repository; entries of the slot files of version 2 are gone.
#: Version 4: findings carry the tool's rule link and description; older indexes miss.
#: Version 5: JSON lines of `HEAD<TAB>BODY`, bodies kept undecoded; older indexes miss.
#: Version 6: findings carry their column unit (`Finding.column_unit`); older indexes miss.
#: Version 7: identities carry the answers of a checker's declared dependencies
#: (`KeyParts.depends`), and entries the paths probed; older indexes miss.
#: Version 8: identities carry a file's facts (`KeyParts.facts`); older indexes miss.
INDEX_SCHEMA = "orchestrate.reuse/8"
#: Kept for callers that name the schema of what is stored.
ENTRY_SCHEMA = INDEX_SCHEMA


@dataclass(frozen=True)
class ReuseIdentity:
    """What a checker says fixes its result besides the file bytes.

    `facts`, when given, says what one file's result depends on besides that (the
    fallback: the program parser that judges the file and the language version the
    project declares for it), as text, or None when it cannot say (the file is not
    reused). It is asked before the batch runs and again after: a file whose facts
    changed meanwhile is not stored."""

    tool: ToolIdentity
    config_digest: str
    rules: str = ""
    facts: Callable[[FileTarget], str | None] | None = None


@dataclass(frozen=True)
class KeyParts:
    """The full identity of one file x checker result."""

    source_digest: str
    config_digest: str
    tool_path: str
    tool_version: str
    rules: str
    path: str
    checker: str
    purpose: str
    completeness: str = str(ScopeStatus.CHECKED)
    #: The digest of the answers of the checker's declared dependencies (`dependencies.
    #: digest`); empty for a checker that declares none.
    depends: str = ""
    #: The digest of the file's facts (`ReuseIdentity.facts`); empty for a checker
    #: that gives none.
    facts: str = ""

    def as_dict(self) -> dict[str, str]:
        """The fields by name (what an entry stores and is compared against); plain
        attribute reads, as `dataclasses.asdict` copies deeply and costs 20x more."""
        return {name: getattr(self, name) for name in _PART_NAMES}

    def key(self) -> str:
        raw = json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()


_PART_NAMES = tuple(f.name for f in fields(KeyParts))


@dataclass(frozen=True)
class Cached:
    """A reused outcome and why it may stand in for a fresh run."""

    outcome: FileOutcome
    reason: str = REUSE_REASON
    #: The answers of the declared dependencies the hit was checked against (None: the
    #: checker declares none).
    depends: Answers | None = None


def cache_dir(project_root: Path, create: bool = False) -> Path:
    """Where this repository's reuse index lives (the user's cache folder)."""
    return user_cache_dir(project_root, CACHE_DIR, create=create)


def index_path(project_root: Path) -> Path:
    """The one reuse index file of this repository."""
    return cache_dir(project_root) / INDEX_NAME


StatKey = tuple[int, ...]


def stat_key(st: os.stat_result) -> StatKey:
    """The stat facts an entry is keyed by: size, mtime_ns, ctime_ns, inode, device."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def _trusted_stat(st: os.stat_result, digest_ns: int) -> StatKey | None:
    """The stat to keep for a digest taken at `digest_ns`, or None when the file is
    racily clean (changed too recently for its mtime to tell a later write apart)."""
    return stat_key(st) if st.st_mtime_ns < digest_ns - RACY_NS else None


def _entry_key(path: str, checker: str) -> str:
    return f"{checker}\x00{path}"


@dataclass(slots=True)
class RawEntry:
    """One stored result as held in memory: the few facts every lookup reads (when it
    was stored, the file's trusted stat, its source digest) and the rest, identity and
    outcome, as the raw JSON bytes of the index line, decoded only by `decode`."""

    at: float
    stat: StatKey | None
    digest: str
    body: bytes

    def decode(self) -> dict[str, Any]:
        """The body's JSON object (`parts`, `outcome`) with `at` and `stat`; raises
        ValueError when the body is malformed."""
        data = _parse(self.body)
        if not isinstance(data, dict):
            raise ValueError("malformed entry")
        return {**data, "at": self.at, "stat": self.stat}


def _head(key: str, entry: RawEntry) -> bytes:
    """The HEAD of an index line (ASCII JSON: no tab or newline can occur in it)."""
    stat = list(entry.stat) if entry.stat is not None else None
    return json.dumps([key, entry.at, stat, entry.digest], separators=(",", ":")).encode()


def _parse_line(line: bytes) -> tuple[str, RawEntry] | None:
    """(key, entry) of one index line, or None when it is malformed (a miss)."""
    head, sep, body = line.rstrip(b"\n").partition(b"\t")
    if not sep or not line.endswith(b"\n") or not body.startswith(b"{"):
        return None
    try:
        key, at, stat, digest = json.loads(head)
    except (ValueError, TypeError, RecursionError):
        return None
    if not isinstance(key, str) or not isinstance(digest, str):
        return None
    if isinstance(at, bool) or not isinstance(at, int | float):
        return None
    if stat is not None:
        if not isinstance(stat, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in stat
        ):
            return None
        stat = tuple(stat)
    return key, RawEntry(at=float(at), stat=stat, digest=digest, body=body)


def _encode_body(
    parts: KeyParts, outcome: dict[str, Any], depends: Sequence[str] | None = None
) -> bytes:
    """The BODY of an index line: compact JSON, with no raw tab or newline; `depends`,
    the paths a declared dependency probes, when the checker declares any."""
    whole: dict[str, Any] = {"parts": parts.as_dict(), "outcome": outcome}
    if depends is not None:
        whole["depends"] = list(depends)
    try:
        return pydantic_core.to_json(whole)
    except ValueError:  # a lone surrogate: json escapes it, pydantic-core refuses
        return json.dumps(whole, separators=(",", ":")).encode()


@dataclass
class ReuseIndex:
    """The reuse index of one repository, read once per run and written back once.

    `entries` maps checker + path to the last complete result stored for it, as a
    `RawEntry` (its body undecoded). Entries are checked when used, not when read: a
    malformed one is a miss and is dropped.
    """

    path: Path
    entries: dict[str, RawEntry] = field(default_factory=dict)
    dirty: bool = False
    #: Keys this run wrote or dropped: they win over a concurrent writer's on save.
    touched: set[str] = field(default_factory=set)
    loaded_stat: StatKey | None = None

    @classmethod
    def load(cls, project_root: Path) -> ReuseIndex:
        """This repository's index; an empty one when absent, unreadable or corrupt
        (then marked to be rewritten whole by the next store). A malformed line is
        left out (a miss) and the index is marked to be rewritten."""
        path = index_path(project_root)
        index = cls(path=path)
        index.entries, index.loaded_stat, ok = _read(path)
        index.dirty = not ok
        return index

    def raw(self, path: str, checker: str) -> RawEntry | None:
        """The entry stored for `path` x `checker`, undecoded, or None."""
        return self.entries.get(_entry_key(path, checker))

    def get(self, path: str, checker: str) -> Mapping[str, Any] | None:
        """The entry for `path` x `checker` decoded (`parts`, `outcome`, `at`, `stat`),
        or None when there is none or its body is malformed."""
        entry = self.raw(path, checker)
        if entry is None:
            return None
        try:
            return entry.decode()
        except ValueError:
            return None

    def put(self, path: str, checker: str, entry: RawEntry) -> None:
        """Keep `entry` for `path` x `checker` (written by the next `save`)."""
        key = _entry_key(path, checker)
        self.entries[key] = entry
        self.touched.add(key)
        self.dirty = True

    def drop(self, path: str, checker: str) -> None:
        """Forget the entry for `path` x `checker`, if any."""
        key = _entry_key(path, checker)
        if self.entries.pop(key, None) is not None:
            self.touched.add(key)
            self.dirty = True

    def save(self) -> bool:
        """Write the index atomically when it changed; False when it could not be.

        An index another process wrote since this one was read is merged: its entries
        stand unless this run stored or dropped the same key. The oldest entries go
        past `MAX_ENTRIES`; results past the age limit are not written. The file is
        written from the entries' raw pieces, never built as one string.
        """
        if not self.dirty:
            return True
        entries = dict(self.entries)
        with contextlib.suppress(OSError):
            if stat_key(self.path.stat()) != self.loaded_stat:
                theirs, _stat, _ok = _read(self.path)
                for key, raw in theirs.items():
                    if key not in self.touched:
                        entries.setdefault(key, raw)
                del theirs
        now = time.time()
        fresh = [(e.at, key) for key, e in entries.items() if now - e.at <= MAX_AGE_S]
        fresh.sort(reverse=True)
        header = json.dumps({"schema": INDEX_SCHEMA}).encode() + b"\n"
        heads = {key: _head(key, entries[key]) for _at, key in fresh[:MAX_ENTRIES]}
        limit = MAX_ENTRIES
        while True:
            keys = sorted(key for _at, key in fresh[:limit])
            size = len(header) + sum(len(heads[k]) + len(entries[k].body) + 2 for k in keys)
            if size <= MAX_INDEX_BYTES:
                break
            if not keys:
                return False
            limit = len(keys) // 2  # too large: keep the newer half
        try:
            atomic_write(self.path, _lines(header, keys, heads, entries), durable=False)
            self.loaded_stat = stat_key(self.path.stat())
        except OSError:
            return False
        self.entries = {key: entries[key] for key in keys}
        self.dirty, self.touched = False, set()
        return True


def _lines(
    header: bytes, keys: Sequence[str], heads: Mapping[str, bytes], entries: Mapping[str, RawEntry]
) -> Iterator[bytes]:
    """The index file's bytes, piece by piece: the header, then HEAD, TAB, BODY, newline."""
    yield header
    for key in keys:
        yield heads[key]
        yield b"\t"
        yield entries[key].body
        yield b"\n"


def _parse(blob: bytes) -> Any:
    """The JSON value of `blob`: pydantic-core's parser (about twice as fast as json's),
    json's for what only it reads (an escaped lone surrogate); ValueError when neither."""
    try:
        return pydantic_core.from_json(blob)
    except ValueError:
        return json.loads(blob)


def _read(path: Path) -> tuple[dict[str, RawEntry], StatKey | None, bool]:
    """(entries, the file's stat, whether it was sound): an absent file is sound and
    empty; an oversized, unreadable or foreign one is empty and unsound; a malformed
    line is left out and makes the index unsound (it is rewritten)."""
    entries: dict[str, RawEntry] = {}
    ok = True
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            if st.st_size > MAX_INDEX_BYTES:
                return {}, stat_key(st), False
            try:
                header = json.loads(fh.readline())
            except (ValueError, RecursionError):
                return {}, stat_key(st), False
            if not isinstance(header, dict) or header.get("schema") != INDEX_SCHEMA:
                return {}, stat_key(st), False
            for line in fh:
                parsed = _parse_line(line)
                if parsed is None:
                    ok = False
                    continue
                entries[parsed[0]] = parsed[1]
    except FileNotFoundError:
        return {}, None, True
    except OSError:
        return {}, None, False
    return entries, stat_key(st), ok


def _settings_digest(config: Mapping[str, Any]) -> str:
    blob = json.dumps(config, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def key_parts(
    target: FileTarget,
    checker: str,
    ident: ReuseIdentity,
    ctx: RunContext,
    source_digest: str | None = None,
    settings_digest: str | None = None,
) -> KeyParts | None:
    """The identity of `target` x `checker` now, or None when it cannot be established."""
    if ident.tool.path is None or ident.tool.version is None:
        return None
    facts = ""
    if ident.facts is not None:
        try:
            said = ident.facts(target)
        except Exception:  # noqa: BLE001 - a plugin fault means "no reuse", never a crash
            return None
        if not isinstance(said, str):
            return None
        facts = hashlib.sha256(said.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    try:
        digest = source_digest or target.digest()
    except OSError:
        return None
    return KeyParts(
        source_digest=digest,
        # The orchestrate settings can change what a checker does (tool paths, jobs):
        # fold them into the effective config identity.
        config_digest=f"{ident.config_digest}+{settings_digest or _settings_digest(ctx.config)}",
        tool_path=ident.tool.path,
        tool_version=ident.tool.version,
        rules=ident.rules,
        path=target.path,
        checker=checker,
        purpose=str(ctx.purpose),
        facts=facts,
    )


def _witness(parts: KeyParts) -> str:
    """What `partition` hands `remember` of a file left to run: its source digest, and
    its facts' digest (a fact that changed while the batch ran, a go.mod edited, may or
    may not be in the result: not stored)."""
    return f"{parts.source_digest}+{parts.facts}" if parts.facts else parts.source_digest


#: Scope fields an entry does not store: the key names them, or they are of this run.
_NOT_STORED = frozenset({"path", "checker", "tier", "reused", "duration_ms"})


def _encode(outcome: FileOutcome) -> dict[str, Any]:
    """The outcome through the Scope model (every scope field, whatever they are),
    plus the outcome-only facts a reused result needs: findings, coherence, notes."""
    return {
        "scope": outcome.to_scope(None).model_dump(mode="json", exclude=set(_NOT_STORED)),
        "findings": [f.model_dump(mode="json") for f in outcome.findings],
        "coherent": outcome.coherent,
        "notes": list(outcome.notes),
    }


@functools.cache
def _findings_adapter() -> TypeAdapter[list[Finding]]:
    """One validator for an entry's whole list of findings (one call, not one per finding)."""
    return TypeAdapter(list[Finding])


def _decode(path: str, checker: str, data: Mapping[str, Any]) -> FileOutcome:
    """The outcome an entry stores, its findings as compact as a fresh run's (one
    shared fields set per model, as `core/run.py` keeps them: a reused run holds every
    reused finding at once); ValueError when the entry is malformed."""
    scope = Scope.model_validate({**data["scope"], "path": path, "checker": checker})
    notes = data.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise ValueError("malformed notes")
    findings = _findings_adapter().validate_python(data.get("findings", []))
    for f in findings:
        compact(f)
        if f.exact_edit is not None:
            compact(f.exact_edit)
            if isinstance(anchor := getattr(f.exact_edit, "anchor", None), BaseModel):
                compact(anchor)
    return FileOutcome.from_scope(
        scope,
        findings=tuple(findings),
        coherent=bool(data.get("coherent")),
        duration_ms=0,
        notes=tuple(notes),
    )


def _open(where: Path | ReuseIndex) -> tuple[ReuseIndex, bool]:
    """(the index, whether the caller must save it: it was loaded for this one call)."""
    return (where, False) if isinstance(where, ReuseIndex) else (ReuseIndex.load(where), True)


def stored_digest(index: ReuseIndex, path: str, checker: str, st: os.stat_result) -> str | None:
    """The digest stored for `path` x `checker` when the file's stat is the one kept
    with it (the file is unchanged since), else None (read and digest it). Reads only
    the entry's head, never its body."""
    entry = index.raw(path, checker)
    if entry is None or entry.stat is None or entry.stat != stat_key(st):
        return None
    return entry.digest or None


def lookup(
    where: Path | ReuseIndex,
    parts: KeyParts,
    max_age_s: float = MAX_AGE_S,
    stat: StatKey | None = None,
    watch: bool = False,
    kinds: dict[str, str] | None = None,
) -> Cached | None:
    """The stored complete outcome for exactly this identity, or None (a miss).

    `where` is the project root (the index is read for this call) or an index already
    read. Delivery purposes never reuse. A corrupt, stale or mismatching entry is a miss
    (a corrupt or stale one is dropped). `stat`, when given, is kept with a hit whose
    stored stat differs (the file was touched, its bytes are the same). Only this
    entry's body is decoded. With `watch` (the checker declares dependencies), the
    paths the entry stores are probed now and their answers are the identity's
    `depends`: a path whose kind changed since the result was stored is a miss
    (`kinds`: the memo of the run's probes, `dependencies.probe`).
    """
    if parts.purpose != str(Purpose.FEEDBACK) or parts.completeness != str(ScopeStatus.CHECKED):
        return None
    index, owned = _open(where)
    entry = index.raw(parts.path, parts.checker)
    if entry is None:
        return None
    try:
        if time.time() - entry.at > max_age_s:
            raise ValueError("stale")
        if entry.digest != parts.source_digest:
            return None  # the file changed: a plain miss, its body not even decoded
        data = entry.decode()
        answers: Answers | None = None
        if watch:
            paths = dependencies.stored_paths(data.get("depends"))
            if paths is None:
                raise ValueError("malformed dependencies")
            answers = dependencies.probe(paths, kinds)
            parts = replace(parts, depends=dependencies.digest(answers))
        if data.get("parts") != parts.as_dict():
            return None  # another identity (its config or tool changed): a plain miss
        outcome = _decode(parts.path, parts.checker, data["outcome"])
        if not is_reusable(outcome.status):
            raise ValueError("incomplete result in cache")
    except (ValueError, KeyError, TypeError, AttributeError):
        index.drop(parts.path, parts.checker)
        if owned:
            index.save()
        return None
    if stat is not None and entry.stat != stat:
        index.put(parts.path, parts.checker, replace(entry, stat=stat))
        if owned:
            index.save()
    return Cached(outcome=outcome, depends=answers)


def store(
    where: Path | ReuseIndex,
    parts: KeyParts,
    outcome: FileOutcome,
    stat: StatKey | None = None,
    depends: Sequence[str] | None = None,
) -> bool:
    """Keep a complete feedback outcome under its identity; False when not storable.

    `where` is the project root (the index is read and written for this call) or an
    index the caller saves. `stat` is the file's trusted stat (`_trusted_stat`), or None.
    `depends` are the paths of the checker's declared dependencies (their answers are
    in `parts.depends`), kept so a lookup probes them again.
    """
    if (
        parts.purpose != str(Purpose.FEEDBACK)
        or not is_reusable(outcome.status)
        or not outcome.reusable
        or outcome.path != parts.path
        or outcome.checker != parts.checker
    ):
        return False
    if len(outcome.findings) > MAX_ENTRY_FINDINGS:
        return False
    body = _encode_body(parts, _encode(outcome), depends)
    index, owned = _open(where)
    entry = RawEntry(at=time.time(), stat=stat, digest=parts.source_digest, body=body)
    index.put(parts.path, parts.checker, entry)
    return index.save() if owned else True


# --- engine hook -----------------------------------------------------------------

#: Set to "0" to turn reuse off for a process (the task recheck child does: a
#: re-verification must be a fresh run of the original checker, never a cache hit).
ENV_SWITCH = "ORCHESTRATE_REUSE"


def enabled() -> bool:
    return os.environ.get(ENV_SWITCH, "1") != "0"


def _identity(checker: LoadedChecker, batch: Batch, ctx: RunContext) -> ReuseIdentity | None:
    """The checker's declared `reuse_identity(batch, ctx)`; None (never reused) when it
    declares none, returns something else, or fails."""
    fn = checker.reuse_identity
    if fn is None:
        return None
    try:
        ident = fn(batch, ctx)
    except Exception:  # noqa: BLE001 - a plugin fault means "no reuse", never a crash
        return None
    return ident if isinstance(ident, ReuseIdentity) else None


def _stat(t: FileTarget) -> os.stat_result | None:
    if not t.on_disk:
        return None
    try:
        return os.stat(t.abs_path)
    except OSError:
        return None


#: What `partition` took of each file left to run, for its declared dependencies: the
#: answers probed before the run, or None when the checker could not name them.
PreRun = dict[str, Answers | None]


def _pre_run(
    checker: LoadedChecker,
    t: FileTarget,
    batch: Batch,
    ctx: RunContext,
    kinds: dict[str, str] | None = None,
) -> Answers | None:
    """The answers of `t`'s declared dependencies now (before its batch runs), or None
    when the checker cannot name them (the file is then neither stored nor watched).
    A file that changes between this read and its digest is not stored (`remember`
    compares the digests before and after the run)."""
    try:
        source = t.read_bytes()
    except OSError:
        return None
    paths = dependencies.declared(checker, t, source, batch, ctx)
    return dependencies.probe(paths, kinds) if paths is not None else None


def partition(
    index: Path | ReuseIndex,
    checker: LoadedChecker,
    batch: Batch,
    ctx: RunContext,
    kinds: dict[str, str] | None = None,
) -> tuple[list[Cached], Batch | None, dict[str, str], PreRun]:
    """Split a batch into reused outcomes and what still has to run.

    Returns (reused, batch_to_run or None, the witnesses of the targets to run (their
    source digests, and their facts' digests: `_witness`), and,
    for a checker that declares dependencies, their answers before the run per target
    to run: both to pass to `remember`). Only feedback runs reuse. `kinds` is the memo
    of the run's dependency probes (`dependencies.probe`).
    """
    kinds = {} if kinds is None else kinds
    watch = dependencies.declares(checker)
    unknown: PreRun = {t.path: None for t in batch.targets} if watch else {}
    if ctx.purpose != Purpose.FEEDBACK or not enabled():
        return [], batch, {}, unknown
    ident = _identity(checker, batch, ctx)
    if ident is None:
        return [], batch, {}, unknown
    idx, owned = _open(index)
    name = checker.name
    settings = _settings_digest(ctx.config)
    reused: list[Cached] = []
    rest: list[FileTarget] = []
    digests: dict[str, str] = {}
    pre: PreRun = {}
    for t in batch.targets:
        st = _stat(t)
        by_stat = stored_digest(idx, t.path, name, st) if st is not None else None
        now_ns = time.time_ns()
        parts = key_parts(t, name, ident, ctx, by_stat, settings)
        trusted = _trusted_stat(st, now_ns) if st is not None and by_stat is None else None
        hit = lookup(idx, parts, stat=trusted, watch=watch, kinds=kinds) if parts else None
        if hit is not None:
            reused.append(hit)
            continue
        rest.append(t)
        if parts is not None:
            digests[t.path] = _witness(parts)
        if watch:
            # A miss runs the tool, which costs far more than this second read.
            pre[t.path] = _pre_run(checker, t, batch, ctx, kinds)
    if owned:
        idx.save()
    if not rest:
        return reused, None, digests, pre
    if len(rest) == len(batch.targets):
        return reused, batch, digests, pre
    return reused, Batch(tuple(rest), batch.data, batch.label), digests, pre


def remember(
    index: Path | ReuseIndex,
    checker: LoadedChecker,
    batch: Batch,
    ctx: RunContext,
    outcomes: Sequence[FileOutcome],
    digests: Mapping[str, str],
    pre: Mapping[str, Answers | None] | None = None,
) -> int:
    """Store the complete outcomes of a batch that just ran; returns how many were kept.

    A file whose bytes changed while it was being checked (digest before != after)
    is not stored; for a checker that declares dependencies, nor is one whose answers
    before the run (`pre`, from `partition`) are missing or differ from those now.
    """
    if ctx.purpose != Purpose.FEEDBACK or not digests or not enabled():
        return 0
    ident = _identity(checker, batch, ctx)
    if ident is None:
        return 0
    watch = dependencies.declares(checker)
    idx, owned = _open(index)
    name = checker.name
    settings = _settings_digest(ctx.config)
    by_path = {t.path: t for t in batch.targets}
    now_kinds: dict[str, str] = {}  # one snapshot after the batch, shared by its files
    kept = 0
    for o in outcomes:
        t = by_path.get(o.path)
        before = digests.get(o.path)
        if t is None or before is None or not is_reusable(o.status) or not o.reusable:
            continue
        # Identity reported by the run must be the identity we keyed on.
        if o.tool is not None and (o.tool.path, o.tool.version) != (
            ident.tool.path,
            ident.tool.version,
        ):
            continue
        # The stat before the bytes: a write after the stat changes the digest (not
        # stored) or the stat (a miss next time).
        st = _stat(t)
        now_ns = time.time_ns()
        parts = key_parts(t, name, ident, ctx, None, settings)
        if parts is None or _witness(parts) != before:
            continue
        paths: tuple[str, ...] | None = None
        if watch:
            answers = (pre or {}).get(o.path)
            # A dependency that changed while the batch ran may or may not be in the result.
            if answers is None or dependencies.probe(answers, now_kinds) != answers:
                continue
            parts, paths = replace(parts, depends=dependencies.digest(answers)), tuple(answers)
        trusted = _trusted_stat(st, now_ns) if st is not None else None
        kept += store(idx, parts, o, stat=trusted, depends=paths)
    if owned:
        idx.save()
    return kept


@dataclass
class ReusePlan:
    """The engine's view: outcomes reused, work left to run, and what to remember."""

    reused: list[FileOutcome]
    work: list[tuple[Any, Batch]]
    reused_keys: set[tuple[str, str]]
    digests: list[dict[str, str]]
    index: ReuseIndex | None = None
    #: Per batch of `work`: its declared dependencies' answers before the run.
    pre: list[PreRun] = field(default_factory=list)
    #: Every declared dependency of the run, reused or run, with its answer before the
    #: run: what a warm engine's kept run must see unchanged (core/run_memo.py).
    watched: Answers = field(default_factory=dict)
    #: Some file's declared dependencies are not known (its checker could not name
    #: them, or reuse was not consulted for it): the run must not be kept whole.
    unwatched: bool = False

    def watch(self, answers: Mapping[str, str] | None) -> None:
        """Add one file's answers (None: its dependencies are not known)."""
        if answers is None:
            self.unwatched = True
            return
        for path, kind in answers.items():
            if self.watched.setdefault(path, kind) != kind:
                self.unwatched = True  # probed twice, changed between: not settled


def _fresh(work: Sequence[tuple[Any, Batch]]) -> ReusePlan:
    plan = ReusePlan([], list(work), set(), [{} for _ in work], pre=[{} for _ in work])
    plan.unwatched = any(dependencies.declares(c) for c, _batch in work)
    return plan


def consult(
    project_root: Path,
    work: Sequence[tuple[Any, Batch]],
    ctx: RunContext,
    keys: set[tuple[str, str]] | None = None,
    on_hits: Callable[[list[FileOutcome]], None] | None = None,
) -> ReusePlan:
    """For every (checker, batch) about to run: take what the index holds, keep the rest.

    Delivery and a switched-off reuse never read the index. A run with more files than
    the index holds checks fresh. Never raises: a cache fault means the batch simply runs.
    With `on_hits` (a streamed run), each batch's reused outcomes are handed to it as
    they are decoded and not kept in the plan (a warm cache of 100,000 files would
    otherwise hold every decoded hit at once); `keys`, when given, is the set the
    reused (path, checker) keys go into (before `on_hits` sees their outcomes).
    """
    if ctx.purpose != Purpose.FEEDBACK or not enabled():
        return _fresh(work)
    if sum(len(batch.targets) for _checker, batch in work) > MAX_ENTRIES:
        return _fresh(work)
    try:
        index = ReuseIndex.load(project_root)
    except Exception:  # noqa: BLE001 - the cache must never stop a check
        return _fresh(work)
    reused_keys = keys if keys is not None else set()
    kinds: dict[str, str] = {}  # the run's dependency probes, each path stat'd once
    plan = ReusePlan(reused=[], work=[], reused_keys=reused_keys, digests=[], index=index)
    for checker, batch in work:
        watch = dependencies.declares(checker)
        try:
            hits, rest, digests, pre = partition(index, checker, batch, ctx, kinds)
        except Exception:  # noqa: BLE001 - the cache must never stop a check
            hits, rest, digests, pre = [], batch, {}, {}
            plan.unwatched = plan.unwatched or watch
        for h in hits:
            plan.reused_keys.add((h.outcome.path, h.outcome.checker))
            if watch:
                plan.watch(h.depends)
        for answers in pre.values():
            plan.watch(answers)
        if on_hits is not None:
            on_hits([h.outcome for h in hits])
        else:
            plan.reused.extend(h.outcome for h in hits)
        if rest is not None:
            plan.work.append((checker, rest))
            plan.digests.append(digests)
            plan.pre.append(pre)
    return plan


def record(
    project_root: Path, plan: ReusePlan, ctx: RunContext, outcomes: Sequence[FileOutcome]
) -> int:
    """After the run: store the complete outcomes of the batches `consult` let through,
    and write the index once (only when it changed)."""
    if plan.index is None:
        return 0
    kept = 0
    for (checker, batch), digests, pre in zip(plan.work, plan.digests, plan.pre, strict=True):
        if not digests:
            continue
        name = checker.name
        paths = {t.path for t in batch.targets}
        mine = [o for o in outcomes if o.checker == name and o.path in paths]
        try:
            kept += remember(plan.index, checker, batch, ctx, mine, digests, pre)
        except Exception:  # noqa: BLE001 - the cache must never stop a check
            continue
    with contextlib.suppress(Exception):
        plan.index.save()
    return kept
