"""The managed (pinned) tools: where they are found, the install hint, `tools install`.

The real install from a wheel is tests/test_wheel_install.py; here: the hint in a
source checkout and without one, the verification of a cached install, and what the
installer does without npm or when npm fails (a fake npm, for fault injection).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from helpers import REPO, VENV_BIN, run_cli

from orchestrator import managed_tools
from orchestrator.api import FileTarget, RunContext
from orchestrator.deadline import Deadline
from orchestrator.vocab import ScopeStatus


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's cache folder, in tmp (platformdirs honours XDG_CACHE_HOME)."""
    folder = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    return folder


@pytest.fixture
def no_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run as a wheel install does: no `tools/eslint` beside the package; the pinned
    lockfile comes from the package data."""
    bundle = managed_tools.bundle_dir("eslint")
    assert bundle is not None
    monkeypatch.setattr(managed_tools, "checkout_dir", lambda name: None)
    monkeypatch.setattr(managed_tools, "bundle_dir", lambda name: bundle)
    monkeypatch.delenv("ORCHESTRATE_ESLINT_HOME", raising=False)


def test_source_checkout_hint_names_its_tools_folder() -> None:
    assert managed_tools.checkout_dir("eslint") == REPO / "tools" / "eslint"
    assert managed_tools.install_hint("eslint") == f"npm ci --prefix {REPO / 'tools' / 'eslint'}"


def test_without_a_checkout_the_hint_is_the_installed_console_command(
    no_checkout: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    managed_tools.console_command.cache_clear()
    monkeypatch.setenv("PATH", f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    try:
        assert managed_tools.install_hint("eslint") == "orchestrate tools install"
        managed_tools.console_command.cache_clear()
        # Not on PATH: the script's absolute path, which works from any shell.
        monkeypatch.setenv("PATH", "/nonexistent")
        assert managed_tools.install_hint("eslint") == f"{VENV_BIN / 'orchestrate'} tools install"
    finally:
        managed_tools.console_command.cache_clear()


def test_eslint_missing_without_a_checkout_hints_tools_install(
    tmp_path: Path, no_checkout: None, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orchestrate_plugins.eslint_checker import EslintChecker

    managed_tools.console_command.cache_clear()
    monkeypatch.setenv("PATH", f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    root = tmp_path / "proj"
    root.mkdir()
    (root / "eslint.config.js").write_text("export default [];\n")
    (root / "a.js").write_text("1;\n")
    ctx = RunContext(project_root=root, deadline=Deadline.after(30))
    plan = EslintChecker().plan([FileTarget(path="a.js", abs_path=root / "a.js")], ctx)
    (out,) = plan.settled
    assert out.status == ScopeStatus.MISSING
    assert out.hint and "orchestrate tools install" in out.hint and "tools/eslint" not in out.hint
    managed_tools.console_command.cache_clear()


def test_a_cached_install_counts_only_when_verified(no_checkout: None, cache: Path) -> None:
    target = managed_tools.installed_dir("eslint")
    assert target is not None and target.is_relative_to(cache)
    (target / "node_modules" / ".bin").mkdir(parents=True)
    assert managed_tools.homes("eslint") == []  # no marker: an incomplete install
    (target / managed_tools.MARKER).write_text("0" * 64 + "\n")
    assert managed_tools.homes("eslint") == []  # made from another lockfile
    lock = managed_tools.bundle_dir("eslint") / managed_tools.LOCKFILE  # type: ignore[operator]
    (target / managed_tools.MARKER).write_text(managed_tools._digest(lock) + "\n")
    assert managed_tools.homes("eslint") == [target]


@pytest.mark.e2e
def test_tools_install_without_npm_says_what_to_install(tmp_path: Path) -> None:
    cache = tmp_path / "xdg-cache"
    env = {"PATH": str(tmp_path / "empty-bin"), "XDG_CACHE_HOME": str(cache)}
    res = run_cli(["tools", "install", "eslint"], cwd=tmp_path, env=env)
    assert res.returncode == 1, res.stderr
    assert "npm not found" in res.stderr and "Node.js" in res.stderr
    assert "Traceback" not in res.stderr
    assert not (cache / "orchestrate" / "tools").exists()


def _fake_npm(folder: Path, body: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    fake = folder / "fake-npm"
    fake.write_text(f"#!/bin/sh\n{body}\n")
    fake.chmod(0o755)
    return str(fake)


def test_a_failing_npm_installs_nothing_and_its_text_is_escaped(
    tmp_path: Path, no_checkout: None, cache: Path
) -> None:
    body = r"printf 'npm ERR! code ENOTFOUND \033[31mred\n' >&2; exit 1"
    res = managed_tools.install("eslint", npm=_fake_npm(tmp_path, body))
    assert not res.ok and res.home is None
    assert "ENOTFOUND" in res.message and "\x1b" not in res.message and "\\x1b" in res.message
    tools = cache / "orchestrate" / "tools"
    assert list(tools.iterdir()) == []  # the staging folder is gone, no install appeared
    assert managed_tools.homes("eslint") == []


def test_install_renames_a_complete_staging_folder_into_place(
    tmp_path: Path, no_checkout: None, cache: Path
) -> None:
    # A fake npm that lays out what `npm ci` would (fault injection: no network here);
    # the real npm is exercised by tests/test_wheel_install.py.
    body = (
        'while [ "$1" != "--prefix" ]; do shift; done; p="$2"; '
        'mkdir -p "$p/node_modules/.bin" && touch "$p/node_modules/.bin/eslint" && '
        'chmod +x "$p/node_modules/.bin/eslint"'
    )
    res = managed_tools.install("eslint", npm=_fake_npm(tmp_path, body))
    assert res.ok, res.message
    target = managed_tools.installed_dir("eslint")
    assert res.home == target and managed_tools.homes("eslint") == [target]
    assert target is not None
    assert json.loads((target / "package.json").read_text())["dependencies"]["eslint"]
    assert (target / "resolve-managed.mjs").is_file()
    leftovers = [p.name for p in target.parent.iterdir() if p != target]
    assert leftovers == []
    again = managed_tools.install("eslint", npm="/nonexistent/npm")
    assert again.ok and "already installed, up to date" in again.message
    shutil.rmtree(target)


def _verified_install(cache: Path) -> Path:
    target = managed_tools.installed_dir("eslint")
    assert target is not None and target.is_relative_to(cache)
    (target / "node_modules" / ".bin").mkdir(parents=True)
    lock = managed_tools.bundle_dir("eslint") / managed_tools.LOCKFILE  # type: ignore[operator]
    (target / managed_tools.MARKER).write_text(managed_tools._digest(lock) + "\n")
    return target


def test_tools_install_with_the_pinned_install_in_place_claims_no_install(
    no_checkout: None, cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Failed before: "installing the pinned version with npm ci ..." was printed though
    nothing ran (issue 32). Now it says the tool is already installed and up to date."""
    import argparse

    from orchestrator.cli import tools as tools_cli

    target = _verified_install(cache)
    assert tools_cli.cmd_install(argparse.Namespace(tools=["eslint"])) == 0
    out = capsys.readouterr()
    text = out.out + out.err
    assert "installing" not in text and "npm ci" not in text, text
    assert "already installed" in text and "up to date" in text and str(target) in text


def test_tools_install_without_npm_claims_no_install(
    no_checkout: None,
    cache: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Failed before: "installing ..." came first, then "npm not found"."""
    import argparse

    from orchestrator.cli import tools as tools_cli

    monkeypatch.setattr(managed_tools.shutil, "which", lambda name: None)
    assert tools_cli.cmd_install(argparse.Namespace(tools=["eslint"])) == 1
    text = "".join(capsys.readouterr())
    assert "installing" not in text and "npm not found" in text, text


def test_tools_install_announces_npm_ci_only_when_it_runs(
    tmp_path: Path,
    no_checkout: None,
    cache: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import argparse

    from orchestrator.cli import tools as tools_cli

    body = (
        'while [ "$1" != "--prefix" ]; do shift; done; p="$2"; '
        'mkdir -p "$p/node_modules/.bin" && touch "$p/node_modules/.bin/eslint"'
    )
    fake = _fake_npm(tmp_path, body)
    monkeypatch.setattr(managed_tools.shutil, "which", lambda name: fake)
    assert tools_cli.cmd_install(argparse.Namespace(tools=["eslint"])) == 0
    out = capsys.readouterr()
    assert "installing the pinned version with npm ci" in out.err
    assert "installed the pinned version at" in out.out
