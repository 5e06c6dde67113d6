"""Every module of orchestrate and its built-in plugins is named by a test of its own.

A module that no test names is one whose promise nobody checks: a change to it is only
caught, if at all, by the path through some other module. This meta-test lists every
module under `orchestrator/` (package `orchestrator`) and `plugins/` (package
`orchestrate_plugins`), except `__main__`, and fails for any that no file under `tests/`
or `conformance/` names, either by its dotted name or as `from PARENT import LEAF`.

`STILL_UNTESTED` is the explicit list of modules that have no test yet. The test asserts
it is exactly what remains, so it can only shrink: write the test, then delete the name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Package directory -> the dotted name it is installed as.
PACKAGES = {"orchestrator": "orchestrator", "plugins": "orchestrate_plugins"}
#: Where a test may name a module.
TEST_DIRS = ("tests", "conformance")
#: This file names every module in STILL_UNTESTED; it must not count as their test.
SELF = Path(__file__).resolve()

#: Modules no test names yet (each waits for a unit test of its public functions).
STILL_UNTESTED: frozenset[str] = frozenset()


def all_modules() -> list[str]:
    """Return the dotted name of every module of the two packages, except `__main__`."""
    names = []
    for directory, package in PACKAGES.items():
        base = ROOT / directory
        for path in sorted(base.rglob("*.py")):
            if path.stem == "__main__" or "__pycache__" in path.parts:
                continue
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                continue
            names.append(".".join([package, *parts]))
    return names


def read_test_texts() -> str:
    """Return the text of every file under the test directories, this one excepted."""
    texts = []
    for directory in TEST_DIRS:
        for path in sorted((ROOT / directory).rglob("*")):
            if not path.is_file() or path.resolve() == SELF or "__pycache__" in path.parts:
                continue
            if path.suffix not in {".py", ".toml", ".json", ".txt", ".md", ".lua"}:
                continue
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(texts)


def is_named(module: str, text: str) -> bool:
    """True when `text` names `module` by dotted name or as `from PARENT import LEAF`."""
    if re.search(rf"(?<![\w.]){re.escape(module)}(?![\w])", text):
        return True
    parent, _, leaf = module.rpartition(".")
    # `from PARENT import a, LEAF` on one line, or inside a parenthesised import list.
    pattern = rf"from\s+{re.escape(parent)}\s+import\s+(\([^)]*\)|[^\n]*)"
    return any(
        re.search(rf"(?<![\w.]){re.escape(leaf)}(?![\w])", match.group(1))
        for match in re.finditer(pattern, text)
    )


#: A `from PARENT import ...` statement at every position, overlapping ones included
#: (zero-width), with the same groups `is_named`'s pattern takes for that PARENT.
_FROM_IMPORT = re.compile(r"(?=(from\s+([\w.]+)\s+import\s+(\([^)]*\)|[^\n]*)))")


@dataclass(frozen=True)
class NameIndex:
    """What `is_named` looks for in one text, found in one pass: every dotted prefix of
    each name that starts a package's name, and per parent the import lists that
    `is_named`'s `from PARENT import` search would visit."""

    dotted: frozenset[str]
    imports: dict[str, list[str]]


def name_index(text: str, roots: tuple[str, ...] = tuple(PACKAGES.values())) -> NameIndex:
    """The `NameIndex` of `text` for modules under `roots` (one pass instead of two
    searches of the whole text per module)."""
    starts = "|".join(re.escape(r) for r in roots)
    dotted: set[str] = set()
    for match in re.finditer(rf"(?<![\w.])(?:{starts})[\w.]*", text):
        token = match.group(0)
        dotted.add(token)
        dotted.update(token[:i] for i, ch in enumerate(token) if ch == ".")
    # re.finditer of one parent's pattern takes its leftmost match, then searches on
    # from that match's end: the same choice, made per parent over all the positions.
    imports: dict[str, list[str]] = {}
    ends: dict[str, int] = {}
    for match in _FROM_IMPORT.finditer(text):
        parent = match.group(2)
        if match.start() >= ends.get(parent, 0):
            imports.setdefault(parent, []).append(match.group(3))
            ends[parent] = match.end(1)
    return NameIndex(frozenset(dotted), imports)


def is_named_in(module: str, index: NameIndex) -> bool:
    """`is_named(module, text)` answered from `name_index(text)`."""
    if module in index.dotted:
        return True
    parent, _, leaf = module.rpartition(".")
    return any(
        re.search(rf"(?<![\w.]){re.escape(leaf)}(?![\w])", names)
        for names in index.imports.get(parent, ())
    )


def test_every_module_is_named_by_a_test() -> None:
    modules = all_modules()
    assert len(modules) > 100, "the module listing found too few modules"
    index = name_index(read_test_texts())
    unnamed = {module for module in modules if not is_named_in(module, index)}
    newly_untested = sorted(unnamed - STILL_UNTESTED)
    assert not newly_untested, f"no test names these modules: {newly_untested}"
    now_tested = sorted(STILL_UNTESTED - unnamed)
    assert not now_tested, f"these now have a test; delete them from STILL_UNTESTED: {now_tested}"


def test_is_named_recognises_both_forms() -> None:
    assert is_named("orchestrator.git.changed", "import orchestrator.git.changed as c")
    assert is_named("orchestrator.git.changed", "from orchestrator.git import history, changed")
    assert is_named("orchestrator.git.changed", "from orchestrator.git import (\n    changed,\n)")
    assert not is_named("orchestrator.git.changed", "from orchestrator.git import changed_files")
    assert not is_named("orchestrator.git.changed", "orchestrator.git.changed_files")


#: Texts where the one-pass index and the two searches could part: a name followed by a
#: dot or a word character, a longer parent, imports inside other imports' lists.
AGREEMENT_TEXTS = (
    "import orchestrator.git.changed as c",
    "orchestrator.git.changed.run()",
    "orchestrator.git.changed_files",
    "xorchestrator.git.changed",
    ".orchestrator.git.changed",
    "from orchestrator.git import history, changed",
    "from orchestrator.git import (\n    changed,\n)",
    "from orchestrator.git import changed_files",
    "from orchestrator.gitx import changed",
    "from orchestrator import git\nfrom orchestrator.git import (a,\nfrom orchestrator.git import changed)",
    "from orchestrator.git import (a, from orchestrator.git import b)\nfrom orchestrator.git import changed",
    "from orchestrator.git import x  # from orchestrator.git import changed",
    "from  orchestrator.git\timport\tchanged",
)


@pytest.mark.parametrize("text", AGREEMENT_TEXTS)
def test_the_index_answers_as_the_searches(text: str) -> None:
    index = name_index(text)
    for module in ("orchestrator.git.changed", "orchestrator.git", "orchestrator.git.history"):
        assert is_named_in(module, index) == is_named(module, text), (module, text)


def test_the_index_answers_as_the_searches_over_the_real_tests() -> None:
    text = read_test_texts()
    index = name_index(text)
    # A sample of the real modules (each `is_named` search reads the whole text).
    for module in all_modules()[::15]:
        assert is_named_in(module, index) == is_named(module, text), module
