"""Reuse sees what Ruff's result depends on beyond a file's own bytes (issue 24, class 12).

Ruff calls an import first-party when its module exists in a source root (`foo.py`,
`foo.pyi` or a `foo/` folder in `.` or `src`, or as configured), or when it names the
package the file is in (the `__init__.py` chain): adding `foo.py` at the root makes
I001 appear on `pkg/a.py`, whose bytes did not change. The per-file reuse (through the
lint use case) and the warm engine's kept runs (through the engine's hook-lint service)
both check again then, and still reuse when nothing Ruff looks at changed. Real Ruff,
real git repositories in temporary folders; the Ruff runs are counted by wrapping the
real checker's `run`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import VENV_BIN, git, new_repo, require_tool
from orchestrate_plugins import ruff_checker

from orchestrator.core import reuse, run_memo
from orchestrator.core.engine import LintRequest
from orchestrator.server import services
from orchestrator.usecases.lint import NO_TASKS, lint

MIXED = "import os\n\nimport foo\nimport requests\n"
CONFIG = '[tool.ruff]\nlint.select = ["I"]\n'


@pytest.fixture
def ran(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files each real Ruff run was handed, in order."""
    require_tool("ruff", "pip install ruff", path=str(VENV_BIN / "ruff"))
    seen: list[str] = []
    real = ruff_checker.RuffChecker.run

    def counting(self: Any, batch: Any, ctx: Any) -> Any:
        seen.extend(t.path for t in batch.targets)
        return real(self, batch, ctx)

    monkeypatch.setattr(ruff_checker.RuffChecker, "run", counting)
    monkeypatch.setenv(reuse.ENV_SWITCH, "1")
    return seen


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    root = new_repo(tmp_path / "r", files)
    git(root, "commit", "-qm", "files")
    return root


def _lint(root: Path, paths: list[str] | None = None) -> dict[str, tuple[list[str], str | None]]:
    """`orchestrate lint` in-process (the use case): per file, Ruff's rules and `reused`."""
    req = LintRequest(project_root=root, paths=paths or ["pkg/a.py"], cwd=root, timeout=60)
    report = lint(req, NO_TASKS).report
    return {
        s.path: (sorted(f.rule for f in report.findings if f.path == s.path), s.reused)
        for s in report.scopes
        if s.checker == "ruff"
    }


def test_a_module_appearing_at_the_root_is_seen_by_the_per_file_reuse(
    tmp_path: Path, ran: list[str]
) -> None:
    root = _repo(tmp_path, {"pyproject.toml": CONFIG, "pkg/a.py": MIXED})
    assert _lint(root) == {"pkg/a.py": ([], None)}
    assert _lint(root) == {"pkg/a.py": ([], reuse.REUSE_REASON)}
    assert ran == ["pkg/a.py"]
    (root / "foo.py").write_text("")
    assert _lint(root) == {"pkg/a.py": (["I001"], None)}
    assert _lint(root) == {"pkg/a.py": (["I001"], reuse.REUSE_REASON)}
    (root / "foo.py").unlink()
    assert _lint(root) == {"pkg/a.py": ([], None)}
    assert ran == ["pkg/a.py"] * 3


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(
            lambda r: (r / "src").mkdir() or (r / "src" / "foo.py").write_text(""), id="src"
        ),
        pytest.param(lambda r: (r / "foo").mkdir(), id="package-folder"),
        pytest.param(lambda r: (r / "foo.pyi").write_text(""), id="stub"),
        pytest.param(lambda r: (r / "foo.py").symlink_to(r / "pkg" / "a.py"), id="link"),
    ],
)
def test_each_way_ruff_finds_a_first_party_module_is_seen(
    tmp_path: Path, ran: list[str], make: Callable[[Path], object]
) -> None:
    root = _repo(tmp_path, {"pyproject.toml": CONFIG, "pkg/a.py": MIXED})
    assert _lint(root)["pkg/a.py"] == ([], None)
    assert _lint(root)["pkg/a.py"] == ([], reuse.REUSE_REASON)
    make(root)
    assert _lint(root)["pkg/a.py"] == (["I001"], None)


def test_a_submodule_appearing_in_a_first_party_folder_is_seen(
    tmp_path: Path, ran: list[str]
) -> None:
    # Ruff matches the whole dotted path: `foo.bar` is first-party once foo/bar.py exists.
    text = "import os\n\nimport foo.bar\nimport requests\n"
    root = _repo(tmp_path, {"pyproject.toml": CONFIG, "pkg/a.py": text, "foo/x.txt": ""})
    assert _lint(root)["pkg/a.py"] == ([], None)
    assert _lint(root)["pkg/a.py"] == ([], reuse.REUSE_REASON)
    (root / "foo" / "bar.py").write_text("")
    assert _lint(root)["pkg/a.py"] == (["I001"], None)


def test_the_package_a_file_is_in_is_seen(tmp_path: Path, ran: list[str]) -> None:
    # detect-same-package: `import pkg` inside lib/pkg is first-party once lib/pkg and
    # lib/pkg/sub are packages (lib is no source root).
    text = "import os\n\nimport pkg\nimport requests\n"
    root = _repo(tmp_path, {"pyproject.toml": CONFIG, "lib/pkg/sub/a.py": text})
    paths = ["lib/pkg/sub/a.py"]
    assert _lint(root, paths)["lib/pkg/sub/a.py"] == ([], None)
    (root / "lib" / "pkg" / "__init__.py").write_text("")
    assert _lint(root, paths)["lib/pkg/sub/a.py"] == ([], None)  # the chain: not yet
    assert _lint(root, paths)["lib/pkg/sub/a.py"] == ([], reuse.REUSE_REASON)
    (root / "lib" / "pkg" / "sub" / "__init__.py").write_text("")
    assert _lint(root, paths)["lib/pkg/sub/a.py"] == (["I001"], None)


def test_a_configured_src_is_where_modules_are_looked_for(tmp_path: Path, ran: list[str]) -> None:
    config = '[tool.ruff]\nsrc = ["lib"]\nlint.select = ["I"]\n'
    root = _repo(tmp_path, {"pyproject.toml": config, "pkg/a.py": MIXED})
    assert _lint(root)["pkg/a.py"] == ([], None)
    # The root is no source root here: Ruff still says nothing, and the result stands.
    (root / "foo.py").write_text("")
    assert _lint(root)["pkg/a.py"] == ([], reuse.REUSE_REASON)
    (root / "lib").mkdir()
    (root / "lib" / "foo.py").write_text("")
    assert _lint(root)["pkg/a.py"] == (["I001"], None)


def test_a_nested_config_roots_src_at_its_own_folder(tmp_path: Path, ran: list[str]) -> None:
    files = {"pyproject.toml": CONFIG, "pkg/ruff.toml": 'extend = "../pyproject.toml"\n'}
    root = _repo(tmp_path, {**files, "pkg/a.py": MIXED})
    assert _lint(root)["pkg/a.py"] == ([], None)
    (root / "pkg" / "foo.py").write_text("")
    assert _lint(root)["pkg/a.py"] == (["I001"], None)


def test_a_src_ruff_expands_is_never_reused(tmp_path: Path, ran: list[str]) -> None:
    # A glob in `src` is expanded by listing folders, which no probe answers.
    config = '[tool.ruff]\nsrc = ["libs/*"]\nlint.select = ["I"]\n'
    root = _repo(tmp_path, {"pyproject.toml": config, "pkg/a.py": MIXED})
    assert _lint(root)["pkg/a.py"] == ([], None)
    assert _lint(root)["pkg/a.py"] == ([], None)
    assert ran == ["pkg/a.py", "pkg/a.py"]


def test_reuse_still_hits_when_nothing_ruff_looks_at_changed(
    tmp_path: Path, ran: list[str]
) -> None:
    files = {"pyproject.toml": CONFIG, "pkg/a.py": MIXED, "pkg/b.py": "import os\n"}
    root = _repo(tmp_path, {**files, "foo/__init__.py": ""})
    both = ["pkg/a.py", "pkg/b.py"]
    first = _lint(root, both)
    assert first["pkg/a.py"] == (["I001"], None) and first["pkg/b.py"] == ([], None)
    # An unrelated new module, a file inside the first-party package, an edit of the
    # other file: only the edited file runs again.
    (root / "bar.py").write_text("")
    (root / "foo" / "more.py").write_text("")
    (root / "pkg" / "b.py").write_text("import sys\n")
    again = _lint(root, both)
    assert again["pkg/a.py"] == (["I001"], reuse.REUSE_REASON)
    assert again["pkg/b.py"] == ([], None)
    assert ran == ["pkg/a.py", "pkg/b.py", "pkg/b.py"]


def test_the_probes_list_no_folder(
    tmp_path: Path, ran: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # CG-30: the dependencies are stat'd, never found by listing a folder.
    root = _repo(tmp_path, {"pyproject.toml": CONFIG, "pkg/a.py": MIXED, "src/x.txt": ""})
    listed: list[str] = []
    for name in ("scandir", "listdir"):
        real = getattr(os, name)

        def spy(path: Any = ".", *a: Any, _real: Any = real, **k: Any) -> Any:
            listed.append(str(path))
            return _real(path, *a, **k)

        monkeypatch.setattr(os, name, spy)
    _lint(root)
    (root / "foo.py").write_text("")
    assert _lint(root)["pkg/a.py"] == (["I001"], None)
    inside = [p for p in listed if Path(p).absolute().is_relative_to(root)]
    assert inside == []


# --- the warm engine ------------------------------------------------------------------


@pytest.fixture
def warm(ran: list[str], monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """A warm engine's process (kept runs on), with the per-file reuse answering nothing,
    so what is reused comes from a kept run alone; yields the count of runs that were
    not replays (each consults the per-file reuse)."""
    monkeypatch.setattr(reuse, "RACY_NS", 0)  # the tree was written a moment ago
    monkeypatch.setattr(reuse, "lookup", lambda *a, **k: None)
    fresh: list[int] = []
    real = reuse.consult

    def counting(*a: Any, **k: Any) -> Any:
        fresh.append(1)
        return real(*a, **k)

    monkeypatch.setattr(reuse, "consult", counting)
    run_memo.hold()
    try:
        yield fresh
    finally:
        run_memo.hold(False)


def _hook(root: Path, paths: list[str] | None = None) -> list[str]:
    """The engine's hook-lint service in-process: Ruff's rules on the files asked."""
    data = json.loads(services.hook_lint(root, paths or ["pkg/a.py"], 60.0))
    return sorted(f["rule"] for f in data["report"]["findings"] if f["checker"] == "ruff")


def test_a_kept_run_is_not_replayed_once_a_root_module_appears(
    tmp_path: Path, warm: list[int]
) -> None:
    root = _repo(tmp_path, {"pyproject.toml": CONFIG, "pkg/a.py": MIXED})
    assert _hook(root) == [] and _hook(root) == []
    assert len(warm) == 1  # the second was the kept run
    (root / "foo.py").write_text("")
    assert _hook(root) == ["I001"]
    assert _hook(root) == ["I001"] and len(warm) == 2
    (root / "foo.py").unlink()
    assert _hook(root) == [] and len(warm) == 3


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(
            lambda r: (r / "src").mkdir() or (r / "src" / "foo.py").write_text(""), id="src"
        ),
        pytest.param(lambda r: (r / "foo").mkdir(), id="package-folder"),
    ],
)
def test_a_kept_run_sees_a_src_module_or_a_package_folder(
    tmp_path: Path, warm: list[int], make: Callable[[Path], object]
) -> None:
    root = _repo(tmp_path, {"pyproject.toml": CONFIG, "pkg/a.py": MIXED})
    assert _hook(root) == [] and _hook(root) == [] and len(warm) == 1
    make(root)
    assert _hook(root) == ["I001"] and len(warm) == 2


def test_a_kept_run_is_still_replayed_when_nothing_ruff_looks_at_changed(
    tmp_path: Path, warm: list[int]
) -> None:
    root = _repo(tmp_path, {"pyproject.toml": CONFIG, "pkg/a.py": MIXED, "foo/x.txt": ""})
    assert _hook(root) == ["I001"] and len(warm) == 1
    (root / "bar.py").write_text("")  # outside the walked folder, imported by nobody
    (root / "foo" / "y.txt").write_text("")  # inside a first-party folder: still one
    assert _hook(root) == ["I001"] and len(warm) == 1


def test_a_streamed_run_sees_a_root_module_too(tmp_path: Path, ran: list[str]) -> None:
    # A big run streams its rows (spool_over); its reuse is the same consult and remember.
    root = _repo(tmp_path, {"pyproject.toml": CONFIG, "pkg/a.py": MIXED})

    def streamed() -> tuple[list[str], str | None]:
        req = LintRequest(project_root=root, paths=["pkg/a.py"], cwd=root, timeout=60, spool_over=0)
        report = lint(req, NO_TASKS).report
        (scope,) = [s for s in report.scopes if s.checker == "ruff"]
        return sorted(f.rule for f in report.findings), scope.reused

    assert streamed() == ([], None)
    assert streamed() == ([], reuse.REUSE_REASON)
    (root / "foo.py").write_text("")
    assert streamed() == (["I001"], None)
    assert streamed() == (["I001"], reuse.REUSE_REASON)


@pytest.fixture
def appears_during_the_run(ran: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """FAKE timing (fault injection): `foo.py` appears at the root while Ruff's batch
    runs, after the real Ruff has looked (so its result does not know the module)."""
    counting = ruff_checker.RuffChecker.run

    def late(self: Any, batch: Any, ctx: Any) -> Any:
        out = counting(self, batch, ctx)
        (ctx.project_root / "foo.py").write_text("")
        return out

    monkeypatch.setattr(ruff_checker.RuffChecker, "run", late)


def test_a_module_appearing_while_the_file_is_checked_is_not_stored(
    tmp_path: Path, appears_during_the_run: None, ran: list[str]
) -> None:
    root = _repo(tmp_path, {"pyproject.toml": CONFIG, "pkg/a.py": MIXED})
    assert _lint(root) == {"pkg/a.py": ([], None)}  # what Ruff saw before foo.py
    assert _lint(root) == {"pkg/a.py": (["I001"], None)}  # not reused: it is checked again
    assert ran == ["pkg/a.py"] * 2


def test_a_run_whose_module_appeared_while_it_ran_is_not_kept(
    tmp_path: Path, warm: list[int], appears_during_the_run: None
) -> None:
    root = _repo(tmp_path, {"pyproject.toml": CONFIG, "pkg/a.py": MIXED})
    assert _hook(root) == []
    assert _hook(root) == ["I001"] and len(warm) == 2
