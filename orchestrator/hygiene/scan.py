"""The deterministic scan of `orchestrate check`: rule matches -> shortlist -> entries.

No model is involved here except through the `orchestrate_classify` hook, asked only
for matches whose lifecycle carries a free-text `served_when`. The finalize pass
(finalize.py) then derives every tier and the promotion candidates.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pathspec

from orchestrator import __version__
from orchestrator.hygiene import content, dedupe, gitstate, paths
from orchestrator.hygiene.hygiene_report import (
    SCHEMA_VERSION,
    Entry,
    Evidence,
    HygieneReport,
    HygieneScan,
    ShortlistItem,
)
from orchestrator.hygiene.placement import KeptIn, Placement
from orchestrator.hygiene.rulebook import HygieneConfig, Rule
from orchestrator.model.edits import (
    KIND_CHARACTER,
    Anchor,
    Dedupe,
    Delete,
    ExtractThenDelete,
    InsertFrontmatter,
)
from orchestrator.model.report import utc_now

Classifier = Callable[[dict[str, Any], str], "dict[str, Any] | None"]
_DAY = 86400.0
_MAX_DEDUPE_DOC = 1024 * 1024


def entry_id(kind: str, path: str, anchor: Anchor) -> str:
    """A short stable id: the same op on the same content place gets the same id."""
    raw = f"{kind}\0{path}\0{anchor.start_line}-{anchor.end_line}".encode(
        "utf-8", "surrogateescape"
    )
    return "hy-" + hashlib.sha256(raw).hexdigest()[:10]


def parse_time(stamp: str) -> float:
    """Seconds since the epoch of an ISO-8601 UTC stamp (trailing Z allowed)."""
    dt = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    if dt.tzinfo is None or dt.utcoffset() is None or dt.utcoffset().total_seconds() != 0:  # type: ignore[union-attr]
        raise ValueError("generated_at is not UTC")
    return dt.timestamp()


def _spec(globs: list[str]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(globs)


def _walk(
    root: Path, cfg: HygieneConfig, unsafe: list[str] | None = None
) -> tuple[list[str], list[str]]:
    """(files, dirs) under root as relative POSIX paths, sorted, exclusions pruned.

    A name no op may touch (a control character, a backslash: paths.path_problem) is
    left out with everything under it: an entry for it would make clean refuse the
    whole report. Such names go to `unsafe` (when given)."""
    excluded = set(cfg.excluded_dirs)
    files: list[str] = []
    dirs: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        keep = []
        for d in sorted(dirnames):
            rel = d if rel_dir == "." else f"{rel_dir}/{d}"
            if d in excluded or rel in excluded or (Path(dirpath) / d).is_symlink():
                continue
            if paths.path_problem(rel) is not None:
                if unsafe is not None:
                    unsafe.append(rel)
                continue
            keep.append(d)
            dirs.append(rel)
        dirnames[:] = keep
        for f in sorted(filenames):
            rel = f if rel_dir == "." else f"{rel_dir}/{f}"
            if paths.path_problem(rel) is None:
                files.append(rel)
            elif unsafe is not None:
                unsafe.append(rel)
    return sorted(files), sorted(dirs)


def _resolve_served_path(template: str, rel: str) -> str | None:
    parent = posixpath.dirname(rel) or "."
    name = posixpath.basename(rel)
    stem = name.rsplit(".", 1)[0] if "." in name[1:] else name
    try:
        filled = template.format(path=rel, dir=parent, name=name, stem=stem)
    except (KeyError, IndexError, ValueError):
        return None
    norm = posixpath.normpath(filled)
    if norm.startswith("../") or norm == ".." or posixpath.isabs(norm):
        return None
    return norm


def _classify(classifier: Classifier | None, item: dict[str, Any], root: str) -> Evidence:
    if classifier is None:
        return Evidence(classifier="pending")
    try:
        verdict = classifier(item, root)
    except Exception:  # noqa: BLE001 - a faulty classifier leaves the entry pending
        verdict = None
    if not isinstance(verdict, dict) or not isinstance(verdict.get("served"), bool):
        return Evidence(classifier="pending")
    rationale = verdict.get("rationale")
    return Evidence(
        classifier="served" if verdict["served"] else "not_served",
        rationale=str(rationale)[:500] if rationale is not None else None,
    )


def _match_rules(
    rules: list[Rule], files: list[str], dirs: list[str]
) -> list[tuple[Rule, str, bool]]:
    """(rule, path, is_dir) for every match; first matching rule wins; dirs claim contents."""
    dir_rules = [(r, _spec(r.globs)) for r in rules if r.type == "directory"]
    file_rules = [(r, _spec(r.globs)) for r in rules if r.type == "file"]
    out: list[tuple[Rule, str, bool]] = []
    claimed: list[str] = []
    for d in dirs:
        if any(d.startswith(c + "/") for c in claimed):
            continue
        for rule, spec in dir_rules:
            if spec.match_file(d + "/") or spec.match_file(d):
                out.append((rule, d, True))
                claimed.append(d)
                break
    for f in files:
        if any(f.startswith(c + "/") for c in claimed):
            continue
        for rule, spec in file_rules:
            if spec.match_file(f):
                out.append((rule, f, False))
                break
    return out


def _shortlist_item(
    root: Path,
    rule: Rule,
    rel: str,
    is_dir: bool,
    snap: gitstate.RepoSnapshot,
    now_s: float,
    classifier: Classifier | None,
) -> tuple[ShortlistItem, float]:
    """One rule match as a shortlist item with its evidence, and its age in days.

    A temporary's status is settled later, with the others of its rule (`_settle_temporaries`).
    """
    abs_path = root / rel
    git = snap.state(rel, is_dir)
    age = max(0.0, (now_s - content.newest_mtime(abs_path)) / _DAY)
    ev = Evidence(tracked=git.tracked, clean=git.clean, age_days=round(age, 3))
    item = ShortlistItem(
        path=rel,
        type="directory" if is_dir else "file",
        lifecycle=rule.lifecycle(),
        status="candidate",
        evidence=ev,
    )
    if content.is_frozen(abs_path):
        item.status = "frozen"
    elif rule.only_if is not None and not _content_holds(abs_path, rule.only_if):
        item.status = "unserved"
    elif rule.lifetime == "keep":
        item.status = "kept"
    elif rule.lifetime == "temporary":
        pass
    elif rule.served_when_path is not None:
        served = _resolve_served_path(rule.served_when_path, rel)
        if served is not None and (root / served).exists():
            item.evidence = ev.model_copy(update={"scanner_proven": True, "served_by": served})
        else:
            item.status = "unserved"
    else:
        judged = _classify(
            classifier,
            {"path": rel, "type": item.type, "lifecycle": item.lifecycle.model_dump()},
            str(root),
        )
        item.evidence = ev.model_copy(
            update={"classifier": judged.classifier, "rationale": judged.rationale}
        )
        if judged.classifier == "not_served":
            item.status = "not_served"
    return item, age


def _content_holds(path: Path, condition: str) -> bool:
    """Whether a rule's content condition (Rule.only_if) holds for the file at `path`."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_DEDUPE_DOC:
            return False
        data = path.read_bytes()
    except OSError:
        return False
    return condition == "checklist-done" and content.checklist_done(data)


def _settle_temporaries(temporaries: dict[str, list[tuple[float, ShortlistItem, Rule]]]) -> None:
    """Per temporary rule: the youngest `retain_recent` and the too-young are retained;
    the rest are scanner-proven candidates."""
    for group in temporaries.values():
        group.sort(key=lambda g: (g[0], g[1].path))  # youngest first
        for rank, (age, item, rule) in enumerate(group):
            if rank < rule.retain_recent or age < (rule.max_age_days or 0.0):
                item.status = "retained"
            else:
                item.evidence = item.evidence.model_copy(update={"scanner_proven": True})


def _shortlist(
    root: Path,
    cfg: HygieneConfig,
    files: list[str],
    dirs: list[str],
    snap: gitstate.RepoSnapshot,
    now_s: float,
    classifier: Classifier | None,
) -> list[ShortlistItem]:
    shortlist: list[ShortlistItem] = []
    temporaries: dict[str, list[tuple[float, ShortlistItem, Rule]]] = {}
    for rule, rel, is_dir in _match_rules(cfg.rules, files, dirs):
        item, age = _shortlist_item(root, rule, rel, is_dir, snap, now_s, classifier)
        if item.status == "candidate" and rule.lifetime == "temporary":
            temporaries.setdefault(rule.id, []).append((age, item, rule))
        shortlist.append(item)
    _settle_temporaries(temporaries)
    return shortlist


def proven_now(root: Path, cfg: HygieneConfig) -> dict[str, Rule]:
    """Every path the live tree and rulebook prove may go now, with the rule that owns
    it: a scanner-proven candidate of a fresh scan (no classifier is asked). A clean
    checks a report's auto lifecycle op against this: the report is untrusted."""
    root = root.resolve()
    files, dirs = _walk(root, cfg)
    in_scope = _spec(cfg.scope_globs)
    files = [f for f in files if in_scope.match_file(f)]
    snap = gitstate.snapshot(root)
    rules = {r.id: r for r in cfg.rules}
    return {
        item.path: rules[item.lifecycle.rule_ref]
        for item in _shortlist(root, cfg, files, dirs, snap, time.time(), None)
        if item.status == "candidate" and item.evidence.scanner_proven
    }


def scan(
    root: Path,
    cfg: HygieneConfig,
    classifier: Classifier | None = None,
    now: str | None = None,
    unsafe: list[str] | None = None,
) -> HygieneReport:
    """Scan `root` with the rulebook; return a report whose tiers are not yet derived.
    Names left out because no op may touch them go to `unsafe` (when given).

    Deterministic for a given tree, git state, check time and classifier.
    """
    root = root.resolve()
    generated_at = now or utc_now()
    now_s = parse_time(generated_at) if now else time.time()
    files, dirs = _walk(root, cfg, unsafe)
    in_scope = _spec(cfg.scope_globs)
    files = [f for f in files if in_scope.match_file(f)]
    snap = gitstate.snapshot(root)
    shortlist = _shortlist(root, cfg, files, dirs, snap, now_s, classifier)

    entries: list[Entry] = []
    rules = {r.id: r for r in cfg.rules}
    for item in shortlist:
        if item.status == "candidate":
            entry = _lifecycle_entry(root, item, rules[item.lifecycle.rule_ref])
            item.entry_id = entry.id
            entries.append(entry)

    place = Placement(root, cfg)
    going = {i.path for i in shortlist if i.status == "candidate"}
    if cfg.dedupe_sections:
        docs = [f for f in files if f not in going]
        entries.extend(_dedupe_entries(root, docs, snap, cfg, place))
    entries.extend(
        _frontmatter_entries(root, [f for f in files if f not in going], snap, cfg, place)
    )

    shortlist.sort(key=lambda i: i.path)
    entries.sort(key=lambda e: (e.path, _start(e), e.id))
    return HygieneReport(
        schema_version=SCHEMA_VERSION,
        tool_version=__version__,
        generated_at=generated_at,
        scan=HygieneScan(
            project_root=str(root),
            scope_globs=list(cfg.scope_globs),
            excluded_dirs=list(cfg.excluded_dirs),
            files_scanned=len(files),
        ),
        shortlist=shortlist,
        entries=entries,
        promotion_candidates=[],
    )


def _start(e: Entry) -> int:
    anchor = getattr(e.exact_edit, "anchor", None)
    return anchor.start_line if anchor is not None else 0


def _lifecycle_entry(root: Path, item: ShortlistItem, rule: Rule) -> Entry:
    abs_path = root / item.path
    anchor = content.whole_anchor(abs_path)
    edit: Delete | ExtractThenDelete
    if rule.action == "extract-then-delete":
        edit = ExtractThenDelete(
            kind="extract-then-delete",
            anchor=anchor,
            lifecycle=item.lifecycle,
            extraction_target=rule.extraction_target or "cross-repo",
            target_document=rule.target_document,
        )
    else:
        edit = Delete(kind="delete", anchor=anchor, lifecycle=item.lifecycle)
    destructive, reversible = KIND_CHARACTER[edit.kind]
    ev = item.evidence
    why = (
        f"served: {ev.served_by} exists"
        if ev.served_by
        else f"temporary, {ev.age_days:g} days old"
        if item.lifecycle.lifetime == "temporary"
        else f"served_when needs judgement (classifier: {ev.classifier})"
    )
    return Entry(
        id=entry_id(edit.kind, item.path, anchor),
        path=item.path,
        op_type="deterministic",
        exact_edit=edit,
        is_destructive=destructive,
        is_reversible=reversible,
        safety_tier="confirm",  # finalize derives the real tier
        lifecycle=item.lifecycle,
        evidence=item.evidence,
        anchor_digest=content.path_digest(abs_path, anchor),
        reason=f"rule {rule.id}: {why}",
    )


def _markdown(root: Path, files: list[str]) -> dict[str, bytes]:
    docs: dict[str, bytes] = {}
    for rel in files:
        if not rel.lower().endswith((".md", ".markdown")):
            continue
        p = root / rel
        try:
            if p.is_symlink() or not p.is_file() or p.stat().st_size > _MAX_DEDUPE_DOC:
                continue
            docs[rel] = p.read_bytes()
        except OSError:
            continue
    return docs


def _proven_entry(
    path: str,
    anchor: Anchor,
    edit: Dedupe | InsertFrontmatter,
    git: gitstate.GitState,
    *,
    placement_rule: str,
    published: bool,
    kept_in: KeptIn | None = None,
    digest: str,
    reason: str,
) -> Entry:
    """The entry of an edit the scan itself proves (a dedupe, a missing front matter) at
    `path` and `anchor`: deterministic, of its kind's character (edits.KIND_CHARACTER),
    tier `confirm` until finalize derives the real one, its evidence the path's git
    state and where the placement rule keeps the text."""
    destructive, reversible = KIND_CHARACTER[edit.kind]
    return Entry(
        id=entry_id(edit.kind, path, anchor),
        path=path,
        op_type="deterministic",
        exact_edit=edit,
        is_destructive=destructive,
        is_reversible=reversible,
        safety_tier="confirm",
        evidence=Evidence(
            scanner_proven=True,
            tracked=git.tracked,
            clean=git.clean,
            placement_rule=placement_rule,
            kept_in=kept_in,
            published=published,
        ),
        anchor_digest=digest,
        reason=reason,
    )


def _dedupe_entries(
    root: Path,
    files: list[str],
    snap: gitstate.RepoSnapshot,
    cfg: HygieneConfig,
    place: Placement,
) -> list[Entry]:
    """Dedupe entries under the scope rule: a generated file and release notes take no
    part (never edited, never the kept copy: a generated file follows its source, a
    changelog repeats entries by design); a pair across documents is proposed only as
    the rule says, with its evidence recorded in the entry."""
    docs = _markdown(root, files)
    generated = {p: why for p, d in docs.items() if (why := place.generated(p, d[:8192]))}
    sources = {p: src for p in generated if (src := place.source_of(p)) is not None}
    docs = {p: d for p, d in docs.items() if p not in generated and not place.repeats_by_design(p)}
    frozen = frozenset(p for p, d in docs.items() if content.is_frozen_bytes(d))
    scope = cfg.dedupe_scope
    out: list[Entry] = []
    for dup, canon in dedupe.duplicates(docs, frozen, place.is_managed):
        kept_in = place.kept_in(dup.path, canon.path)
        published = place.touches_published(dup.path, canon.path)
        ref = dedupe.canonical_ref(canon)
        if kept_in == "other-document":
            policy = scope.published_copies if published else scope.cross_document
            if policy == "skip":
                continue
            why = f"also in {ref}; " + (
                "both are published" if published else "each document has its own readers"
            )
        elif published:
            why = f"duplicate of {ref}; a published page: a person reviews its edits"
        else:
            why = f"duplicate of {ref}" + (
                " (both hygiene-managed)" if kept_in == "hygiene-managed" else ""
            )
        copies = sorted(g for g, src in sources.items() if src == dup.path)
        if copies:
            why += f"; its generated copy {', '.join(copies[:3])} follows this source"
        anchor = Anchor(start_line=dup.start, end_line=dup.end)
        out.append(
            _proven_entry(
                dup.path,
                anchor,
                Dedupe(kind="dedupe", anchor=anchor, canonical_ref=ref),
                snap.state(dup.path),
                placement_rule=scope.id,
                published=published,
                kept_in=kept_in,
                digest=content.sha256(dup.text),
                reason=why,
            )
        )
    return out


def _post_title(rel: str) -> str:
    stem = posixpath.basename(rel).rsplit(".", 1)[0]
    parts = stem.split("-")
    if len(parts) > 3 and all(p.isdigit() for p in parts[:3]):
        parts = parts[3:]  # Jekyll: YYYY-MM-DD-title
    words = ["".join(ch for ch in p if ch.isalnum()) for p in parts]
    return " ".join(w for w in words if w)[:80] or "untitled"


def _frontmatter_entries(
    root: Path,
    files: list[str],
    snap: gitstate.RepoSnapshot,
    cfg: HygieneConfig,
    place: Placement,
) -> list[Entry]:
    """A document where the conventions require front matter (a site generator's posts)
    and that has none gets an insert-frontmatter entry; a generated one gets none."""
    if not cfg.frontmatter_required:
        return []
    spec = _spec(cfg.frontmatter_required)
    out: list[Entry] = []
    for rel, data in sorted(_markdown(root, [f for f in files if spec.match_file(f)]).items()):
        if content.has_frontmatter(data) or place.generated(rel, data[:8192]) is not None:
            continue
        edit = InsertFrontmatter(kind="insert-frontmatter", key="title", value=_post_title(rel))
        out.append(
            _proven_entry(
                rel,
                Anchor(start_line=1, end_line=1, whole=True),
                edit,
                snap.state(rel),
                placement_rule=cfg.dedupe_scope.id,
                published=place.touches_published(rel),
                digest=content.sha256(data),
                reason="front matter required here (site generator posts); none found",
            )
        )
    return out
