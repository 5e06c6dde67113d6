"""Identity-keyed reuse of fast feedback, through the real engine and real Ruff.

A fake ruff (fault injection: it lies about its version) wraps the real one.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from helpers import VENV_BIN, require_tool

from orchestrator.core import reuse
from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.model.checker import FileOutcome
from orchestrator.model.report import Report, Scope
from orchestrator.vocab import Purpose, ScopeStatus

SRC = "import os\n\nx = 1\n"


def _ruff() -> str:
    return require_tool("ruff", "pip install ruff", path=str(VENV_BIN / "ruff"))


def _lint(root: Path, **kw: object) -> Report:
    return run_lint(LintRequest(project_root=root, paths=["a.py"], cwd=root, **kw))  # type: ignore[arg-type]


def _ruff_scope(report: Report) -> Scope:
    (scope,) = [s for s in report.scopes if s.checker == "ruff"]
    return scope


@pytest.fixture
def project(tmp_path: Path) -> Path:
    _ruff()
    (tmp_path / "a.py").write_text(SRC)
    return tmp_path


def test_same_edit_twice_reuses_and_says_so(project: Path) -> None:
    first = _lint(project)
    assert _ruff_scope(first).status == ScopeStatus.CHECKED
    assert _ruff_scope(first).reused is None
    second = _lint(project)
    scope = _ruff_scope(second)
    assert scope.status == ScopeStatus.CHECKED
    assert scope.reused == reuse.REUSE_REASON == "identity equal"
    assert [f.model_dump() for f in second.findings] == [f.model_dump() for f in first.findings]
    assert scope.tool == _ruff_scope(first).tool


def test_one_byte_invalidates(project: Path) -> None:
    _lint(project)
    (project / "a.py").write_text(SRC + " ")
    assert _ruff_scope(_lint(project)).reused is None
    assert _ruff_scope(_lint(project)).reused == reuse.REUSE_REASON


def test_ruff_config_change_invalidates(project: Path) -> None:
    (project / "ruff.toml").write_text('[lint]\nselect = ["F"]\n')
    _lint(project)
    assert _ruff_scope(_lint(project)).reused == reuse.REUSE_REASON
    (project / "ruff.toml").write_text('[lint]\nselect = ["F", "E"]\n')
    assert _ruff_scope(_lint(project)).reused is None


def _fake_ruff(path: Path, version: str) -> None:
    path.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "--version" ]; then echo "ruff {version}"; exit 0; fi\n'
        f'exec "{_ruff()}" "$@"\n'
    )
    path.chmod(0o755)


def test_ruff_version_change_invalidates(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    fake = tmp_path_factory.mktemp("bin") / "fake_ruff"
    _fake_ruff(fake, "0.0.1")
    config = {"tools": {"ruff": str(fake)}}
    first = _lint(project, config=config)
    assert _ruff_scope(first).tool.version == "ruff 0.0.1"  # type: ignore[union-attr]
    assert _ruff_scope(_lint(project, config=config)).reused == reuse.REUSE_REASON
    _fake_ruff(fake, "0.0.2")
    st = fake.stat()
    os.utime(fake, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
    changed = _lint(project, config=config)
    assert _ruff_scope(changed).tool.version == "ruff 0.0.2"  # type: ignore[union-attr]
    assert _ruff_scope(changed).reused is None


def test_delivery_never_reuses(project: Path) -> None:
    _lint(project)
    _lint(project, purpose=Purpose.DELIVERY)
    assert _ruff_scope(_lint(project, purpose=Purpose.DELIVERY)).reused is None


def test_cache_is_safe_to_delete_and_corrupt_entries_are_misses(project: Path) -> None:
    _lint(project)
    shutil.rmtree(reuse.cache_dir(project))
    assert _ruff_scope(_lint(project)).reused is None
    (slot,) = reuse.cache_dir(project).iterdir()
    slot.write_text('{"schema": "orchestrate.reuse/1", "parts": ')
    report = _lint(project)
    assert _ruff_scope(report).reused is None
    assert _ruff_scope(report).status == ScopeStatus.CHECKED
    assert json.loads(slot.read_text())["schema"] == reuse.ENTRY_SCHEMA  # rewritten whole


def test_switch_off(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _lint(project)
    monkeypatch.setenv(reuse.ENV_SWITCH, "0")
    assert _ruff_scope(_lint(project)).reused is None


def _parts(**kw: str) -> reuse.KeyParts:
    base = {
        "source_digest": "s",
        "config_digest": "c",
        "tool_path": "/t",
        "tool_version": "1",
        "rules": "r",
        "path": "a.py",
        "checker": "ruff",
        "purpose": "feedback",
    }
    base.update(kw)
    return reuse.KeyParts(**base)


@pytest.mark.parametrize(
    "status", [s for s in ScopeStatus if s != ScopeStatus.CHECKED], ids=lambda s: str(s)
)
def test_incomplete_results_are_never_stored(tmp_path: Path, status: ScopeStatus) -> None:
    outcome = FileOutcome(path="a.py", checker="ruff", status=status)
    assert reuse.store(tmp_path, _parts(), outcome) is False
    assert reuse.lookup(tmp_path, _parts()) is None


def test_every_identity_part_matters(tmp_path: Path) -> None:
    outcome = FileOutcome(path="a.py", checker="ruff", status=ScopeStatus.CHECKED)
    assert reuse.store(tmp_path, _parts(), outcome)
    assert reuse.lookup(tmp_path, _parts()) is not None
    for field in ("source_digest", "config_digest", "tool_path", "tool_version", "rules"):
        assert reuse.lookup(tmp_path, _parts(**{field: "other"})) is None, field
    assert reuse.lookup(tmp_path, _parts(completeness="partial")) is None
    assert reuse.lookup(tmp_path, _parts(), max_age_s=-1) is None
    assert reuse.store(tmp_path, _parts(purpose="delivery"), outcome) is False


def test_cache_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reuse, "MAX_ENTRIES", 16)
    outcome = FileOutcome(path="a.py", checker="ruff", status=ScopeStatus.CHECKED)
    for i in range(reuse.MAX_ENTRIES * 4):
        reuse.store(tmp_path, _parts(source_digest=str(i)), outcome)
    assert len(list(reuse.cache_dir(tmp_path).iterdir())) <= reuse.MAX_ENTRIES
