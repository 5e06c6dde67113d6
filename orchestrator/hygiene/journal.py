"""The undo journal of `orchestrate clean`: before-images of every path an op touches.

Layout: `.orchestrate/journal/<run_id>/journal.json` plus content-addressed `blobs/`.
Each record is written (atomically) BEFORE its op touches anything and names the
state the op will leave, so an interrupted run can still be undone: a path that holds
either its before or its after state is restored; anything else is left alone and said.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from orchestrator.hygiene import content
from orchestrator.workspace import atomic_write, workspace_dir

_RUN_ID_CHARS = set("0123456789abcdefghijklmnopqrstuvwxyzTZ-")


def new_run_id() -> str:
    """A sortable, unguessable run id: 20261130T101500Z-1a2b3c."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


def journal_root(root: Path) -> Path:
    return workspace_dir(root) / "journal"


def snapshot_path(path: Path, blobs: Path) -> dict[str, Any]:
    """A before-image of `path`: absent, a file (blob + mode) or a directory tree."""
    if not os.path.lexists(path):
        return {"type": "absent"}
    if path.is_symlink():
        return {"type": "symlink", "target": os.readlink(path)}
    if path.is_file():
        return {"type": "file", **_store(path, blobs)}
    tree: dict[str, Any] = {
        "type": "dir",
        "mode": path.stat().st_mode & 0o7777,
        "dirs": [],
        "files": [],
        "links": [],
    }
    for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
        base = Path(dirpath)
        for d in sorted(dirnames):
            p = base / d
            rel = p.relative_to(path).as_posix()
            if p.is_symlink():
                tree["links"].append({"rel": rel, "target": os.readlink(p)})
            else:
                tree["dirs"].append({"rel": rel, "mode": p.stat().st_mode & 0o7777})
        for f in sorted(filenames):
            p = base / f
            rel = p.relative_to(path).as_posix()
            if p.is_symlink():
                tree["links"].append({"rel": rel, "target": os.readlink(p)})
            elif p.is_file():
                tree["files"].append({"rel": rel, **_store(p, blobs)})
    return tree


def _store(path: Path, blobs: Path) -> dict[str, Any]:
    data = path.read_bytes()
    digest = content.sha256(data)
    blob = blobs / digest
    if not blob.exists():
        atomic_write(blob, data, mode=0o600)
    return {"blob": digest, "mode": path.stat().st_mode & 0o7777}


def state_digest(path: Path) -> str:
    """A digest of what is at `path` now: 'absent', a file hash, or a tree hash."""
    if not os.path.lexists(path):
        return "absent"
    if path.is_symlink():
        return "link:" + os.readlink(path)
    if path.is_dir():
        return "tree:" + content.tree_digest(path)
    return "file:" + content.sha256(path.read_bytes())


def image_digest(image: dict[str, Any], blobs: Path) -> str:
    """The state_digest the before-image describes (computed by restoring nothing)."""
    kind = image["type"]
    if kind == "absent":
        return "absent"
    if kind == "symlink":
        return "link:" + image["target"]
    if kind == "file":
        return "file:" + image["blob"]
    return "tree:" + _image_tree_digest(image, blobs)


def _image_tree_digest(image: dict[str, Any], blobs: Path) -> str:
    # Restore into a scratch folder and hash it: one digest definition, no drift.
    scratch = blobs.parent / ("scratch-" + secrets.token_hex(4))
    try:
        restore_image(scratch, image, blobs)
        return content.tree_digest(scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def restore_image(path: Path, image: dict[str, Any], blobs: Path) -> None:
    """Put the before-image back at `path`, byte for byte and mode for mode."""
    kind = image["type"]
    if os.path.lexists(path) and kind != "file":
        remove_path(path)
    if kind == "absent":
        if os.path.lexists(path):
            remove_path(path)
        return
    if kind == "symlink":
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(image["target"], path)
        return
    if kind == "file":
        if path.is_dir() and not path.is_symlink():
            remove_path(path)
        atomic_write(path, (blobs / image["blob"]).read_bytes(), mode=image["mode"])
        return
    path.mkdir(parents=True, exist_ok=True)
    for d in image["dirs"]:
        (path / d["rel"]).mkdir(parents=True, exist_ok=True)
    for f in image["files"]:
        atomic_write(path / f["rel"], (blobs / f["blob"]).read_bytes(), mode=f["mode"])
    for link in image["links"]:
        os.symlink(link["target"], path / link["rel"])
    for d in reversed(image["dirs"]):
        os.chmod(path / d["rel"], d["mode"])
    os.chmod(path, image["mode"])


def remove_path(path: Path, trash: Path | None = None) -> None:
    """Remove a file, link or directory; a directory vanishes at once (rename, then rmtree).

    The rename goes into `trash` (the journal) when given, so an interruption leaves
    no half-deleted folder in the project.
    """
    if path.is_dir() and not path.is_symlink():
        doomed = path.with_name(f".{path.name}.orchestrate-deleting-{secrets.token_hex(3)}")
        if trash is not None:
            trash.mkdir(parents=True, exist_ok=True)
            try:
                os.replace(path, trash / doomed.name)
                doomed = trash / doomed.name
            except OSError:
                os.replace(path, doomed)
        else:
            os.replace(path, doomed)
        shutil.rmtree(doomed)
    else:
        path.unlink()


@dataclass
class Journal:
    """One clean run's journal; `record` before an op, `done` after it."""

    root: Path
    run_id: str
    dir: Path
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def create(cls, root: Path, report_generated_at: str) -> Journal:
        run_id = new_run_id()
        d = journal_root(root) / run_id
        (d / "blobs").mkdir(parents=True, exist_ok=True)
        j = cls(
            root,
            run_id,
            d,
            {
                "run_id": run_id,
                "report_generated_at": report_generated_at,
                "undone": False,
                "records": [],
            },
        )
        j._save()
        return j

    @classmethod
    def open(cls, root: Path, run_id: str) -> Journal:
        if not run_id or set(run_id) - _RUN_ID_CHARS:
            raise FileNotFoundError(f"no such run: {run_id!r}")
        d = journal_root(root) / run_id
        data = json.loads((d / "journal.json").read_text(encoding="utf-8"))
        return cls(root, run_id, d, data)

    @property
    def blobs(self) -> Path:
        return self.dir / "blobs"

    def _save(self) -> None:
        atomic_write(self.dir / "journal.json", json.dumps(self.data, indent=1).encode())

    def record(self, op_id: str, kind: str, changes: list[tuple[str, str, dict[str, Any]]]) -> int:
        """Journal an op about to run: (path, after_digest, before_image) per path."""
        self.data["records"].append(
            {
                "op_id": op_id,
                "kind": kind,
                "state": "intent",
                "changes": [{"path": p, "after": a, "before": b} for p, a, b in changes],
            }
        )
        self._save()
        return len(self.data["records"]) - 1

    def done(self, index: int) -> None:
        self.data["records"][index]["state"] = "done"
        self._save()

    def undo(self) -> list[tuple[str, str, str]]:
        """Restore every journaled path; (op_id, path, outcome) per change, newest first."""
        if self.data.get("undone"):
            return [("-", "-", "already undone")]
        out: list[tuple[str, str, str]] = []
        for rec in reversed(self.data["records"]):
            for ch in reversed(rec["changes"]):
                path = self.root / ch["path"]
                now = state_digest(path)
                before = image_digest(ch["before"], self.blobs)
                if now == before:
                    out.append((rec["op_id"], ch["path"], "unchanged"))
                elif now == ch["after"]:
                    restore_image(path, ch["before"], self.blobs)
                    out.append((rec["op_id"], ch["path"], "restored"))
                else:
                    out.append((rec["op_id"], ch["path"], "not restored: changed since the clean"))
        self.data["undone"] = True
        self._save()
        return out
