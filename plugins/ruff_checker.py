"""Ruff: the native Python checker.

Ruff is run the way a user runs it in the project: from the project root, with no
`--config`, so Ruff resolves each file's nearest config and its `extend` chain
itself, and relative settings (`per-file-ignores`, `src`, `exclude`) mean what they
mean to the project. Always `--no-fix` (a config's `fix = true` never rewrites a
byte) and `--no-cache` (no `.ruff_cache` in the project); `--force-exclude` makes
the config's excludes hold for the files we name. Files Ruff excludes are found
with Ruff's own listing (`--show-files`) and reported `not_run`. Files without any
config inside the root run `--isolated` (no user-level or outside config).

A file named on Ruff's command line bypasses the config's `include`, which only
narrows what Ruff finds by walking folders. So when a config sets `include`, Ruff
lists the named files' folders (`--show-files <folders>`) and a `.py`/`.pyi`/`.ipynb`
file absent from that listing is `not_run`, "not included by the project's Ruff
config", as `ruff check .` would skip it. Files outside Ruff's default include that
are named explicitly (shebang scripts, `.pyw`) are linted as today: pre-commit names
them explicitly and Ruff lints them. Notebooks (`.ipynb`, in Ruff's default include)
are claimed; their findings keep Ruff's cell-relative row and column as Ruff gives
them, and carry no exact edit (Ruff's edit offsets are cell-relative, not offsets in
the notebook's JSON).

Files of several configs share one process from the root: measured on 20 config
folders of 100 files, it gives the same 3000 findings as one process per folder
with that folder as cwd, in a third of the time.

One `ruff check --output-format json` process per batch of files on disk, never
one per file, except for staged/committed content, which goes over stdin with
`--stdin-filename`. Config discovery for the identity follows CG-30 (see
`_ruff_config`).
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from orchestrate_plugins import _ruff_first_party
from orchestrate_plugins._common import doc_url, line_starts, offset_of, top_folders
from orchestrate_plugins._pins import pin_sentence, precommit_rev
from orchestrate_plugins._ruff_config import (
    CONFIG_NAMES,
    ConfigProblem,
    RuffConfig,
    describe,
    has_ruff_section,
    nearest_config,
    satisfies,
    version_number,
)
from orchestrate_plugins._ruff_tool import (
    INSTALL_HINT,
    NAME,
    PROJECT_RUFF,
    select_tool,
)

from orchestrator.api import (
    Anchor,
    Batch,
    CheckerPlan,
    Deadline,
    FileOutcome,
    FileTarget,
    Finding,
    Probe,
    ProcResult,
    ReplaceText,
    ReuseIdentity,
    RunContext,
    ScopeStatus,
    Severity,
    Tier,
    ToolIdentity,
    Unparsable,
    cached_version,
    derive_safety_tier,
    digest_files,
    fingerprint,
    hookimpl,
    interpreter_bin_dir,
    one_line,
    outcome_from,
    remember_version,
    run_bounded,
    tool_version,
)

PY_SUFFIXES = (".py", ".pyi")
NOTEBOOK_SUFFIX = ".ipynb"
#: The suffixes of Ruff's default `include` (besides `pyproject.toml`).
DEFAULT_INCLUDE_SUFFIXES = (*PY_SUFFIXES, NOTEBOOK_SUFFIX)


def _severity(item: dict[str, Any]) -> tuple[Severity, str | None]:
    raw = item.get("severity")
    raw_s = str(raw).lower() if raw is not None else None
    if raw_s == "warning":
        return Severity.WARNING, raw_s
    if raw_s == "info":
        return Severity.INFO, raw_s
    return Severity.ERROR, raw_s


def _fix_edit(
    item: dict[str, Any], text: str | None, starts: list[int] | None = None
) -> dict[str, Any]:
    """Map Ruff's fix to one replace-text exact_edit plus its derived tier.

    `starts` are the text's line starts when the caller already has them (one
    computation per file, not per finding)."""
    fix = item.get("fix")
    if not isinstance(fix, dict) or not fix.get("edits") or text is None:
        return {}
    edits = sorted(fix["edits"], key=lambda e: (e["location"]["row"], e["location"]["column"]))
    if starts is None:
        starts = line_starts(text)
    first, last = (
        edits[0]["location"],
        max((e["end_location"] for e in edits), key=lambda p: (p["row"], p["column"])),
    )
    begin = offset_of(starts, text, first["row"], first["column"])
    end = offset_of(starts, text, last["row"], last["column"])
    pieces: list[str] = []
    cursor = begin
    for e in edits:
        s = offset_of(starts, text, e["location"]["row"], e["location"]["column"])
        t = offset_of(starts, text, e["end_location"]["row"], e["end_location"]["column"])
        if s < cursor:  # overlapping edits: not one exact edit
            return {}
        pieces.append(text[cursor:s])
        pieces.append(e.get("content") or "")
        cursor = t
    pieces.append(text[cursor:end])
    applicability = str(fix.get("applicability") or "unspecified")
    # A fix that is not "safe" may change behaviour: that loses the program's current
    # behaviour, which is kept nowhere else, so it counts as destructive.
    destructive = applicability != "safe"
    end_row = max(
        first["row"], last["row"] - (1 if last["column"] == 1 and last["row"] > first["row"] else 0)
    )
    return {
        "exact_edit": ReplaceText(
            kind="replace-text",
            anchor=Anchor(start_line=first["row"], end_line=end_row),
            match=text[begin:end],
            replacement="".join(pieces),
            start_column=first["column"],
            end_column=last["column"],
        ),
        "op_type": "deterministic",
        "is_destructive": destructive,
        "is_reversible": True,
        "safety_tier": derive_safety_tier("deterministic", destructive, True),
        "fix_applicability": applicability,
    }


def _dist_info_version(name: str) -> str | None:
    """The `Version` of the one `name-VERSION.dist-info` in this interpreter's
    site-packages, read from its METADATA headers; None when there is not exactly one
    or its `Name` is another. `metadata.version` reads the same header, but only after
    searching every path entry and loading the mail parser, on every start."""
    import sysconfig

    folder = Path(sysconfig.get_path("purelib"))
    try:
        found = [
            n
            for n in os.listdir(folder)
            if n.startswith(f"{name}-")
            and n.endswith(".dist-info")
            and "-" not in n[len(name) + 1 : -len(".dist-info")]
        ]
        if len(found) != 1:
            return None
        with open(folder / found[0] / "METADATA", "rb") as fh:
            head = fh.read(65536).decode("utf-8", "replace")
    except OSError:
        return None
    headers: dict[str, str] = {}
    for line in head.splitlines():
        if not line.strip():
            break  # the headers end at the first blank line
        key, sep, value = line.partition(":")
        if sep and not key[:1].isspace():
            headers.setdefault(key.strip().lower(), value.strip())
    if headers.get("name", "").lower().replace("_", "-") != name:
        return None
    return headers.get("version") or None


def _wheel_version(tool: str) -> str | None:
    """The wheel's metadata version when `tool` is the Ruff installed beside us, read
    once per (path, mtime) of the tool: a reinstall replaces the binary."""
    if Path(tool) == interpreter_bin_dir() / NAME:
        known = cached_version(tool)
        if known is not None:
            return known
        version = _dist_info_version(NAME)
        if version is not None:
            version = f"ruff {version}"
            remember_version(tool, version)
            return version
        try:
            version = f"ruff {metadata.version('ruff')}"
        except metadata.PackageNotFoundError:
            return None
        remember_version(tool, version)
        return version
    return None


def _ruff_version(tool: str, ctx: RunContext) -> str | None:
    """Ruff's version; the wheel's metadata when the tool is the one installed beside us
    (saves a process on the save-feedback path), else `ruff --version`."""
    return _wheel_version(tool) or tool_version(tool, deadline=ctx.deadline)


def _root_configured(root: Path) -> tuple[str, ...]:
    """Ruff config files directly in `root` (a pyproject.toml only with [tool.ruff])."""
    found = []
    for name in CONFIG_NAMES:
        cand = root / name
        if cand.is_file() and (name != "pyproject.toml" or has_ruff_section(cand)):
            found.append(name)
    return tuple(found)


#: Ruff spreads one invocation over every core itself, so fewer, larger batches beat
#: several processes competing for the same cores. Limits: the argv stays far below
#: the platform limit (ARG_MAX), a batch shares one output budget (8 MiB by default:
#: about 16 KiB of JSON findings per file at 500 files), and a batch's output is held
#: whole while it is parsed: at 2,000 files two batches at once took about 25 MB more
#: of orchestrate's own peak memory than at 500, for the same Ruff CPU time.
ARGV_BUDGET = 128 * 1024
MAX_BATCH_FILES = 500


def _argv_chunks(targets: Sequence[FileTarget]) -> list[tuple[FileTarget, ...]]:
    """Consecutive chunks of `targets` whose paths fit in ARGV_BUDGET bytes."""
    chunks: list[tuple[FileTarget, ...]] = []
    current: list[FileTarget] = []
    used = 0
    for t in targets:
        size = len(t.path.encode("utf-8", "surrogateescape")) + 1
        if current and (used + size > ARGV_BUDGET or len(current) >= MAX_BATCH_FILES):
            chunks.append(tuple(current))
            current, used = [], 0
        current.append(t)
        used += size
    if current:
        chunks.append(tuple(current))
    return chunks


EXCLUDED = "excluded by the project's Ruff config"
EXCLUDED_DEFAULT = "excluded by Ruff's default exclude list"
NOT_INCLUDED = "not included by the project's Ruff config"


def _label(root: Path, path: Path) -> str:
    """A config file as the report names it: root-relative, or absolute outside it."""
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _pin_check(
    cfg: RuffConfig | None, version: str | None, root: Path
) -> tuple[bool | None, str | None]:
    """(meets the config's `required-version`?, a sentence saying it); (None, None)
    without a pin, (None, sentence) when the version or the pin cannot be compared."""
    if cfg is None or cfg.required_version is None:
        return None, None
    spec, where = cfg.required_version
    number = version_number(version)
    ok = satisfies(number, spec) if number else None
    where_s = _label(root, where)
    if ok is None:
        return None, f"ruff {number or '?'} not compared with required-version {spec!r} ({where_s})"
    verb = "meets" if ok else "does not meet"
    return ok, f"ruff {number} {verb} required-version {spec!r} ({where_s})"


#: At most this many of Ruff's warnings per process become notes (then a count).
MAX_WARNINGS = 10
#: Characters a warning note may take.
MAX_WARNING_CHARS = 300


def warning_notes(stderr: bytes) -> tuple[str, ...]:
    """Ruff's `warning:` lines (about the project's own config or suppressions, such as
    an invalid `# noqa`) as report notes: one line each, bounded in length and number,
    in Ruff's order. The human report escapes them; they never reach an agent's text
    (render/agent.py names no note but its own)."""
    lines = stderr.decode("utf-8", "replace").splitlines()
    said = list(dict.fromkeys(s.strip() for s in lines if s.strip().startswith("warning:")))
    notes = [f"ruff {one_line(w, MAX_WARNING_CHARS)}" for w in said[:MAX_WARNINGS]]
    if len(said) > MAX_WARNINGS:
        notes.append(f"ruff: {len(said) - MAX_WARNINGS} more warning(s) not shown")
    return tuple(notes)


def _stdout_paths(res: ProcResult, root: Path) -> list[str]:
    """`--show-files` output as root-relative POSIX paths (absolute when outside)."""
    prefix = str(root).rstrip(os.sep) + os.sep
    out = []
    for line in res.stdout.decode("utf-8").splitlines():
        name = line.strip()
        if name:
            rel = name[len(prefix) :] if name.startswith(prefix) else name
            out.append(rel.replace(os.sep, "/"))
    return out


class RuffChecker:
    """Native Python lint and syntax evidence from Ruff."""

    name = NAME
    tier = Tier.NATIVE
    languages = frozenset({"python"})
    #: Files a strict gate materialises from the judged surface at every folder of a file.
    config_names = CONFIG_NAMES
    #: Columns count Unicode code points.
    column_unit = "codepoint"

    def claims(self, target: FileTarget) -> bool:
        """Python files (by language or suffix) and Jupyter notebooks."""
        return target.language == "python" or target.path.endswith(DEFAULT_INCLUDE_SUFFIXES)

    def probe(self, root: Path) -> Probe:
        """The Ruff a run would use (no override known here) and the root's config."""
        # A feedback run's view: a tracked project Ruff is not one (tool_refusal).
        tool = select_tool(root, None, RunContext(project_root=root, deadline=Deadline.after(5)))
        configs = _root_configured(root)
        return Probe(
            found=tool is not None,
            tool_path=tool,
            version=(_wheel_version(tool) or cached_version(tool)) if tool else None,
            configured=bool(configs),
            config_files=configs,
            hint=None if tool else INSTALL_HINT,
        )

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        """Batches of files sharing a mode (hierarchical config or `--isolated`); files
        whose config is unusable or whose pinned Ruff version is not the one found
        are settled now, with the reason."""
        if not targets:
            return CheckerPlan()
        root = ctx.project_root
        tool = select_tool(root, ctx.tool_overrides.get(NAME), ctx)
        if tool is None:
            return CheckerPlan(settled=tuple(self._not_found(targets, root)))
        ident = ToolIdentity(path=tool, version=_ruff_version(tool, ctx))
        configs, notes, settled = self._configs(targets, ctx.project_root, ident)
        batches: list[Batch] = []
        # The source roots of each config, worked out once per plan (reuse_dependencies).
        roots: dict[Path | None, list[Path] | None] = {}
        for isolated in (False, True):
            members = [
                t for t in targets if t.path in configs and (configs[t.path] is None) == isolated
            ]
            data = {"tool": tool, "ident": ident, "isolated": isolated}
            data |= {"configs": configs, "notes": notes, "src_roots": roots}
            mode = "isolated" if isolated else "config"
            for chunk in _argv_chunks([t for t in members if t.on_disk]):
                batches.append(Batch(chunk, data, label=f"ruff:{mode}"))
            for t in (t for t in members if not t.on_disk):
                batches.append(Batch((t,), data, label=f"ruff-stdin:{t.path}"))
        return CheckerPlan(batches=tuple(batches), settled=tuple(settled))

    def _configs(
        self, targets: Sequence[FileTarget], root: Path, ident: ToolIdentity
    ) -> tuple[dict[str, RuffConfig | None], dict[str, str], list[FileOutcome]]:
        """(each runnable target's nearest config or None, version notes by path, the
        targets settled now: an unusable config, or a pin the found Ruff does not meet).

        The notes hold the version against `required-version` and against the `rev` of
        the project's `ruff-pre-commit` hook (a differing rev is said, not refused: the
        hook's Ruff is not installed where orchestrate could run it)."""
        cache: dict[Path, Path | None] = {}
        described: dict[Path, RuffConfig] = {}
        hook = precommit_rev(root, "ruff-pre-commit")
        hook_note = pin_sentence(NAME, ident.version, hook) if hook else None
        configs: dict[str, RuffConfig | None] = {}
        notes: dict[str, str] = {}
        settled: list[FileOutcome] = []
        for t in targets:
            try:
                path = nearest_config(root, t.path, cache)
            except ConfigProblem as exc:
                settled.append(self._settle(t, ScopeStatus.TOOL_ERROR, str(exc), ident))
                continue
            cfg = None
            if path is not None:
                # Each nearest config is read once (setdefault would read it per file).
                cfg = (
                    described[path]
                    if path in described
                    else described.setdefault(path, describe(path))
                )
            ok, note = _pin_check(cfg, ident.version, root)
            if ok is False:
                hint = f"install a Ruff that meets it in {PROJECT_RUFF.parent}, or {INSTALL_HINT}"
                # The project's config pins the version: naming it makes the gap count
                # (decisions/coverage.is_configured_gap).
                files = tuple(_label(root, p) for p in sorted(cfg.chain)) if cfg else ()
                settled.append(
                    self._settle(
                        t,
                        ScopeStatus.MISSING,
                        note,
                        ident,
                        hint=hint,
                        falls_back=True,
                        config_files=files,
                    )
                )
                continue
            configs[t.path] = cfg
            said = "; ".join(n for n in (note, hook_note) if n)
            if said:
                notes[t.path] = said
        return configs, notes, settled

    def _not_found(self, targets: Sequence[FileTarget], root: Path) -> list[FileOutcome]:
        """`missing` for every target, each naming the project's Ruff config that
        governs it when there is one: the project asked for Ruff, so that gap makes the
        run incomplete (decisions/coverage.is_configured_gap)."""
        cache: dict[Path, Path | None] = {}
        out = []
        for t in targets:
            try:
                path = nearest_config(root, t.path, cache)
            except ConfigProblem:
                path = None  # said when a Ruff is there to run; the gap is the tool here
            out.append(
                FileOutcome(
                    path=t.path,
                    checker=NAME,
                    status=ScopeStatus.MISSING,
                    reason="ruff not found",
                    hint=INSTALL_HINT,
                    falls_back=True,
                    language=t.language,
                    config_files=(_label(root, path),) if path is not None else (),
                )
            )
        return out

    def _settle(
        self, t: FileTarget, status: ScopeStatus, reason: str | None, ident: ToolIdentity, **kw: Any
    ) -> FileOutcome:
        return FileOutcome(
            path=t.path,
            checker=NAME,
            status=status,
            reason=reason,
            tool=ident,
            language=t.language,
            **kw,
        )

    def reuse_identity(self, batch: Batch, ctx: RunContext) -> ReuseIdentity:
        """The batch's identity for reuse: the tool, and every config file that governs
        one of its files (nearest config and its whole `extend` chain)."""
        files = self._chain_files(batch)
        rules = "isolated" if batch.data["isolated"] else "hierarchical"
        return ReuseIdentity(
            tool=batch.data["ident"], config_digest=digest_files(files), rules=rules
        )

    def reuse_dependencies(
        self, target: FileTarget, source: bytes, batch: Batch, ctx: RunContext
    ) -> list[str] | None:
        """The paths whose kind decides which of the file's imports are first-party and
        which package it is in (`_ruff_first_party`): probed by reuse and the warm
        engine, never listed; None (never reused) when its source roots need a listing."""
        configs: dict[str, RuffConfig | None] = batch.data["configs"]
        cfg = None if batch.data["isolated"] else configs.get(target.path)
        memo: dict[Path | None, list[Path] | None] = batch.data["src_roots"]
        key = cfg.path if cfg is not None else None
        if key not in memo:
            memo[key] = _ruff_first_party.source_roots(ctx.project_root, cfg)
        notebook = target.path.endswith(NOTEBOOK_SUFFIX)
        return _ruff_first_party.dependencies(
            ctx.project_root, target.abs_path, source, memo[key], notebook
        )

    @staticmethod
    def _chain_files(batch: Batch) -> list[Path]:
        configs: dict[str, RuffConfig | None] = batch.data["configs"]
        return sorted({p for t in batch.targets if (c := configs.get(t.path)) for p in c.chain})

    def _base_argv(self, batch: Batch) -> list[str]:
        # Never --fix, never a cache in the project, the config's excludes hold for the
        # files we name.
        argv = [batch.data["tool"], "check", "--no-fix", "--no-cache", "--force-exclude"]
        return argv + (["--isolated"] if batch.data["isolated"] else [])

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        """One lint process over the batch, then Ruff's own listing of the files it
        reported nothing for and of those under a config's `include`: those it excludes
        or does not include are `not_run`, never `checked`."""
        outcomes = self._lint(batch, ctx)
        checked = {o.path for o in outcomes if o.status == ScopeStatus.CHECKED}
        quiet = {o.path for o in outcomes if o.path in checked and not o.findings}
        narrowed = {t.path for t in self._narrowed(batch) if t.path in checked}
        if quiet or narrowed:
            asked = tuple(t for t in batch.targets if t.path in quiet | narrowed)
            settled = {o.path: o for o in self._listing(Batch(asked, batch.data), ctx)}
            # The lint's notes (Ruff's warnings) are report-level: they stay whatever
            # the listing says of the file.
            outcomes = [
                settled[o.path].with_(notes=o.notes) if o.path in settled else o for o in outcomes
            ]
        return self._with_config(batch, ctx.project_root, outcomes)

    def _with_config(
        self, batch: Batch, root: Path, outcomes: list[FileOutcome]
    ) -> list[FileOutcome]:
        """The outcomes with each file's own config identity (its nearest config and
        `extend` chain) and, on a checked scope, the required-version note."""
        configs: dict[str, RuffConfig | None] = batch.data["configs"]
        notes: dict[str, str] = batch.data["notes"]
        digests: dict[tuple[Path, ...], str] = {}
        out = []
        for o in outcomes:
            cfg = configs.get(o.path)
            chain = tuple(sorted(cfg.chain)) if cfg is not None else ()
            if chain not in digests:  # one read per config chain, not per file
                digests[chain] = digest_files(chain)
            note = notes.get(o.path) if o.status == ScopeStatus.CHECKED else None
            out.append(
                o.with_(
                    config_digest=digests[chain],
                    config_files=tuple(_label(root, p) for p in chain),
                    reason=o.reason or note,
                )
            )
        return out

    @staticmethod
    def _narrowed(batch: Batch) -> list[FileTarget]:
        """The batch's files in Ruff's default include whose config sets `include`."""
        configs: dict[str, RuffConfig | None] = batch.data["configs"]
        return [
            t
            for t in batch.targets
            if t.path.endswith(DEFAULT_INCLUDE_SUFFIXES)
            and (c := configs.get(t.path)) is not None
            and c.narrows_include
        ]

    def _included(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        """`not_run` outcomes for the batch's narrowed files (see `_narrowed`) that
        Ruff's listing of their folders leaves out: what `ruff check .` never lints."""
        asked = [t for t in self._narrowed(batch) if t.abs_path.is_file()]
        if not asked:
            return []
        root = ctx.project_root
        tops = top_folders(t.path for t in asked)
        argv = [*self._base_argv(batch), "--show-files", "--", *[f.as_posix() for f in tops]]
        res = run_bounded(
            argv, deadline=ctx.deadline, cwd=root, output_budget=ctx.output_budget, env=ctx.env
        )
        ident: ToolIdentity = batch.data["ident"]

        def parse(r: ProcResult) -> list[FileOutcome]:
            names = set(_stdout_paths(r, root))
            return [
                self._settle(t, ScopeStatus.NOT_RUN, NOT_INCLUDED, ident)
                for t in asked
                if t.path not in names
            ]

        label = f"{NAME} --show-files (include)"
        return outcome_from(
            res,
            asked,
            checker=NAME,
            label=label,
            parse=parse,
            exits=(0,),
            quiet_ok=True,
            tool=ident,
        )

    def _listing(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        """Outcomes for the targets Ruff's `--show-files` does not list (excluded), or
        for all of them when the listing fails or names a file not asked about.
        Targets not on disk (staged content only) are asked with `_stdin_probe`.
        Files a config's `include` leaves out are found by `_included`; an exclusion
        (or a failed listing) of the named file takes precedence."""
        ident: ToolIdentity = batch.data["ident"]
        askable = [t for t in batch.targets if t.abs_path.is_file()]
        probed = [
            o for t in batch.targets if t not in askable for o in self._stdin_probe(t, batch, ctx)
        ]
        if not askable:
            return probed
        root = ctx.project_root
        argv = [*self._base_argv(batch), "--show-files", "--", *[t.path for t in askable]]
        res = run_bounded(
            argv, deadline=ctx.deadline, cwd=root, output_budget=ctx.output_budget, env=ctx.env
        )
        configs = batch.data["configs"]

        def parse(r: ProcResult) -> list[FileOutcome]:
            names = set(_stdout_paths(r, root))
            stray = sorted(names - {t.path for t in askable})
            if stray:
                raise Unparsable(f"listing names a file not asked about: {stray[0]!r}")
            return [
                self._settle(
                    t,
                    ScopeStatus.NOT_RUN,
                    EXCLUDED if configs.get(t.path) else EXCLUDED_DEFAULT,
                    ident,
                )
                for t in askable
                if t.path not in names
            ]

        named = outcome_from(
            res,
            askable,
            checker=NAME,
            label=f"{NAME} --show-files",
            parse=parse,
            exits=(0,),
            quiet_ok=True,
            tool=ident,
        )
        said = {o.path for o in named}
        narrowed = [o for o in self._included(batch, ctx) if o.path not in said]
        return probed + named + narrowed

    def _stdin_probe(self, t: FileTarget, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        """Whether Ruff excludes `t`, for a path `--show-files` cannot list (not on
        disk): one byte of invalid Python on stdin under that name. Ruff reports a
        syntax error whatever rules are selected, unless it excludes the path."""
        ident: ToolIdentity = batch.data["ident"]
        argv = [*self._base_argv(batch), "--output-format", "json", "--exit-zero"]
        argv += ["--stdin-filename", t.path, "-"]
        res = run_bounded(
            argv,
            deadline=ctx.deadline,
            stdin=b"(",
            cwd=ctx.project_root,
            output_budget=ctx.output_budget,
            env=ctx.env,
        )
        reason = EXCLUDED if batch.data["configs"].get(t.path) else EXCLUDED_DEFAULT

        def parse(r: ProcResult) -> list[FileOutcome]:
            items = json.loads(r.stdout.decode("utf-8"))
            if not isinstance(items, list):
                raise Unparsable("unparsable output: not a JSON list")
            return [] if items else [self._settle(t, ScopeStatus.NOT_RUN, reason, ident)]

        label = f"{NAME} exclusion probe"
        return outcome_from(res, [t], checker=NAME, label=label, parse=parse, tool=ident)

    def _lint(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        ident: ToolIdentity = batch.data["ident"]
        root = ctx.project_root
        argv = [*self._base_argv(batch), "--output-format", "json", "--exit-zero"]
        stdin = None
        if len(batch.targets) == 1 and not batch.targets[0].on_disk:
            t = batch.targets[0]
            argv += ["--stdin-filename", t.path, "-"]
            stdin = t.content or b""
        else:
            argv += ["--", *[t.path for t in batch.targets]]
        res = run_bounded(
            argv,
            deadline=ctx.deadline,
            stdin=stdin,
            cwd=root,
            output_budget=ctx.output_budget,
            env=ctx.env,
        )
        return outcome_from(
            res,
            batch.targets,
            checker=NAME,
            label=NAME,
            parse=lambda r: self._parse(batch, r, root, ident),
            tool=ident,
        )

    def _parse(
        self, batch: Batch, res: ProcResult, root: Path, ident: ToolIdentity
    ) -> list[FileOutcome]:
        """Ruff's JSON list (always printed, `[]` when clean) -> one outcome per target.

        A result for a file that was not asked about makes the whole output untrusted."""
        items = json.loads(res.stdout.decode("utf-8"))
        if not isinstance(items, list):
            raise Unparsable("unparsable output: not a JSON list")
        by_path: dict[str, list[dict[str, Any]]] = defaultdict(list)
        # A string prefix test (as lexical as Path.relative_to) instead of pathlib per
        # item: a batch can hold thousands of findings.
        prefix = str(root).rstrip(os.sep) + os.sep
        for item in items:
            if not isinstance(item, dict):
                raise Unparsable("unparsable output: a result that is not an object")
            fname = str(item.get("filename", ""))
            rel = fname[len(prefix) :].replace(os.sep, "/") if fname.startswith(prefix) else fname
            by_path[rel].append(item)
        stray = sorted(set(by_path) - {t.path for t in batch.targets})
        if stray:
            raise Unparsable(f"results for a file not asked about: {stray[0]!r}")
        # Report-level: the report lists each distinct note once, so the first file carries them.
        notes = warning_notes(res.stderr)
        outcomes: list[FileOutcome] = []
        for t in batch.targets:
            findings = self._findings(t, by_path.get(t.path, []))
            outcomes.append(
                FileOutcome(
                    path=t.path,
                    checker=NAME,
                    status=ScopeStatus.CHECKED,
                    findings=tuple(findings),
                    exit_code=res.returncode,
                    duration_ms=res.duration_ms,
                    coherent=True,
                    language=t.language,
                    tool=ident,
                    notes=() if outcomes else notes,
                )
            )
        return outcomes

    def _findings(self, target: FileTarget, items: list[dict[str, Any]]) -> list[Finding]:
        if not items:
            return []
        try:
            text: str | None = target.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            text = None
        notebook = target.path.endswith(NOTEBOOK_SUFFIX)
        if notebook:  # rows are cell-relative: neither the JSON's lines nor its offsets
            text = None
        # Split and index the text once per file, not once per finding.
        lines = text.splitlines() if text is not None else []
        starts = line_starts(text) if text is not None else None
        out: list[Finding] = []
        for item in items:
            loc = item.get("location") or {}
            end = item.get("end_location") or {}
            code = item.get("code") or "invalid-syntax"
            sev, raw = _severity(item)
            line = loc.get("row") or 1
            anchor = ""
            if text is not None:
                anchor = lines[line - 1].strip() if 0 < line <= len(lines) else ""
            elif notebook:
                anchor = f"cell {item.get('cell')}:{line}:{loc.get('column')}"
            out.append(
                Finding(
                    checker=NAME,
                    rule=str(code),
                    severity=sev,
                    tool_severity=raw,
                    path=target.path,
                    line=line,
                    column=loc.get("column") or None,
                    end_line=end.get("row") or None,
                    end_column=end.get("column") or None,
                    message=str(item.get("message", "")),
                    blocking=True,
                    fingerprint=fingerprint(NAME, str(code), target.path, anchor),
                    help_uri=doc_url(item.get("url")),
                    **_fix_edit(item, text, starts),
                )
            )
        return out


@hookimpl
def orchestrate_checkers() -> list[Any]:
    return [RuffChecker()]


@hookimpl
def orchestrate_rule_docs(
    checker: str, tool_path: str | None, tool_version: str | None
) -> dict[str, Any] | None:
    """Ruff's rule names, summaries, documentation pages and home page, for SARIF."""
    if checker != NAME:
        return None
    from orchestrate_plugins import _ruff_rules

    return _ruff_rules.rule_docs(tool_path, tool_version)
