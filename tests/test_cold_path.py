"""The cold path of `orchestrate lint FILE` imports and reads only what the project in
front of it needs (issue 14: cold-run speed). Not timed: what is imported is
asserted, as in tests/test_cli_startup.py, since a loaded machine makes timings flaky.
Each case runs the real CLI with the real Ruff in a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import VENV_BIN, require_tool

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

PROBE = """
import json, sys
from orchestrator.cli.main import main
code = main(json.loads(sys.argv[1]))
sys.stdout.flush()
print("\\nMODULES=" + json.dumps(sorted(sys.modules)), file=sys.stderr)
sys.exit(code)
"""


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t.invalid"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t.invalid"}
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=env)


def _project(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init")
    return root


def lint_modules(root: Path, *argv: str) -> tuple[int, dict, set[str]]:
    """(exit code, JSON report, modules imported) of `orchestrate lint ARGV --format json`
    run in `root` by a fresh interpreter with its own cache folder."""
    require_tool("ruff", "pip install -e '.[test]'", path=str(VENV_BIN / "ruff"))
    env = {**os.environ, "XDG_CACHE_HOME": str(root.parent / "cache"), "PATH": str(VENV_BIN)}
    env["PATH"] += os.pathsep + os.environ.get("PATH", "")
    args = ["lint", *argv, "--format", "json", "--no-tasks"]
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    _text, _, mods = proc.stderr.rpartition("\nMODULES=")
    assert mods, proc.stderr
    return proc.returncode, json.loads(proc.stdout), set(json.loads(mods))


def _loaded(modules: set[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in modules)


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    return _project(tmp_path / "p", {"m.py": "import os\n", "ruff.toml": 'lint.select = ["F"]\n'})


def test_a_project_without_orchestrate_settings_builds_no_config_model(plain: Path) -> None:
    code, report, modules = lint_modules(plain, "m.py")
    assert code == 1 and [f["rule"] for f in report["findings"]] == ["F401"]
    assert not _loaded(modules, "orchestrator.core.config_model")


def test_a_python_file_imports_no_exact_parser_tier(plain: Path) -> None:
    """The syntax fallback's exact parsers (JSON, TOML, YAML, the compilers' table) are
    imported when a file needs them, not with the fallback checker."""
    code, _report, modules = lint_modules(plain, "m.py")
    assert code == 1
    assert not _loaded(modules, "orchestrate_plugins.exact_confirm")
    assert not _loaded(modules, "orchestrate_plugins.exact_parsers")


def test_a_small_run_loads_no_sqlite(plain: Path) -> None:
    """The report rows spool to SQLite only in a big run (model/rows.Spool): a one-file
    lint does not import it (before, core/assemble.py pulled it in on every run)."""
    code, _report, modules = lint_modules(plain, "m.py")
    assert code == 1
    assert not _loaded(modules, "sqlite3")


def test_a_lint_without_tasks_or_a_baseline_file_loads_no_task_store(plain: Path) -> None:
    """`--no-tasks` in a project without `.orchestrate-baseline.json`: the task store
    (anchors, task ids) is not imported (before, tasks/baseline.py pulled it in)."""
    code, _report, modules = lint_modules(plain, "m.py")
    assert code == 1
    assert not _loaded(modules, "orchestrator.tasks.store")


def test_orchestrate_settings_are_still_validated(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", {"m.py": "x = 1\n", "orchestrate.toml": "jobz = 2\n"})
    proc = subprocess.run(
        [str(VENV_BIN / "orchestrate"), "lint", "m.py"], cwd=root, capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert "jobz: unknown key" in proc.stderr and "jobs" in proc.stderr


def test_gitattributes_without_generated_rules_import_no_pattern_matcher(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", {"m.py": "x = 1\n", ".gitattributes": "*.sh text eol=lf\n"})
    code, _report, modules = lint_modules(root, "m.py")
    assert code == 0
    assert not _loaded(modules, "pathspec")


def test_a_precommit_config_without_ruff_is_not_parsed(tmp_path: Path) -> None:
    config = "repos:\n- repo: https://github.com/psf/black\n  rev: 24.1.0\n  hooks: [{id: black}]\n"
    root = _project(tmp_path / "p", {"m.py": "x = 1\n", ".pre-commit-config.yaml": config})
    code, report, modules = lint_modules(root, "m.py")
    assert code == 0
    assert not _loaded(modules, "yaml")
    assert "pins ruff" not in json.dumps(report)


def test_a_ruff_pin_written_with_escapes_is_still_read(tmp_path: Path) -> None:
    # "\x72" is "r": the repository's name is not in the file as written.
    url = '"https://github.com/astral-sh/\\x72uff-pre-commit"'
    config = f"repos:\n- repo: {url}\n  rev: v0.0.1\n  hooks: [{{id: ruff}}]\n"
    root = _project(tmp_path / "p", {"m.py": "x = 1\n", ".pre-commit-config.yaml": config})
    _code, report, _modules = lint_modules(root, "m.py")
    (scope,) = [s for s in report["scopes"] if s["checker"] == "ruff"]
    assert ".pre-commit-config.yaml pins ruff 0.0.1" in json.dumps(report), scope


def test_the_reuse_index_is_written_without_syncing_the_disk(
    plain: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index is a cache a damaged copy of which reads as empty (test_reuse.py): its
    write is atomic (a rename) but not fsynced, which cost more than the run under load."""
    from orchestrator.core.engine import LintRequest, run_lint

    monkeypatch.setenv("XDG_CACHE_HOME", str(plain.parent / "cache"))
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    report = run_lint(LintRequest(project_root=plain, paths=("m.py",), cwd=plain))
    assert [f.rule for f in report.findings] == ["F401"]
    assert list((plain.parent / "cache").rglob("index.json"))
    assert synced == []
    again = run_lint(LintRequest(project_root=plain, paths=("m.py",), cwd=plain))
    assert [s.reused for s in again.scopes if s.checker == "ruff"] != [None]


SCAN_PROBE = """
import json, sys
from importlib import metadata
real, calls = metadata.entry_points, []
def counting(**kw):
    calls.append(kw)
    return real(**kw)
metadata.entry_points = counting
from orchestrator.cli.main import main
code = main(json.loads(sys.argv[1]))
sys.stdout.flush()
print("\\nSCANS=" + json.dumps(calls), file=sys.stderr)
sys.exit(code)
"""


def test_a_second_start_reads_no_distributions_entry_points(plain: Path) -> None:
    """Neither plugin discovery (its list is remembered, core/entry_points.py) nor
    pydantic (its plugin search is off for orchestrate's models) searches the installed
    distributions on a start after the first."""
    env = {**os.environ, "XDG_CACHE_HOME": str(plain.parent / "cache")}
    env["PATH"] = str(VENV_BIN) + os.pathsep + os.environ.get("PATH", "")
    args = json.dumps(["lint", "m.py", "--format", "json", "--no-tasks"])
    scans = []
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-c", SCAN_PROBE, args],
            cwd=plain,
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert proc.returncode == 1, proc.stderr
        assert [f["rule"] for f in json.loads(proc.stdout)["findings"]] == ["F401"]
        scans.append(json.loads(proc.stderr.rpartition("\nSCANS=")[2]))
    assert scans == [[{"group": "orchestrate"}], []]


def test_the_grammar_manifest_is_parsed_once_per_version_of_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The manifest's TOML parse is kept (as JSON) in the user's cache folder under the
    file's stamp: the next start reads the copy; an edited manifest is parsed again."""
    import tomllib

    from orchestrator.model import languages

    real = languages._manifest_file()
    assert real is not None
    manifest = tmp_path / "manifest.toml"
    manifest.write_bytes(real.read_bytes())
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(languages, "_manifest_file", lambda: manifest)
    # A gate run earlier in this process stops it reading the copy (languages._COPY).
    monkeypatch.setattr(languages, "_COPY", {"trusted": True, "used": False})
    parses: list[int] = []
    loads = tomllib.loads
    monkeypatch.setattr(tomllib, "loads", lambda text: (parses.append(1), loads(text))[1])

    def fresh() -> object:
        languages._manifest_data.cache_clear()
        return languages._manifest_data()

    first = fresh()
    assert first == loads(real.read_text("utf-8")) and len(parses) == 1
    assert fresh() == first and len(parses) == 1  # the kept copy, no parse
    manifest.write_text(manifest.read_text("utf-8") + '\n[[shared]]\nextension = ".zz"\n')
    assert fresh()["shared"][-1] == {"extension": ".zz"} and len(parses) == 2
    (copy,) = (tmp_path / "cache").rglob("grammar-manifest-*.json")
    copy.write_bytes(b'{"stamp": 1}')  # damaged: parsed again
    assert fresh()["shared"][-1] == {"extension": ".zz"} and len(parses) == 3
    languages._manifest_data.cache_clear()


def test_eslint_looks_for_a_folders_configuration_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ESLint's plan looks up the configuration, the tool and the declared range once
    per folder, not once per file, and each folder still gets its own."""
    from helpers import eslint_path
    from orchestrate_plugins import eslint_checker

    from orchestrator.deadline import Deadline
    from orchestrator.model.checker import FileTarget, RunContext

    eslint_path()
    config = 'export default [{rules: {"no-unused-vars": "error"}}];\n'
    files = {"eslint.config.mjs": config, "sub/eslint.config.mjs": config}
    files |= {f"{d}f{i}.js": "const x = 1;\n" for d in ("", "sub/") for i in range(3)}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    asked: list[str] = []
    real = eslint_checker.find_setup
    monkeypatch.setattr(
        eslint_checker,
        "find_setup",
        lambda root, rel, *a: (asked.append(rel), real(root, rel, *a))[1],
    )
    targets = [
        FileTarget(path=p, abs_path=tmp_path / p, language="javascript")
        for p in sorted(files)
        if p.endswith(".js")
    ]
    ctx = RunContext(project_root=tmp_path, deadline=Deadline.after(60))
    plan = eslint_checker.EslintChecker().plan(targets, ctx)
    assert set(asked) == {"f0.js", "sub/f0.js"}  # the folder's first file only (was each)
    # ESLint < 10 runs every file under the outermost config (ESLint >= 10: the nearest).
    planned = sorted(t.path for b in plan.batches for t in b.targets)
    assert planned == sorted(t.path for t in targets) and not plan.settled


def test_the_ruff_beside_us_is_named_from_its_dist_info_without_a_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The version of the Ruff wheel installed with orchestrate is read from its own
    METADATA (the same `Version` header `importlib.metadata` reads), with no search of
    every installed distribution; anything doubtful is left to that search."""
    import sysconfig
    from importlib import metadata

    from orchestrate_plugins import ruff_checker

    want = f"ruff {metadata.version('ruff')}"
    beside = str(Path(sys.executable).parent / "ruff")

    def fake_version(name: str) -> str:
        raise AssertionError(f"searched every distribution for {name}")

    monkeypatch.setattr(metadata, "version", fake_version)
    assert ruff_checker._wheel_version(beside) == want

    site = tmp_path / "site"
    for version in ("1.0", "2.0"):  # two copies: which one ran is not clear
        (site / f"ruff-{version}.dist-info").mkdir(parents=True)
        meta = f"Metadata-Version: 2.1\nName: ruff\nVersion: {version}\n\nbody\n"
        (site / f"ruff-{version}.dist-info" / "METADATA").write_text(meta)
    monkeypatch.setattr(sysconfig, "get_path", lambda _name: str(site))
    assert ruff_checker._dist_info_version("ruff") is None
    (site / "ruff-1.0.dist-info" / "METADATA").unlink()
    (site / "ruff-1.0.dist-info").rmdir()
    assert ruff_checker._dist_info_version("ruff") == "2.0"
    (site / "ruff-2.0.dist-info" / "METADATA").write_text("Name: other\nVersion: 2.0\n")
    assert ruff_checker._dist_info_version("ruff") is None


def test_recording_a_task_imports_no_lock_library(plain: Path) -> None:
    """The task store's lock is flock taken directly (workspace.locked), not filelock."""
    env = {**os.environ, "XDG_CACHE_HOME": str(plain.parent / "cache")}
    env["PATH"] = str(VENV_BIN) + os.pathsep + os.environ.get("PATH", "")
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(["lint", "m.py", "--format", "json"])],
        cwd=plain,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 1, proc.stderr
    modules = set(json.loads(proc.stderr.rpartition("\nMODULES=")[2]))
    assert list((plain / ".orchestrate" / "tasks").glob("*.json"))  # a task was recorded
    if sys.platform != "win32":
        assert not _loaded(modules, "filelock")
