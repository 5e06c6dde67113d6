"""Identity-keyed reuse of fast-feedback results (CG-17).

A result for one file x checker may be reused only when its whole identity is
equal: source bytes digest, effective config digest, tool identity (path and
version), rule set, scope (path, checker, purpose) and completeness. Only complete
`checked` results of feedback runs are stored; timed-out, partial or otherwise
incomplete results never are, and delivery (commit, push, CI) never reuses.

Entries live in the user's cache folder, keyed by repository (`cache_dir`), never in
the project. The cache is bounded
(a fixed number of slots, and an age limit checked on every lookup) and safe
to delete at any time: a missing, corrupt or
mismatching entry is a miss.

Engine hook: `plan = consult(root, work, ctx)` before running the batches (reused
outcomes, the work left to run, the reused (path, checker) keys whose scope gets
`reused = REUSE_REASON`), and `record(root, plan, ctx, outcomes)` after. A checker
opts in by providing `reuse_identity(batch, ctx) -> ReuseIdentity | None` (built-in
native plugins with `{"ident", "config"}` batch data are understood as well); any
other checker is never reused. `ORCHESTRATE_REUSE=0` turns reuse off.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from orchestrator.model.checker import Batch, FileOutcome, FileTarget, RunContext
from orchestrator.model.report import Finding, Scope, ToolIdentity
from orchestrator.vocab import Purpose, ScopeStatus
from orchestrator.workspace import atomic_write, user_cache_dir

CACHE_DIR = "cache/reuse"
REUSE_REASON = "identity equal"
MAX_ENTRIES = 512
MAX_AGE_S = 24 * 3600.0
MAX_ENTRY_BYTES = 1 << 20
#: Version 2: the outcome is stored through the Scope model; version-1 entries miss.
#: Version 3: findings carry the tool's rule link and description; older entries miss.
ENTRY_SCHEMA = "orchestrate.reuse/3"


@dataclass(frozen=True)
class ReuseIdentity:
    """What a checker says fixes its result besides the file bytes."""

    tool: ToolIdentity
    config_digest: str
    rules: str = ""


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

    def key(self) -> str:
        raw = json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(raw.encode("utf-8", "surrogateescape")).hexdigest()


@dataclass(frozen=True)
class Cached:
    """A reused outcome and why it may stand in for a fresh run."""

    outcome: FileOutcome
    reason: str = REUSE_REASON


def cache_dir(project_root: Path, create: bool = False) -> Path:
    """Where this repository's reuse entries live (the user's cache folder)."""
    return user_cache_dir(project_root, CACHE_DIR, create=create)


def _dir(project_root: Path, create: bool) -> Path:
    return cache_dir(project_root, create)


def _entry_path(project_root: Path, key: str, create: bool) -> Path:
    # A fixed number of slots bounds the cache without ever listing its folder: a new
    # entry simply evicts whatever held its slot (each entry names its full identity).
    return _dir(project_root, create) / f"slot-{int(key[:8], 16) % MAX_ENTRIES:04x}.json"


def _settings_digest(config: Mapping[str, Any]) -> str:
    blob = json.dumps(config, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def key_parts(
    target: FileTarget,
    checker: str,
    ident: ReuseIdentity,
    ctx: RunContext,
    source_digest: str | None = None,
) -> KeyParts | None:
    """The identity of `target` x `checker` now, or None when it cannot be established."""
    if ident.tool.path is None or ident.tool.version is None:
        return None
    try:
        digest = source_digest or target.digest()
    except OSError:
        return None
    return KeyParts(
        source_digest=digest,
        # The orchestrate settings can change what a checker does (tool paths, jobs):
        # fold them into the effective config identity.
        config_digest=f"{ident.config_digest}+{_settings_digest(ctx.config)}",
        tool_path=ident.tool.path,
        tool_version=ident.tool.version,
        rules=ident.rules,
        path=target.path,
        checker=checker,
        purpose=str(ctx.purpose),
    )


#: Scope fields an entry does not store: the key names them, or they are of this run.
_NOT_STORED = frozenset({"path", "checker", "tier", "reused", "duration_ms"})


def _encode(outcome: FileOutcome) -> dict[str, Any]:
    """The outcome through the Scope model (every scope field, whatever they are),
    plus the two outcome-only facts a reused result needs: findings and coherence."""
    return {
        "scope": outcome.to_scope(None).model_dump(mode="json", exclude=set(_NOT_STORED)),
        "findings": [f.model_dump(mode="json") for f in outcome.findings],
        "coherent": outcome.coherent,
    }


def _decode(path: str, checker: str, data: Mapping[str, Any]) -> FileOutcome:
    scope = Scope.model_validate({**data["scope"], "path": path, "checker": checker})
    return FileOutcome.from_scope(
        scope,
        findings=tuple(Finding.model_validate(f) for f in data.get("findings", [])),
        coherent=bool(data.get("coherent")),
        duration_ms=0,
    )


def lookup(project_root: Path, parts: KeyParts, max_age_s: float = MAX_AGE_S) -> Cached | None:
    """The stored complete outcome for exactly this identity, or None (a miss).

    Delivery purposes never reuse. A corrupt, stale or mismatching entry is a miss
    (and is removed).
    """
    if parts.purpose != str(Purpose.FEEDBACK) or parts.completeness != str(ScopeStatus.CHECKED):
        return None
    path = _entry_path(project_root, parts.key(), create=False)
    try:
        st = path.stat()
        if st.st_size > MAX_ENTRY_BYTES or time.time() - st.st_mtime > max_age_s:
            raise ValueError("stale or oversized")
        data = json.loads(path.read_bytes())
        if data.get("schema") != ENTRY_SCHEMA:
            raise ValueError("not a reuse entry")
        if data.get("parts") != asdict(parts):
            return None  # the slot holds another identity: a plain miss
        outcome = _decode(parts.path, parts.checker, data["outcome"])
        if outcome.status != ScopeStatus.CHECKED:
            raise ValueError("incomplete result in cache")
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    return Cached(outcome=outcome)


def store(project_root: Path, parts: KeyParts, outcome: FileOutcome) -> bool:
    """Keep a complete feedback outcome under its identity; False when not storable."""
    if (
        parts.purpose != str(Purpose.FEEDBACK)
        or outcome.status != ScopeStatus.CHECKED
        or outcome.path != parts.path
        or outcome.checker != parts.checker
    ):
        return False
    blob = json.dumps(
        {"schema": ENTRY_SCHEMA, "parts": asdict(parts), "outcome": _encode(outcome)},
        separators=(",", ":"),
    ).encode()
    if len(blob) > MAX_ENTRY_BYTES:
        return False
    try:
        atomic_write(_entry_path(project_root, parts.key(), create=True), blob)
    except OSError:
        return False
    return True


# --- engine hook -----------------------------------------------------------------

#: Set to "0" to turn reuse off for a process (the task recheck child does: a
#: re-verification must be a fresh run of the original checker, never a cache hit).
ENV_SWITCH = "ORCHESTRATE_REUSE"


def enabled() -> bool:
    return os.environ.get(ENV_SWITCH, "1") != "0"


def _identity(checker: object, batch: Batch, ctx: RunContext) -> ReuseIdentity | None:
    """The checker's `reuse_identity(batch, ctx)`; else the built-in batch-data convention.

    Built-in native plugins keep `{"ident": ToolIdentity, "config": Path | None}` as
    batch data; for those the identity is derived here (config digest over the named
    config file's bytes). Anything else is never reused.
    """
    fn = getattr(checker, "reuse_identity", None)
    try:
        if fn is not None:
            ident = fn(batch, ctx)
            return ident if isinstance(ident, ReuseIdentity) else None
        data = batch.data
        if isinstance(data, Mapping) and isinstance(data.get("ident"), ToolIdentity):
            cfg = data.get("config")
            if cfg is not None and not isinstance(cfg, Path):
                return None
            return ReuseIdentity(
                tool=data["ident"],
                config_digest=_file_digest(cfg),
                rules="config" if cfg is not None else "isolated",
            )
    except Exception:  # noqa: BLE001 - a plugin fault means "no reuse", never a crash
        return None
    return None


def _file_digest(path: Path | None) -> str:
    if path is None:
        return "none"
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        raise ValueError("config unreadable") from None


def partition(
    project_root: Path, checker: object, batch: Batch, ctx: RunContext
) -> tuple[list[Cached], Batch | None, dict[str, str]]:
    """Split a batch into reused outcomes and what still has to run.

    Returns (reused, batch_to_run or None, source digests of the targets to run, to
    pass to `remember`). Only feedback runs reuse.
    """
    if ctx.purpose != Purpose.FEEDBACK or not enabled():
        return [], batch, {}
    ident = _identity(checker, batch, ctx)
    if ident is None:
        return [], batch, {}
    name = str(getattr(checker, "name", ""))
    reused: list[Cached] = []
    rest: list[FileTarget] = []
    digests: dict[str, str] = {}
    for t in batch.targets:
        parts = key_parts(t, name, ident, ctx)
        hit = lookup(project_root, parts) if parts else None
        if hit is not None:
            reused.append(hit)
            continue
        rest.append(t)
        if parts is not None:
            digests[t.path] = parts.source_digest
    if not rest:
        return reused, None, digests
    if len(rest) == len(batch.targets):
        return reused, batch, digests
    return reused, Batch(tuple(rest), batch.data, batch.label), digests


def remember(
    project_root: Path,
    checker: object,
    batch: Batch,
    ctx: RunContext,
    outcomes: Sequence[FileOutcome],
    digests: Mapping[str, str],
) -> int:
    """Store the complete outcomes of a batch that just ran; returns how many were kept.

    A file whose bytes changed while it was being checked (digest before != after)
    is not stored.
    """
    if ctx.purpose != Purpose.FEEDBACK or not digests or not enabled():
        return 0
    ident = _identity(checker, batch, ctx)
    if ident is None:
        return 0
    name = str(getattr(checker, "name", ""))
    by_path = {t.path: t for t in batch.targets}
    kept = 0
    for o in outcomes:
        t = by_path.get(o.path)
        before = digests.get(o.path)
        if t is None or before is None or o.status != ScopeStatus.CHECKED:
            continue
        # Identity reported by the run must be the identity we keyed on.
        if o.tool is not None and (o.tool.path, o.tool.version) != (
            ident.tool.path,
            ident.tool.version,
        ):
            continue
        parts = key_parts(t, name, ident, ctx)
        if parts is None or parts.source_digest != before:
            continue
        kept += store(project_root, parts, o)
    return kept


@dataclass
class ReusePlan:
    """The engine's view: outcomes reused, work left to run, and what to remember."""

    reused: list[FileOutcome]
    work: list[tuple[Any, Batch]]
    reused_keys: set[tuple[str, str]]
    digests: list[dict[str, str]]


def consult(project_root: Path, work: Sequence[tuple[Any, Batch]], ctx: RunContext) -> ReusePlan:
    """For every (checker, batch) about to run: take what the cache holds, keep the rest.

    Never raises: a cache fault means the batch simply runs.
    """
    plan = ReusePlan(reused=[], work=[], reused_keys=set(), digests=[])
    for checker, batch in work:
        try:
            hits, rest, digests = partition(project_root, checker, batch, ctx)
        except Exception:  # noqa: BLE001 - the cache must never stop a check
            hits, rest, digests = [], batch, {}
        for h in hits:
            plan.reused.append(h.outcome)
            plan.reused_keys.add((h.outcome.path, h.outcome.checker))
        if rest is not None:
            plan.work.append((checker, rest))
            plan.digests.append(digests)
    return plan


def record(
    project_root: Path, plan: ReusePlan, ctx: RunContext, outcomes: Sequence[FileOutcome]
) -> int:
    """After the run: store the complete outcomes of the batches `consult` let through."""
    kept = 0
    for (checker, batch), digests in zip(plan.work, plan.digests, strict=True):
        if not digests:
            continue
        name = str(getattr(checker, "name", ""))
        paths = {t.path for t in batch.targets}
        mine = [o for o in outcomes if o.checker == name and o.path in paths]
        try:
            kept += remember(project_root, checker, batch, ctx, mine, digests)
        except Exception:  # noqa: BLE001 - the cache must never stop a check
            continue
    return kept
