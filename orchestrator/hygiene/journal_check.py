"""Validate an undo journal as a whole before `clean --undo` touches anything.

A journal is a file in the working tree: anyone (or anything) can write one, so it is
untrusted input like a report. Every path in it gets the same check as a report path
(paths.path_problem), every path inside a folder image stays inside that folder, every
blob is one of ours, modes are permission bits, and the structure is exactly what
Journal writes. One problem refuses the whole journal.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from orchestrator.hygiene import paths

_BLOB = re.compile(r"^[0-9a-f]{64}$")
_AFTER = re.compile(r"^(absent|file:[0-9a-f]{64}|tree:[0-9a-f]{64}|link:.*)$", re.DOTALL)
_SPECIAL_TYPES = ("FIFO", "socket", "device", "unknown")
MAX_PROBLEMS = 20


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _mode_ok(value: Any) -> bool:
    return _is_int(value) and 0 <= value <= 0o7777


def _str(value: Any) -> bool:
    return isinstance(value, str)


def _blob_problem(where: str, blob: Any, blobs: Path) -> str | None:
    if not _str(blob) or not _BLOB.match(blob):
        return f"{where}.blob: not a content digest"
    if not (blobs / blob).is_file():
        return f"{where}.blob: missing from the journal's blobs"
    return None


def _member_problems(where: str, image: dict[str, Any], blobs: Path) -> list[str]:
    """Problems of a folder image's members: safe relative names, parents declared."""
    out: list[str] = []
    dirs = set()
    seen: set[str] = set()
    groups = (
        ("dirs", ("rel", "mode")),
        ("files", ("rel", "blob", "mode")),
        ("links", ("rel", "target")),
    )
    for group, keys in groups:
        items = image.get(group)
        if not isinstance(items, list):
            out.append(f"{where}.{group}: not a list")
            continue
        for i, item in enumerate(items):
            at = f"{where}.{group}.{i}"
            if not isinstance(item, dict) or not set(keys) <= set(item):
                out.append(f"{at}: needs {', '.join(keys)}")
                continue
            rel = item["rel"]
            if not _str(rel) or (why := paths.path_problem(rel)) is not None:
                out.append(f"{at}.rel: unsafe path ({why if _str(rel) else 'not a string'})")
                continue
            if rel in seen:
                out.append(f"{at}.rel: listed twice")
            seen.add(rel)
            if group == "dirs":
                dirs.add(rel)
            if "mode" in keys and not _mode_ok(item["mode"]):
                out.append(f"{at}.mode: not permission bits")
            if group == "files" and (p := _blob_problem(at, item["blob"], blobs)):
                out.append(p)
            if group == "links" and not _str(item["target"]):
                out.append(f"{at}.target: not a string")
    for rel in seen:
        parent = rel.rpartition("/")[0]
        if parent and parent not in dirs:
            out.append(f"{where}: a member sits under something that is not a listed folder")
            break
    return out


def image_problems(where: str, image: Any, blobs: Path) -> list[str]:
    """Why a before-image cannot be restored safely; [] when it can."""
    if not isinstance(image, dict):
        return [f"{where}: not an image"]
    kind = image.get("type")
    if kind == "absent":
        return []
    if kind == "symlink":
        return [] if _str(image.get("target")) else [f"{where}.target: not a string"]
    if kind == "file":
        out = [] if _mode_ok(image.get("mode")) else [f"{where}.mode: not permission bits"]
        if p := _blob_problem(where, image.get("blob"), blobs):
            out.append(p)
        return out
    if kind == "dir":
        out = [] if _mode_ok(image.get("mode")) else [f"{where}.mode: not permission bits"]
        specials = image.get("special", [])
        if not isinstance(specials, list) or not all(
            isinstance(s, dict)
            and _str(s.get("rel"))
            and paths.path_problem(s["rel"]) is None
            and s.get("type") in _SPECIAL_TYPES
            for s in specials
        ):
            out.append(f"{where}.special: malformed")
        return out + _member_problems(where, image, blobs)
    return [f"{where}.type: not one of absent, symlink, file, dir"]


def journal_problems(data: Any, blobs: Path) -> list[str]:
    """Every reason the journal may not be undone (at most MAX_PROBLEMS); [] when it may."""
    if not isinstance(data, dict) or not isinstance(data.get("records"), list):
        return ["not a journal (no records list)"]
    if not isinstance(data.get("undone", False), bool):
        return ["undone: not true or false"]
    out: list[str] = []
    for i, rec in enumerate(data["records"]):
        at = f"records.{i}"
        if not isinstance(rec, dict) or not isinstance(rec.get("changes"), list):
            out.append(f"{at}: not a record with a changes list")
            continue
        if not _str(rec.get("op_id")) or not _str(rec.get("kind")):
            out.append(f"{at}: op_id and kind must be strings")
        for k, ch in enumerate(rec["changes"]):
            where = f"{at}.changes.{k}"
            if not isinstance(ch, dict):
                out.append(f"{where}: not a change")
                continue
            path = ch.get("path")
            if not _str(path) or (why := paths.path_problem(path)) is not None:
                out.append(f"{where}.path: unsafe path ({why if _str(path) else 'not a string'})")
            if not _str(ch.get("after")) or not _AFTER.match(ch["after"]):
                out.append(f"{where}.after: not a state digest")
            out += image_problems(f"{where}.before", ch.get("before"), blobs)
        if len(out) >= MAX_PROBLEMS:
            break
    return out[:MAX_PROBLEMS]
