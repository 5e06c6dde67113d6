"""CG-30: Python discovery avoids unrelated traversal.

Only the selected files and their ancestor Ruff config candidates inside the workspace
are looked at; no directory enumeration; nearest config wins; an unrelated unreadable
subtree cannot make the run incomplete; an unreadable config on the path is explicit.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.vocab import ScopeStatus

pytestmark = pytest.mark.scenario("CG-30")


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.ruff]\nlint.select = ["E501"]\nline-length = 200\n')
    (root / "pkg" / "ruff.toml").write_text('lint.select = ["F401"]\n')
    (root / "pkg" / "sub" / "mod.py").write_text("import os\n")
    # An unrelated subtree that cannot be read, and a linked config inside it.
    bad = root / "unrelated"
    (bad / "deep").mkdir(parents=True)
    (bad / "deep" / "ruff.toml").write_text("this is [not toml\n")
    (bad / "link.toml").symlink_to("/nonexistent/ruff.toml")
    bad.chmod(0)
    return root


@pytest.fixture
def workspace(tmp_path: Path):  # type: ignore[no-untyped-def]
    root = _workspace(tmp_path)
    yield root
    (root / "unrelated").chmod(0o755)


def test_CG30_nearest_config_and_no_enumeration(workspace: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    listed: list[str] = []
    real_scandir, real_listdir, real_walk = os.scandir, os.listdir, os.walk

    def spy_scandir(path=".", *a, **k):  # type: ignore[no-untyped-def]
        listed.append(str(path))
        return real_scandir(path, *a, **k)

    def spy_listdir(path=".", *a, **k):  # type: ignore[no-untyped-def]
        listed.append(str(path))
        return real_listdir(path, *a, **k)

    def spy_walk(top, *a, **k):  # type: ignore[no-untyped-def]
        listed.append(str(top))
        return real_walk(top, *a, **k)

    monkeypatch.setattr(os, "scandir", spy_scandir)
    monkeypatch.setattr(os, "listdir", spy_listdir)
    monkeypatch.setattr(os, "walk", spy_walk)
    report = run_lint(LintRequest(project_root=workspace, paths=["pkg/sub/mod.py"], cwd=workspace))
    inside = [p for p in listed if Path(p).absolute().is_relative_to(workspace)]
    assert inside == [], f"discovery enumerated workspace directories: {inside}"
    (scope,) = [s for s in report.scopes if s.path == "pkg/sub/mod.py"]
    assert scope.status == ScopeStatus.CHECKED
    assert scope.config_files == ["pkg/ruff.toml"]  # nearest wins over the root pyproject
    assert [f.rule for f in report.findings] == ["F401"]
    assert report.coverage.complete  # the unreadable unrelated subtree changed nothing


def test_CG30_unreadable_config_on_the_path_is_explicit(tmp_path: Path) -> None:
    # Tests run as root, who reads any file, so the unreadable config is one that links
    # outside the workspace: discovery refuses to follow it and says so.
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "pkg" / "ruff.toml").symlink_to(tmp_path / "outside-config.toml")
    (tmp_path / "outside-config.toml").write_text('lint.select = ["F"]\n')
    report = run_lint(LintRequest(project_root=root, paths=["pkg/mod.py"], cwd=root))
    (scope,) = [s for s in report.scopes if s.path == "pkg/mod.py"]
    assert scope.status != ScopeStatus.CHECKED
    assert "outside" in (scope.reason or "")
    assert not report.coverage.complete


def test_CG30_missing_target_stays_explicit(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    report = run_lint(LintRequest(project_root=root, paths=["gone.py"], cwd=root))
    (scope,) = report.scopes
    assert scope.status == ScopeStatus.NOT_RUN and "vanished" in (scope.reason or "")
