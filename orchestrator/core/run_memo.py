"""Whole-run reuse in a long-lived process (the warm engine): the report of an unchanged
tree answered again without selecting, planning or running anything.

Only a process that called `hold()` keeps anything (a cold process never does), and
only for a feedback run with reuse on (`reuse.enabled`), no files, config, plugins or
surface handed in by the caller, and a report whose every scope is settled (no
`timed_out`, `tool_error` or `partial` scope, no plugin failure) of a run that
ended before its deadline (not cancelled either): delivery, the strict
gates and task re-checks never replay. A kept run is answered again only for the same
request (paths, options, working folder, environment, effective configuration) and
when its witness is unchanged:

- every entry (file, link, folder) of every folder the request's paths cover, files
  and links by `lstat` (size, mtime_ns, ctime_ns, inode, device), folders by their
  listing: an edit, a touch, a new, removed or renamed file, a changed `.gitignore` or
  config; a checked file's own `stat` too (a link's target). Cache folders orchestrate and the tools write (`__pycache__`,
  `.ruff_cache`, `.orchestrate`, ...) are skipped; tool folders (`node_modules`,
  `.venv`, `venv`) count by their own stat and that of their `bin` / `.bin`;
- the config files in each folder from the walked ones up to `/` (the names checkers
  declare in `config_names`, orchestrate's own), present or absent, and every config
  file a scope names (`config_files`: an `extend` chain reaching a folder not walked);
  a config that is code (`CODE_CONFIG_SUFFIXES`, an ESLint `eslint.config.mjs`) has
  its whole folder walked too, whatever it imports from there;
- git's state: HEAD, the ref it names, the index, config, packed refs, info/exclude,
  and the user's git config and ignore files (`core.excludesFile` wherever it names);
- every tool a scope names, by `toolstamp.tool_stamp`, the folders of PATH and that
  of the managed tools (`orchestrate tools install`);
- every path a checker declared the results depend on (`core/dependencies.py`: Ruff's
  candidate first-party modules in its source roots, the `__init__.py` of each folder
  up), by its kind (folder, file, other, absent), as probed before the run: a
  dependency anywhere, inside the walked folders or not, that appears, goes or changes
  kind checks again. A run where some file's dependencies are not known is not kept.

A witness whose newest mtime or ctime (a walked folder's included: a file removed
while the run ran) is later than `reuse.RACY_NS` before the run started is not kept (the run may have read a file before a write, or a write in the
same timestamp tick could go unseen): a tree edited a moment ago checks fresh until it
is older. The replayed report is the kept one with a new
`generated_at`, and every checked scope `reused` (reason `reuse.REUSE_REASON`,
duration 0): honest about what was not run again. Bounded: `MAX_RUNS` requests and
`MAX_SCOPES` scopes in all (least recently used dropped first), `MAX_ENTRIES` witness
entries a run, `reuse.MAX_AGE_S`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.core import dependencies, reuse
from orchestrator.core.config import CONFIG_FILES
from orchestrator.deadline import Deadline
from orchestrator.decisions.coverage import is_reusable
from orchestrator.git.runner import GitError, GitQuery
from orchestrator.model.checker import FileTarget
from orchestrator.model.report import Report, Scope, checker_times, utc_now
from orchestrator.toolstamp import facts, tool_stamp
from orchestrator.vocab import Purpose, ScopeStatus
from orchestrator.workspace import user_cache_root

MAX_RUNS = 4
MAX_SCOPES = 20_000
MAX_ENTRIES = 200_000
#: Seconds git may take to name its global ignore file when a run is kept.
EXCLUDES_SECONDS = 5.0
#: Folders whose content is a cache orchestrate or a tool writes: never part of a witness.
CACHE_DIRS = frozenset(
    {".orchestrate", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".tox"}
)
#: Folders that hold tools: their own stat and that of their scripts folder count.
TOOL_DIRS = {"node_modules": (".bin",), ".venv": ("bin", "Scripts"), "venv": ("bin", "Scripts")}
VCS_DIRS = frozenset({".git", ".hg", ".svn"})
#: A config file of these kinds is code: what it imports is part of the run's input.
CODE_CONFIG_SUFFIXES = frozenset({".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"})
UNSETTLED = frozenset({ScopeStatus.TIMED_OUT, ScopeStatus.TOOL_ERROR, ScopeStatus.PARTIAL})
_GIT_FILES = ("HEAD", "index", "config", "packed-refs", "info/exclude", "commondir")

Row = tuple[str, Any]

_HELD = False
_KEPT: OrderedDict[str, _Kept] = OrderedDict()


@dataclass(frozen=True)
class _Kept:
    """One kept run: what it was checked against and the report to answer with."""

    at: float
    starts: tuple[str, ...]
    targets: tuple[str, ...]
    names: frozenset[str]
    excluded: frozenset[str]
    witness: tuple[Row, ...]
    report: Report
    watched: tuple[str, ...] = ()


def hold(on: bool = True) -> None:
    """Keep runs in this process from now on (a long-lived process only); `on=False`
    stops keeping and drops what is kept."""
    global _HELD
    _HELD = on
    if not on:
        forget()


def forget() -> None:
    """Drop every kept run."""
    _KEPT.clear()


@dataclass(frozen=True)
class RequestKey:
    """A request's identity, and when its run started (wall clock, ns)."""

    digest: str
    started_ns: int


def request_key(
    req: Any, root: Path, config: Mapping[str, Any], tools: Mapping[str, str] | None = None
) -> RequestKey | None:
    """The identity of a core request `req` (a LintRequest) that may be kept or
    replayed, taken as its run starts; None when this one never is (module docs)."""
    started_ns = time.time_ns()
    if not _HELD or req.purpose != Purpose.FEEDBACK or not reuse.enabled():
        return None
    if (
        req.targets is not None
        or req.refused
        or req.config is not None
        or req.plugins is not None
        or req.surface_files is not None
        or req.extra_plugins
        # A project recipe's file and the user's trust in it are no part of the key.
        or config.get("recipes")
    ):
        return None
    env = req.env if req.env is not None else os.environ
    parts = {
        "root": str(root),
        "cwd": str(req.cwd) if req.cwd is not None else os.getcwd(),
        "paths": list(req.paths),
        "entry": req.entry,
        "surface": req.surface,
        "revision": req.revision,
        "timeout": req.timeout,
        "jobs": req.jobs,
        "only": sorted(req.only_checkers) if req.only_checkers is not None else None,
        "require": list(req.require),
        "allow_gaps": sorted(req.allow_gaps),
        "budget": req.output_budget,
        "named": req.paths_named,
        "entries": req.paths_are_entries,
        "generated": req.include_generated,
        "shard": repr(req.shard),
        "env": sorted(env.items()),
        "config": config,
        "tools": dict(tools or {}),
    }
    blob = json.dumps(parts, sort_keys=True, default=str)
    return RequestKey(
        hashlib.sha256(blob.encode("utf-8", "surrogateescape")).hexdigest(), started_ns
    )


def replay(request: RequestKey | None) -> Report | None:
    """The kept report for `request`, marked reused, when its witness is unchanged;
    else None (and a stale entry is dropped)."""
    if request is None or (kept := _KEPT.get(key := request.digest)) is None:
        return None
    if time.time() - kept.at > reuse.MAX_AGE_S:
        _KEPT.pop(key, None)
        return None
    now = _witness(kept.starts, kept.targets, kept.names, kept.excluded, kept.report, kept.watched)
    if now is None or now != kept.witness:
        _KEPT.pop(key, None)
        return None
    _KEPT.move_to_end(key)
    return _copy(kept.report, utc_now())


def _copy(report: Report, generated_at: str, scopes: list[Scope] | None = None) -> Report:
    """A report sharing no list or block a caller may change with `report`."""
    kept = list(report.scopes if scopes is None else scopes)
    return report.model_copy(
        update={
            "generated_at": generated_at,
            "scopes": kept,
            # A replay runs no batch: every checker's files are reused, at no cost.
            "timings": checker_times((), kept),
            "findings": list(report.findings),
            "notes": list(report.notes),
            "coverage": report.coverage.model_copy(deep=True),
            "gate": report.gate.model_copy(deep=True),
            "shards": list(report.shards),
        }
    )


def keep(
    request: RequestKey | None,
    root: Path,
    req: Any,
    targets: Sequence[FileTarget],
    report: Report,
    config_names: Iterable[str],
    excluded: Iterable[str],
    deadline: Deadline,
    watched: Mapping[str, str] | None,
) -> bool:
    """Keep `report` for `request` when it may be replayed (see the module docs);
    whether it was kept. Never raises: a fault means nothing is kept. An entry changed
    since `RACY_NS` before the run started keeps nothing (the run may have read its
    bytes before the change), nor does a run whose `deadline` passed or was cancelled
    (a step it cut short, an exact parser or a late fallback, judged less than a run
    in time does, whatever its scopes' statuses say). `watched` are the declared
    dependencies of the run with their answers before it (`reuse.ReusePlan.watched`);
    None (some are not known) keeps nothing, and so does an answer that changed since."""
    if request is None or len(report.scopes) > MAX_SCOPES or report.plugin_failures:
        return False
    if watched is None:
        return False
    if deadline.expired():
        return False
    if any(s.status in UNSETTLED for s in report.scopes):
        return False
    try:
        starts = tuple(sorted({*_starts(root, req), *_code_config_folders(report)}))
        # Files stat'd wherever they lie: the checked ones, and git's global ignore file.
        paths = tuple(
            sorted({*(str(t.abs_path) for t in targets if t.on_disk), *_excludes_files(starts)})
        )
        names = frozenset({*config_names, *CONFIG_FILES, ".gitignore", ".gitattributes"})
        skip = frozenset(excluded) | CACHE_DIRS
        marked = _copy(report, report.generated_at, [_reused(s) for s in report.scopes])
        times: list[int] = []
        depends = tuple(sorted(watched))
        witness = _witness(starts, paths, names, skip, marked, depends, times)
        if (
            witness is None
            or max(_newest_ns(witness), *times) >= request.started_ns - reuse.RACY_NS
        ):
            return False
        # The run saw its dependencies as they were before it: one that changed since
        # may or may not be in its results.
        if _kinds(witness, depends) != dict(watched):
            return False
    except Exception:  # noqa: BLE001 - keeping is an optimisation, never a fault
        return False
    _KEPT[request.digest] = _Kept(time.time(), starts, paths, names, skip, witness, marked, depends)
    _KEPT.move_to_end(request.digest)
    while len(_KEPT) > MAX_RUNS or sum(len(k.report.scopes) for k in _KEPT.values()) > MAX_SCOPES:
        _KEPT.popitem(last=False)  # the least recently used first
    return True


def _reused(scope: Scope) -> Scope:
    # The scopes per-file reuse would hand back are the ones a kept run says it reused.
    if not is_reusable(scope.status):
        return scope
    return scope.model_copy(update={"reused": reuse.REUSE_REASON, "duration_ms": 0})


def _starts(root: Path, req: Any) -> tuple[str, ...]:
    """The folders a walk of the request covers: each named folder, the folder of each
    named file (a path that does not exist yet counts by its folder), else the root."""
    base = Path(req.cwd) if req.cwd is not None else root
    out: set[str] = set()
    for p in req.paths or ():
        full = Path(os.path.abspath(base / p))
        out.add(str(full if full.is_dir() else full.parent))
    return tuple(sorted(out or {str(root)}))


def _code_config_folders(report: Report) -> set[str]:
    """The folder of each config file a scope names that is code (an ESLint flat or
    `.eslintrc.js` config), inside the project root: such a config may import any
    module, so every folder below it is walked, not only those the request covers."""
    root = report.scan.project_root
    out: set[str] = set()
    for name in {f for s in report.scopes for f in s.config_files}:
        full = os.path.normpath(os.path.join(root, name))
        inside = full.startswith(root.rstrip(os.sep) + os.sep)
        if inside and os.path.splitext(full)[1].lower() in CODE_CONFIG_SUFFIXES:
            out.add(os.path.dirname(full))
    return out


def _stat_row(path: str, follow: bool = False) -> Row:
    try:
        st = os.stat(path) if follow else os.lstat(path)
    except OSError as exc:
        return (path, exc.errno)
    return (path, facts(st))


def _witness(
    starts: Sequence[str],
    targets: Sequence[str],
    names: frozenset[str],
    skip: frozenset[str],
    report: Report,
    depends: Sequence[str] = (),
    times: list[int] | None = None,
) -> tuple[Row, ...] | None:
    """Every stat the kept run depends on, in a stable order; None when over the bound.
    `times`, when given, receives each walked folder's mtime and ctime: not part of the
    witness (a cache folder made inside would change them), but a removal leaves no
    other trace for the racy-write rule."""
    rows: list[Row] = []
    pending = list(starts)
    seen: set[str] = set()
    plain: set[str] = set()
    while pending:
        folder = pending.pop()
        if folder in seen:
            continue
        seen.add(folder)
        try:
            if times is not None:
                st = os.stat(folder)
                times += (st.st_mtime_ns, st.st_ctime_ns)
            listing = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            rows.append((folder + "/", exc.errno))
            continue
        for entry in listing:
            if entry.name in skip and entry.name not in TOOL_DIRS:
                continue
            walked = (
                entry.name not in TOOL_DIRS
                and entry.name not in VCS_DIRS
                and entry.is_dir(follow_symlinks=False)
            )
            if walked:
                # Its entries are listed in turn: its own mtime would only add the cache
                # folders skipped inside it.
                rows.append((entry.path, ("folder", entry.inode())))
                pending.append(entry.path)
                continue
            rows.append(_stat_row(entry.path))
            if entry.is_symlink():
                rows.append(_stat_row(entry.path, follow=True))  # what the link names
            else:
                plain.add(entry.path)
            if entry.name in TOOL_DIRS:
                rows.extend(_stat_row(os.path.join(entry.path, b)) for b in TOOL_DIRS[entry.name])
        if len(rows) > MAX_ENTRIES:
            return None
    # A checked file the walk did not see as a plain entry (below a linked folder).
    rows.extend(_stat_row(t, follow=True) for t in targets if t not in plain)
    rows.extend(_above(starts, names))
    rows.extend(_git_rows(starts))
    rows.extend(_config_rows(report))
    rows.extend(_tool_rows(report))
    rows.extend((p, (DEPENDS, dependencies.kind(p))) for p in depends)
    return tuple(rows)


#: The tag of a declared dependency's witness row: `(path, (DEPENDS, kind))`.
DEPENDS = "depends"


def _kinds(rows: Sequence[Row], depends: Sequence[str]) -> dict[str, str]:
    """The kinds the witness `rows` hold for the declared dependencies `depends`."""
    wanted = set(depends)
    return {
        path: value[1]
        for path, value in rows
        if path in wanted and isinstance(value, tuple) and value[:1] == (DEPENDS,)
    }


def _config_rows(report: Report) -> list[Row]:
    """Every config file a scope names (`config_files`: a Ruff `extend` chain, a
    RuboCop `inherit_from`, ...), wherever it lies: one outside the walked folders
    decides the findings as much as one inside."""
    root = report.scan.project_root
    named = {f for s in report.scopes for f in s.config_files}
    return [_stat_row(os.path.join(root, f), follow=True) for f in sorted(named)]


def _above(starts: Sequence[str], names: frozenset[str]) -> list[Row]:
    """Each folder above the walked ones up to `/`, and the config files it holds."""
    rows: list[Row] = []
    done: set[str] = set()
    for start in starts:
        folder = os.path.dirname(start)
        while folder not in done:
            done.add(folder)
            rows.extend(_stat_row(os.path.join(folder, n)) for n in sorted(names))
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    return rows


def _git_dir(start: str) -> str | None:
    folder = start
    while True:
        cand = os.path.join(folder, ".git")
        if os.path.isdir(cand):
            return cand
        if os.path.isfile(cand):
            try:
                text = Path(cand).read_text(errors="replace").strip()
            except OSError:
                return None
            if text.startswith("gitdir:"):
                return os.path.join(folder, text[len("gitdir:") :].strip())
            return None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _excludes_files(starts: Sequence[str]) -> set[str]:
    """The ignore file `core.excludesFile` names for each walked repository (asked of
    git once, when a run is kept: it may lie anywhere, under any name)."""
    out: set[str] = set()
    for start in {s for s in starts if _git_dir(s) is not None}:
        try:
            res = GitQuery(Path(start), Deadline.after(EXCLUDES_SECONDS)).run(
                "config", "--path", "--get", "core.excludesFile", check=False
            )
        except GitError:
            continue
        name = res.stdout.decode("utf-8", "surrogateescape").strip()
        if res.returncode == 0 and name:
            out.add(os.path.normpath(os.path.join(start, name)))
    return out


def _git_rows(starts: Sequence[str]) -> list[Row]:
    """git's state a selection reads: HEAD and its ref, the index, config, ignores."""
    rows: list[Row] = []
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    rows += [_stat_row(os.path.join(home, ".gitconfig"), follow=True)]
    rows += [_stat_row(os.path.join(xdg, "git", n), follow=True) for n in ("config", "ignore")]
    for git in sorted({g for g in map(_git_dir, starts) if g is not None}):
        dirs = [git]
        try:
            common = Path(git, "commondir").read_text().strip()
            dirs.append(os.path.normpath(os.path.join(git, common)))
        except OSError:
            pass
        for d in dirs:
            rows += [_stat_row(os.path.join(d, n)) for n in _GIT_FILES]
        try:
            head = Path(git, "HEAD").read_text(errors="replace").strip()
        except OSError:
            continue
        if head.startswith("ref:"):
            ref = head[4:].strip()
            rows += [_stat_row(os.path.join(d, ref)) for d in dirs]
    return rows


def _tool_rows(report: Report) -> list[Row]:
    """Every tool a scope names (`tool` and the fallback's exact `syntax_parser`, by
    `tool_stamp`), the folders of PATH, the
    interpreter's scripts folder (where a Ruff beside orchestrate is found) and the
    folder of managed tools."""
    rows: list[Row] = []
    tools = [t for s in report.scopes for t in (s.tool, s.syntax_parser) if t and t.path]
    for path in sorted({t.path for t in tools if t.path}):
        try:
            rows.append((path, tool_stamp(path)))
        except OSError as exc:
            rows.append((path, exc.errno))
    folders = [e for e in os.environ.get("PATH", "").split(os.pathsep) if os.path.isabs(e)]
    folders.append(os.path.dirname(sys.executable))
    folders.append(str(user_cache_root() / "tools"))  # `orchestrate tools install`
    rows += [_stat_row(f, follow=True) for f in dict.fromkeys(folders)]
    return rows


def _newest_ns(rows: Sequence[Row]) -> int:
    """The newest mtime or ctime among the rows' stat facts (0 when none)."""
    newest = 0
    for _path, value in rows:
        if isinstance(value, tuple) and len(value) == 5 and isinstance(value[3], int):
            newest = max(newest, value[3], value[4])
    return newest


__all__ = ["RequestKey", "forget", "hold", "keep", "replay", "request_key"]
