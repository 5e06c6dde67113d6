"""Discover, load and classify plugins; a typed facade over the pluggy hooks.

Discover: entry points of the ``orchestrate`` group. Load: import each, record a
failure (name, reason) instead of crashing. Classify: collect the checkers each
plugin provides. Every stage is a small immutable record, sorted for determinism.
"""

from __future__ import annotations

import os
import types
import warnings
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import pluggy

from orchestrator.core import entry_points, hookspecs
from orchestrator.core.hookspecs import ReportFormat
from orchestrator.model.checker import is_essential
from orchestrator.model.declared import LoadedChecker, declare, native_languages
from orchestrator.statmemo import StatMemo

GROUP = "orchestrate"
DISABLE_ENV = "ORCHESTRATE_DISABLE_PLUGINS"


@dataclass(frozen=True)
class FoundPlugin:
    name: str
    value: str
    dist: str | None
    version: str | None


@dataclass(frozen=True)
class LoadedPlugin:
    name: str
    source: str  # the entry point's module path
    dist: str | None
    version: str | None
    checkers: tuple[str, ...] = ()

    @property
    def display(self) -> str:
        return f"{self.dist or '?'}[{self.name}]"


@dataclass(frozen=True)
class FailedPlugin:
    name: str
    source: str
    reason: str


@dataclass(frozen=True)
class FormatSet:
    """The report formats the plugins offer, by name, and the plugins whose formats were refused."""

    formats: dict[str, ReportFormat]
    refused: tuple[FailedPlugin, ...] = ()


def _formats_of(impl: Any, taken: Collection[str]) -> list[ReportFormat]:
    """One plugin's formats, or ValueError/TypeError naming why they are refused."""
    provided = list(impl.function() or [])
    for f in provided:
        if not isinstance(f, ReportFormat) or not callable(f.render):
            raise TypeError(f"not a ReportFormat: {type(f).__name__}")
    names = [f.name for f in provided]
    clash = sorted({n for n in names if n in taken or names.count(n) > 1})
    if clash:
        raise ValueError(f"report format name(s) already taken or repeated: {', '.join(clash)}")
    return provided


@dataclass
class PluginSet:
    """The final set: a plugin manager, its checkers, and what failed or was blocked."""

    pm: pluggy.PluginManager
    loaded: list[LoadedPlugin] = field(default_factory=list)
    failed: list[FailedPlugin] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    checker_list: list[LoadedChecker] = field(default_factory=list)
    #: Checker names of orchestrate's own plugins that were blocked here: still
    #: orchestrate's (a project recipe may not take one).
    blocked_builtin_checkers: tuple[str, ...] = ()

    def checkers(self) -> list[LoadedChecker]:
        """Checkers of every loaded plugin, each with its declarations read once
        (`model/declared.py`), sorted by (tier, name)."""
        return list(self.checker_list)

    def native_languages(self, root_files: Collection[str] | None = None) -> dict[str, str]:
        """Language -> the native checker that declares it, among the loaded checkers;
        with `root_files`, a `config_required` checker only where its config is among
        them (`model/declared.native_languages`)."""
        return native_languages(self.checker_list, root_files)

    def config_names(self) -> frozenset[str]:
        """Every config file name the loaded checkers declare."""
        return frozenset(n for c in self.checker_list for n in c.config_names)

    def classify(self, entry: dict[str, Any], project_root: str) -> dict[str, Any] | None:
        return self.pm.hook.orchestrate_classify(entry=entry, project_root=project_root)

    def generate(self, entry: dict[str, Any], project_root: str) -> dict[str, Any] | None:
        return self.pm.hook.orchestrate_generate(entry=entry, project_root=project_root)

    def report_formats(self, reserved: Collection[str]) -> FormatSet:
        """Every plugin's report formats; a plugin that names one in `reserved` (the built
        ins) or one an earlier plugin (by name order) took is refused whole, with the reason."""
        formats: dict[str, ReportFormat] = {}
        refused: list[FailedPlugin] = []
        impls = self.pm.hook.orchestrate_report_formats.get_hookimpls()
        for impl in sorted(impls, key=lambda i: i.plugin_name):
            try:
                provided = _formats_of(impl, {*reserved, *formats})
            except Exception as exc:  # noqa: BLE001 - a plugin must never crash the host
                source = repr(impl.plugin)
                refused.append(
                    FailedPlugin(impl.plugin_name, source, f"{type(exc).__name__}: {exc}")
                )
                continue
            formats.update((f.name, f) for f in provided)
        return FormatSet(formats, tuple(refused))

    def rule_docs(
        self, checker: str, tool_path: str | None, tool_version: str | None
    ) -> dict[str, Any] | None:
        """What a plugin says about `checker`'s rules (hook `orchestrate_rule_docs`)."""
        return self.pm.hook.orchestrate_rule_docs(  # type: ignore[no-any-return]
            checker=checker, tool_path=tool_path, tool_version=tool_version
        )

    def hygiene_rules(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for rules in self.pm.hook.orchestrate_hygiene_rules():
            out.extend(rules or [])
        return out


def _search() -> list[FoundPlugin]:
    found: dict[str, FoundPlugin] = {}
    # Each distribution's metadata is parsed once: `dist.metadata` and `dist.version`
    # each parse the whole file (its long description too), and one distribution
    # (orchestrate's own) provides most entry points: 16 parses were most of a search.
    names: dict[int, tuple[Any, str | None, str | None]] = {}
    for ep in metadata.entry_points(group=GROUP):
        dist = getattr(ep, "dist", None)
        if dist is None:
            name = version = None
        else:
            if id(dist) not in names:
                meta = dist.metadata
                names[id(dist)] = (dist, meta["Name"], meta["Version"])
            _, name, version = names[id(dist)]
        found.setdefault(ep.name, FoundPlugin(ep.name, ep.value, name, version))
    return [found[k] for k in sorted(found)]


#: The last search of this process and the installation it searched: (key, found).
#: Only a search fills it, never the file in the cache folder.
_SEARCHED: list[tuple[list[Any], list[FoundPlugin]]] = []


def forget_searched() -> None:
    """Forget this process's last search: the next `discover` reads the cache file or
    searches, as the first one of a process does."""
    _SEARCHED.clear()


def discover(fresh: bool = False) -> list[tuple[FoundPlugin, metadata.EntryPoint]]:
    """Entry points of the ``orchestrate`` group, sorted by name, duplicates dropped.

    The list is remembered while the installed distributions stay the same
    (core/entry_points.py), so a start does not read every distribution's metadata.
    With `fresh` (a strict gate) the remembered list is never read: it is a file in
    the user's cache folder, which anything running as the user can write. A process
    that searched keeps what its own search found (in memory, under the same key), for
    every later discovery, strict or not, while the installation stays the same."""
    key = entry_points.installed_key()
    if key is not None and _SEARCHED and _SEARCHED[0][0] == key:
        found = list(_SEARCHED[0][1])
    else:
        rows = entry_points.cached(GROUP, key) if key is not None and not fresh else None
        if rows is not None:
            found = [FoundPlugin(*row) for row in rows]
        else:
            found = _search()
            if key is not None:
                entry_points.remember(
                    GROUP, key, [(f.name, f.value, f.dist, f.version) for f in found]
                )
                _SEARCHED[:] = [(key, list(found))]
    return [(f, metadata.EntryPoint(f.name, f.value, GROUP)) for f in found]


def environment_blocked() -> set[str]:
    """Plugin names `ORCHESTRATE_DISABLE_PLUGINS` asks to block."""
    return {n.strip() for n in os.environ.get(DISABLE_ENV, "").split(",") if n.strip()}


def blocked_names(config_block: Iterable[str] = (), environment: bool = True) -> set[str]:
    """Plugin names the environment (unless not `environment`) and the config ask to
    block (before essentials)."""
    names = environment_blocked() if environment else set()
    names |= {n for n in config_block if n}
    return names


def _provides_essential(module: object) -> bool:
    """True when a plugin offers a checker that declares itself essential.

    Asked only of a plugin someone tried to block: an essential checker (the secret
    scan) has no global skip, so its plugin loads anyway.
    """
    impl = getattr(module, "orchestrate_checkers", None)
    try:
        return impl is not None and any(is_essential(c) for c in impl() or [])
    except Exception:  # noqa: BLE001 - a faulty plugin that was blocked stays blocked
        return False


def _checker_names(module: object) -> list[str]:
    """The checker names an (orchestrate's own) plugin module offers; none if it fails."""
    impl = getattr(module, "orchestrate_checkers", None)
    try:
        return [str(c.name) for c in impl() or []] if impl is not None else []
    except Exception:  # noqa: BLE001 - a blocked plugin's fault is not this run's
        return []


class PluginDeclarationWarning(DeprecationWarning):
    """A checker leaves out a declaration a future release requires (`model/declared`)."""


# Shown by default (a DeprecationWarning is hidden outside __main__): the user running a
# plugin that will stop loading should see why, once.
warnings.simplefilter("default", PluginDeclarationWarning)
_WARNED: set[tuple[str, str]] = set()


def _warn_defaulted(plugin: str, checker: LoadedChecker) -> None:
    """One warning per plugin and checker per process naming the declarations left out."""
    if not checker.defaulted or (plugin, checker.name) in _WARNED:
        return
    _WARNED.add((plugin, checker.name))
    warnings.warn(
        f"orchestrate plugin {plugin!r}: checker {checker.name!r} does not declare"
        f" {', '.join(checker.defaulted)}; the defaults apply (no config files, columns in"
        " code points, no languages) and a future release will require them"
        " (plugins/README.md)",
        PluginDeclarationWarning,
        stacklevel=3,
    )


_REGISTERED = StatMemo(max_entries=4)

#: The values pluggy's static lookup can take as a hook implementation.
_HOOKABLE = (types.FunctionType, staticmethod, classmethod, types.MethodType)
#: The names `types.ModuleType` defines (pluggy's lookup of one may find the type's).
_MODULE_TYPE_NAMES = frozenset(dir(types.ModuleType))


class _Manager(pluggy.PluginManager):
    """pluggy's manager, reading a plain module plugin's attributes from its `__dict__`.

    pluggy looks up every attribute of a plugin with `inspect.getattr_static` (about
    550 lookups for the built-in plugin modules: most of a load's time, on every start).
    On a module of type `types.ModuleType` itself (no subclass), that lookup finds the
    value in the module's `__dict__` unless the type defines the name. So for any other
    name: a value that is not a function, staticmethod, classmethod or bound method is
    no hook implementation (as to pluggy), and a plain function's options are its
    `<project>_impl` marker attribute, as pluggy reads them (a function without one but
    with a `__func__` attribute goes to pluggy, which looks there too). The rest goes to
    pluggy (tests/test_plugin_manager.py checks the two agree)."""

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> pluggy.HookimplOpts | None:
        if type(plugin) is types.ModuleType and name not in _MODULE_TYPE_NAMES:
            value = vars(plugin).get(name)
            if type(value) is types.FunctionType:
                opts = getattr(value, self.project_name + "_impl", None)
                if opts is not None or "__func__" not in vars(value):
                    return opts if isinstance(opts, dict) else None  # type: ignore[return-value]
            elif not isinstance(value, _HOOKABLE):
                return None
        return super().parse_hookimpl_opts(plugin, name)


Registered = tuple[
    pluggy.PluginManager, tuple[tuple[FoundPlugin, Any], ...], tuple[FailedPlugin, ...]
]


def _register(candidates: list[tuple[FoundPlugin, Any]]) -> Registered:
    """A plugin manager with every candidate that registers, those, and the others."""
    pm = _Manager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    registered: list[tuple[FoundPlugin, Any]] = []
    failed: list[FailedPlugin] = []
    for fp, module in candidates:
        try:
            pm.register(module, name=fp.name)
            pm.check_pending()
        except Exception as exc:  # noqa: BLE001 - a plugin must never crash the host
            if pm.is_registered(module):
                pm.unregister(module)
            failed.append(FailedPlugin(fp.name, fp.value, f"{type(exc).__name__}: {exc}"))
            continue
        registered.append((fp, module))
    return pm, tuple(registered), tuple(failed)


def _builtin(fp: FoundPlugin) -> bool:
    """A plugin of orchestrate's own package (its entry point names a module of it)."""
    return fp.value.startswith("orchestrate_plugins.")


def _refuse_taken(provided: Sequence[LoadedChecker], taken: dict[str, str]) -> None:
    """ValueError when a checker name is already another plugin's, or given twice."""
    names = [c.name for c in provided]
    clash = sorted({n for n in names if n in taken or names.count(n) > 1})
    if clash:
        owners = sorted({taken[n] for n in clash if n in taken})
        by = f" (by {', '.join(owners)})" if owners else ""
        raise ValueError(f"checker name(s) already taken{by}: {', '.join(clash)}")


def load(
    block: Sequence[str] = (),
    extra_modules: Sequence[tuple[str, object]] = (),
    strict: bool = False,
) -> PluginSet:
    """Load every discovered plugin; a plugin that fails is recorded, never raised.

    `extra_modules` registers in-process plugins (name, module-or-object), for tests
    and embedders; they go through the same classification as entry points. `strict`
    (a strict gate, whose caller's environment is untrusted): the installed
    distributions are searched whatever was remembered (`discover`), and only `block`
    (the policy) blocks a plugin, never `ORCHESTRATE_DISABLE_PLUGINS`.
    """
    failed: list[FailedPlugin] = []
    blocked: list[str] = []
    skip = blocked_names(block, environment=not strict)
    candidates: list[tuple[FoundPlugin, Any]] = []
    reserved: list[str] = []
    for fp, ep in discover(fresh=strict):
        try:
            module = ep.load()
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            if fp.name in skip:
                blocked.append(fp.name)
            else:
                failed.append(FailedPlugin(fp.name, fp.value, f"{type(exc).__name__}: {exc}"))
            continue
        if fp.name in skip and not _provides_essential(module):
            blocked.append(fp.name)
            if _builtin(fp):
                reserved += _checker_names(module)
            continue
        candidates.append((fp, module))
    for name, module in extra_modules:
        candidates.append((FoundPlugin(name, repr(module), None, None), module))

    # The same modules register the same hooks: a warm engine keeps the manager (its
    # registrations only; every run asks the plugins for fresh checkers below).
    key = tuple((fp, id(module)) for fp, module in candidates)
    pm, registered, refused = _REGISTERED.get(key, (), lambda: _register(candidates))
    ps = PluginSet(pm=pm, failed=failed, blocked=blocked)
    ps.blocked_builtin_checkers = tuple(sorted(set(reserved)))
    late: list[FailedPlugin] = [*refused]
    taken: dict[str, str] = {}
    # orchestrate's own plugins first: a plugin (or a recipe package) never replaces a
    # built-in checker by taking its name, whatever its entry point is called.
    for fp, module in sorted(registered, key=lambda r: not _builtin(r[0])):
        names: list[str] = []
        impl = getattr(module, "orchestrate_checkers", None)
        if impl is not None:
            try:
                provided = [declare(c) for c in impl() or []]
                _refuse_taken(provided, taken)
            except Exception as exc:  # noqa: BLE001 - a plugin must never crash the host
                _REGISTERED.clear()  # the manager changes: the next run registers afresh
                pm.unregister(module)
                late.append(FailedPlugin(fp.name, fp.value, f"{type(exc).__name__}: {exc}"))
                continue
            taken.update((c.name, fp.name) for c in provided)
            for c in provided:
                _warn_defaulted(fp.name, c)
            ps.checker_list.extend(provided)
            names = [c.name for c in provided]
        ps.loaded.append(LoadedPlugin(fp.name, fp.value, fp.dist, fp.version, tuple(names)))

    order = {fp.name: i for i, (fp, _) in enumerate(candidates)}
    ps.loaded.sort(key=lambda p: order.get(p.name, len(order)))
    ps.failed.extend(sorted(late, key=lambda f: order.get(f.name, len(order))))
    tier_order = {"policy": 0, "native": 1, "fallback": 2}
    ps.checker_list.sort(key=lambda c: (tier_order.get(str(c.tier), 9), c.name))
    _LAST[:] = [ps]
    return ps


#: The plugin set `load` gave last in this process (the run's, with its policy's blocks).
_LAST: list[PluginSet] = []


def last_loaded() -> PluginSet | None:
    """The plugin set the last `load` in this process returned, or None. A presenter
    that asks plugins after a run (SARIF's rule metadata) asks the run's own set, so a
    plugin the run's policy blocked is not loaded behind its back."""
    return _LAST[0] if _LAST else None
