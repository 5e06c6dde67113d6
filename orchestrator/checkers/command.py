"""`CommandChecker`: the base of a checker that runs one command-line tool over files.

A subclass declares data (its name, what it claims, the tool to find, the argv of a
batch, its config files, how to read the version) and one method, `parse` (the
tool's output -> findings per file). The base does the rest, the same way for every
plugin built on it:

- tool lookup (`locate`): an explicit `[tools]` path; else, for a Python tool
  (`python_module`), orchestrate's own interpreter when the distribution is installed
  beside it; else the project's own folders the subclass names (`project_dirs`),
  orchestrate's environment, orchestrate's managed installs, and absolute PATH
  entries. Never a relative PATH entry.
- the version (`tool_version`): the distribution's metadata for a Python tool, else
  `TOOL --version` (`version_args`) under the run's deadline, kept per tool path and
  stamp for the process; a failed probe settles every file `tool_error` (or
  `timed_out`), never `checked`.
- planning (`plan`): without a root config when `config_required`:
  `configuration_required`; without the tool: `missing` with the install hint (both
  fall back); else batches of at most `max_batch` files on disk, passed as paths, and
  one stdin process per file whose content is not on disk (or per file whenever
  `stdin_only`).
- running (`run`): `run_bounded` under the run's deadline and output budget, then the
  shared ladder `outcome_from` (spawn error, deadline, budget, signal, unexpected exit,
  no output, unparsable output are never `checked`), then `parse`.
- reuse (`reuse_identity`): the tool's identity and the bytes of every root config
  named by `config_names`; `reusable = False` or `config_reads_other_files` refuses it.
- the probe (`probe`): found? which version is already known? configured? No process.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from orchestrator.checkers.configs import root_configs
from orchestrator.checkers.tools import (
    VersionProbe,
    cached_version,
    interpreter_bin_dir,
    is_executable,
    probe_version,
    tool_refusal,
)
from orchestrator.core.reuse import ReuseIdentity
from orchestrator.deadline import Deadline
from orchestrator.managed_tools import homes as managed_tool_homes
from orchestrator.model.checker import (
    Batch,
    CheckerPlan,
    FileOutcome,
    FileTarget,
    Probe,
    RunContext,
    one_line,
    outcome_for_all,
    settled_plan,
)
from orchestrator.model.outcomes import Unparsable, outcome_from
from orchestrator.model.report import Finding, ToolIdentity
from orchestrator.procs import ProcResult, run_bounded
from orchestrator.vocab import ScopeStatus, Tier

#: Where a managed install (`orchestrate tools install`) keeps its executables.
_MANAGED_BINS = (Path("node_modules") / ".bin", Path("bin"))


@dataclass(frozen=True)
class CommandTool:
    """The tool a `CommandChecker` runs: the argv that starts it, its identity for the
    report (path and version), and where it was found (for reasons)."""

    argv: tuple[str, ...]
    identity: ToolIdentity
    source: str = ""


@dataclass(frozen=True)
class _Job:
    """A batch's private data: the tool, and whether its one file goes over stdin."""

    tool: CommandTool
    stdin: bool


def _either(names: Sequence[str]) -> str:
    """`a`, `a or b`, `a, b or c`."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


class CommandChecker:
    """Base of a checker that runs one command-line tool (module docstring).

    Subclass it, set the declarations below (at least `name`, and `tool` or
    `python_module`) and implement `parse`; return an instance from the plugin's
    `orchestrate_checkers` hook. Any method may be overridden for a tool that needs
    more (its own `claims`, `command`, `tool_env`, `reuse_identity`).
    """

    # What the checker is and what it judges.
    name: str = ""
    tier: Tier = Tier.NATIVE
    #: Detected languages it judges; a file whose language is detected is claimed by it.
    languages: frozenset[str] = frozenset()
    #: A file whose language was not decided is claimed by suffix or file name.
    suffixes: tuple[str, ...] = ()
    filenames: frozenset[str] = frozenset()
    #: What its finding columns count: "codepoint", "utf16" or "utf8".
    column_unit: str = "codepoint"

    # The tool.
    #: The executable to find (explicit path, project folders, orchestrate's
    #: environment, managed installs, absolute PATH).
    tool: str = ""
    #: Or a Python tool run as `python -m MODULE` by orchestrate's own interpreter,
    #: found when its distribution (`distribution`, default the module) is installed.
    python_module: str = ""
    distribution: str = ""
    #: Folders under the project root that may hold the project's own tool, tried
    #: first (e.g. "node_modules/.bin", ".venv/bin"). Empty: the project's is not run.
    project_dirs: tuple[str, ...] = ()
    #: One line saying how to install the tool (the `missing` scope's hint).
    install_hint: str = ""
    #: The version probe's arguments; () means the tool has no version probe.
    version_args: tuple[str, ...] = ("--version",)
    #: Environment variables dropped from the tool's environment (they would make it
    #: load project code or options it should not).
    scrubbed_env: tuple[str, ...] = ()

    # The command of a batch: TOOL ARGS [PATHS_AFTER PATH...] | [STDIN_ARGS] < bytes.
    args: tuple[str, ...] = ()
    paths_after: tuple[str, ...] = ("--",)
    #: The arguments that make the tool read one file from stdin; `{path}` is replaced
    #: by the file's project-relative path (e.g. ("--stdin", "{path}")).
    stdin_args: tuple[str, ...] = ("-",)
    #: True: every file goes over stdin, one process each (a tool that checks one
    #: input at a time). False: files on disk go as paths, `max_batch` per process.
    stdin_only: bool = False
    max_batch: int = 400
    #: Exit codes with which the tool reports a result (clean or findings).
    exits: tuple[int, ...] = (0, 1)
    #: Exit 0 with no output is a clean answer (a tool that prints only findings).
    quiet_ok: bool = False
    #: The tool parsed the exact bytes it was given: no fallback parses them again.
    coherent: bool = True

    # Configuration.
    #: The files that govern the tool at the project root (and that a strict gate
    #: copies from the judged surface into its private tree).
    config_names: tuple[str, ...] = ()
    #: Run only under one of `config_names` at the project root; without one every
    #: file is `configuration_required` (hint `config_hint`) and falls back.
    config_required: bool = False
    config_hint: str = ""

    # Reuse.
    #: False: results are never reused (the tool reads more than the identity holds).
    reusable: bool = True
    #: What else fixes the result (a rule-set name); part of the reuse identity.
    rules: str = ""

    def __init__(self) -> None:
        cls = type(self).__name__
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"{cls}: a CommandChecker declares its `name`")
        if not (self.tool or self.python_module):
            raise TypeError(f"{cls}: a CommandChecker declares `tool` or `python_module`")
        if not isinstance(self.max_batch, int) or self.max_batch < 1:
            raise TypeError(f"{cls}: max_batch must be a positive integer")
        if type(self).parse is CommandChecker.parse:
            raise TypeError(f"{cls}: a CommandChecker implements `parse`")

    # ----------------------------------------------------------------- to implement

    def parse(
        self, res: ProcResult, targets: Sequence[FileTarget], from_stdin: bool
    ) -> Mapping[str, Sequence[Finding]]:
        """The tool's output -> findings per target path (a target absent from the
        mapping has none). Called only for a process the shared ladder let through;
        raise `Unparsable` for output that is not the tool's promised format. With
        `from_stdin` the batch is one target, whatever name the tool gives it."""
        raise NotImplementedError

    def unjudged(
        self, res: ProcResult, targets: Sequence[FileTarget], from_stdin: bool
    ) -> Mapping[str, tuple[ScopeStatus, str]]:
        """The targets of a batch the tool did not judge, each with its state and reason,
        while the batch's other files keep their verdicts: `not_run`, a file its own
        config excludes (as run directly it would skip it); `tool_error`, a file it
        says it could not judge (prettier's `[error] a.js: SyntaxError: ...`). Never
        `checked`. Raise `Unparsable` when its output cannot say. None by default (a
        tool that judges every file it is given, or fails the whole batch)."""
        return {}

    # ------------------------------------------------------------ declarations read

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The `[tools]` keys the tool is looked up by beside the checker's name."""
        return (self.tool,) if self.tool and self.tool != self.name else ()

    @property
    def label(self) -> str:
        """How reasons name the tool."""
        return self.name

    def cause(self, stderr: bytes) -> str:
        """The tool's error in one line, for the reason of a failed process."""
        return one_line(stderr)

    def read_version(self, first_line: str) -> str:
        """The version to report from the first line the version probe printed."""
        return first_line

    def config_reads_other_files(self, name: str, data: bytes) -> bool:
        """True when the root config `name` (its bytes `data`) makes the tool read
        files the reuse identity does not hold: the batch is then never reused."""
        return False

    # ---------------------------------------------------------------------- tool

    def _explicit(self, ctx: RunContext) -> str | None:
        for key in (self.name, *self.tool_names):
            if key in ctx.tool_overrides:
                return ctx.tool_overrides[key]
        return None

    def _python_tool(self) -> CommandTool | None:
        try:
            version = importlib.metadata.version(self.distribution or self.python_module)
        except importlib.metadata.PackageNotFoundError:
            return None
        argv = (sys.executable, "-m", self.python_module)
        return CommandTool(argv, ToolIdentity(path=" ".join(argv), version=version), "python -m")

    def _folders(self, ctx: RunContext) -> list[tuple[Path, str]]:
        """Folders to look for `tool` in, in order, each with how a reason names it."""
        root = ctx.project_root
        out = [(root / d, f"the project's {d}") for d in self.project_dirs]
        out.append((interpreter_bin_dir(), "orchestrate's environment"))
        for home in managed_tool_homes(self.tool):
            out += [(home / sub, "the managed install") for sub in _MANAGED_BINS]
        env: Mapping[str, str] = ctx.env if ctx.env is not None else os.environ
        for entry in env.get("PATH", "").split(os.pathsep):
            if entry and os.path.isabs(entry):  # a relative entry: the current folder's
                out.append((Path(entry), "PATH"))
        return out

    def _locate(self, ctx: RunContext) -> tuple[CommandTool | None, str]:
        """(the tool, where it came from) or (None, why it is missing)."""
        explicit = self._explicit(ctx)
        if explicit is not None:
            p = Path(explicit)
            if not (p.is_absolute() and is_executable(p)):
                return None, f"the configured {self.name} path is not an absolute executable: {p}"
            refused = tool_refusal(str(p), ctx)
            if refused is not None:
                return None, f"the configured {self.name} path {refused}"
            return CommandTool((str(p),), ToolIdentity(path=str(p)), "the configured path"), ""
        if self.python_module:
            found = self._python_tool()
            why = f"{self.python_module} is not installed in orchestrate's environment"
            return (found, found.source) if found else (None, why)
        for folder, source in self._folders(ctx):
            cand = folder / self.tool
            if (
                folder.is_absolute()
                and is_executable(cand)
                and tool_refusal(str(cand), ctx) is None
            ):
                return CommandTool((str(cand),), ToolIdentity(path=str(cand)), source), source
        places = [f"the project's {d}" for d in self.project_dirs]
        places += ["orchestrate's environment", "a managed install", "an absolute PATH entry"]
        return None, f"{self.tool} not found ({_either(places)})"

    def locate(self, ctx: RunContext) -> CommandTool | None:
        """The tool to run for this project (module docstring: lookup order), or None.
        Runs nothing; the identity's version is set for a Python tool only."""
        return self._locate(ctx)[0]

    def tool_version(self, tool: CommandTool, ctx: RunContext) -> VersionProbe:
        """The tool's version: already known (a Python tool's metadata), else the version
        probe under `ctx.deadline`, cached per tool path and stamp for the process."""
        if tool.identity.version is not None or not self.version_args:
            return VersionProbe(tool.identity.version)
        probe = probe_version(tool.argv[0], ctx.deadline, self.version_args, env=self.tool_env(ctx))
        if probe.version is None:
            return probe
        return replace(probe, version=self.read_version(probe.version))

    def tool_env(self, ctx: RunContext) -> Mapping[str, str] | None:
        """The tool's environment: the run's, without `scrubbed_env`."""
        if not self.scrubbed_env:
            return ctx.env
        base = ctx.env if ctx.env is not None else os.environ
        return {k: v for k, v in base.items() if k not in self.scrubbed_env}

    # -------------------------------------------------------------------- config

    def project_configs(self, root: Path) -> tuple[str, ...]:
        """Which of `config_names` are files at the project root."""
        return root_configs(root, self.config_names)

    def no_config_reason(self) -> str:
        """The `configuration_required` reason."""
        return f"no {self.name} config ({_either(self.config_names)}) at the project root"

    # ---------------------------------------------------------- Checker protocol

    def claims(self, target: FileTarget) -> bool:
        """A file of a declared language; one whose language was not decided by its
        suffix or name."""
        if target.language is not None and self.languages:
            return target.language in self.languages
        p = PurePosixPath(target.path)
        return p.suffix in self.suffixes or p.name in self.filenames

    def probe(self, root: Path) -> Probe:
        """Tool found (its version when already known)? A root config? Runs nothing."""
        tool = self.locate(RunContext(project_root=root, deadline=Deadline.after(0)))
        configs = self.project_configs(root)
        path = tool.identity.path if tool else None
        version = tool.identity.version if tool else None
        if tool is not None and version is None and len(tool.argv) == 1:
            version = cached_version(path)
        hint = None
        if tool is None:
            hint = self._install_hint()
        elif self.config_required and not configs:
            hint = self._config_hint()
        return Probe(
            found=tool is not None,
            tool_path=path,
            version=version,
            configured=bool(configs),
            config_files=configs,
            needs_config=self.config_required,
            hint=hint,
        )

    def _install_hint(self) -> str:
        if self.install_hint:
            return self.install_hint
        if self.python_module:
            return f"pip install {self.distribution or self.python_module}"
        from orchestrator.core.tool_paths import env_name, user_config_path

        # A tool path is the machine's (a project's `[tools]` is ignored: tool_paths.py).
        return (
            f"install {self.tool}, or set [tools] {self.name} = '/abs/path' in"
            f" {user_config_path()} (or {env_name(self.name)}=/abs/path)"
        )

    def _config_hint(self) -> str:
        return self.config_hint or f"add {self.config_names[0]} with the project's rules"

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        """Settle what cannot run (no root config when required, no tool, a failed
        version probe); batch the rest (module docstring)."""
        if not targets:
            return CheckerPlan()
        if self.config_required and not self.project_configs(ctx.project_root):
            return settled_plan(
                self,
                targets,
                ScopeStatus.CONFIGURATION_REQUIRED,
                self.no_config_reason(),
                hint=self._config_hint(),
                falls_back=True,
            )
        tool, why = self._locate(ctx)
        if tool is None:
            return settled_plan(
                self, targets, ScopeStatus.MISSING, why, hint=self._install_hint(), falls_back=True
            )
        probe = self.tool_version(tool, ctx)
        if probe.version is None and self.version_args:
            status = ScopeStatus.TIMED_OUT if probe.timed_out else ScopeStatus.TOOL_ERROR
            asked = " ".join(self.version_args)
            reason = f"{self.label} {asked} failed ({probe.detail}): the tool cannot run"
            return settled_plan(self, targets, status, reason, tool=tool.identity)
        ident = ToolIdentity(path=tool.identity.path, version=probe.version)
        tool = replace(tool, identity=ident)
        paths = [t for t in targets if t.on_disk and not self.stdin_only]
        batches = [
            Batch(tuple(paths[i : i + self.max_batch]), _Job(tool, False), label=self.name)
            for i in range(0, len(paths), self.max_batch)
        ]
        # Staged or committed bytes are not on disk: one stdin process each.
        batches += [
            Batch((t,), _Job(tool, True), label=f"{self.name}:{t.path}")
            for t in targets
            if self.stdin_only or not t.on_disk
        ]
        return CheckerPlan(batches=tuple(batches))

    def command(
        self, tool: CommandTool, targets: Sequence[FileTarget], from_stdin: bool
    ) -> list[str]:
        """The argv of one batch: TOOL ARGS, then the paths or the stdin arguments."""
        argv = [*tool.argv, *self.args]
        if from_stdin:
            path = targets[0].path
            # `{path}` alone is an argument of its own: never one read as an option.
            return argv + [
                _not_an_option(path) if a == "{path}" else a.replace("{path}", path)
                for a in self.stdin_args
            ]
        return [*argv, *self.paths_after, *self.path_words(targets)]

    def path_words(self, targets: Sequence[FileTarget]) -> list[str]:
        """The batch's files as command-line words: as they are after a `--` among
        `paths_after`, else each one named like an option as `./-x` (a file named
        `--config=x` must still be a file)."""
        if "--" in self.paths_after:
            return [t.path for t in targets]
        return [_not_an_option(t.path) for t in targets]

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        """One process for the batch, from the project root, under the run's deadline
        and output budget; one outcome per target, whatever happens."""
        job: _Job = batch.data
        ident = job.tool.identity
        stdin: bytes | None = None
        if job.stdin:
            try:
                stdin = batch.targets[0].read_bytes()
            except OSError as exc:
                why = f"cannot read file: {exc.strerror}"
                return outcome_for_all(self, batch.targets, ScopeStatus.TOOL_ERROR, why, tool=ident)
        res = run_bounded(
            self.command(job.tool, batch.targets, job.stdin),
            deadline=ctx.deadline,
            stdin=stdin,
            cwd=ctx.project_root,
            env=self.tool_env(ctx),
            output_budget=ctx.output_budget,
        )
        return outcome_from(
            res,
            batch.targets,
            checker=self.name,
            label=self.label,
            parse=lambda r: self._checked(r, batch.targets, job.stdin, ident),
            exits=self.exits,
            quiet_ok=self.quiet_ok,
            cause=self.cause,
            tool=ident,
        )

    def _checked(
        self, res: ProcResult, targets: Sequence[FileTarget], from_stdin: bool, ident: ToolIdentity
    ) -> list[FileOutcome]:
        found = self.parse(res, targets, from_stdin)
        asked = {t.path for t in targets}
        stray = sorted(set(found) - asked)
        if stray:
            raise Unparsable(f"results for a file not asked about: {one_line(stray[0], 80)!r}")
        skipped = self.unjudged(res, targets, from_stdin)
        both = sorted(set(skipped) & {p for p, fs in found.items() if fs})
        if both:
            raise Unparsable(
                f"findings in a file it says it did not judge: {one_line(both[0], 80)!r}"
            )
        stray = sorted(set(skipped) - asked)
        if stray:
            raise Unparsable(f"an error for a file not asked about: {one_line(stray[0], 80)!r}")
        return [
            FileOutcome(
                path=t.path,
                checker=self.name,
                status=skipped[t.path][0],
                reason=skipped[t.path][1],
                language=t.language,
                tool=ident,
                exit_code=res.returncode,
                duration_ms=res.duration_ms,
            )
            if t.path in skipped
            else FileOutcome(
                path=t.path,
                checker=self.name,
                status=ScopeStatus.CHECKED,
                findings=tuple(found.get(t.path, ())),
                coherent=self.coherent,
                language=t.language,
                tool=ident,
                exit_code=res.returncode,
                duration_ms=res.duration_ms,
            )
            for t in targets
        ]

    def reuse_identity(self, batch: Batch, ctx: RunContext) -> ReuseIdentity | None:
        """The tool's identity and the bytes of every root config name (an absent one
        counts too); None (never reused) when `reusable` is False, the version is
        unknown, a config cannot be read, or `config_reads_other_files` says so."""
        job: _Job = batch.data
        if not self.reusable or job.tool.identity.version is None:
            return None
        digest = hashlib.sha256()
        for name in self.config_names:
            try:
                data = (ctx.project_root / name).read_bytes()
            except FileNotFoundError:
                data = b"<none>"
            except OSError:
                return None
            else:
                if self.config_reads_other_files(name, data):
                    return None
            digest.update(name.encode() + b"\0" + data + b"\0")
        return ReuseIdentity(
            tool=job.tool.identity, config_digest=digest.hexdigest()[:16], rules=self.rules
        )


def _not_an_option(path: str) -> str:
    """`path` as an argument no tool reads as an option (`-x` -> `./-x`)."""
    return f"./{path}" if path.startswith("-") else path
