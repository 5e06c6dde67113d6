"""Real projects from the package registries: orchestrate reports what their own linter does.

Each project is an item of scripts/corpora.toml, fetched at a pinned version (and hash)
by scripts/fetch into the user cache folder: a PyPI sdist with its own Ruff config, an
npm package with its own ESLint config and the lint set-up its package.json declares,
installed from a pinned lock file. A test copies the project, as it ships, into a
temporary git repository (node_modules is ignored through .git/info/exclude, so no
file of the project is added or changed; its files are compared by size and mtime), runs `orchestrate lint --format json` once
through the CLI, then the project's linter directly the way the project runs it, at the
project root (Ruff, ESLint, and RuboCop on the Ruby gems an npm package bundles). The
(path, line, column, rule) sets must be equal, the files the native
tool lints must be exactly the files orchestrate reports `checked` by that tool, and
no byte, mtime or `git status --ignored` line of the project may change.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import corpus, fail_or_skip, git, new_repo, require_tool, run_cli

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

RUFF = Path(sys.executable).parent / "ruff"
NPM_HINT = "install Node.js with npm (Debian: apt-get install npm)"
Key = tuple[str, int, int, str]


def _project(tmp_path: Path, item: str, within: str = "") -> Path:
    """The fetched project `item` (or its folder `within`, a project its package
    bundles) committed in a new git repository, its installed packages (if any) beside
    it in node_modules, ignored without touching its files."""
    fetched = corpus(item)
    root = tmp_path / item
    shutil.copytree(fetched / "src" / within, root, symlinks=True)
    new_repo(root, initial_commit=False)
    if (fetched / "node_modules").is_dir():
        shutil.copytree(fetched / "node_modules", root / "node_modules", symlinks=True)
        with open(root / ".git" / "info" / "exclude", "a", encoding="utf-8") as fh:
            fh.write("/node_modules/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"{item} as published")
    return root


def _footprint(root: Path) -> tuple[dict[str, tuple[bytes, int, int]], str]:
    """Every file's bytes (the installed node_modules: size only), mtime and size
    (outside .git), and git's view, ignored files too."""
    files = {}
    for dirpath, dirnames, names in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        installed = Path(dirpath).relative_to(root).parts[:1] == ("node_modules",)
        for n in names:
            p = Path(dirpath) / n
            if not p.is_symlink():
                st = p.stat()
                body = b"" if installed else p.read_bytes()
                files[p.relative_to(root).as_posix()] = (body, st.st_mtime_ns, st.st_size)
    status = git(root, "status", "--porcelain", "--ignored", "--untracked-files=all")
    return files, status


def _orchestrate(root: Path, ok: tuple[int, ...] = (0, 1)) -> dict[str, Any]:
    """`orchestrate lint --format json .` in `root` (no tasks, no reuse), leaving no
    trace; its exit code one of `ok`."""
    before = _footprint(root)
    proc = run_cli(
        ["lint", "--format", "json", "--no-tasks", "."],
        cwd=root,
        env={"ORCHESTRATE_REUSE": "0"},
        timeout=300,
    )
    assert proc.returncode in ok, proc.stderr
    assert _footprint(root) == before, "orchestrate lint changed the project"
    return json.loads(proc.stdout)


def _ours(report: dict[str, Any], checker: str) -> tuple[set[Key], set[str]]:
    """`checker`'s finding keys in the report, and the files it reports `checked`."""
    keys = {
        (f["path"], f["line"], f["column"], f["rule"])
        for f in report["findings"]
        if f["checker"] == checker
    }
    checked = {
        s["path"] for s in report["scopes"] if s["checker"] == checker and s["status"] == "checked"
    }
    return keys, checked


def _scope(report: dict[str, Any], path: str, checker: str | None = None) -> dict[str, Any]:
    """The one scope of `path` (of `checker`: packaging also uses mypy, a recipe)."""
    (scope,) = [
        s for s in report["scopes"] if s["path"] == path and checker in (None, s["checker"])
    ]
    return scope


def _run(argv: list[str], root: Path) -> subprocess.CompletedProcess[bytes]:
    before = _footprint(root)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ESLINT_", "RUFF_"))}
    proc = subprocess.run(argv, cwd=root, env=env, capture_output=True, timeout=300, check=False)
    assert proc.returncode in (0, 1), proc.stderr.decode(errors="replace")
    assert _footprint(root) == before, f"{argv[0]} changed the project"
    return proc


def _native_ruff(root: Path) -> tuple[set[Key], set[str]]:
    """`ruff check --no-fix --output-format json` at the root (no cache folder written),
    and the Python files `ruff check --show-files` says it lints."""
    if not RUFF.is_file():
        fail_or_skip(f"{RUFF} missing: install the project (pip install -e '.[test]') for Ruff")
    base = [str(RUFF), "check", "--no-fix", "--no-cache"]
    out = _run([*base, "--output-format", "json"], root).stdout
    keys = {
        (
            Path(i["filename"]).relative_to(root).as_posix(),
            i["location"]["row"],
            i["location"]["column"],
            i["code"] or "invalid-syntax",
        )
        for i in json.loads(out)
    }
    listed = _run([*base, "--show-files"], root).stdout.decode().splitlines()
    files = {Path(p).relative_to(root).as_posix() for p in listed if p.strip()}
    return keys, {f for f in files if f.endswith((".py", ".pyi"))}


def _native_eslint(root: Path) -> tuple[set[Key], set[str]]:
    """`npx --no-install eslint -f json .`: the project's own ESLint, as its user runs it."""
    npx = require_tool("npx", NPM_HINT)
    out = _run([npx, "--no-install", "eslint", "-f", "json", "."], root).stdout
    keys: set[Key] = set()
    files: set[str] = set()
    for item in json.loads(out):
        rel = Path(item["filePath"]).relative_to(root).as_posix()
        files.add(rel)
        for m in item["messages"]:
            keys.add((rel, m.get("line"), m.get("column"), m.get("ruleId") or "eslint/parse-error"))
    return keys, files


def _native_rubocop(root: Path, ok: tuple[int, ...] = (0, 1)) -> tuple[set[Key], set[str], int]:
    """`rubocop --format json .` at the root, RuboCop's own cache off (it would write
    to the user's cache folder, not the project): its offences, the files it inspected,
    and its exit code."""
    rubocop = require_tool("rubocop", "install RuboCop (Debian: apt-get install rubocop)")
    before = _footprint(root)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RUBOCOP_")}
    proc = subprocess.run(
        [rubocop, "--format", "json", "--cache", "false", "."],
        cwd=root,
        env=env,
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode in ok, proc.stderr.decode(errors="replace")
    assert _footprint(root) == before, "rubocop changed the project"
    if proc.returncode == 2:  # RuboCop refused the config: no report
        return set(), set(), 2
    out = json.loads(proc.stdout)
    keys = {
        (f["path"], o["location"]["start_line"], o["location"]["start_column"], o["cop_name"])
        for f in out["files"]
        for o in f["offenses"]
    }
    return keys, {f["path"] for f in out["files"]}, proc.returncode


def test_public_suffix_gem_with_its_rubocop_config(tmp_path: Path) -> None:
    """public_suffix 5.0.1, as npm's bourbon 7.3.0 bundles it: a `.rubocop.yml` that
    inherits `.rubocop_opinionated.yml`, excludes `*.gemspec` and test benchmarks, and an
    extensionless `bin/console` RuboCop picks by its shebang. Its authors keep it clean
    under this RuboCop: the files matter here, each inspected one `checked`, each
    excluded one `not_run` with RuboCop's reason."""
    root = _project(tmp_path, "bourbon-gems", "bundle/ruby/3.1.0/gems/public_suffix-5.0.1")
    report = _orchestrate(root)
    ours, checked = _ours(report, "rubocop")
    native, inspected, _code = _native_rubocop(root)
    assert ours == native
    assert checked == inspected
    assert "bin/console" in inspected and len(inspected) >= 15
    excluded = _scope(report, "public_suffix.gemspec", "rubocop")
    assert excluded["status"] == "not_run"
    assert excluded["reason"] == "excluded by the project's RuboCop config (Exclude)"


def test_aruba_gem_whose_rubocop_config_rubocop_refuses(tmp_path: Path) -> None:
    """aruba 0.14.14, as bourbon bundles it: its `.rubocop.yml` names cops RuboCop 1.39
    no longer has, so RuboCop run directly exits 2 with no report. Orchestrate says
    the same of every Ruby file: `tool_error` with RuboCop's own first line, never
    `checked` and never silent."""
    root = _project(tmp_path, "bourbon-gems", "bundle/ruby/3.0.0/gems/aruba-0.14.14")
    report = _orchestrate(root, ok=(3,))  # a tool that failed: README "Exit codes"
    _keys, _files, code = _native_rubocop(root, ok=(2,))
    assert code == 2
    scopes = [s for s in report["scopes"] if s["checker"] == "rubocop"]
    assert len(scopes) >= 100
    assert {s["status"] for s in scopes} == {"tool_error"}
    assert all((s["reason"] or "").startswith("rubocop exit 2: .rubocop.yml") for s in scopes)
    assert not [f for f in report["findings"] if f["checker"] == "rubocop"]
    ruby = {s["path"] for s in report["scopes"] if s["checker"] == "ruby"}
    assert ruby == {s["path"] for s in scopes}  # the syntax check still judged each one


def test_attrs_sdist_with_its_ruff_config(tmp_path: Path) -> None:
    """attrs 26.1.0 from PyPI: `select = ["ALL"]` less a long ignore list, glob
    per-file-ignores (`"**/test_*"`, `"bench/**"`, `"src/*/*.pyi" = ["ALL"]`),
    per-file-target-version and isort options in pyproject.toml."""
    root = _project(tmp_path, "attrs")
    report = _orchestrate(root)
    ours, checked = _ours(report, "ruff")
    native, linted = _native_ruff(root)
    assert ours == native
    assert checked == linted
    assert native, "the pinned attrs has findings under this Ruff; an empty set proves little"
    pyi = [p for p in checked if p.endswith(".pyi")]
    assert pyi and not [k for k in ours if k[0].endswith(".pyi")]


def test_packaging_sdist_with_its_ruff_config(tmp_path: Path) -> None:
    """packaging 26.4 from PyPI: `select = ["ALL"]`, per-file-ignores, nested plugin
    options, and `extend-exclude` of a generated module, which must be `not_run`."""
    root = _project(tmp_path, "packaging")
    report = _orchestrate(root)
    ours, checked = _ours(report, "ruff")
    native, linted = _native_ruff(root)
    assert ours == native
    assert checked == linted
    spdx = _scope(report, "src/packaging/licenses/_spdx.py", "ruff")
    assert spdx["status"] == "not_run"
    assert spdx["reason"] == "excluded by the project's Ruff config"


def test_qs_package_with_its_eslint_config(tmp_path: Path) -> None:
    """qs 6.16.0 from npm: its flat eslint.config.mjs spreads the shareable
    @ljharb/eslint-config (installed with ESLint 10 from a pinned lock), ignores dist/
    and loosens rules for test/**; the project's own ESLint in node_modules is run."""
    root = _project(tmp_path, "qs")
    report = _orchestrate(root)
    ours, checked = _ours(report, "eslint")
    native, linted = _native_eslint(root)
    assert ours == native
    assert checked == linted
    assert native, "the pinned qs has findings under its config; an empty set proves little"
    # ESLint's config ignores the bundle: ESLint decides, as run directly (its being
    # minified only keeps it from the fallback); what matters is that it is never `checked`.
    dist = _scope(report, "dist/qs.js")
    reason = dist["reason"] or ""
    assert dist["status"] == "not_run"
    assert "ignored by the project's ESLint config" in reason or reason.startswith("generated (")
    tool = _scope(report, "lib/parse.js")["tool"]
    assert tool["path"] == str(root / "node_modules" / ".bin" / "eslint")
