"""A checker recipe becomes a `CommandChecker`: one factory, the same machinery.

`recipe_checker(recipe)` builds a `CommandChecker` subclass from a validated recipe
(`recipe_format.Recipe`) and returns an instance, so a recipe-made checker has exactly
the scope states, deadline, process-tree kill, output budget, reuse identity and tool
version evidence of every command checker. What the factory adds:

- the version: `[version] argv` under the run's deadline, `regex` over the whole
  output, cached per tool path and stamp; a version outside `pinned` settles every
  file `tool_error` (the recipe's reader was written for that range);
- the environment: `env` pinned, `scrub_env` dropped, every `cache_env` variable set
  to the checker's own folder in the user cache folder (never the project);
- the lookup: a PyPI-pinned tool is also found in its managed install
  (`orchestrate tools install`), an npm-pinned one in its lockfile set's
  `node_modules/.bin` (the source checkout's `tools/<set>/`, then the verified install
  in the cache; any other copy, on PATH, must report a version inside `pinned`); a
  Python program (`[install] python = true`) run from
  there gets that folder as PYTHONPATH (its dependencies are there); the `missing` hint
  names the install command (or the apt command of a Debian-only tool);
- the config: a `config_sections` file (pyproject.toml, setup.cfg) counts as the
  tool's config only when it holds the tool's section; `claims_without_config =
  false`: in a project without one the recipe claims no file;
- `scope = "project"` (the tool reads other files than those given) is never reused,
  and its findings in files it was not asked about are left to those files' scopes;
- `stdin_args = []`: the tool reads no stdin, so bytes not on disk are `not_run`;
- `[output] error_falls_back`: a run's `tool_error` also hands its files to the
  syntax fallback (the tool judged nothing; the scope stays `tool_error`);
- `targets = "folders"`: the command line names the batch's folders (a package at a
  time: go vet), its files sorted by folder first so a folder is mostly one batch;
- `code_configs`: at a strict gate a file governed by a config that is a program (in
  its folder or any above it) is `not_run`: a gate never runs the change's code;
- `path_prefix`: written before each path (markdownlint-cli2's `:` literal path);
- `language_args`: per detected language, words before the paths, in batches of one
  language (cppcheck reads every `.h` as C unless told `--language=c++`);
- `[output] file_error_pattern`: a file the tool says it could not judge is
  `tool_error` alone (`unjudged`), the batch's other files keep their verdicts;
  `[output] skipped_key`: a file the tool's own ignore rules skipped is `not_run`;
  `[output] judged_pattern`: so is a file no line of the tool's log names as judged.

`recipe_checkers(package)` reads every `*.toml` shipped in a Python package, and
`recipe_hook(package)` is a plugin's whole `orchestrate_checkers` hook for them: a
third-party recipe package is one TOML file and two lines of Python.
"""

from __future__ import annotations

import functools
import importlib.resources
import os
import re
import shlex
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from orchestrator import managed_tools
from orchestrator.checkers.command import CommandChecker, CommandTool
from orchestrator.checkers.configs import holds_section, may_hold_section
from orchestrator.checkers.recipe_format import Recipe, RecipeError, parse_recipe
from orchestrator.checkers.recipe_output import (
    file_errors,
    read_findings,
    skipped_files,
    unnamed_files,
)
from orchestrator.checkers.tools import VersionProbe, probe_version
from orchestrator.core.hookspecs import hookimpl
from orchestrator.core.reuse import ReuseIdentity
from orchestrator.managed_tools import console_command, pypi_bin
from orchestrator.model.checker import (
    Batch,
    CheckerPlan,
    FileTarget,
    RunContext,
    one_line,
    settled_plan,
)
from orchestrator.model.report import Finding
from orchestrator.procs import ProcResult
from orchestrator.safetext import printable
from orchestrator.vocab import Purpose, ScopeStatus
from orchestrator.workspace import user_cache_root

#: (tool path, stamp, probe argv) -> the full text its version probe printed.
#: The project root of the batch each worker thread runs.
_RUNNING = threading.local()
#: The most project roots a recipe remembers whether its config is there.
_CONFIGURED_MEMO = 64
#: The most bytes of one recipe file read.
MAX_RECIPE_BYTES = 64 * 1024


class RecipeChecker(CommandChecker):
    """The base of every recipe-made checker (`recipe_checker` sets `recipe`)."""

    recipe: Recipe

    @property
    def executes_project_code(self) -> bool:
        """Whether the tool can run code of the project (the recipe's flag)."""
        return self.recipe.executes_project_code

    def project_configs(self, root: Path) -> tuple[str, ...]:
        """The root `config_names` present, then each `config_sections` file that holds
        the tool's section."""
        shared = tuple(
            name
            for name, section in self.recipe.config_sections.items()
            if holds_section(root / name, section)
        )
        return super().project_configs(root) + shared

    def claims(self, target: FileTarget) -> bool:
        """The base's claim; with `claims_without_config = false`, none in a project
        without the tool's config (the root is where `abs_path` holds `path`)."""
        if not super().claims(target):
            return False
        if self.recipe.claims_without_config:
            return True
        abs_posix = target.abs_path.as_posix()
        if not abs_posix.endswith("/" + target.path):
            return True  # no root to look in: planned, and settled there if unconfigured
        return self._configured(Path(abs_posix[: -len(target.path) - 1]))

    def _configured(self, root: Path) -> bool:
        """Whether `root` has the tool's config, memoised per root while the candidate
        files keep their stat (one claim per file of the project asks)."""
        names = (*self.recipe.config_names, *self.recipe.config_sections)
        stamp = tuple(_stat_key(root / n) for n in names)
        memo = self.__dict__.setdefault("_configured_memo", {})
        hit = memo.get(root)
        if hit is not None and hit[0] == stamp:
            return bool(hit[1])
        answer = bool(self.project_configs(root))
        if len(memo) >= _CONFIGURED_MEMO:  # a warm engine sees a new gate tree each time
            memo.clear()
        memo[root] = (stamp, answer)
        return answer

    def no_config_reason(self) -> str:
        """The `configuration_required` reason, naming the shared files' sections too."""
        where = [*self.config_names]
        where += [f"[{sec}] in {name}" for name, sec in self.recipe.config_sections.items()]
        return f"no {self.name} config ({', '.join(where)}) at the project root"

    # -------------------------------------------------------------- the tool

    def _managed_bin(self) -> Path | None:
        install = self.recipe.install
        if install is not None and install.npm:
            return managed_tools.npm_bin(install.npm, self.tool)
        return pypi_bin(install.pypi, install.python) if install and install.pypi else None

    def _folders(self, ctx: RunContext) -> list[tuple[Path, str]]:
        out = super()._folders(ctx)
        home = self._managed_bin()
        if home is not None:  # right after orchestrate's own environment
            at = next(i for i, (_f, src) in enumerate(out) if src == "orchestrate's environment")
            out.insert(at + 1, (home, "the managed install"))
        return out

    def _install_hint(self) -> str:
        install = self.recipe.install
        if install is not None and install.debian:
            return f"apt-get install {install.debian} (Debian package of {self.tool})"
        if install is not None and install.pypi:
            return f"{console_command()} tools install {self.name} (installs {install.pypi})"
        if install is not None and install.npm:
            checkout = managed_tools.checkout_dir(install.npm)
            how = (
                f"npm ci --prefix {shlex.quote(str(checkout))}"
                if checkout is not None
                else f"{console_command()} tools install {install.npm}"
            )
            return f"{how} (installs the pinned {install.npm} with npm; needs Node.js)"
        return super()._install_hint()

    def _python_home(self, ctx: RunContext) -> Path | None:
        """The managed install's folder of a Python program run from there, else None."""
        install = self.recipe.install
        home = self._managed_bin() if install is not None and install.python else None
        tool = self._locate(ctx)[0] if home is not None else None
        if home is None or tool is None or Path(tool.argv[0]).parent != home:
            return None
        return home.parent

    def tool_env(self, ctx: RunContext) -> Mapping[str, str] | None:
        """The run's environment, `scrub_env` dropped, `env` pinned, caches redirected;
        a Python program from its managed install imports from there first."""
        r = self.recipe
        python_home = self._python_home(ctx)
        if not (r.env or r.scrub_env or r.cache_env or python_home):
            return ctx.env
        base = dict(ctx.env if ctx.env is not None else os.environ)
        if python_home is not None:
            base["PYTHONPATH"] = str(python_home)
        for key in r.scrub_env:
            base.pop(key, None)
        base.update(r.env)
        if r.cache_env:
            cache = user_cache_root() / "recipes" / self.name
            cache.mkdir(parents=True, exist_ok=True)
            base.update({key: str(cache) for key in r.cache_env})
        return base

    def tool_version(self, tool: CommandTool, ctx: RunContext) -> VersionProbe:
        """The version the recipe's regex reads from its probe (module docstring)."""
        argv = tuple(self.recipe.version.argv)
        env = self.tool_env(ctx)
        exits = tuple(self.recipe.version.exits)
        probe = probe_version(tool.argv[0], ctx.deadline, argv, env=env, whole=True, exits=exits)
        if probe.version is None:
            return probe
        m = re.search(self.recipe.version.regex, probe.version)
        if m is None:
            first = one_line(probe.version, 80)
            return VersionProbe(None, detail=f"no version in its output ({first!r})")
        found = m.groupdict().get("version") or m.group(0)
        return VersionProbe(one_line(found, 60))

    def out_of_range(self, version: str) -> str | None:
        """Why `version` is outside the recipe's pinned range, or None when inside."""
        pinned = self.recipe.version.pinned
        if not pinned:
            return None
        from packaging.specifiers import SpecifierSet
        from packaging.version import InvalidVersion, Version

        try:
            ok = Version(version) in SpecifierSet(pinned)
        except InvalidVersion:
            ok = False
        return None if ok else f"{self.name} {version} is outside the recipe's range {pinned}"

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        """The base's plan; a version outside the pinned range settles `tool_error`; a
        tool that reads no stdin (`stdin_args = []`) settles bytes not on disk
        `not_run` (it would judge another file, or none)."""
        if not self.recipe.stdin_args and any(not t.on_disk for t in targets):
            off = [t for t in targets if not t.on_disk]
            rest = self.plan([t for t in targets if t.on_disk], ctx)
            why = f"{self.name} reads files from disk only: these bytes are not on disk"
            held = settled_plan(self, off, ScopeStatus.NOT_RUN, why)
            return CheckerPlan(batches=rest.batches, settled=rest.settled + held.settled)
        if ctx.purpose == Purpose.DELIVERY and self.recipe.code_configs:
            governs = {t.path: self._code_config(t, ctx.project_root) for t in targets}
            if any(governs.values()):
                rest = self.plan([t for t in targets if not governs[t.path]], ctx)
                settled = list(rest.settled)
                for t in targets:
                    if governs[t.path]:
                        why = (
                            f"{self.name} would load {governs[t.path]} (a program, or a config"
                            " that names modules it imports): a strict gate never runs the"
                            " change's code"
                        )
                        # The file still gets the fallback's syntax verdict; the gap is
                        # said with what would close it (never "re-run the gate").
                        settled += settled_plan(
                            self,
                            [t],
                            ScopeStatus.NOT_RUN,
                            why,
                            hint=self._code_config_hint(),
                            falls_back=True,
                        ).settled
                return CheckerPlan(batches=rest.batches, settled=tuple(settled))
        if self.recipe.language_args and len({t.language for t in targets}) > 1:
            # One language per batch: its words go before the batch's paths (`command`).
            plans = [
                self.plan([t for t in targets if (t.language or "") == lang], ctx)
                for lang in sorted({t.language or "" for t in targets})
            ]
            return CheckerPlan(
                batches=tuple(b for p in plans for b in p.batches),
                settled=tuple(o for p in plans for o in p.settled),
            )
        if self.recipe.targets == "folders":  # a folder's files in one batch, mostly
            targets = sorted(targets, key=lambda t: (PurePosixPath(t.path).parent, t.path))
        plan = super().plan(targets, ctx)
        for batch in plan.batches:
            ident = batch.data.tool.identity
            why = self.out_of_range(ident.version or "")
            if why is not None:
                hint = self._install_hint()
                return settled_plan(
                    self, targets, ScopeStatus.TOOL_ERROR, why, tool=ident, hint=hint
                )
            break
        return plan

    def _code_config_hint(self) -> str:
        """How a file held back by a `code_configs` file gets judged at a strict gate: a
        config that is data only, or the project's required coverage for its language."""
        code = {c.partition("#")[0] for c in self.recipe.code_configs}
        data = [n for n in self.recipe.config_names if n not in code]
        ways = (
            [f"keep its settings in a config that is data only ({', '.join(data)})"] if data else []
        )
        ways += [f'[tool.orchestrate.required] {lang} = "none"' for lang in self.recipe.languages]
        return f"{self.name} runs that config in `orchestrate lint`, never at a strict gate" + (
            f"; there: {' or '.join(ways)}" if ways else ""
        )

    def _code_config(self, target: FileTarget, root: Path) -> str | None:
        """The project-relative path of a `code_configs` file in the folder of `target`
        or any folder above it up to `root`, or None. A `NAME#KEY` file not readable
        here (too large, not UTF-8, not JSON to Python) may hold KEY: it counts."""
        folder = PurePosixPath(target.path).parent
        while True:
            for entry in self.recipe.code_configs:
                name, _, key = entry.partition("#")
                rel = (folder / name).as_posix()
                if (root / rel).is_file() and (not key or may_hold_section(root / rel, key)):
                    return printable(f"{rel} ({key})" if key else rel)
            if folder == folder.parent:
                return None
            folder = folder.parent

    def command(
        self, tool: CommandTool, targets: Sequence[FileTarget], from_stdin: bool
    ) -> list[str]:
        """The base's argv; with `targets = "folders"`, the batch's distinct folders
        (`./DIR`, `.` for the root: never read as an option) instead of its files; each
        path after `path_prefix` (a literal path, never a glob nor an option, for a
        tool that reads its arguments as globs)."""
        if from_stdin:
            return super().command(tool, targets, from_stdin)
        # A batch is of one language when the recipe has `language_args` (`plan`).
        lang = targets[0].language if targets else None
        extra = self.recipe.language_args.get(lang or "", [])
        head = [*tool.argv, *self.args, *extra, *self.paths_after]
        if self.recipe.targets == "folders":
            folders = sorted({PurePosixPath(t.path).parent.as_posix() for t in targets})
            return head + ["." if f == "." else f"./{f}" for f in folders]
        if self.recipe.path_prefix:  # `:PATH` is a literal path: never an option
            return head + [self.recipe.path_prefix + t.path for t in targets]
        return head + self.path_words(targets)

    def cause(self, stderr: bytes) -> str:
        """The tool's error in one line, without the lines `skip_pattern` says are no
        finding (go's `go: downloading ...` progress before the error itself)."""
        skip = self.recipe.output.skip_pattern
        if skip is None:
            return super().cause(stderr)
        rx = re.compile(skip)
        lines = stderr.decode("utf-8", "replace").splitlines()
        kept = "\n".join(x for x in lines if not rx.search(x))
        return super().cause(kept.encode()) or super().cause(stderr)

    # ---------------------------------------------------------------- output

    def parse(
        self, res: ProcResult, targets: Sequence[FileTarget], from_stdin: bool
    ) -> Mapping[str, Sequence[Finding]]:
        """The recipe's reader (recipe_output.read_findings)."""
        root = getattr(_RUNNING, "root", None) or Path.cwd()
        found = read_findings(self.recipe, res, targets, from_stdin, root)
        if self.recipe.scope == "project":
            # A project-scope tool reports the modules it read too: each of those is
            # that file's finding, reported when that file is asked about.
            asked = {t.path for t in targets}
            found = {path: fs for path, fs in found.items() if path in asked}
        return found

    def unjudged(
        self, res: ProcResult, targets: Sequence[FileTarget], from_stdin: bool
    ) -> Mapping[str, tuple[ScopeStatus, str]]:
        """The files the tool says it could not judge (`[output] file_error_pattern`):
        `tool_error` each; those its own ignore rules skipped (`[output] skipped_key`):
        `not_run`. The batch's other files keep their verdicts."""
        root = getattr(_RUNNING, "root", None) or Path.cwd()
        errors = file_errors(self.recipe, res, targets, from_stdin, root)
        skipped = skipped_files(self.recipe, res, targets, from_stdin, root)
        skipped |= unnamed_files(self.recipe, res, targets, from_stdin, root)
        return {
            **{path: (ScopeStatus.NOT_RUN, why) for path, why in skipped.items()},
            **{path: (ScopeStatus.TOOL_ERROR, why) for path, why in errors.items()},
        }

    def run(self, batch: Batch, ctx: RunContext) -> list[Any]:
        """The base's run; the project root is kept (per thread) for the reader, which
        maps an absolute path the tool prints back onto the project."""
        _RUNNING.root = ctx.project_root
        try:
            outs = super().run(batch, ctx)
        finally:
            _RUNNING.root = None
        if self.recipe.output.error_falls_back:
            # The tool judged nothing: the files still get the fallback's syntax verdict.
            return [
                o.with_(falls_back=True) if o.status == ScopeStatus.TOOL_ERROR else o for o in outs
            ]
        return outs

    def reuse_identity(self, batch: Batch, ctx: RunContext) -> ReuseIdentity | None:
        """None for a project-scope tool (it reads files the identity does not hold)."""
        if self.recipe.scope == "project":
            return None
        return super().reuse_identity(batch, ctx)


def _stat_key(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def recipe_checker(
    recipe: Recipe, base: type[RecipeChecker] = RecipeChecker, **extra: Any
) -> RecipeChecker:
    """A `CommandChecker` instance made from `recipe` (module docstring), of a subclass
    of `base` with the class attributes `extra` besides (a project recipe's)."""
    r = recipe
    attrs: dict[str, Any] = {
        "recipe": r,
        "name": r.name,
        "languages": frozenset(r.languages),
        "suffixes": tuple(r.extensions),
        "filenames": frozenset(r.filenames),
        "column_unit": r.column_unit,
        "tool": r.tool,
        "install_hint": "",
        "version_args": tuple(r.version.argv),
        "args": tuple(r.argv[1:]),
        "paths_after": tuple(r.paths_after),
        "stdin_args": tuple(r.stdin_args),
        "stdin_only": r.input == "stdin",
        "max_batch": r.batch,
        "exits": tuple(r.output.exits),
        "quiet_ok": r.output.quiet_ok,
        "config_names": tuple(r.config_names),
        "config_required": not r.runs_without_config,
        # The reuse identity holds the bytes of `config_names` only.
        "reusable": r.reusable and r.scope == "file" and not r.config_sections,
        "rules": f"recipe:{r.name}",
        # A recipe's languages ask native evidence of a gate by default only where the
        # project has one of its configs (a project may require it: `bash = "native"`).
        "required_with_config": True,
        "__doc__": one_line(r.description or f"The {r.name} recipe.", 200),
        **extra,
    }
    cls = type(f"Recipe_{r.name.replace('-', '_')}", (base,), attrs)
    return cls()  # type: ignore[no-any-return]


def _package_recipes(package: str) -> list[tuple[str, str]]:
    """(source, text) of every `*.toml` in the package's folder, sorted by name."""
    out = []
    for entry in sorted(importlib.resources.files(package).iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml") and entry.is_file():
            data = entry.read_bytes()
            if len(data) > MAX_RECIPE_BYTES:
                raise RecipeError(f"{package}/{entry.name}: over {MAX_RECIPE_BYTES} bytes")
            out.append((f"{package}/{entry.name}", data.decode("utf-8")))
    return out


def recipe_checkers(
    package: str, bases: Mapping[str, type[RecipeChecker]] | None = None
) -> list[RecipeChecker]:
    """A checker for every recipe shipped in `package` (its `*.toml` files), each of
    `bases[name]` where the plugin gives one (what the data cannot say, such as the
    built-in ruff-format recipe's Ruff lookup), else of `RecipeChecker`. One invalid
    recipe is a RecipeError for all: the plugin fails to load, saying which and why."""
    recipes = [parse_recipe(text, src) for src, text in _package_recipes(package)]
    given = bases or {}
    checkers = [recipe_checker(r, given.get(r.name, RecipeChecker)) for r in recipes]
    names = [c.name for c in checkers]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise RecipeError(f"{package}: recipe name(s) given twice: {', '.join(twice)}")
    return checkers


@functools.cache
def _cached(
    package: str, bases: tuple[tuple[str, type[RecipeChecker]], ...]
) -> tuple[RecipeChecker, ...]:
    return tuple(recipe_checkers(package, dict(bases)))


def recipe_hook(
    package: str, bases: Mapping[str, type[RecipeChecker]] | None = None
) -> Callable[[], list[Any]]:
    """The `orchestrate_checkers` hook of a plugin that ships recipes in `package`
    (`bases`: as `recipe_checkers`):

    from orchestrator.api import recipe_hook
    orchestrate_checkers = recipe_hook(__name__)
    """
    frozen = tuple(sorted((bases or {}).items()))

    def orchestrate_checkers() -> list[Any]:
        return list(_cached(package, frozen))

    orchestrate_checkers.__doc__ = f"The recipes shipped in {package}."
    return hookimpl(orchestrate_checkers)
