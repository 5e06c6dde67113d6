"""Meta-tests that keep the surface honest: hooks documented, modules import, every
scenario has a conformance case, built-ins go through the entry-point front door."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import tomllib

import orchestrate_plugins
import pytest
from helpers import REPO, SCENARIOS, parsed

import orchestrator
from orchestrator.core import hookspecs


def _modules(package) -> list[str]:  # type: ignore[no-untyped-def]
    return sorted(
        m.name
        for m in pkgutil.walk_packages(package.__path__, prefix=package.__name__ + ".")
        if not m.name.endswith(".__main__")
    )


@pytest.mark.parametrize("name", _modules(orchestrator) + _modules(orchestrate_plugins))
def test_every_module_imports(name: str) -> None:
    importlib.import_module(name)


def test_every_hookspec_is_prefixed_and_documented() -> None:
    specs = [
        (n, f)
        for n, f in inspect.getmembers(hookspecs, inspect.isfunction)
        if hasattr(f, "orchestrate_spec")
    ]
    assert specs
    for name, func in specs:
        assert name.startswith("orchestrate_"), name
        doc = inspect.getdoc(func) or ""
        assert "Called" in doc and len(doc) > 80, f"{name} needs a docstring saying when it runs"


# The in-process ways a test hands a plugin to the plugin manager.
_REGISTRATION_KEYWORDS = {"extra_modules", "extra_plugins"}


def _is_hookimpl(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(target, ast.Name) and target.id == "hookimpl") or (
        isinstance(target, ast.Attribute) and target.attr == "hookimpl"
    )


def _registers_plugins(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if any(k.arg in _REGISTRATION_KEYWORDS for k in node.keywords):
            return True
        if isinstance(node.func, ast.Attribute) and node.func.attr == "register":
            return True
    return False


def _hooks_driven_by_tests() -> dict[str, set[str]]:
    """Hook name -> test modules that implement it (@hookimpl) and register that plugin.

    A name merely appearing in a file does not count: the test must supply an
    implementation and hand it to the plugin manager, so the hook is really called.
    """
    found: dict[str, set[str]] = {}
    paths = [*(REPO / "tests").rglob("test_*.py"), *(REPO / "conformance").rglob("test_*.py")]
    for path in sorted(paths):
        tree = parsed(path)
        if not _registers_plugins(tree):
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and node.name.startswith("orchestrate_")
                and any(_is_hookimpl(d) for d in node.decorator_list)
            ):
                found.setdefault(node.name, set()).add(path.name)
    return found


def test_every_hookspec_is_exercised_by_a_test() -> None:
    driven = _hooks_driven_by_tests()
    for name, func in inspect.getmembers(hookspecs, inspect.isfunction):
        if hasattr(func, "orchestrate_spec"):
            assert driven.get(name), (
                f"no test implements {name} with @hookimpl and registers it with the "
                "plugin manager (extra_modules=/extra_plugins=)"
            )


def test_hook_exercise_detection_ignores_a_mere_mention() -> None:
    mention = ast.parse("x = 'orchestrate_checkers'\ndef orchestrate_checkers(): pass\n")
    assert not _registers_plugins(mention)
    driven = ast.parse("load(extra_modules=[('p', obj)])\n")
    assert _registers_plugins(driven)


def test_builtin_checkers_register_through_entry_points() -> None:
    data = tomllib.loads((REPO / "pyproject.toml").read_text())
    eps = data["project"]["entry-points"]["orchestrate"]
    for module in ("ruff", "treesitter", "eslint", "ruby", "secrets"):
        assert eps[module] == f"orchestrate_plugins.{module}_checker"


def test_every_scenario_has_a_conformance_case() -> None:
    ids = re.findall(r"^\| ((?:RS|CG)-\d{2}) \|", SCENARIOS.read_text(), re.M)
    assert len(ids) == 52
    text = "\n".join(p.read_text() for p in (REPO / "conformance").rglob("test_*.py"))
    names = " ".join(p.name for p in (REPO / "conformance").rglob("test_*.py"))
    missing = [i for i in ids if f'scenario("{i}")' not in text and i.replace("-", "") not in names]
    assert not missing, f"scenarios without a conformance case: {missing}"


def test_own_code_is_ruff_clean() -> None:
    import subprocess

    from helpers import VENV_BIN

    for argv in (["check", "--output-format", "concise", "."], ["format", "--check", "."]):
        res = subprocess.run(
            [str(VENV_BIN / "ruff"), *argv], cwd=REPO, capture_output=True, text=True, check=False
        )
        assert res.returncode == 0, res.stdout + res.stderr
