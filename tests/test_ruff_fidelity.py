"""Ruff fidelity: orchestrate reports what `ruff check` run in the project reports.

Each test builds one real-world configuration shape in a temporary git repository,
lints it through orchestrate with the real Ruff, and compares the findings (path,
line, column, rule) with `ruff check --no-fix --output-format json` run directly in
that repository the way a user runs it (cwd = the repository root, no `--config`).
Every test also checks that no byte or mtime of the project changed and that
`git status --porcelain --ignored` shows nothing new. Each docstring says how the
shape differed before Ruff was run with the project's own config resolution.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import fail_or_skip
from orchestrate_plugins.ruff_checker import RuffChecker

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.deadline import Deadline
from orchestrator.model.checker import FileTarget, RunContext
from orchestrator.model.report import Report
from orchestrator.vocab import ScopeStatus

RUFF = Path(sys.executable).parent / "ruff"
Row = tuple[str, int, int, str]


@pytest.fixture(autouse=True)
def _no_reuse(monkeypatch: pytest.MonkeyPatch) -> None:
    # Fresh runs: a reused result would hide what this run of Ruff reports.
    monkeypatch.setenv("ORCHESTRATE_REUSE", "0")


def _require_ruff() -> None:
    if not RUFF.is_file():
        fail_or_skip(f"{RUFF} missing: install the project (pip install -e '.[test]') for Ruff")


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def _repo(root: Path, files: dict[str, str]) -> Path:
    """A committed git repository holding `files`."""
    _require_ruff()
    root.mkdir(parents=True, exist_ok=True)
    _git(root, "init", "-q")
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "shape")
    return root


def _state(root: Path) -> tuple[dict[str, tuple[bytes, int]], str]:
    """Every file's bytes and mtime under `root` (outside .git), and git's status."""
    files = {}
    for dirpath, dirnames, names in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for n in names:
            p = Path(dirpath) / n
            if not p.is_symlink():
                files[p.relative_to(root).as_posix()] = (p.read_bytes(), p.stat().st_mtime_ns)
    return files, _git(root, "status", "--porcelain", "--ignored")


class Watch:
    """Repositories whose bytes, mtimes and git status must not change during a test."""

    def __init__(self) -> None:
        self.before: dict[Path, tuple[dict[str, tuple[bytes, int]], str]] = {}

    def append(self, root: Path) -> None:
        self.before[root] = _state(root)

    def verify(self) -> None:
        for root, state in self.before.items():
            assert _state(root) == state, f"the run changed {root}"


@pytest.fixture
def untouched() -> Iterator[Watch]:
    """Register repositories; at teardown each must be byte-for-byte as before."""
    watch = Watch()
    yield watch
    watch.verify()


def _native(root: Path, *args: str, stdin: bytes | None = None) -> set[Row]:
    """What `ruff check --no-fix` reports in `root`, run the way a user runs it."""
    argv = [str(RUFF), "check", "--no-fix", "--no-cache", "--output-format", "json", *args]
    proc = subprocess.run(argv, cwd=root, capture_output=True, input=stdin, check=False)
    assert proc.returncode in (0, 1), proc.stderr.decode()
    return {
        (
            Path(i["filename"]).relative_to(root).as_posix(),
            i["location"]["row"],
            i["location"]["column"],
            i["code"] or "invalid-syntax",
        )
        for i in json.loads(proc.stdout)
    }


def _ours(report: Report) -> set[Row]:
    return {
        (f.path, f.line or 0, f.column or 0, f.rule) for f in report.findings if f.checker == "ruff"
    }


def _lint(root: Path, *paths: str) -> Report:
    return run_lint(LintRequest(project_root=root, paths=list(paths), cwd=root))


def _scope(report: Report, path: str):  # type: ignore[no-untyped-def]
    (scope,) = [s for s in report.scopes if s.path == path and s.checker == "ruff"]
    return scope


def test_fix_true_in_config_changes_no_byte(tmp_path: Path, untouched: Watch) -> None:
    """`fix = true`: before, Ruff rewrote a.py (the import vanished) and the run said
    clean; now the F401 stands, as `ruff check --no-fix` says, and a.py is unchanged."""
    root = _repo(
        tmp_path / "r", {"pyproject.toml": "[tool.ruff]\nfix = true\n", "a.py": "import os\n"}
    )
    untouched.append(root)
    report = _lint(root, "a.py")
    assert _ours(report) == _native(root) == {("a.py", 1, 8, "F401")}


def test_unsafe_fixes_in_config_changes_no_byte(tmp_path: Path, untouched: Watch) -> None:
    """`fix = true` with `unsafe-fixes = true`: before, the unused variable was deleted
    from the file and the run said clean; now F841 is reported and nothing is written."""
    cfg = 'fix = true\nunsafe-fixes = true\n[lint]\nselect = ["F841"]\n'
    root = _repo(tmp_path / "r", {"ruff.toml": cfg, "m.py": "def f():\n    x = 1\n"})
    untouched.append(root)
    report = _lint(root, "m.py")
    assert _ours(report) == _native(root) == {("m.py", 2, 5, "F841")}


def test_fix_true_with_staged_content_over_stdin(tmp_path: Path, untouched: Watch) -> None:
    """`fix = true` in the commit gate's stdin mode: before, Ruff printed the fixed
    source instead of JSON and the scope was `tool_error` ("repair the installation");
    now the staged content's F401 is reported, as Ruff run on the same stdin says."""
    root = _repo(tmp_path / "r", {"pyproject.toml": "[tool.ruff]\nfix = true\n", "a.py": "x = 1\n"})
    untouched.append(root)
    staged = b"import os\nx = 1\n"
    ctx = RunContext(project_root=root, deadline=Deadline.after(60))
    checker = RuffChecker()
    target = FileTarget(path="a.py", abs_path=root / "a.py", language="python", content=staged)
    (batch,) = checker.plan([target], ctx).batches
    (out,) = checker.run(batch, ctx)
    assert out.status == ScopeStatus.CHECKED, out.reason
    got = {(f.path, f.line, f.column, f.rule) for f in out.findings}
    assert got == _native(root, "--stdin-filename", "a.py", "-", stdin=staged)
    assert ("a.py", 1, 8, "F401") in got


def test_extend_exclude_is_not_run(tmp_path: Path, untouched: Watch) -> None:
    """`extend-exclude = ["gen"]`: before, gen/g.py was `checked` with an F401 that
    `ruff check` never reports; now it is `not_run`, excluded by the project's config."""
    cfg = '[tool.ruff]\nextend-exclude = ["gen"]\n'
    root = _repo(
        tmp_path / "r", {"pyproject.toml": cfg, "gen/g.py": "import os\n", "a.py": "import sys\n"}
    )
    untouched.append(root)
    report = _lint(root, "gen/g.py", "a.py")
    assert _ours(report) == _native(root) == {("a.py", 1, 8, "F401")}
    scope = _scope(report, "gen/g.py")
    assert scope.status == ScopeStatus.NOT_RUN
    assert scope.reason == "excluded by the project's Ruff config"
    assert _scope(report, "a.py").status == ScopeStatus.CHECKED


def test_exclude_clean_file_is_not_run(tmp_path: Path, untouched: Watch) -> None:
    """`exclude = ["legacy"]` (replacing the defaults): before, legacy/old.py was
    `checked` with F401 and legacy/ok.py `checked` clean; now both are `not_run`."""
    cfg = 'exclude = ["legacy"]\n'
    files = {"ruff.toml": cfg, "legacy/old.py": "import os\n", "legacy/ok.py": "x = 1\n"}
    root = _repo(tmp_path / "r", {**files, "b.py": "y = 2\n"})
    untouched.append(root)
    report = _lint(root, "legacy/old.py", "legacy/ok.py", "b.py")
    assert _ours(report) == _native(root) == set()
    assert _scope(report, "legacy/old.py").status == ScopeStatus.NOT_RUN
    assert _scope(report, "legacy/ok.py").status == ScopeStatus.NOT_RUN
    assert _scope(report, "b.py").status == ScopeStatus.CHECKED


def test_nested_config_relative_settings(tmp_path: Path, untouched: Watch) -> None:
    """A nested config's `per-file-ignores = {"tests/*" = ...}` and `src = ["src"]`:
    before, with `--config sub/ruff.toml` from the root, both resolved against the
    root: a false F401 in sub/tests/test_x.py and a missed I001 in test_y.py."""
    cfg = 'src = ["src"]\n[lint]\nselect = ["F", "I"]\nper-file-ignores = {"tests/*" = ["F401"]}\n'
    test_y = "import sys\n\nimport mylib\nimport requests\n\nprint(sys, mylib, requests)\n"
    root = _repo(
        tmp_path / "r",
        {
            "pyproject.toml": '[tool.ruff.lint]\nselect = ["F"]\n',
            "sub/ruff.toml": cfg,
            "sub/src/mylib/__init__.py": "",
            "sub/tests/test_x.py": "import os\n",
            "sub/tests/test_y.py": test_y,
            "top.py": "import os\n",
        },
    )
    untouched.append(root)
    report = _lint(root, "sub/tests/test_x.py", "sub/tests/test_y.py", "top.py")
    want = {("sub/tests/test_y.py", 1, 1, "I001"), ("top.py", 1, 8, "F401")}
    assert _ours(report) == _native(root) == want
    assert _scope(report, "sub/tests/test_x.py").config_files == ["sub/ruff.toml"]
    assert _scope(report, "top.py").config_files == ["pyproject.toml"]


def test_dot_ruff_toml_wins_as_in_ruff(tmp_path: Path, untouched: Watch) -> None:
    """`.ruff.toml` beside `ruff.toml`: Ruff takes `.ruff.toml`; before, orchestrate
    took `ruff.toml` (no E501) and named it as the scope's config."""
    root = _repo(
        tmp_path / "r",
        {
            ".ruff.toml": 'line-length = 10\n[lint]\nselect = ["E501"]\n',
            "ruff.toml": '[lint]\nselect = ["F"]\n',
            "m.py": 'x = "a long string"\n',
        },
    )
    untouched.append(root)
    report = _lint(root, "m.py")
    assert _ours(report) == _native(root) == {("m.py", 1, 11, "E501")}
    assert _scope(report, "m.py").config_files == [".ruff.toml"]


def test_extend_chain_is_in_the_config_identity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`extend = "../base.toml"`: before, the identity held only sub/ruff.toml, so after
    base.toml changed a feedback run reused the stale result (no E501); now base.toml is
    in the scope's config files and digest, and the second run agrees with Ruff."""
    monkeypatch.setenv("ORCHESTRATE_REUSE", "1")
    root = _repo(
        tmp_path / "r",
        {
            "base.toml": '[lint]\nselect = ["F"]\n',
            "sub/ruff.toml": 'extend = "../base.toml"\n',
            "sub/m.py": 'import os\nx = "a long string"\n',
        },
    )
    first = _lint(root, "sub/m.py")
    assert _ours(first) == _native(root) == {("sub/m.py", 1, 8, "F401")}
    (root / "base.toml").write_text('line-length = 10\n[lint]\nselect = ["F", "E501"]\n')
    second = _lint(root, "sub/m.py")
    assert (
        _ours(second) == _native(root) == {("sub/m.py", 1, 8, "F401"), ("sub/m.py", 2, 11, "E501")}
    )
    scope = _scope(first, "sub/m.py")
    assert scope.config_files == ["base.toml", "sub/ruff.toml"]
    assert _scope(second, "sub/m.py").config_digest != scope.config_digest


def test_required_version_mismatch_is_said(tmp_path: Path, untouched: Watch) -> None:
    """`required-version = "==0.1.0"`: Ruff itself refuses to run; before, the scope was
    `tool_error` with Ruff's exit-2 text; now it is `missing`, naming the version used,
    the pin and the file, with a hint that says what to install."""
    cfg = '[tool.ruff]\nrequired-version = "==0.1.0"\n'
    root = _repo(tmp_path / "r", {"pyproject.toml": cfg, "a.py": "import os\n"})
    untouched.append(root)
    native = subprocess.run(
        [str(RUFF), "check", "--no-fix", "--no-cache"], cwd=root, capture_output=True, check=False
    )
    assert native.returncode == 2  # Ruff checks nothing under a pin it does not meet
    scope = _scope(_lint(root, "a.py"), "a.py")
    assert scope.status == ScopeStatus.MISSING
    assert "does not meet required-version '==0.1.0' (pyproject.toml)" in (scope.reason or "")
    assert scope.tool and scope.tool.version and scope.hint and "Ruff" in scope.hint


def test_required_version_met_is_recorded(tmp_path: Path, untouched: Watch) -> None:
    """`required-version = ">=0.1"`: the checked scope records the version used against
    the pin (before, nothing said which pin held)."""
    cfg = 'required-version = ">=0.1"\n'
    root = _repo(tmp_path / "r", {"ruff.toml": cfg, "a.py": "import os\n"})
    untouched.append(root)
    report = _lint(root, "a.py")
    assert _ours(report) == _native(root) == {("a.py", 1, 8, "F401")}
    scope = _scope(report, "a.py")
    assert scope.status == ScopeStatus.CHECKED
    assert "meets required-version '>=0.1' (ruff.toml)" in (scope.reason or "")


def test_project_virtualenv_ruff_is_used(tmp_path: Path, untouched: Watch) -> None:
    """A project with its own `.venv/bin/ruff`: that Ruff runs and the scope's tool names
    it (before, the Ruff installed beside orchestrate ran)."""
    root = _repo(tmp_path / "r", {"a.py": "import os\n"})
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "ruff").symlink_to(RUFF)
    untouched.append(root)
    report = _lint(root, "a.py")
    assert _ours(report) == _native(root) == {("a.py", 1, 8, "F401")}
    scope = _scope(report, "a.py")
    assert scope.tool and scope.tool.path == str(root / ".venv" / "bin" / "ruff")


def test_staged_file_not_on_disk_in_an_excluded_folder(tmp_path: Path, untouched: Watch) -> None:
    """Staged content whose path is not in the worktree (`--show-files` cannot list
    it) under `extend-exclude = ["gen"]`: before, Ruff answered `[]` and the scope was
    `checked`; now Ruff's own answer on a probe says excluded, so it is `not_run`, and
    a staged file outside the excluded folder is still `checked`."""
    cfg = '[tool.ruff]\nextend-exclude = ["gen"]\n'
    root = _repo(tmp_path / "r", {"pyproject.toml": cfg, "keep.py": "x = 1\n"})
    untouched.append(root)
    ctx = RunContext(project_root=root, deadline=Deadline.after(60))
    checker = RuffChecker()
    staged = b"x = 2\n"
    targets = [
        FileTarget(path=p, abs_path=root / p, language="python", content=staged)
        for p in ("gen/new.py", "src/new.py")
    ]
    outs = {o.path: o for b in checker.plan(targets, ctx).batches for o in checker.run(b, ctx)}
    assert outs["gen/new.py"].status == ScopeStatus.NOT_RUN
    assert outs["gen/new.py"].reason == "excluded by the project's Ruff config"
    assert outs["src/new.py"].status == ScopeStatus.CHECKED
    assert not any(o.findings for o in outs.values())
    assert _native(root, "--stdin-filename", "src/new.py", "-", stdin=staged) == set()


def test_include_narrowing_is_not_run(tmp_path: Path, untouched: Watch) -> None:
    """`include = ["src/**/*.py"]`: before, other/b.py and top.py were `checked` with
    an F401 each (files named on Ruff's command line bypass `include`); now they are
    `not_run`, not included by the project's config, and only src/a.py is reported."""
    cfg = '[tool.ruff]\ninclude = ["src/**/*.py"]\n'
    files = {"pyproject.toml": cfg, "src/a.py": "import os\n", "other/b.py": "import os\n"}
    root = _repo(tmp_path / "r", {**files, "top.py": "import os\n", "src/ok.py": "x = 1\n"})
    untouched.append(root)
    report = _lint(root, "src/a.py", "other/b.py", "top.py", "src/ok.py")
    assert _ours(report) == _native(root, ".") == {("src/a.py", 1, 8, "F401")}
    for path in ("other/b.py", "top.py"):
        scope = _scope(report, path)
        assert scope.status == ScopeStatus.NOT_RUN
        assert scope.reason == "not included by the project's Ruff config"
    assert _scope(report, "src/a.py").status == ScopeStatus.CHECKED
    assert _scope(report, "src/ok.py").status == ScopeStatus.CHECKED


NOTEBOOK = {
    "cells": [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": ["x = 1\n"]},
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": ["import os\n"]},
    ],
    "metadata": {"language_info": {"name": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}  # fmt: skip


def test_notebook_is_linted_as_ruff_does(tmp_path: Path, untouched: Watch) -> None:
    """nb.ipynb with a cell `import os`: before, the notebook was `unsupported` (only
    .py/.pyi were claimed); now its F401 is reported with Ruff's own (cell-relative)
    location, as `ruff check .` reports it."""
    files = {"nb.ipynb": json.dumps(NOTEBOOK), "a.py": "x = 1\n"}
    root = _repo(tmp_path / "r", files)
    untouched.append(root)
    report = _lint(root, "nb.ipynb", "a.py")
    assert _ours(report) == _native(root, ".") == {("nb.ipynb", 1, 8, "F401")}
    scope = _scope(report, "nb.ipynb")
    assert scope.status == ScopeStatus.CHECKED
    (finding,) = [f for f in report.findings if f.path == "nb.ipynb"]
    assert finding.exact_edit is None  # Ruff's edit offsets are cell-relative


def test_notebook_outside_include_is_not_run(tmp_path: Path, untouched: Watch) -> None:
    """A notebook outside a narrowed `include` is `not_run`, as `ruff check .` skips it."""
    cfg = 'include = ["src/**/*.py"]\n'
    files = {"ruff.toml": cfg, "nb.ipynb": json.dumps(NOTEBOOK), "src/a.py": "x = 1\n"}
    root = _repo(tmp_path / "r", files)
    untouched.append(root)
    report = _lint(root, "nb.ipynb", "src/a.py")
    assert _ours(report) == _native(root, ".") == set()
    assert _scope(report, "nb.ipynb").status == ScopeStatus.NOT_RUN
    assert _scope(report, "src/a.py").status == ScopeStatus.CHECKED


def test_named_pyw_outside_include_is_still_linted(tmp_path: Path, untouched: Watch) -> None:
    """A `.pyw` named explicitly under a narrowed `include` is linted, as Ruff lints it
    when pre-commit names it (`ruff check tool.pyw`); `ruff check .` never walks to it."""
    cfg = 'include = ["src/**/*.py"]\n'
    files = {"ruff.toml": cfg, "tool.pyw": "import os\n", "src/a.py": "x = 1\n"}
    root = _repo(tmp_path / "r", files)
    untouched.append(root)
    report = _lint(root, "tool.pyw", "src/a.py")
    assert _ours(report) == _native(root, "tool.pyw") == {("tool.pyw", 1, 8, "F401")}
    assert _scope(report, "tool.pyw").status == ScopeStatus.CHECKED
