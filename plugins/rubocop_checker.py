"""RuboCop: the second native Ruby checker, for projects that configure it.

It applies only to a file with a `.rubocop.yml` between it and the project root: a
project that does not configure RuboCop has no RuboCop verdict to reproduce, so its
Ruby files are judged by `ruby -c` alone and no RuboCop gap is reported. Where it
applies and `rubocop` is not installed, the scope is `missing` with an install hint.

RuboCop runs the way the project runs it: from the project root, with no `--config`,
so it takes each file's nearest `.rubocop.yml` and its `inherit_from` chain itself.
Always `--format json --force-exclusion --cache false --no-server`: never `-a`, the
config's `Exclude` holds for the files we name (`not_run`), no result cache and no
server state in the project (`RUBOCOP_CACHE_ROOT` points at a temporary folder
outside it, removed after the run), and staged content goes over stdin
(`--stdin PATH`). What `_rubocop_config` refuses (a remote `inherit_from`, ERB, a
`require:` of a file, a `.rubocop` options file with more than display options, an
inherited file that is absent) is `tool_error` with the reason and a hint naming the
remedy: the project configured RuboCop and that check could not run, so it is a failed
check (a strict gate is incomplete, it never allows on `ruby -c` alone), not a project
without RuboCop (`configuration_required` from a second native checker is no gap). A
`require:` of a gem that is not installed is RuboCop's own error: `tool_error` with
its first line.

The RuboCop run is an explicit machine `[tools] rubocop` path, else the project's own
`bin/rubocop` (a binstub) when it answers `--version`, else the first absolute PATH
entry. The scope's reason names the RuboCop that ran and where it came from and, when
the nearest `Gemfile.lock` locks another version, that they differ (Debian's RuboCop
rarely matches a bundle).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from orchestrate_plugins._common import is_ruby_file
from orchestrate_plugins._pins import Pin, differs, gemfile_lock_pin, pin_sentence
from orchestrate_plugins._rubocop_config import (
    DOTFILE,
    OPTIONS_FILE,
    RubocopConfig,
    describe,
    nearest_config,
    options_refusal,
)

from orchestrator.api import (
    Batch,
    CheckerPlan,
    Deadline,
    FileOutcome,
    FileTarget,
    Finding,
    Probe,
    ProcResult,
    ReuseIdentity,
    RunContext,
    ScopeStatus,
    Severity,
    Tier,
    ToolIdentity,
    Unparsable,
    VersionProbe,
    bounded_message,
    cached_version,
    digest_files,
    find_on_path,
    fingerprint,
    folders_up,
    hookimpl,
    one_line,
    outcome_for_all,
    outcome_from,
    probe_version,
    run_bounded,
    settled_plan,
    tool_refusal,
)

NAME = "rubocop"
INSTALL_HINT = "install RuboCop (Debian: apt-get install rubocop; or gem install rubocop)"
#: Environment that would change what RuboCop loads or which options it takes.
SCRUBBED = ("RUBOCOP_OPTS", "RUBYOPT", "RUBYLIB", "RUBYGEMS_GEMDEPS", "BUNDLE_GEMFILE")
EXCLUDED = "excluded by the project's RuboCop config (Exclude)"
MAX_BATCH = 400
MAX_MESSAGE = 500
#: Files RuboCop reads, beside its config chain, in a file's folder or one above it: the
#: target Ruby it infers (pins, the bundle) and the bundle's lock the scope's note reads.
INFERRED_FROM = (
    ".ruby-version",
    ".tool-versions",
    "Gemfile",
    "Gemfile.lock",
    "gems.rb",
    "gems.locked",
)


def _texts(paths: set[Path]) -> list[str]:
    """The text of each of the files that exists (an unreadable one reads as empty)."""
    out: list[str] = []
    for p in paths:
        try:
            out.append(p.read_text("utf-8", "replace"))
        except OSError:
            out.append("")
    return out


def _folders(root: Path, path: Path) -> list[Path]:
    """`path`'s folder and each one above it, up to `root` (none outside it)."""
    return folders_up(root, path.parent)


#: RuboCop's severities; `info` offenses do not fail `rubocop` (its default fail level).
_SEVERITY = {
    "fatal": Severity.ERROR,
    "error": Severity.ERROR,
    "warning": Severity.WARNING,
    "convention": Severity.WARNING,
    "refactor": Severity.WARNING,
    "info": Severity.INFO,
}


def find_rubocop(ctx: RunContext) -> str | None:
    """The explicit absolute tool path, else the first ABSOLUTE PATH entry with `rubocop`."""
    return find_on_path(NAME, ctx)


#: Where a project keeps its own RuboCop: the bundler binstub (`bundle binstubs rubocop`).
PROJECT_RUBOCOP = Path("bin") / NAME
#: What the doctor says of RuboCop without a root .rubocop.yml (its probe's hint).
NOT_IN_USE = (
    "no .rubocop.yml at the project root; RuboCop checks only Ruby files under a "
    ".rubocop.yml (the others get `ruby -c` only)"
)


def _probe(tool: str, ctx: RunContext) -> VersionProbe:
    """`rubocop --version` from a private folder with a private cache root: RuboCop reads
    the config of the folder it starts in even for `--version`, and a config's
    `AllCops: CacheRootDirectory` would make it create its server-state folder there."""
    base = dict(ctx.env) if ctx.env is not None else dict(os.environ)
    env = {k: v for k, v in base.items() if k not in SCRUBBED}
    with tempfile.TemporaryDirectory(prefix="orchestrate-rubocop-") as tmp:
        env["RUBOCOP_CACHE_ROOT"] = tmp
        return probe_version(tool, ctx.deadline, cwd=Path(tmp), env=env)


def select_tool(root: Path, ctx: RunContext) -> tuple[str | None, VersionProbe | None, str]:
    """(the RuboCop to run, its `--version` probe, where it came from).

    An explicit `[tools] rubocop` path is used as it is. Else the project's own
    `bin/rubocop` when it is executable and answers `--version` (its bundle is
    installed); else the first absolute PATH entry, the source then saying why the
    project's own was passed over."""
    if ctx.tool_overrides.get(NAME) is not None:
        tool = find_rubocop(ctx)
        return tool, _probe(tool, ctx) if tool else None, "the configured path"
    own = root / PROJECT_RUBOCOP
    passed_over = ""
    if own.is_file() and os.access(own, os.X_OK) and tool_refusal(str(own), ctx) is None:
        probe = _probe(str(own), ctx)
        if probe.version is not None:
            return str(own), probe, f"the project's {PROJECT_RUBOCOP.as_posix()}"
        passed_over = (
            f"; the project's {PROJECT_RUBOCOP.as_posix()} failed --version ({probe.detail})"
        )
    tool = find_rubocop(ctx)
    if tool is None:
        return None, None, ""
    return tool, _probe(tool, ctx), "from PATH" + passed_over


def _root_of(target: FileTarget) -> Path | None:
    """The project root a target's `abs_path` implies (it ends with its relative path)."""
    depth = len(PurePosixPath(target.path).parts)
    parents = target.abs_path.parents
    return parents[depth - 1] if 0 < depth <= len(parents) else None


def _label(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _cause(stderr: bytes) -> str:
    """RuboCop's first stderr line (its error), without the backtrace below it."""
    for line in stderr.decode("utf-8", "replace").splitlines():
        if line.strip():
            return one_line(line)
    return ""


@dataclass(frozen=True)
class _Job:
    ident: ToolIdentity
    #: The governing config of each target of the batch.
    configs: Mapping[str, RubocopConfig]
    #: The scope reason of each target: the RuboCop that ran, against the project's pin.
    notes: Mapping[str, str]
    stdin: bool


class RubocopChecker:
    """Native Ruby lint evidence from RuboCop, where the project configures it."""

    name = NAME
    tier = Tier.NATIVE
    #: It judges Ruby only where a project configures it, so it does not speak for the
    #: language: the `ruby` parser checker is the one named for Ruby's native evidence.
    languages: frozenset[str] = frozenset()
    #: The files a strict gate materialises from the judged surface in every folder
    #: from a file up to the root: the config, the options file, the bundle's lock.
    #: (An `inherit_from` file elsewhere is not among them: in a gate's tree it is
    #: absent, and the scope says so instead of running without it.)
    config_names = (DOTFILE, OPTIONS_FILE, "Gemfile.lock")
    #: Columns count Unicode code points.
    column_unit = "codepoint"

    def probe(self, root: Path) -> Probe:
        """Without a root `.rubocop.yml` RuboCop does not apply (`available`, no gap);
        with one, whether `rubocop` is on the absolute PATH."""
        if not (root / ".rubocop.yml").is_file():
            return Probe(hint=NOT_IN_USE)
        own = root / PROJECT_RUBOCOP
        tool = (
            str(own)
            if own.is_file() and os.access(own, os.X_OK)
            else find_rubocop(RunContext(project_root=root, deadline=Deadline.after(0)))
        )
        return Probe(
            found=tool is not None,
            tool_path=tool,
            version=cached_version(tool),
            configured=True,
            config_files=(".rubocop.yml",),
            hint=None if tool else INSTALL_HINT,
        )

    def claims(self, target: FileTarget) -> bool:
        """A Ruby file with a `.rubocop.yml` between it and the project root."""
        if not is_ruby_file(target):
            return False
        root = _root_of(target)
        return root is not None and nearest_config(root, target.path) is not None

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        """Settle what cannot run (no tool, a refused configuration); batch the rest."""
        if not targets:
            return CheckerPlan()
        root = ctx.project_root
        tool, probe, source = select_tool(root, ctx)
        if tool is None or probe is None:
            reason = (
                "rubocop not found (explicit path, the project's bin/rubocop or an absolute"
                " PATH entry); the project configures it (.rubocop.yml)"
            )
            # Each file names the `.rubocop.yml` that asks for RuboCop: the gap counts
            # (decisions/coverage.is_configured_gap).
            missing = settled_plan(
                self, targets, ScopeStatus.MISSING, reason, hint=INSTALL_HINT, falls_back=True
            )
            return CheckerPlan(
                settled=tuple(
                    o.with_(config_files=(_label(root, cfg),))
                    if (cfg := nearest_config(root, o.path)) is not None
                    else o
                    for o in missing.settled
                )
            )
        ident = ToolIdentity(path=tool, version=probe.version)
        if probe.version is None:
            status = ScopeStatus.TIMED_OUT if probe.timed_out else ScopeStatus.TOOL_ERROR
            reason = f"rubocop --version failed ({probe.detail}): the tool cannot run"
            return CheckerPlan(
                settled=tuple(outcome_for_all(self, targets, status, reason, tool=ident))
            )
        refused = options_refusal(root)
        described: dict[Path, RubocopConfig] = {}
        configs: dict[str, RubocopConfig] = {}
        notes: dict[str, str] = {}
        settled: list[FileOutcome] = []
        for t in targets:
            path = nearest_config(root, t.path)
            if path is None:  # the config vanished since claims()
                settled.append(self._settle(t, ScopeStatus.NOT_RUN, "no .rubocop.yml", ident))
                continue
            cfg = described.setdefault(path, describe(root, path, ctx.surface_files is not None))
            refusal = refused or cfg.refusal
            if refusal is not None:
                out = self._settle(t, ScopeStatus.TOOL_ERROR, refusal.reason, ident)
                settled.append(out.with_(hint=refusal.hint, config_files=self._files(root, cfg)))
                continue
            configs[t.path] = cfg
            notes[t.path] = self._note(root, t.path, cfg, ident, source)
        batches: list[Batch] = []
        disk = [t for t in targets if t.path in configs and t.on_disk]
        for i in range(0, len(disk), MAX_BATCH):
            chunk = tuple(disk[i : i + MAX_BATCH])
            batches.append(Batch(chunk, _Job(ident, configs, notes, False), label="rubocop"))
        for t in (t for t in targets if t.path in configs and not t.on_disk):
            job = _Job(ident, configs, notes, True)
            batches.append(Batch((t,), job, label=f"rubocop-stdin:{t.path}"))
        return CheckerPlan(batches=tuple(batches), settled=tuple(settled))

    @staticmethod
    def _files(root: Path, cfg: RubocopConfig) -> tuple[str, ...]:
        return tuple(_label(root, p) for p in cfg.chain)

    @staticmethod
    def _note(root: Path, rel: str, cfg: RubocopConfig, ident: ToolIdentity, source: str) -> str:
        """What ran (version, whence), with which config, against the bundle's lock."""
        note = f"rubocop {ident.version} ({source}) with {_label(root, cfg.path)}"
        if len(cfg.chain) > 1:
            note += " (inherits " + ", ".join(_label(root, p) for p in cfg.chain[1:]) + ")"
        pin: Pin | None = gemfile_lock_pin(root, rel, NAME)
        if pin is not None:
            note += "; " + pin_sentence(NAME, ident.version, pin)
            if differs(pin.version, ident.version):
                note += " (findings may differ from the project's bundle)"
        return note

    def _settle(
        self, t: FileTarget, status: ScopeStatus, reason: str, ident: ToolIdentity
    ) -> FileOutcome:
        (out,) = outcome_for_all(self, [t], status, reason, tool=ident)
        return out

    def _env(self, ctx: RunContext, cache_root: str) -> dict[str, str]:
        base = dict(ctx.env) if ctx.env is not None else dict(os.environ)
        env = {k: v for k, v in base.items() if k not in SCRUBBED}
        # RuboCop makes its server-state folder under the cache root at every start,
        # even with --cache false and --no-server; this wins over the config's
        # AllCops: CacheRootDirectory (which may name the project).
        env["RUBOCOP_CACHE_ROOT"] = cache_root
        return env

    def reuse_identity(self, batch: Batch, ctx: RunContext) -> ReuseIdentity | None:
        """The batch's identity for reuse: the tool, every config of each file's chain,
        the options file, and every file it may infer the target Ruby from in the folders
        of the files and configs. None (never reused) where RuboCop reads bytes this does
        not hold: a required or inherited gem, a gemspec."""
        job: _Job = batch.data
        root = ctx.project_root
        files: set[Path] = {root / OPTIONS_FILE}
        folders: set[Path] = set()
        for t in batch.targets:
            cfg = job.configs[t.path]
            if cfg.requires:
                return None
            files.update(cfg.chain)
            folders.update(_folders(root, root / t.path))
            folders.update(f for c in cfg.chain for f in _folders(root, c))
        if any("inherit_gem" in text for text in _texts(files)):
            return None
        for folder in folders:
            if next(folder.glob("*.gemspec"), None) is not None:
                return None
            files.update(folder / name for name in INFERRED_FROM)
        return ReuseIdentity(tool=job.ident, config_digest=digest_files(files), rules=NAME)

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        """One RuboCop process for the batch (never -a, no cache, config from the root)."""
        job: _Job = batch.data
        root = ctx.project_root
        argv = [str(job.ident.path), "--format", "json", "--force-exclusion"]
        argv += ["--cache", "false", "--no-server"]
        stdin: bytes | None = None
        if job.stdin:
            t = batch.targets[0]
            try:
                stdin = t.read_bytes()
            except OSError as exc:
                why = f"cannot read file: {exc.strerror}"
                return [self._settle(t, ScopeStatus.TOOL_ERROR, why, job.ident)]
            argv += ["--stdin", t.path]
        else:
            argv += ["--", *[t.path for t in batch.targets]]
        with tempfile.TemporaryDirectory(prefix="orchestrate-rubocop-") as cache_root:
            res = run_bounded(
                argv,
                cwd=root,
                env=self._env(ctx, cache_root),
                stdin=stdin,
                deadline=ctx.deadline,
                output_budget=ctx.output_budget,
            )
        chain = sorted({p for t in batch.targets for p in job.configs[t.path].chain})
        common: dict[str, Any] = {"tool": job.ident, "config_digest": digest_files(chain)}
        outs = outcome_from(
            res,
            batch.targets,
            checker=NAME,
            label=NAME,
            parse=lambda r: self._parse(batch, r, common),
            cause=_cause,
            **common,
        )
        return [self._with_files(root, job, o) for o in outs]

    def _with_files(self, root: Path, job: _Job, o: FileOutcome) -> FileOutcome:
        out = o.with_(config_files=self._files(root, job.configs[o.path]))
        if o.status == ScopeStatus.TOOL_ERROR and "cannot load such file" in (o.reason or ""):
            return out.with_(
                hint="install the gems the RuboCop config requires (bundle install), then re-run"
            )
        return out

    def _parse(self, batch: Batch, res: ProcResult, common: dict[str, Any]) -> list[FileOutcome]:
        """RuboCop's JSON report -> one outcome per target; a file it does not list was
        excluded by the project's config (`--force-exclusion`)."""
        job: _Job = batch.data
        data = json.loads(res.stdout.decode("utf-8"))
        files = data.get("files") if isinstance(data, dict) else None
        if not isinstance(files, list):
            raise Unparsable(_cause(res.stderr) or "no JSON report")
        by_path: dict[str, list[Any]] = {}
        for item in files:
            if not isinstance(item, dict) or not isinstance(item.get("offenses"), list):
                raise Unparsable("unparsable output: a file entry without offenses")
            by_path[PurePosixPath(str(item.get("path", ""))).as_posix()] = item["offenses"]
        asked = {t.path for t in batch.targets}
        stray = sorted(set(by_path) - asked)
        if stray:
            raise Unparsable(f"results for a file not asked about: {stray[0]!r}")
        fields = dict(common, exit_code=res.returncode, duration_ms=res.duration_ms)
        outcomes: list[FileOutcome] = []
        for t in batch.targets:
            if t.path not in by_path:
                outcomes.append(
                    FileOutcome(
                        path=t.path,
                        checker=NAME,
                        status=ScopeStatus.NOT_RUN,
                        reason=EXCLUDED,
                        language=t.language,
                        **fields,
                    )
                )
                continue
            outcomes.append(
                FileOutcome(
                    path=t.path,
                    checker=NAME,
                    status=ScopeStatus.CHECKED,
                    reason=job.notes[t.path],
                    findings=tuple(self._findings(t, by_path[t.path])),
                    coherent=True,
                    language=t.language,
                    **fields,
                )
            )
        return outcomes

    def _findings(self, t: FileTarget, offenses: list[Any]) -> list[Finding]:
        if not offenses:
            return []
        try:
            lines = t.read_bytes().decode("utf-8", "replace").splitlines()
        except OSError:
            lines = []
        out: list[Finding] = []
        for off in offenses:
            if not isinstance(off, dict):
                raise Unparsable("unparsable output: an offense that is not an object")
            loc = off.get("location") if isinstance(off.get("location"), dict) else {}
            rule = str(off.get("cop_name") or "rubocop/unknown")
            raw = str(off.get("severity") or "")
            severity = _SEVERITY.get(raw, Severity.ERROR)
            line = _pos(loc.get("start_line") or loc.get("line")) or 1
            anchor = lines[line - 1].strip() if 0 < line <= len(lines) else ""
            out.append(
                Finding(
                    checker=NAME,
                    rule=rule,
                    severity=severity,
                    tool_severity=raw or None,
                    path=t.path,
                    line=line,
                    column=_pos(loc.get("start_column") or loc.get("column")),
                    end_line=_pos(loc.get("last_line")),
                    end_column=_pos(loc.get("last_column")),
                    message=bounded_message(str(off.get("message", "")), MAX_MESSAGE),
                    # `rubocop` fails on every offense but `info` (its default fail level).
                    blocking=raw != "info",
                    fingerprint=fingerprint(NAME, rule, t.path, anchor),
                )
            )
        return out


def _pos(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


@hookimpl
def orchestrate_checkers() -> list[Any]:
    return [RubocopChecker()]
