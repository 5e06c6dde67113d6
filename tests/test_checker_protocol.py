"""Checker knowledge lives in the checker: languages, probes, essential, the public API.

The core names no built-in checker: which languages have a native checker, what
session-start discovery says, and which plugin cannot be blocked all come from the
loaded checkers' own declarations. Plugins import only `orchestrator.api`.
"""

from __future__ import annotations

import ast
import subprocess
import warnings
from pathlib import Path

import pytest
from helpers import REPO, eslint_path, parsed

from orchestrator import api
from orchestrator.core import plugin_host
from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.decisions.coverage import missing_required
from orchestrator.hosts.discovery import discover, probe_states
from orchestrator.model.checker import Probe, probe_of
from orchestrator.model.declared import native_languages
from orchestrator.vocab import Tier


def _checkers() -> dict[str, object]:
    return {c.name: c for c in plugin_host.load().checkers()}


def test_every_builtin_declares_languages_config_names_column_unit_and_probe() -> None:
    checkers = _checkers()
    for name in ("ruff", "eslint", "ruby", "rubocop", "treesitter", "secrets", "yamllint"):
        impl = checkers[name].impl  # type: ignore[attr-defined]
        assert callable(getattr(impl, "probe", None)), name
        for declaration in ("languages", "config_names", "column_unit"):
            assert hasattr(impl, declaration), (name, declaration)
        assert checkers[name].defaulted == (), name  # type: ignore[attr-defined]
    assert {"typescript", "tsx", "javascript"} <= checkers["eslint"].languages  # type: ignore[attr-defined]
    assert "json" in checkers["treesitter"].languages  # type: ignore[attr-defined]


def test_native_languages_come_from_the_loaded_checkers() -> None:
    native = plugin_host.load().native_languages()
    assert native["python"] == "ruff" and native["ruby"] == "ruby"
    assert native["typescript"] == "eslint" and native["yaml"] == "yamllint"
    assert "json" not in native  # only the fallback grammar covers it
    # A set without Ruff has no native Python checker to require.
    others = [c for c in plugin_host.load().checkers() if c.name != "ruff"]
    assert "python" not in native_languages(others)


def test_require_native_names_the_declaring_checker(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x = 1\n")
    report = run_lint(LintRequest(project_root=tmp_path, tools={"ruff": "/nonexistent/ruff"}))
    assert missing_required(report, ["native"], {"python": "pyfast"}) == [
        "m.py: no native (pyfast) evidence"
    ]
    assert missing_required(report, ["native"], {}) == []


def test_probes_run_no_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("a probe started a process")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    for checker in _checkers().values():
        assert isinstance(probe_of(checker, tmp_path), Probe)
    assert list(tmp_path.iterdir()) == []  # and wrote nothing


def test_discovery_states_from_probes(tmp_path: Path) -> None:
    eslint_path()  # the managed ESLint of the set-up
    names = ["ruff", "eslint", "ruby", "treesitter", "secrets"]
    states = {s.name: s.state for s in discover(tmp_path, names)}
    assert states["ruff"] == "defaults"
    assert states["eslint"] == "configuration_required"
    assert states["treesitter"] == "available" and states["secrets"] == "available"
    # `.mts` flat configs count (the old discovery table missed them).
    (tmp_path / "eslint.config.mts").write_text("export default [];\n")
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    states = {s.name: s.state for s in discover(tmp_path, names)}
    assert states["ruff"] == "configured" and states["eslint"] == "configured"


def test_a_faulty_or_silent_probe_is_available(tmp_path: Path) -> None:
    class Silent:
        name = "silent"

    class Faulty:
        name = "faulty"

        def probe(self, root: Path) -> Probe:
            raise RuntimeError("boom")

    class Missing:
        name = "gone"

        def probe(self, root: Path) -> Probe:
            return Probe(found=False)

    states = {s.name: s.state for s in probe_states(tmp_path, [Silent(), Faulty(), Missing()])}
    assert states == {"silent": "available", "faulty": "available", "gone": "missing"}


def test_an_essential_checker_cannot_be_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(plugin_host.DISABLE_ENV, "secrets,ruff")
    ps = plugin_host.load()
    names = {c.name for c in ps.checkers()}
    assert "secrets" in names and "ruff" not in names
    assert ps.blocked == ["ruff"]


def _orchestrator_imports(path: Path) -> list[str]:
    tree = parsed(path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out.extend(a.name for a in node.names)
    return [m for m in out if m == "orchestrator" or m.startswith("orchestrator.")]


def test_plugins_import_only_the_public_api() -> None:
    files = sorted((REPO / "plugins").glob("*.py"))
    files += sorted((REPO / "examples").rglob("*.py"))
    assert len(files) >= 7
    for path in files:
        bad = [m for m in _orchestrator_imports(path) if m != "orchestrator.api"]
        assert bad == [], f"{path.relative_to(REPO)} imports {bad}: use orchestrator.api"


def test_public_api_names_resolve() -> None:
    for name in api.__all__:
        assert getattr(api, name) is not None, name
    with pytest.raises(AttributeError):
        api.no_such_name  # noqa: B018


class _OldStyleChecker:
    """A checker written before `config_names` and `column_unit` were declarations."""

    name = "oldstyle"
    tier = Tier.NATIVE
    languages = frozenset({"cobol"})

    def claims(self, target: object) -> bool:
        return False

    def plan(self, targets: object, ctx: object) -> object:
        raise AssertionError("never planned: it claims nothing")

    def run(self, batch: object, ctx: object) -> object:
        raise AssertionError("never run")


def test_a_checker_without_the_new_declarations_loads_and_warns_once() -> None:
    """The deprecation path: the old defaults, one warning per checker per process."""
    from types import SimpleNamespace

    from orchestrator.core.hookspecs import hookimpl

    plugin = SimpleNamespace(orchestrate_checkers=hookimpl(lambda: [_OldStyleChecker()]))
    plugin_host._WARNED.discard(("oldstyle", "oldstyle"))
    with pytest.warns(plugin_host.PluginDeclarationWarning) as seen:
        first = plugin_host.load(extra_modules=[("oldstyle", plugin)])
    with warnings.catch_warnings():
        warnings.simplefilter("error", plugin_host.PluginDeclarationWarning)
        plugin_host.load(extra_modules=[("oldstyle", plugin)])  # no second warning
    (message,) = [str(w.message) for w in seen if "oldstyle" in str(w.message)]
    assert "config_names, column_unit" in message and "future release" in message
    (loaded,) = [c for c in first.checkers() if c.name == "oldstyle"]
    assert loaded.config_names == () and loaded.column_unit == "codepoint"
    # A plugin author filters or tests it through the public module (plugins/README.md).
    from orchestrator import api

    assert api.PluginDeclarationWarning is plugin_host.PluginDeclarationWarning
    assert loaded.defaulted == ("config_names", "column_unit")
    assert first.native_languages()["cobol"] == "oldstyle"


@pytest.mark.parametrize(
    ("attribute", "value", "says"),
    [
        ("config_names", ".oldrc", "config_names must be a tuple of strings"),
        ("config_names", ("",), "config_names must hold non-empty strings"),
        ("column_unit", "bytes", "column_unit must be one of"),
        ("config_required", "yes", "must be booleans"),
        ("reuse_identity", 3, "reuse_identity must be callable"),
    ],
)
def test_a_malformed_declaration_fails_the_plugin_load(
    attribute: str, value: object, says: str
) -> None:
    from types import SimpleNamespace

    from orchestrator.core.hookspecs import hookimpl

    checker = _OldStyleChecker()
    checker.name = f"bad-{attribute}"  # type: ignore[misc]
    setattr(checker, attribute, value)
    plugin = SimpleNamespace(orchestrate_checkers=hookimpl(lambda: [checker]))
    ps = plugin_host.load(extra_modules=[("bad", plugin)])
    assert checker.name not in {c.name for c in ps.checkers()}
    (failure,) = [f for f in ps.failed if f.name == "bad"]
    assert says in failure.reason, failure.reason
