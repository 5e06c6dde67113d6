"""Reuse never answers a result that depends on other files (issue 24, class 12).

Written as an adversary: adding `foo.py` at the root makes Ruff report I001 on
`pkg/a.py` (`foo` becomes first-party, its own import section), yet the per-file
reuse and the warm engine's whole-run reuse both answered "no findings". Every way a
module name changes is generated here (a module file, a package, a stub, under
`src/`, removed, renamed) and each answer is compared with the real Ruff run directly
on the same tree. In process, real Ruff.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import VENV_BIN, require_tool

from orchestrator.core import reuse, run_memo
from orchestrator.core.engine import LintRequest, run_lint

#: Two imports Ruff keeps in one section while both are third-party.
A_PY = "import foo\nimport requests\n\nprint(foo, requests)\n"
RUFF_TOML = 'lint.select = ["I", "F"]\n'


def _add(rel: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")

    return change


#: Each change makes `foo` first-party (Ruff's default `src = [".", "src"]`).
MADE_FIRST_PARTY = {
    "module-at-root": _add("foo.py"),
    "package-at-root": _add("foo/__init__.py"),
    "namespace-folder-at-root": _add("foo/bar.py"),
    "stub-at-root": _add("foo.pyi"),
    "module-under-src": _add("src/foo.py"),
    "package-under-src": _add("src/foo/__init__.py"),
}


def _direct(root: Path) -> list[str]:
    """The rules the real Ruff reports on pkg/a.py, run directly on the tree."""
    res = subprocess.run(
        [str(VENV_BIN / "ruff"), "check", "--no-cache", "--output-format", "json", "pkg/a.py"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    return sorted(d["code"] for d in json.loads(res.stdout))


def _ours(root: Path) -> list[str]:
    report = run_lint(LintRequest(project_root=root, cwd=root, paths=["pkg/a.py"]))
    return sorted(f.rule for f in report.findings if f.checker == "ruff")


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, homes: dict[str, str]) -> Iterator[Path]:
    require_tool("ruff", "pip install ruff", path=str(VENV_BIN / "ruff"))
    project = tmp_path / "p"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "a.py").write_text(A_PY)
    (project / "ruff.toml").write_text(RUFF_TOML)
    monkeypatch.setattr(reuse, "RACY_NS", 0)  # the tree was written a moment ago
    monkeypatch.setenv(reuse.ENV_SWITCH, "1")
    yield project
    run_memo.hold(False)


@pytest.mark.parametrize("engine", [False, True], ids=["per-file-reuse", "warm-engine"])
@pytest.mark.parametrize("change", sorted(MADE_FIRST_PARTY))
def test_a_new_first_party_module_is_never_answered_from_reuse(
    root: Path, change: str, engine: bool
) -> None:
    run_memo.hold(engine)
    assert _ours(root) == _direct(root) == []
    assert _ours(root) == []  # the answer is reused now
    MADE_FIRST_PARTY[change](root)
    assert _direct(root) == ["I001"], "the tool itself reports it"
    assert _ours(root) == ["I001"]


@pytest.mark.parametrize("engine", [False, True], ids=["per-file-reuse", "warm-engine"])
@pytest.mark.parametrize("how", ["removed", "renamed"])
def test_a_first_party_module_that_goes_is_never_answered_from_reuse(
    root: Path, how: str, engine: bool
) -> None:
    (root / "foo.py").write_text("")
    (root / "pkg" / "a.py").write_text("import requests\n\nimport foo\n\nprint(foo, requests)\n")
    run_memo.hold(engine)
    assert _ours(root) == _direct(root) == []
    assert _ours(root) == []
    if how == "removed":
        (root / "foo.py").unlink()
    else:
        shutil.move(root / "foo.py", root / "bar.py")
    assert _direct(root) == ["I001"]
    assert _ours(root) == ["I001"]
