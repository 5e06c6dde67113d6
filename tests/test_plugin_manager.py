"""The plugin host's manager takes exactly the hook implementations pluggy takes.

`plugin_host._Manager` reads a module plugin's attributes from its `__dict__` instead
of pluggy's per-attribute static lookup (the cost of every start). These tests register
the same plugins with it and with pluggy's own manager and compare what each took: every
installed plugin module, and made-up modules and objects holding every kind of value
pluggy's lookup tells apart.
"""

from __future__ import annotations

import functools
import types
from typing import Any

import pluggy
import pytest

from orchestrator.core import hookspecs, plugin_host

hookimpl = pluggy.HookimplMarker(hookspecs.PROJECT)


def _taken(manager: pluggy.PluginManager, plugin: object) -> list[tuple[str, object, tuple]]:
    """(hook name, function, options) of each implementation `manager` takes from
    `plugin`, or the error it raises."""
    manager.add_hookspecs(hookspecs)
    try:
        manager.register(plugin, name="p")
        manager.check_pending()
    except Exception as exc:  # noqa: BLE001 - the same refusal is the expectation
        return [("refused", type(exc), (str(exc).replace(repr(manager), "MANAGER"),))]
    out = []
    for impl in manager.get_hookcallers(plugin) or []:
        for hi in impl.get_hookimpls():
            if hi.plugin is plugin:
                opts = tuple(sorted(hi.opts.items()))
                out.append((impl.name, getattr(hi.function, "__func__", hi.function), opts))
    return sorted(out, key=repr)


def _same(plugin: object) -> list:
    ours = _taken(plugin_host._Manager(hookspecs.PROJECT), plugin)
    pluggys = _taken(pluggy.PluginManager(hookspecs.PROJECT), plugin)
    assert ours == pluggys
    return ours


def test_every_installed_plugin_gives_the_same_hooks() -> None:
    found = plugin_host.discover(fresh=True)
    assert len(found) >= 7
    for _fp, ep in found:
        assert _same(ep.load()), ep.value  # each registers at least one hook


def _made_up_module() -> types.ModuleType:
    mod = types.ModuleType("made_up_plugin")

    @hookimpl
    def orchestrate_checkers() -> list:
        return []

    @hookimpl(tryfirst=True)
    def orchestrate_report_formats() -> list:
        return []

    def orchestrate_rule_docs(checker: str, tool_path: Any, tool_version: Any) -> None:
        return None  # unmarked: not a hook

    class Holder:
        @staticmethod
        @hookimpl
        def orchestrate_hygiene_rules() -> list:
            return []

    mod.orchestrate_checkers = orchestrate_checkers
    mod.orchestrate_report_formats = orchestrate_report_formats
    mod.orchestrate_rule_docs = orchestrate_rule_docs
    mod.orchestrate_hygiene_rules = Holder.__dict__["orchestrate_hygiene_rules"]
    mod.partial = functools.partial(orchestrate_checkers)
    mod.CONSTANT = 3
    mod.Holder = Holder
    mod.builtin = len
    return mod


def test_a_module_with_every_kind_of_value_gives_the_same_hooks() -> None:
    taken = _same(_made_up_module())
    assert {name for name, _, _ in taken} == {
        "orchestrate_checkers",
        "orchestrate_report_formats",
        "orchestrate_hygiene_rules",
    }


def test_a_marked_function_with_no_hook_of_that_name_is_refused_alike() -> None:
    mod = types.ModuleType("typo_plugin")

    @hookimpl
    def orchestrate_checker() -> list:  # one letter short of a hook name
        return []

    mod.orchestrate_checker = orchestrate_checker
    assert _same(mod)[0][0] == "refused"


@pytest.mark.parametrize("name", ["__dict__", "__doc__", "__getattr__"])
def test_a_module_attribute_named_as_the_module_types_own_goes_to_pluggy(name: str) -> None:
    mod = types.ModuleType("odd_plugin")

    @hookimpl
    def orchestrate_checkers() -> list:
        return []

    mod.orchestrate_checkers = orchestrate_checkers
    if name != "__dict__":  # the module's own `__dict__` stays
        setattr(mod, name, hookimpl(lambda: None))
    _same(mod)


def test_an_object_plugin_goes_to_pluggy() -> None:
    class Plugin:
        @hookimpl
        def orchestrate_checkers(self) -> list:
            return []

        @property
        def orchestrate_report_formats(self) -> list:
            raise AssertionError("a property is never read")

    assert [n for n, _, _ in _same(Plugin())] == ["orchestrate_checkers"]


def _marked_function() -> Any:
    @hookimpl
    def marked() -> list:
        return []

    return marked


def _function_whose_func_is_marked(marker: object = "absent") -> Any:
    def orchestrate_checkers() -> list:
        return []

    if marker != "absent":
        orchestrate_checkers.orchestrate_impl = marker  # type: ignore[attr-defined]
    orchestrate_checkers.__func__ = _marked_function()  # type: ignore[attr-defined]
    return orchestrate_checkers


@pytest.mark.parametrize("marker", ["absent", None, 5])
def test_a_function_with_a_func_attribute_is_read_as_pluggy_reads_it(marker: object) -> None:
    """pluggy looks for the marker on `__func__` where the function has none (or None)."""
    mod = types.ModuleType("func_attr_plugin")
    mod.orchestrate_checkers = _function_whose_func_is_marked(marker)
    _same(mod)


def test_a_module_subclass_goes_to_pluggy() -> None:
    """A subclass of the module type may define hooks, or properties shadowing the
    module's own values, on its class: pluggy's lookup decides."""

    class WithHook(types.ModuleType):
        @staticmethod
        @hookimpl
        def orchestrate_checkers() -> list:
            return []

        def __dir__(self) -> list[str]:
            return ["orchestrate_checkers"]

    class Shadowing(types.ModuleType):
        @property
        def orchestrate_checkers(self) -> None:
            return None

    shadowed = Shadowing("shadowing_plugin")
    shadowed.__dict__["orchestrate_checkers"] = _marked_function()
    assert [n for n, _, _ in _same(WithHook("with_hook_plugin"))] == ["orchestrate_checkers"]
    _same(shadowed)


def test_a_lazy_module_goes_to_pluggy() -> None:
    """A module answering unknown names through `__getattr__` (PEP 562)."""
    mod = types.ModuleType("lazy_plugin")
    mod.__getattr__ = lambda name: _marked_function()  # type: ignore[method-assign]
    mod.__dir__ = lambda: ["orchestrate_checkers"]  # type: ignore[method-assign]
    _same(mod)
