"""A test-session guard: no test reads a sibling of the checkout.

A user clones the project with nothing beside it, so a test that reads the specification
folder next to the development checkout (or any other folder beside it) passes here and
fails for them. The root conftest installs `install()` once per test process: an audit
hook that refuses, and records, every `open`, `os.listdir` and `os.scandir` of a path
inside the repository's parent folder but outside the repository, unless that path lies
in a temporary folder or an interpreter location (the venv, site-packages, the base
Python). System paths elsewhere are never looked at: the guard is about siblings of the
checkout, not about the whole machine.

Audit hooks cannot be removed, so the hook only acts while `STATE.armed` is true; the
conftest arms it for the test session and disarms it when the session ends. Child
processes are not covered (an audit hook lives in one interpreter); the meta-test in
tests/test_self_contained.py greps the tree for paths into that folder to close that gap.
"""

from __future__ import annotations

import os
import site
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

# The audit events that read a path's contents or listing (see the audit events table
# of the Python docs). `open` covers builtins.open, io.open, os.open and pathlib.
WATCHED_EVENTS = frozenset({"open", "os.listdir", "os.scandir"})


@dataclass
class GuardState:
    """What the hook checks against, and what it has seen.

    `repo_roots` are the checkout (as written and as resolved); `parents` their parent
    folders, where siblings live; `allowed` the folders inside a parent that may still be
    read (temporary folders, the interpreter's own).
    """

    repo_roots: tuple[str, ...] = ()
    parents: tuple[str, ...] = ()
    allowed: tuple[str, ...] = ()
    armed: bool = False
    violations: list[str] = field(default_factory=list)


STATE = GuardState()


def _norm(path: str) -> str:
    # abspath, not realpath: a path reached through a symlink inside the checkout (for
    # example tools/eslint/node_modules) is the checkout's own, wherever the link points.
    return os.path.normpath(os.path.abspath(path))


def _within(path: str, roots: Iterable[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def is_sibling_path(path: str, state: GuardState) -> bool:
    """True when `path` lies beside the checkout: inside a parent of the repository, not
    inside the repository itself and not inside an allowed folder.

    Paths outside every parent (system folders, home caches elsewhere) are never
    siblings. An allowed folder that holds the parent itself (a checkout cloned into
    /tmp/a/repo, with /tmp allowed) does not excuse the siblings in /tmp/a; only when the
    parent is the allowed folder (/tmp/repo) are its other entries indistinguishable from
    temporary files, and then they are allowed. The answer depends only on the strings in
    `state` and the current working directory (for a relative path); nothing is read.
    """
    p = _norm(path)
    if not _within(p, state.parents) or _within(p, state.repo_roots):
        return False
    excusing = [
        a
        for a in state.allowed
        if not any(_within(par, (a,)) and par != a for par in state.parents)
    ]
    return not _within(p, excusing)


def _path_arg(args: tuple[object, ...]) -> str | None:
    """The path an audited call names, or None for a file descriptor or nothing."""
    if not args:
        return None
    raw = args[0]
    if raw is None or isinstance(raw, int):
        return None
    try:
        return os.fsdecode(os.fspath(raw))  # type: ignore[arg-type]
    except TypeError:
        return None


def _hook(event: str, args: tuple[object, ...]) -> None:
    # Called for every audit event in the process: keep the common path to two tests.
    if not STATE.armed or event not in WATCHED_EVENTS:
        return
    path = _path_arg(args)
    if path is None or not is_sibling_path(path, STATE):
        return
    message = (
        f"{event} of {path!r} refused: it is outside the repository, beside the checkout. "
        "Tests must use what the repository carries (schemas/, conformance/SCENARIOS.md) "
        "or a temporary folder."
    )
    STATE.violations.append(message)
    raise PermissionError(message)


def interpreter_folders() -> list[str]:
    """The folders the running interpreter owns: prefixes and site-packages."""
    folders = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    folders += site.getsitepackages()
    folders.append(site.getusersitepackages())
    return folders


def configure(repo: Path, extra_allowed: Iterable[str] = ()) -> GuardState:
    """Fill `STATE` for the checkout at `repo` and return it (the hook is not armed here).

    Temporary folders and the interpreter's folders are always allowed, plus
    `extra_allowed` (for example pytest's --basetemp or a worktree's shared git folder).
    """
    roots = {_norm(str(repo)), _norm(os.path.realpath(repo))}
    STATE.repo_roots = tuple(sorted(roots))
    STATE.parents = tuple(sorted({os.path.dirname(r) for r in roots}))
    allowed = [tempfile.gettempdir(), *interpreter_folders(), *extra_allowed]
    STATE.allowed = tuple(sorted({_norm(a) for a in allowed if a}))
    return STATE


_installed = False


def install() -> None:
    """Add the audit hook to this interpreter, once (audit hooks cannot be removed)."""
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True


def take_violations() -> list[str]:
    """The violations recorded since the last call, and forget them."""
    taken = list(STATE.violations)
    STATE.violations.clear()
    return taken
