"""Meta-tests that keep the surface honest: hooks documented, modules import, every
scenario has a conformance case, built-ins go through the entry-point front door."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import tomllib

import orchestrate_plugins
import pytest
from helpers import REPO, SCENARIOS

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


def test_every_hookspec_is_exercised_by_a_test() -> None:
    text = "\n".join(p.read_text() for p in (REPO / "tests").rglob("test_*.py"))
    text += "\n".join(p.read_text() for p in (REPO / "conformance").rglob("test_*.py"))
    text += "\n".join(p.read_text() for p in (REPO / "plugins").rglob("*.py"))
    for name, func in inspect.getmembers(hookspecs, inspect.isfunction):
        if hasattr(func, "orchestrate_spec"):
            assert name in text, f"no test or plugin implements {name}"


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
