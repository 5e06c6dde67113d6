"""The paths a checker declares its results depend on (orchestrator/core/dependencies.py)
and Ruff's declaration of them (plugins/_ruff_first_party.py): which paths are named,
what a probe answers, and which declarations are refused (the file is never reused).
The behaviour through reuse and the warm engine, with real Ruff, is in
tests/test_first_party_reuse.py. The `_Declares` checker is a FAKE (it only declares).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from orchestrate_plugins import _ruff_first_party

from orchestrator.core import dependencies, reuse
from orchestrator.model.declared import declare


def test_imported_modules_over_approximate_and_leave_relative_ones_out() -> None:
    text = (
        "import a.b as c, d\n"
        "from e.f import (g,\n h)\n"
        "from . import i\nfrom .j import k\n"
        "if x: import l\n"
        "y = 1; import m\n"
        "import n, \\\n    o\n"
        "    from p import q\n"
        '"""import r"""\n'
    )
    found = _ruff_first_party.imported_modules(text)
    assert found >= {"a.b", "d", "e.f", "l", "m", "n", "o", "p"}
    assert not found & {"i", "j", ".j", "g", "h"}


def test_a_notebook_declares_the_modules_of_its_code_cells(tmp_path: Path) -> None:
    nb = {
        "cells": [
            {"cell_type": "code", "source": ["import foo\n", "import bar"]},
            {"cell_type": "markdown", "source": ["import nope"]},
        ]
    }
    text = _ruff_first_party.notebook_text(json.dumps(nb).encode())
    assert text is not None and _ruff_first_party.imported_modules(text) == {"foo", "bar"}
    assert _ruff_first_party.notebook_text(b"not json") is None


def test_a_package_chain_is_probed_up_to_the_root_and_on_while_it_holds(tmp_path: Path) -> None:
    root = tmp_path / "r"
    (root / "a" / "b").mkdir(parents=True)
    paths = _ruff_first_party.package_paths(root / "a" / "b" / "m.py", root)
    inits = [root / "a" / "b", root / "a", root]
    assert paths == [str(folder / "__init__.py") for folder in inits]
    (root / "__init__.py").write_text("")
    above = _ruff_first_party.package_paths(root / "a" / "b" / "m.py", root)
    assert above[-1] == str(tmp_path / "__init__.py")


def test_kinds_follow_links_and_name_what_is_there(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_text("")
    (tmp_path / "dangling").symlink_to(tmp_path / "nothing")
    (tmp_path / "to-d").symlink_to(tmp_path / "d")
    os.mkfifo(tmp_path / "fifo")
    got = dependencies.probe(str(tmp_path / n) for n in ("d", "f", "dangling", "to-d", "fifo"))
    assert list(got.values()) == ["dir", "file", "absent", "dir", "other"]
    assert dependencies.kind(str(tmp_path / "f" / "under-a-file")) == "absent"


class _Declares:
    name = "declares"
    tier = "native"

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def claims(self, target: Any) -> bool:
        return True

    def plan(self, targets: Any, ctx: Any) -> Any:
        raise NotImplementedError

    def run(self, batch: Any, ctx: Any) -> Any:
        raise NotImplementedError

    def reuse_dependencies(self, target: Any, source: bytes, batch: Any, ctx: Any) -> Any:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (["/a", "/b", "/a"], ("/a", "/b")),
        ([], ()),
        (None, None),
        ("/a", None),
        (["relative"], None),
        ([b"/a"], None),
        (RuntimeError("boom"), None),
        (["/x"] * 2 + [f"/p{i}" for i in range(dependencies.MAX_PATHS)], None),
    ],
)
def test_a_declaration_is_taken_only_when_it_names_absolute_paths(
    answer: Any, expected: tuple[str, ...] | None
) -> None:
    checker = declare(_Declares(answer))
    assert dependencies.declares(checker)
    assert dependencies.declared(checker, None, b"", None, None) == expected  # type: ignore[arg-type]


def test_a_checker_that_declares_nothing_keeps_its_identity() -> None:
    class Plain(_Declares):
        reuse_dependencies = None  # type: ignore[assignment]

    checker = declare(Plain(None))
    assert not dependencies.declares(checker)
    assert dependencies.declared(checker, None, b"", None, None) == ()  # type: ignore[arg-type]
    assert reuse.KeyParts("d", "c", "t", "v", "r", "p", "x", "feedback").depends == ""


def test_a_shared_memo_stats_each_path_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stats: list[str] = []
    real = dependencies.kind
    monkeypatch.setattr(dependencies, "kind", lambda p: stats.append(p) or real(p))
    (tmp_path / "f").write_text("")
    memo: dict[str, str] = {}
    paths = [str(tmp_path / "f"), str(tmp_path / "g")]
    assert dependencies.probe(paths, memo) == dependencies.probe(paths[::-1], memo)
    assert stats == paths  # the second probe answered from the memo
    assert dependencies.probe(paths) == {paths[0]: "file", paths[1]: "absent"}
    assert stats == paths * 2  # without a memo, each probe stats again
