"""No import circle between any two modules, and no import up the layers.

import-linter's `acyclic_siblings` contract sees circles between siblings only, and an
exemption there can hide one. This test reads every module of `orchestrator` and
`orchestrate_plugins` with `ast` and follows every import statement wherever it stands
(inside a function, under ``if TYPE_CHECKING:``, in a ``try:``), then asks two things:

- no strongly connected component of more than one module (a circle of any length,
  between any two modules, not only siblings);
- no import from a lower layer to a higher one, for every `layers` contract of
  pyproject.toml (the `|` siblings of one layer may not import each other either).

Circles and upward imports still owned by another area are listed below with that area;
the test asserts they are exactly what remains, so a fixed one must leave the list.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from helpers import parsed

ROOT = Path(__file__).resolve().parent.parent
#: The packages judged, and the folder each lives in (pyproject's package-dir).
PACKAGES = {"orchestrator": ROOT / "orchestrator", "orchestrate_plugins": ROOT / "plugins"}

#: Circles that remain, each owned by another area of the code (none today).
KNOWN_CIRCLES: frozenset[frozenset[str]] = frozenset()
#: Upward imports that remain (importer, imported), each owned by another area.
KNOWN_UPWARD: frozenset[tuple[str, str]] = frozenset()


def modules(packages: Mapping[str, Path]) -> dict[str, Path]:
    """Every module of `packages` (dotted name -> file); a package is its __init__."""
    found: dict[str, Path] = {}
    for name, folder in packages.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if any(not p.isidentifier() for p in parts):
                continue  # data folders (fixtures, corpora) are no modules
            found[".".join([name, *parts])] = path
    return found


def _is_package(name: str, known: Mapping[str, Path]) -> bool:
    return known[name].name == "__init__.py"


def _owner(name: str, known: Mapping[str, Path]) -> str | None:
    """The nearest known module `name` lies in (a class or function of it, or itself)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str, known: Mapping[str, Path]) -> Iterator[str]:
    """The known modules `module` imports, from every import statement in its file."""
    tree = parsed(known[module])
    package = module if _is_package(module, known) else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            # `from pkg import name`: the submodule when `name` is one, else pkg itself.
            targets = [f"{base}.{alias.name}" for alias in node.names] or [base]
        else:
            continue
        for target in targets:
            owner = _owner(target, known)
            if owner is not None and owner != module:
                yield owner


def graph(known: Mapping[str, Path]) -> dict[str, set[str]]:
    """The import graph of `known`: module -> the modules it imports."""
    return {name: set(imports_of(name, known)) for name in known}


def circles(edges: Mapping[str, Iterable[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.add(frozenset(component))
    return found


def _layer_of(module: str, container: str, layers: list[list[str]]) -> tuple[int, str] | None:
    """(layer index, the layer's member) holding `module` in `container`, or None."""
    if not module.startswith(container + "."):
        return None
    head = module[len(container) + 1 :].split(".")[0]
    for i, members in enumerate(layers):
        if head in members:
            return i, head
    return None


def _layers(text: str) -> list[list[str]]:
    """One layer's members: `a | b` (independent) or `a : b` (may import each other)."""
    return [p.strip() for p in text.replace(":", "|").split("|")]


def upward(edges: Mapping[str, Iterable[str]], contracts: list[dict]) -> set[tuple[str, str]]:
    """Imports against a `layers` contract: up a layer, or between `|` siblings."""
    bad: set[tuple[str, str]] = set()
    for contract in contracts:
        if contract.get("type") != "layers":
            continue
        layers = [_layers(text) for text in contract["layers"]]
        independent = [" | " in text for text in contract["layers"]]
        for container in contract["containers"]:
            for importer, targets in edges.items():
                here = _layer_of(importer, container, layers)
                if here is None:
                    continue
                for target in targets:
                    there = _layer_of(target, container, layers)
                    if there is None:
                        continue
                    sibling = here[0] == there[0] and here[1] != there[1]
                    if there[0] < here[0] or (sibling and independent[here[0]]):
                        bad.add((importer, target))
    return bad


def _contracts() -> list[dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["importlinter"]["contracts"]


def _show(items: Iterable[object]) -> str:
    return "\n".join(sorted(str(sorted(i) if isinstance(i, frozenset) else i) for i in items))


def test_no_import_circle_between_any_modules() -> None:
    """Every circle of the code base is a known one, and every known one still exists."""
    found = circles(graph(modules(PACKAGES)))
    assert found - KNOWN_CIRCLES == set(), "new import circles:\n" + _show(found - KNOWN_CIRCLES)
    assert KNOWN_CIRCLES - found == set(), "fixed: remove from KNOWN_CIRCLES:\n" + _show(
        KNOWN_CIRCLES - found
    )


def test_no_import_runs_up_the_layers() -> None:
    """No module imports a higher layer (or an independent sibling) of its container."""
    found = upward(graph(modules(PACKAGES)), _contracts())
    assert found - KNOWN_UPWARD == set(), "upward imports:\n" + _show(found - KNOWN_UPWARD)
    assert KNOWN_UPWARD - found == set(), "fixed: remove from KNOWN_UPWARD:\n" + _show(
        KNOWN_UPWARD - found
    )


def _package(tmp_path: Path, files: Mapping[str, str]) -> dict[str, Path]:
    for rel, text in files.items():
        path = tmp_path / "pkg" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return modules({"pkg": tmp_path / "pkg"})


def test_a_circle_through_late_and_type_checking_imports_is_found(tmp_path: Path) -> None:
    """The check is not vacuous: imports inside a function, under TYPE_CHECKING and
    relative ones close a circle across packages (not siblings)."""
    known = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a/__init__.py": "",
            "a/low.py": "def f():\n    from pkg.b.high import g\n    return g\n",
            "b/__init__.py": "",
            "b/high.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..c import mid\n"
            ),
            "c/__init__.py": "",
            "c/mid.py": "from pkg.a import low\n",
            "d.py": "import pkg.a.low\n",
        },
    )
    assert circles(graph(known)) == {frozenset({"pkg.a.low", "pkg.b.high", "pkg.c.mid"})}


def test_an_upward_import_is_found(tmp_path: Path) -> None:
    """A lower layer importing a higher one, and `|` siblings importing each other, are
    found; `:` siblings may import each other."""
    known = _package(
        tmp_path,
        {
            "__init__.py": "",
            "top.py": "",
            "left.py": "from pkg import right\n",
            "right.py": "",
            "base.py": "def late():\n    import pkg.top\n",
            "x.py": "from pkg import y\n",
            "y.py": "",
        },
    )
    contract = {
        "type": "layers",
        "containers": ["pkg"],
        "layers": ["top", "left | right", "base", "x : y"],
    }
    assert upward(graph(known), [contract]) == {("pkg.left", "pkg.right"), ("pkg.base", "pkg.top")}


if __name__ == "__main__":  # print the circles of another checkout: python test_import_graph.py DIR
    other = Path(sys.argv[1])
    found = circles(
        graph(
            modules(
                {"orchestrator": other / "orchestrator", "orchestrate_plugins": other / "plugins"}
            )
        )
    )
    print(_show(found) or "no circle")
