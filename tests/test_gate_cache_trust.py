"""A strict gate trusts no cache in the user's cache folder: anything running as the
user (an agent) can write there, so a planted or stale copy of the grammar manifest or
of the plugin list changes no verdict and crashes no gate. The copies still serve
`orchestrate lint` (tests/test_cold_path.py, tests/test_entry_point_cache.py). Nor
does the caller's environment switch a plugin off in a strict gate (the hook runs in
whatever environment `git commit` was given).

Real git, the real console script, real bash and Ruff; the planted files are written
by the test.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from gate_support import clean_env, commit_files, orchestrate
from helpers import fail_or_skip

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

BROKEN_SH = "if then fi ((\n"


def _env(tmp_path: Path) -> dict[str, str]:
    return clean_env(XDG_CACHE_HOME=str(tmp_path / "cache"))


def _only(tmp_path: Path, pattern: str) -> Path:
    [path] = sorted((tmp_path / "cache").rglob(pattern))
    return path


def _rewrite(path: Path, change: Callable[[dict], None]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _without_bash(data: dict) -> None:
    rows = data["manifest"]["language"]
    data["manifest"]["language"] = [r for r in rows if r["language"] != "bash"]


def _hostile(data: dict) -> None:
    data["manifest"] = {"language": [{"language": 5}], "shared": 7}


@pytest.mark.parametrize("plant", [_without_bash, _hostile])
def test_a_planted_grammar_manifest_copy_changes_no_gate_verdict(
    git_repo: Path, tmp_path: Path, plant: Callable[[dict], None]
) -> None:
    if shutil.which("bash") is None:
        fail_or_skip("bash is needed (apt-get install bash)")
    commit_files(git_repo, {"run.sh": BROKEN_SH})
    env = _env(tmp_path)
    first = orchestrate(git_repo, "gate", "ci", env=env)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "run.sh:1:1" in first.stdout
    assert orchestrate(git_repo, "lint", "run.sh", env=env).returncode == 1  # writes the copy
    _rewrite(_only(tmp_path, "grammar-manifest-*.json"), plant)
    again = orchestrate(git_repo, "gate", "ci", env=env)
    assert again.returncode == 1, again.stdout + again.stderr
    assert "run.sh:1:1" in again.stdout
    assert "internal fault" not in again.stdout + again.stderr


def test_a_planted_plugin_list_changes_no_gate_verdict(git_repo: Path, tmp_path: Path) -> None:
    commit_files(git_repo, {"app.py": "import os\n"})
    env = _env(tmp_path)
    first = orchestrate(git_repo, "gate", "ci", env=env)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "ruff/F401" in first.stdout

    def drop_ruff(data: dict) -> None:
        data["groups"]["orchestrate"] = [r for r in data["groups"]["orchestrate"] if r[0] != "ruff"]

    _rewrite(_only(tmp_path, "entry-points-*.json"), drop_ruff)
    again = orchestrate(git_repo, "gate", "ci", env=env)
    assert again.returncode == 1, again.stdout + again.stderr
    assert "ruff/F401" in again.stdout


def test_a_manifest_edit_keeping_time_and_size_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The copy's stamp holds the manifest's digest: an edit that restores the change
    time and keeps the size is parsed again, not served from the copy."""
    import os

    from orchestrator.model import languages

    manifest = tmp_path / "manifest.toml"
    manifest.write_text('[[language]]\nlanguage = "aaaa"\n')
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(languages, "_manifest_file", lambda: manifest)
    languages._manifest_data.cache_clear()
    try:
        assert languages._manifest_data()["language"][0]["language"] == "aaaa"
        st = manifest.stat()
        manifest.write_text('[[language]]\nlanguage = "bbbb"\n')
        os.utime(manifest, ns=(st.st_atime_ns, st.st_mtime_ns))
        languages._manifest_data.cache_clear()
        assert languages._manifest_data()["language"][0]["language"] == "bbbb"
    finally:
        languages._manifest_data.cache_clear()


def test_a_misshapen_manifest_copy_is_a_miss_for_lint(git_repo: Path, tmp_path: Path) -> None:
    """`orchestrate lint` does read the copy; one of another shape is parsed again."""
    if shutil.which("bash") is None:
        fail_or_skip("bash is needed (apt-get install bash)")
    commit_files(git_repo, {"run.sh": BROKEN_SH})
    env = _env(tmp_path)
    assert orchestrate(git_repo, "lint", "run.sh", env=env).returncode == 1  # writes the copy

    def misshapen(data: dict) -> None:
        data["manifest"] = {"language": 5, "shared": [{"extension": 1}]}

    _rewrite(_only(tmp_path, "grammar-manifest-*.json"), misshapen)
    res = orchestrate(git_repo, "lint", "run.sh", env=env)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "run.sh:1" in res.stdout and "internal error" not in res.stderr


def test_the_environment_disables_no_plugin_in_a_strict_gate(git_repo: Path) -> None:
    commit_files(git_repo, {".yamllint": "extends: default\n", "c.yaml": "---\na: 1\na: 2\n"})
    env = clean_env(ORCHESTRATE_DISABLE_PLUGINS="yamllint")
    res = orchestrate(git_repo, "gate", "ci", env=env)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "yamllint/key-duplicates" in res.stdout
    assert "ORCHESTRATE_DISABLE_PLUGINS is ignored by strict gates" in res.stdout
    lint = orchestrate(git_repo, "lint", "c.yaml", env=env)  # a plain lint still honours it
    assert "yamllint/key-duplicates" not in lint.stdout


def test_a_process_that_read_the_copy_drops_it_when_a_gate_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long-lived process (the MCP server) may lint from the copy, then run a gate:
    what it derived from the copy is dropped, and the manifest's own file decides."""
    from orchestrator.model import languages

    def fresh_process() -> None:
        languages._COPY.update(trusted=True, used=False)
        for derived in (languages._manifest_data, languages.manifest, languages._by_extension):
            derived.cache_clear()

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    fresh_process()
    try:
        languages._manifest_data()  # writes the copy
        _rewrite(_only(tmp_path, "grammar-manifest-*.json"), _without_bash)
        fresh_process()
        assert languages.detect("run.sh") is None  # a lint reads the planted copy ...
        languages.manifest_from_its_file()  # ... a gate starting in the same process
        assert languages.detect("run.sh") == "bash"
    finally:
        fresh_process()
