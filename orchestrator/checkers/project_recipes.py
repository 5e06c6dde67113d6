"""Project recipes: checkers a project declares as data, that only add.

A project lists recipe files (the recipe format, checkers/recipe_format.py) in its
config: `recipes = ["lint/mylint.toml"]`. Each becomes a checker of tier `project`
(vocab.Tier.PROJECT) through the one recipe factory, with these rules, decided here:

- it only adds: its name may not be a loaded checker's, a built-in's or a reserved
  one (a usage error naming the clash); it is planned after every other tier, so it
  never takes a file from another checker, and its scopes never count as coverage or
  satisfy a required level (decisions/coverage.py, decisions/gate.py);
- it declares no install source (`[install]`) and pins no environment variable (`env`:
  `LD_PRELOAD` or `PYTHONPATH` would run the project's code inside the tool);
- its tool is never a shell, an interpreter or a launcher that runs what its argv says
  (`REFUSED_TOOLS` and `LAUNCHERS`), and the executable found for it may not resolve
  (through links) to one either;
- in `lint`, the LSP and the agent hooks it runs only once `orchestrate trust` recorded
  its digest (core/trust.py); untrusted or changed, its files are `not_run`, saying so;
- at a strict gate (`StrictSources`) the user's trust is never read: a recipe runs
  only as the base commit holds it (the base's bytes, named by the base's config), and
  only when it does not declare `executes_project_code`; one the change adds or changes
  is new policy: its files are `not_run` naming it, and a note says so. Its tool is
  found like every tool at a gate: never inside the judged tree or the repository.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orchestrator.checkers.recipe import MAX_RECIPE_BYTES, RecipeChecker, recipe_checker
from orchestrator.checkers.recipe_format import REFUSED_TOOLS, Recipe, RecipeError, parse_recipe
from orchestrator.checkers.recipe_format import _bare as bare_tool
from orchestrator.core import trust
from orchestrator.core.selection import escaped_name
from orchestrator.errors import UsageError
from orchestrator.model.checker import CheckerPlan, FileTarget, RunContext, settled_plan
from orchestrator.model.declared import LoadedChecker, declare
from orchestrator.safetext import printable
from orchestrator.vocab import Purpose, ScopeStatus, Tier

#: Programs a project recipe may not name either: each runs another program, or code,
#: that its arguments name (`find -exec`, `git -c alias`, `go run`, `npm exec` ...).
LAUNCHERS = frozenset(
    {
        "ash", "yash", "rbash", "elvish", "nu", "xonsh", "ipython", "jshell", "java",
        "rscript", "r", "julia", "guile", "sbcl", "wish", "erl", "escript", "ghci",
        "runghc", "scala", "kotlin", "dotnet", "go", "cargo", "rustup", "npm", "yarn",
        "pnpm", "corepack", "gem", "bundle", "rake", "pip", "uv", "poetry", "pdm",
        "hatch", "tox", "nox", "docker", "podman", "nerdctl", "kubectl", "ssh", "scp",
        "rsync", "find", "git", "vim", "vi", "nvim", "emacs", "ed", "ex", "gdb", "lldb",
        "strace", "ltrace", "valgrind", "parallel", "nsenter", "unshare", "script",
        "expect", "systemd-run", "at", "batch", "crontab", "ionice", "taskset", "chrt",
        "firejail", "bwrap", "proot", "fakeroot", "install", "ln", "chmod", "chown",
        "tar", "zip", "unzip", "open", "xdg-open", "start", "run-parts", "sg", "newgrp",
        "runuser", "pkexec", "ld.so", "ld-linux", "ld-linux-x86-64", "env-run",
        "dc", "m4", "sqlite3", "psql", "mysql", "gnuplot", "luajit", "racket", "ocaml",
        "swipl", "octave", "socat", "nc", "ncat", "netcat", "less", "more", "man",
        "rlwrap", "tmux", "screen", "cmake", "ninja", "meson", "bazel", "ant", "mvn",
        "gradle", "sbt", "lein", "mix", "elixir", "iex", "ts-node", "tsx", "toybox",
        "wine", "capsh", "setpriv", "chpst", "prlimit", "numactl", "cgexec", "torsocks",
        "proxychains", "proxychains4", "sem", "sudoedit", "pythonw", "jython", "groovy",
        "clojure", "clj", "bb", "nix", "nix-shell", "conda", "mamba", "pixi", "rye",
        "pipenv", "bunx", "pnpx", "yarnpkg", "ruby-build", "busctl", "systemctl",
        "setarch", "linux32", "linux64", "uname26", "i386", "x86_64", "dbus-run-session",
        "dbus-launch", "ssh-agent", "gpg-agent", "xvfb-run", "xinit", "startx", "gvim",
        "rvim", "view", "vimdiff", "cc", "c++", "gcc", "g++", "clang", "clang++", "tcc",
        "eatmydata", "unbuffer", "faketime", "catchsegv", "chronic", "ifne", "pee",
        "vipe", "flatpak", "flatpak-spawn", "distrobox", "toolbox", "schroot", "runcon",
        "sandbox", "perf", "entr", "watchexec", "mpirun", "mpiexec", "srun", "daemonize",
        "start-stop-daemon", "tini", "dumb-init", "catatonit", "setuidgid", "envdir",
        "softlimit", "nq", "mosh", "pdb", "jdb",
    }
)  # fmt: skip
#: A GNU target prefix (`x86_64-linux-gnu-gcc-12` is gcc) and a version suffix
#: (`gcc-12`, `python3.12`) name the same program.
_TARGET = re.compile(
    r"^(?:x86_64|i[3-6]86|aarch64|arm[a-z0-9]*|riscv64|powerpc64(?:le)?|ppc64(?:el|le)?|"
    r"s390x|mips[a-z0-9]*|loongarch64)-[a-z0-9_]+-[a-z0-9_]+-"
)
_VERSION_SUFFIX = re.compile(r"[-.]?[0-9][0-9.]*$")
#: Environment variables that make a program load or run something (a library, a
#: module path, a startup file): a project recipe's `cache_env` may not name one.
_LOADER_ENV = re.compile(
    r"^(LD_|DYLD_|PYTHON|NODE_|NPM_|PERL|RUBY|GEM_|BUNDLE|LUA_|GIT_|JAVA_|CLASSPATH$|"
    r"BASH_ENV$|ENV$|PATH$|HOME$|SHELL$|IFS$|PS4$|PROMPT_COMMAND$|EDITOR$|VISUAL$|PAGER$)"
)
#: Checker names a project recipe never takes, whatever is loaded: orchestrate's own.
RESERVED_NAMES = frozenset(
    {"ruff", "treesitter", "eslint", "ruby", "rubocop", "secrets", "recipes", "selection"}
)
#: How a reason tells the user to trust the project's recipes.
TRUST_COMMAND = "orchestrate trust"


def refused_tool(name: str) -> bool:
    """True when `name` (a tool, or the file an executable resolves to) is a shell, an
    interpreter or a launcher a project recipe may not run."""
    return any(stem in REFUSED_TOOLS or stem in LAUNCHERS for stem in _stems(name))


def _stems(name: str) -> set[str]:
    """The names `name` may be a spelling of: itself, without a version suffix, without
    a GNU target prefix, and the part before a Debian variant's dot (`vim.basic`)."""
    low = name.lower().removesuffix(".exe")
    out = {low, bare_tool(low)}
    for form in list(out):
        out.add(_TARGET.sub("", form))
    for form in list(out):
        out.add(form.split(".", 1)[0])
    for form in list(out):
        out.add(_VERSION_SUFFIX.sub("", form) or form)
    return out


def parse_project_recipe(data: bytes, source: str) -> Recipe:
    """The project recipe in `data` (read from `source`), or UsageError (exit 2) saying
    what is wrong: the recipe format's errors, and the rules only a project recipe has
    (module docstring)."""
    if len(data) > MAX_RECIPE_BYTES:
        raise UsageError(printable(f"{source}: over {MAX_RECIPE_BYTES} bytes: not a recipe"))
    try:
        text = data.decode("utf-8")
        recipe = parse_recipe(text, source)
    except UnicodeDecodeError as exc:
        raise UsageError(printable(f"{source}: not UTF-8 text: {exc}")) from exc
    except RecipeError as exc:
        raise UsageError(str(exc)) from exc
    why = None
    if recipe.install is not None:
        why = "[install]: a project recipe may not declare an install source (install the tool yourself, or ship the recipe in a package)"
    elif recipe.env:
        why = "env: a project recipe may not pin environment variables (scrub_env and cache_env it may)"
    elif loaders := [k for k in recipe.cache_env if _LOADER_ENV.match(k)]:
        why = f"cache_env: {loaders[0]} tells a program what to load or run, never a cache folder"
    elif refused_tool(recipe.tool):
        why = f"tool: {recipe.tool!r} runs other programs or code its arguments name, never a project recipe's tool"
    if why is not None:
        raise UsageError(printable(f"{source}: not a valid project recipe: {why}"))
    return recipe


class ProjectRecipeChecker(RecipeChecker):
    """A recipe-made checker of tier `project` (module docstring). `blocked` is why it
    does not run here (untrusted, new policy), None when it may."""

    tier = Tier.PROJECT
    source_path: str = ""
    blocked: str | None = None
    blocked_hint: str = ""

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        """Nothing runs while `blocked`, nor when the executable found resolves to a
        shell or launcher; else the recipe's plan."""
        if not targets:
            return CheckerPlan()
        if self.blocked is not None:
            return settled_plan(
                self, targets, ScopeStatus.NOT_RUN, self.blocked, hint=self.blocked_hint
            )
        if ctx.purpose == Purpose.DELIVERY and self.executes_project_code:
            why = (
                f"project recipe {self.name} ({escaped_name(self.source_path)}) declares "
                "executes_project_code: a strict gate never runs it"
            )
            return settled_plan(self, targets, ScopeStatus.NOT_RUN, why)
        found = self.locate(ctx)
        if found is not None:
            real = os.path.realpath(found.argv[0])
            if refused_tool(os.path.basename(real)):
                why = (
                    f"{escaped_name(found.argv[0])} resolves to {escaped_name(real)}: a shell,"
                    " interpreter or launcher, never a project recipe's tool"
                )
                return settled_plan(self, targets, ScopeStatus.TOOL_ERROR, why)
        return super().plan(targets, ctx)


def project_checker(
    recipe: Recipe, path: str, blocked: str | None = None, hint: str = ""
) -> LoadedChecker:
    """The loaded checker of the project recipe `recipe` read from `path`. Never reused:
    a recipe file is no part of the reuse identity, and the file can change."""
    checker = recipe_checker(
        recipe,
        ProjectRecipeChecker,
        source_path=path,
        blocked=blocked,
        blocked_hint=hint,
        reusable=False,
        required_with_config=False,
    )
    return declare(checker)


@dataclass(frozen=True)
class StrictSources:
    """A strict gate's project recipes: each side's `recipes` list and the bytes its
    commit holds at those paths (a path it lacks is not there). No base: `base_paths`
    is empty, so every recipe is new policy."""

    base_paths: tuple[str, ...] = ()
    base: Mapping[str, bytes] = field(default_factory=dict)
    surface_paths: tuple[str, ...] = ()
    surface: Mapping[str, bytes] = field(default_factory=dict)


@dataclass
class ProjectCheckers:
    """The project's recipe checkers for one run, and the notes they call for."""

    checkers: list[LoadedChecker] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _refuse_clash(recipe: Recipe, path: str, taken: Mapping[str, str]) -> None:
    owner = taken.get(recipe.name) or ("orchestrate" if recipe.name in RESERVED_NAMES else None)
    if owner is not None:
        raise UsageError(
            printable(
                f"{path}: project recipe {recipe.name!r} clashes with the checker"
                f" {recipe.name!r} of {owner}: a project recipe only adds checkers, never"
                " replaces one; give it another name"
            )
        )


def _read_in_project(root: Path, path: str) -> bytes:
    """The bytes of the project file `path`; UsageError when it is missing, outside the
    project (through a link) or not a regular file."""
    full = root / path
    try:
        real = full.resolve(strict=True)
        real.relative_to(root.resolve())
        if not real.is_file():
            raise OSError("not a regular file")
        with real.open("rb") as fh:
            return fh.read(MAX_RECIPE_BYTES + 1)
    except (OSError, ValueError, RuntimeError) as exc:
        why = "outside the project" if isinstance(exc, ValueError) else str(exc)
        raise UsageError(
            printable(f"recipes: cannot read the project recipe {path!r}: {why}")
        ) from None


def _untrusted(recipe: Recipe, path: str, known: str | None) -> tuple[str, str]:
    what = "changed since it was trusted" if known else "not trusted yet"
    reason = (
        f"project recipe {recipe.name} ({escaped_name(path)}) is {what}: it runs only"
        f" after you read it and run `{TRUST_COMMAND}` in the project"
    )
    return reason, f"read {escaped_name(path)}, then run `{TRUST_COMMAND}`"


def worktree_recipes(
    root: Path, config: Mapping[str, Any], taken: Mapping[str, str], delivery: bool = False
) -> ProjectCheckers:
    """The project recipes `config` names, read from the project at `root`; each runs
    only when its digest is trusted (core/trust.py). `taken`: checker name -> whose. A
    delivery run without a base (`delivery`) runs none: only a strict gate's base can
    vouch for a recipe there."""
    paths = list(config.get("recipes", []) or [])
    out = ProjectCheckers()
    if not paths:
        return out
    known = trust.trusted(root)
    names: dict[str, str] = {}
    for path in paths:
        data = _read_in_project(root, path)
        recipe = parse_project_recipe(data, path)
        _refuse_clash(recipe, path, {**taken, **names})
        names[recipe.name] = f"the project recipe {path}"
        if delivery:
            why = (
                f"project recipe {recipe.name} ({escaped_name(path)}): a delivery run "
                "without a base commit runs no project recipe"
            )
            out.checkers.append(project_checker(recipe, path, why))
            continue
        digest = trust.recipe_digest(path, data, paths)
        if known.get(path) == digest:
            out.checkers.append(project_checker(recipe, path))
        else:
            out.checkers.append(
                project_checker(recipe, path, *_untrusted(recipe, path, known.get(path)))
            )
    return out


def strict_recipes(sources: StrictSources, taken: Mapping[str, str]) -> ProjectCheckers:
    """A strict gate's project recipes (module docstring): the base's run (its bytes),
    the change's new or changed ones are `not_run` as new policy, each named in a note.
    A base recipe that no longer parses is left out, with a note; a new one that does
    not parse is a usage error (the change is the user's to fix)."""
    out = ProjectCheckers()
    names: dict[str, str] = {}
    in_base: set[str] = set()
    for path in sources.base_paths:
        data = sources.base.get(path)
        if data is None:
            out.notes.append(
                f"the base's config names the project recipe {escaped_name(path)}, which the"
                " base commit does not hold: it does not run"
            )
            continue
        try:
            recipe = parse_project_recipe(data, f"{path} (the base's copy)")
            _refuse_clash(recipe, path, {**taken, **names})
        except UsageError as exc:
            out.notes.append(f"the base's project recipe is left out: {exc}")
            continue
        names[recipe.name] = f"the project recipe {path}"
        in_base.add(path)
        out.checkers.append(project_checker(recipe, path))
        now = sources.surface.get(path) if path in sources.surface_paths else None
        if now != data:
            how = "removed" if now is None else "changed"
            out.notes.append(
                f"project recipe {escaped_name(path)} {how} in this change: new policy, the"
                " base's copy runs"
            )
    for path in sources.surface_paths:
        if path in in_base or path not in sources.surface:
            if path not in sources.surface:
                raise UsageError(
                    printable(f"recipes: the project recipe {path!r} is not in the judged surface")
                )
            continue
        recipe = parse_project_recipe(sources.surface[path], path)
        if recipe.name in names:
            continue  # a changed copy of a base recipe: the base's runs (noted above)
        _refuse_clash(recipe, path, taken)
        names[recipe.name] = f"the project recipe {path}"
        why = (
            f"project recipe {recipe.name} ({escaped_name(path)}) is new policy: it is not"
            " in the base, so a strict gate does not run it and its scopes satisfy no"
            " required coverage"
        )
        hint = "commit the recipe on its own first: a strict gate runs the base's recipes"
        out.checkers.append(project_checker(recipe, path, why, hint))
        out.notes.append(
            f"project recipe {recipe.name} ({escaped_name(path)}) is new policy: not run by"
            " this gate"
        )
    return out


def config_names_of(sources: StrictSources) -> set[str]:
    """The `config_names` of the base's project recipes (a strict gate's tree holds
    them as the surface does, like every loaded checker's); one that does not parse
    adds none (`strict_recipes` leaves it out)."""
    out: set[str] = set()
    for path in sources.base_paths:
        data = sources.base.get(path)
        if data is None:
            continue
        try:
            out.update(parse_project_recipe(data, path).config_names)
        except UsageError:
            continue
    return out


Provider = Callable[
    [Path, Mapping[str, Any], Mapping[str, str]], tuple[list[LoadedChecker], list[str]]
]


def for_worktree(delivery: bool = False) -> Provider:
    """The engine's `project_recipes` for a run over the work tree (`worktree_recipes`)."""

    def provide(
        root: Path, config: Mapping[str, Any], taken: Mapping[str, str]
    ) -> tuple[list[LoadedChecker], list[str]]:
        got = worktree_recipes(root, config, taken, delivery)
        return got.checkers, got.notes

    return provide


def for_gate(sources: StrictSources) -> Provider:
    """The engine's `project_recipes` for a strict gate (`strict_recipes`): the tree's
    own files and config are never read for them."""

    def provide(
        _root: Path, _config: Mapping[str, Any], taken: Mapping[str, str]
    ) -> tuple[list[LoadedChecker], list[str]]:
        got = strict_recipes(sources, taken)
        return got.checkers, got.notes

    return provide


__all__ = [
    "LAUNCHERS",
    "ProjectCheckers",
    "ProjectRecipeChecker",
    "Provider",
    "StrictSources",
    "config_names_of",
    "for_gate",
    "for_worktree",
    "parse_project_recipe",
    "project_checker",
    "refused_tool",
    "strict_recipes",
    "worktree_recipes",
]
