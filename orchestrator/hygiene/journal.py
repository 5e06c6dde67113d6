"""The undo journal of `orchestrate clean`: before-images of every path an op touches.

Layout: `.orchestrate/journal/<run_id>/journal.json` plus content-addressed `blobs/`.
Each record is written (atomically) BEFORE its op touches anything and names the
state the op will leave, so an interrupted run can still be undone: a path that holds
either its before or its after state is restored; anything else is left alone and said.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import stat
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from orchestrator.core.walk import rmtree, walk
from orchestrator.errors import UsageError
from orchestrator.hygiene import content, paths
from orchestrator.hygiene.journal_check import journal_problems
from orchestrator.workspace import atomic_write, workspace_dir

Row = tuple[str, str, str]  # (op_id, path, outcome)

_RUN_ID_CHARS = set("0123456789abcdefghijklmnopqrstuvwxyzTZ-")


def new_run_id() -> str:
    """A sortable, unguessable run id: 20261130T101500Z-1a2b3c."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


def journal_root(root: Path, create: bool = True) -> Path:
    """Where the journals live: under .orchestrate/, which no op may touch (paths.PROTECTED)."""
    return workspace_dir(root, create=create) / "journal"


def special_type(mode: int) -> str | None:
    """'FIFO', 'socket' or 'device' for a file we can neither copy nor restore; else None."""
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode):
        return None
    return "unknown"


def snapshot_path(path: Path, blobs: Path) -> dict[str, Any]:
    """A before-image of `path`: absent, a file (blob + mode) or a directory tree.

    What a tree holds that cannot be copied (FIFOs, sockets, devices) is listed under
    `special`, and a file's `nlink` says it was a hard link, so undo can say what it
    cannot bring back instead of claiming it restored it.
    """
    if not os.path.lexists(path):
        return {"type": "absent"}
    if path.is_symlink():
        return {"type": "symlink", "target": os.readlink(path)}
    if special_type(path.lstat().st_mode) is not None:
        raise OSError(errno.EINVAL, "not a regular file or folder (FIFO, socket or device)")
    if path.is_file():
        return {"type": "file", **_store(path, blobs)}
    tree: dict[str, Any] = {
        "type": "dir",
        "mode": path.stat().st_mode & 0o7777,
        "dirs": [],
        "files": [],
        "links": [],
        "special": [],
    }
    for dirpath, dirnames, filenames in walk(path, max_depth=None):
        base = Path(dirpath)
        for name in sorted(dirnames) + sorted(filenames):
            p = base / name
            rel = p.relative_to(path).as_posix()
            mode = p.lstat().st_mode
            if stat.S_ISLNK(mode):
                tree["links"].append({"rel": rel, "target": os.readlink(p)})
            elif stat.S_ISDIR(mode):
                tree["dirs"].append({"rel": rel, "mode": mode & 0o7777})
            elif stat.S_ISREG(mode):
                tree["files"].append({"rel": rel, **_store(p, blobs)})
            else:
                tree["special"].append({"rel": rel, "type": special_type(mode)})
    return tree


def _store(path: Path, blobs: Path) -> dict[str, Any]:
    data = path.read_bytes()
    digest = content.sha256(data)
    blob = blobs / digest
    if not blob.exists():
        atomic_write(blob, data, mode=0o600)
    st = path.lstat()
    out: dict[str, Any] = {"blob": digest, "mode": st.st_mode & 0o7777}
    if st.st_nlink > 1:
        out["nlink"] = st.st_nlink
    return out


def state_digest(path: Path) -> str:
    """A digest of what is at `path` now: 'absent', a file hash, or a tree hash."""
    if not os.path.lexists(path):
        return "absent"
    if path.is_symlink():
        return "link:" + os.readlink(path)
    if path.is_dir():
        return "tree:" + content.tree_digest(path)
    if special_type(path.lstat().st_mode) is not None:
        return "special"  # never read: opening a FIFO blocks
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
        rmtree(scratch)


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
        rmtree(doomed)
        if os.path.lexists(doomed):  # shutil.rmtree raised here; so do we
            raise OSError(f"could not remove everything in {doomed.name}")
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
        """The journal of `run_id`; FileNotFoundError when there is none, UsageError when
        it is not one we can undo safely (the whole journal is refused, nothing touched)."""
        if not run_id or set(run_id) - _RUN_ID_CHARS:
            raise FileNotFoundError(f"no such run: {run_id!r}")
        d = journal_root(root) / run_id
        try:
            data = json.loads((d / "journal.json").read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise UsageError(f"journal of run {run_id} is not valid JSON; nothing undone") from None
        problems = journal_problems(data, d / "blobs")
        if problems:
            listed = "; ".join(problems[:5]) + ("; ..." if len(problems) > 5 else "")
            raise UsageError(f"refusing the journal of run {run_id} (nothing undone): {listed}")
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

    def undo(self) -> list[Row]:
        """Restore every journaled path; (op_id, path, outcome) per change, newest first.

        What cannot be brought back (a FIFO, socket or device in a deleted folder, the
        identity of a hard link) gets its own row saying so, never "restored".
        """
        if self.data.get("undone"):
            return [("-", "-", "already undone")]
        out: list[Row] = []
        for rec in reversed(self.data["records"]):
            for ch in reversed(rec["changes"]):
                out += self._undo_change(rec["op_id"], ch)
        self.data["undone"] = True
        self._save()
        return out

    def _undo_change(self, op_id: str, ch: dict[str, Any]) -> list[Row]:
        rel = ch["path"]
        try:
            # Checked again on disk now: an earlier restore must not open a way out.
            path = paths.resolve(self.root, rel)
        except paths.UnsafePath as exc:
            return [(op_id, rel, f"not restored: unsafe path ({exc})")]
        now = state_digest(path)
        before = image_digest(ch["before"], self.blobs)
        if now == before:
            return [(op_id, rel, "unchanged")]
        if now != ch["after"]:
            return [(op_id, rel, "not restored: changed since the clean")]
        restore_image(path, ch["before"], self.blobs)
        lost = unrestorable(rel, ch["before"])
        if not lost:
            return [(op_id, rel, "restored")]
        head = (op_id, rel, f"partly restored: {len(lost)} entries listed below are not back")
        if lost[0][0] == rel:  # the path itself (a hard link) is the one not fully back
            head = (op_id, rel, lost.pop(0)[1])
        return [head, *((op_id, p, why) for p, why in lost)]


def unrestorable(rel: str, image: dict[str, Any]) -> list[tuple[str, str]]:
    """(path, outcome) for what a before-image could not bring back exactly."""
    hard = "not restored as a hard link: the content is back as a separate file"
    if image["type"] == "file":
        return [(rel, hard)] if image.get("nlink", 1) > 1 else []
    if image["type"] != "dir":
        return []
    out = [
        (f"{rel}/{s['rel']}", f"not restored: a {s['type']} cannot be brought back")
        for s in image.get("special", [])
    ]
    out += [(f"{rel}/{f['rel']}", hard) for f in image["files"] if f.get("nlink", 1) > 1]
    return out


def _temp_pattern(name: str) -> re.Pattern[str]:
    # What atomic_write's mkstemp leaves for `name`: .NAME.<8 random chars>.tmp
    return re.compile(r"^\." + re.escape(name) + r"\.[a-z0-9_]{8}\.tmp$")


def _journaled_names(data: dict[str, Any]) -> set[str]:
    out: set[str] = set()
    for rec in data.get("records", []):
        for ch in rec.get("changes", []):
            out.add(ch["path"])
            image = ch.get("before", {})
            if image.get("type") == "dir":
                out.update(f"{ch['path']}/{m['rel']}" for m in image["files"])
    return out


def clean_stray_temporaries(root: Path) -> list[str]:
    """Remove the temporaries an interrupted clean or undo left next to journaled paths.

    Only files named exactly as our atomic writes name them, next to a path some valid
    journal names, are removed; any other file, however named, is left alone.
    """
    removed: list[str] = []
    jroot = journal_root(root, create=False)
    if not jroot.is_dir():
        return removed
    for run in sorted(jroot.iterdir()):
        try:
            data = json.loads((run / "journal.json").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            continue
        if journal_problems(data, run / "blobs"):
            continue  # never act on a journal we would not undo
        for rel in _journaled_names(data):
            removed += _remove_temps_of(root, rel)
    return removed


def _remove_temps_of(root: Path, rel: str) -> list[str]:
    parent_rel, _, name = rel.rpartition("/")
    try:
        parent = paths.resolve(root, parent_rel) if parent_rel else root
        entries = list(os.scandir(parent)) if parent.is_dir() else []
    except (paths.UnsafePath, OSError):
        return []
    pattern = _temp_pattern(name)
    out = []
    for e in entries:
        if pattern.match(e.name) and e.is_file(follow_symlinks=False):
            with contextlib.suppress(OSError):
                os.unlink(e.path)
                out.append(f"{parent_rel}/{e.name}" if parent_rel else e.name)
    return out
