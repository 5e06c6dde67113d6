"""Helpers for the hygiene tests and the RS conformance cases: report builders, repos."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from helpers import git

from orchestrator.hygiene import apply as engine
from orchestrator.hygiene import content, service
from orchestrator.hygiene.finalize import entry_tier
from orchestrator.hygiene.hygiene_report import Entry
from orchestrator.model.edits import KIND_CHARACTER
from orchestrator.model.report import utc_now

ANCHOR = {"start_line": 1, "end_line": 2}
LIFECYCLE = {
    "rule_ref": "plans",
    "lifetime": "delete-once-served",
    "served_when_path": "{dir}/{stem}.done",
}


def edit(kind: str, **over: Any) -> dict[str, Any]:
    """A valid exact_edit of `kind` (override or drop fields with `over`; None drops)."""
    base: dict[str, dict[str, Any]] = {
        "delete-range": {"anchor": ANCHOR},
        "move-to-archive": {"anchor": ANCHOR, "dest_path": "archive.md"},
        "insert-frontmatter": {"key": "hygiene", "value": "frozen"},
        "replace-text": {"anchor": ANCHOR, "match": "old", "replacement": "new"},
        "dedupe": {"anchor": ANCHOR, "canonical_ref": "canon.md#L1-L2"},
        "delete": {"anchor": {**ANCHOR, "whole": True}, "lifecycle": LIFECYCLE},
        "extract-then-delete": {
            "anchor": {**ANCHOR, "whole": True},
            "lifecycle": LIFECYCLE,
            "extraction_target": "repo-durable",
            "target_document": "docs/decisions.md",
        },
    }
    out = {"kind": kind, **base[kind], **over}
    return {k: v for k, v in out.items() if v is not None}


def entry(
    kind: str | None, path: str = "doc.md", op_type: str = "deterministic", **over: Any
) -> dict[str, Any]:
    """A valid entry dict whose recorded tier is the derived one (unless overridden)."""
    e: dict[str, Any] = {
        "id": over.pop("id", f"e-{kind or 'gen'}"),
        "path": path,
        "op_type": op_type,
    }
    ev = over.pop("evidence", None)
    if kind is None:
        e.update(is_destructive=False, is_reversible=True, instruction="condense this log")
    else:
        ed = over.pop("exact_edit", None) or edit(kind)
        e["exact_edit"] = ed
        e["is_destructive"], e["is_reversible"] = KIND_CHARACTER[kind]
        if "lifecycle" in ed:
            e["lifecycle"] = ed["lifecycle"]
    if ev is not None:
        e["evidence"] = ev
    e.update(over)
    if "safety_tier" not in e:
        try:
            e["safety_tier"] = entry_tier(Entry.model_validate({**e, "safety_tier": "confirm"}))
        except ValueError:  # invalid on purpose: any tier will do
            e["safety_tier"] = "confirm"
    return e


def report(
    entries: list[dict[str, Any]], generated_at: str | None = None, root: str = "/x"
) -> dict[str, Any]:
    """A hygiene report envelope around `entries`."""
    return {
        "schema_version": "1.0",
        "tool_version": "0.1.0",
        "generated_at": generated_at or utc_now(),
        "scan": {
            "project_root": root,
            "scope_globs": ["**/*"],
            "excluded_dirs": [".git"],
            "files_scanned": 1,
        },
        "shortlist": [],
        "entries": entries,
        "promotion_candidates": [],
    }


def digest(path: Path, start: int | None = None, end: int | None = None) -> str:
    """The anchor digest of a file (whole) or of a line span."""
    from orchestrator.model.edits import Anchor

    if start is None:
        return content.sha256(path.read_bytes())
    return content.path_digest(path, Anchor(start_line=start, end_line=end or start))  # type: ignore[return-value]


def commit_all(repo: Path, message: str = "files") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def age(path: Path, days: float) -> None:
    """Set the mtime of a path (and everything under a folder) `days` into the past."""
    when = time.time() - days * 86400
    targets = [path, *path.rglob("*")] if path.is_dir() else [path]
    for p in targets:
        os.utime(p, (when, when))


def settle() -> None:
    """Let the clock move past file mtimes written just now (coarse filesystem clocks)."""
    time.sleep(0.02)


def clean(repo: Path, rep: dict[str, Any], **opts: Any) -> engine.Outcome:
    """Write `rep` into the repo's workspace and apply it; returns the outcome."""
    path = repo / ".orchestrate" / "runs" / "test-report.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rep))
    plugins = opts.pop("plugins", None)
    res = service.clean(repo, path, engine.Options(**opts), plugins)
    assert res.outcome is not None, res.reasons
    return res.outcome


def by_id(outcome: engine.Outcome) -> dict[str, engine.Result]:
    return {r.id: r for r in outcome.results}


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under root (outside .git and .orchestrate) with its bytes."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if rel.split("/")[0] in (".git", ".orchestrate") or not p.is_file():
            continue
        out[rel] = p.read_bytes()
    return out
