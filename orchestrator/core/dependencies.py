"""The other files a checker's result for one file depends on, as reuse sees them.

A checker whose result for a file depends on more than that file's bytes and its
config (Ruff: whether an imported module is first-party, which depends on which
modules exist in its source roots) declares it with
`reuse_dependencies(target, source, batch, ctx) -> Sequence[str] | None`: the absolute
paths whose *kind* (a folder, a file, something else, or nothing: `os.stat`, links
followed) the result depends on, computed from the file's bytes `source`; None when it
depends on something no such probe answers (the file is then never reused). A checker
that declares nothing keeps its identity as before.

Each path is probed with one `stat`, never by listing a folder (CG-30): the answers,
path by path, are folded into the file's reuse identity (`digest`) and, in the warm
engine, into the witness of a kept run. Only the kind counts, not the stat's times: a
file added inside a first-party package folder does not make every importer re-check.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from orchestrator.model.checker import Batch, FileTarget, RunContext
from orchestrator.model.declared import LoadedChecker

#: The answers of probing paths: path -> kind ("dir", "file", "other", "absent", "errno N").
Answers = dict[str, str]

#: A checker may name at most this many paths for one file; more means "not reused".
MAX_PATHS = 4096


def kind(path: str) -> str:
    """What is at `path` now, following links: "dir", "file", "other", "absent" (no
    such entry, or a dangling link), or "errno N" when the stat fails otherwise."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG, errno.ELOOP):
            return "absent"
        return f"errno {exc.errno}"
    except ValueError:  # a NUL byte in the name: nothing can be there
        return "absent"
    if stat.S_ISDIR(mode):
        return "dir"
    return "file" if stat.S_ISREG(mode) else "other"


def probe(paths: Iterable[str], kinds: dict[str, str] | None = None) -> Answers:
    """Each path's `kind` now (one stat each, in the order given). `kinds`, when given,
    is a memo shared by the probes of one moment (a run's files import the same
    modules): a path it holds is not stat'd again, and each new answer goes into it."""
    if kinds is None:
        return {p: kind(p) for p in paths}
    out: Answers = {}
    for p in paths:
        k = kinds.get(p)
        if k is None:
            k = kinds[p] = kind(p)
        out[p] = k
    return out


def digest(answers: Mapping[str, str]) -> str:
    """The identity of a set of answers, in their order: what `KeyParts.depends` holds
    (a NUL never occurs in a path or a kind, so the joined text is unambiguous)."""
    blob = "\0".join(f"{path}\0{k}" for path, k in answers.items())
    return hashlib.sha256(blob.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def declares(checker: LoadedChecker) -> bool:
    """Whether the checker declares that its results depend on other files."""
    return checker.reuse_dependencies is not None


def declared(
    checker: LoadedChecker, target: FileTarget, source: bytes, batch: Batch, ctx: RunContext
) -> tuple[str, ...] | None:
    """The paths the checker says `target`'s result depends on, deduplicated in their
    order; None when it cannot say (it returned None or something malformed, raised, or
    named more than MAX_PATHS): such a file is never reused."""
    fn = checker.reuse_dependencies
    if fn is None:
        return ()
    try:
        raw: Any = fn(target, source, batch, ctx)
    except Exception:  # noqa: BLE001 - a plugin fault means "no reuse", never a crash
        return None
    if raw is None or isinstance(raw, str | bytes) or not isinstance(raw, Sequence):
        return None
    # Absolute paths only: a probe must answer the same whatever the working folder.
    if not all(isinstance(p, str) and p.startswith(os.sep) for p in raw):
        return None
    paths = tuple(dict.fromkeys(raw))
    return paths if len(paths) <= MAX_PATHS else None


def stored_paths(value: object) -> tuple[str, ...] | None:
    """The path list an index entry stores, or None when it is malformed."""
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        return None
    return tuple(value)


__all__ = ["Answers", "declared", "declares", "digest", "kind", "probe", "stored_paths"]
