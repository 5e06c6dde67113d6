"""`orchestrate trust` and project recipes through the CLI (orchestrator.cli.trust):
`lint` runs a project recipe only once trusted; strict gates never read that trust and
run only the base's recipes. Real git repositories, the real `grep` as the tool.

The first case spawns the console script (the end-to-end tier: trust, list and revoke
between real `orchestrate lint` processes); the others call the same CLI entry,
`cli.main.main`, in process (the fast tier)."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from helpers import add_remote, git, new_repo, run_cli

from orchestrator.cli.main import main

RECIPE = """name = "todo"
tool = "grep"
argv = ["grep", "-nH", "-E", "TODO"]
extensions = [{ext}]
[output]
format = "pattern"
pattern = '^(?P<path>[^:]+):(?P<line>\\d+):(?P<message>.*)$'
"""

Cli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    if shutil.which("grep") is None:
        pytest.fail("grep is missing: apt-get install grep")
    return {"XDG_DATA_HOME": str(tmp_path / "data")}


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> Cli:
    """`run_cli`'s call and answer, served by `cli.main.main` in this process: `env` laid
    over the environment, `cwd` the current folder, `stdin` the standard input."""

    def run(
        args: Sequence[str],
        cwd: Path,
        env: dict[str, str] | None = None,
        stdin: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(cwd)
        data = (stdin or "").encode()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        capfd.readouterr()
        code = main(list(args))
        said = capfd.readouterr()
        return subprocess.CompletedProcess(list(args), code, said.out, said.err)

    return run


def _files(ext: str = '".txt"', config: str = "") -> dict[str, str]:
    return {
        "lint/todo.toml": RECIPE.format(ext=ext),
        "orchestrate.toml": f'recipes = ["lint/todo.toml"]\n{config}',
    }


def _todo(report: dict) -> list[dict]:
    return [s for s in report["scopes"] if s["checker"] == "todo"]


@pytest.mark.e2e
def test_lint_runs_a_project_recipe_only_after_trust(tmp_path: Path, env) -> None:
    repo = new_repo(tmp_path / "r", {**_files(), "notes.txt": "a\nTODO b\n"})
    before = run_cli(["lint", "notes.txt", "--format", "json"], cwd=repo, env=env)
    (scope,) = _todo(json.loads(before.stdout))
    assert scope["status"] == "not_run" and "orchestrate trust" in scope["reason"]
    said = run_cli(["trust"], cwd=repo, env=env)
    assert said.returncode == 0 and "trusted: todo (lint/todo.toml)" in said.stdout
    listed = run_cli(["trust", "--list"], cwd=repo, env=env)
    assert "trusted: todo" in listed.stdout
    after = json.loads(run_cli(["lint", "notes.txt", "--format", "json"], cwd=repo, env=env).stdout)
    assert [s["status"] for s in _todo(after)] == ["checked"]
    assert [(f["path"], f["line"], f["rule"]) for f in after["findings"]] == [
        ("notes.txt", 2, "todo")
    ]
    gone = run_cli(["trust", "--revoke"], cwd=repo, env=env)
    assert gone.returncode == 0 and "1 recipe(s)" in gone.stdout
    again = json.loads(run_cli(["lint", "notes.txt", "--format", "json"], cwd=repo, env=env).stdout)
    assert [s["status"] for s in _todo(again)] == ["not_run"]


def test_a_recipe_named_like_a_builtin_is_a_usage_error(tmp_path: Path, env, cli: Cli) -> None:
    files = _files()
    files["lint/todo.toml"] = files["lint/todo.toml"].replace('name = "todo"', 'name = "ruff"')
    repo = new_repo(tmp_path / "r", {**files, "notes.txt": "TODO\n"})
    res = cli(["lint", "notes.txt"], cwd=repo, env=env)
    assert res.returncode == 2
    assert "clashes with the checker 'ruff' of orchestrate" in res.stderr
    assert cli(["trust"], cwd=repo, env=env).returncode == 2


def test_a_gate_never_runs_a_recipe_the_change_adds_even_when_trusted(
    tmp_path: Path, env, cli: Cli
) -> None:
    repo = new_repo(tmp_path / "r", {**_files(), "notes.txt": "TODO b\n"})
    assert cli(["trust"], cwd=repo, env=env).returncode == 0
    res = cli(["gate", "commit", "--format", "json"], cwd=repo, env=env)
    report = json.loads(res.stdout)
    (scope,) = _todo(report)
    assert scope["status"] == "not_run" and "new policy" in scope["reason"]
    assert not [f for f in report["findings"] if f["checker"] == "todo"]
    assert any("todo" in n and "new policy" in n for n in report["notes"])


def test_a_gate_runs_the_base_recipe_and_its_findings_count(tmp_path: Path, env, cli: Cli) -> None:
    repo = new_repo(tmp_path / "r", _files())
    git(repo, "commit", "-qm", "recipe")
    git(repo, "add", "-A")
    (repo / "notes.txt").write_text("a\nTODO b\n")
    git(repo, "add", "notes.txt")
    report = json.loads(cli(["gate", "commit", "--format", "json"], cwd=repo, env=env).stdout)
    assert [s["status"] for s in _todo(report)] == ["checked"]
    assert [(f["path"], f["line"]) for f in report["findings"] if f["checker"] == "todo"] == [
        ("notes.txt", 2)
    ]


def test_a_base_recipe_claiming_python_never_satisfies_required_coverage(
    tmp_path: Path, env, cli: Cli
) -> None:
    # Ruff is switched off on both sides: only the recipe could vouch for app.py.
    files = _files('".py"', 'disable_plugins = ["ruff"]\n[required]\npython = "native"\n')
    repo = new_repo(tmp_path / "r", files)
    git(repo, "commit", "-qm", "recipe")
    (repo / "app.py").write_text("x = 1  # TODO\n")
    git(repo, "add", "app.py")
    res = cli(["gate", "commit", "--format", "json"], cwd=repo, env=env)
    report = json.loads(res.stdout)
    assert [s["status"] for s in _todo(report)] == ["checked"]
    assert report["gate"]["decision"] != "allowed"
    assert res.returncode != 0
    assert any("app.py" in r for r in report["gate"]["reasons"])


def test_a_gate_holds_the_base_recipes_config_files_in_its_tree(
    tmp_path: Path, env, cli: Cli
) -> None:
    files = _files()
    files["lint/todo.toml"] = files["lint/todo.toml"].replace(
        "[output]", 'config_names = [".todorc"]\nruns_without_config = false\n[output]'
    )
    repo = new_repo(tmp_path / "r", {**files, ".todorc": "on\n"})
    git(repo, "commit", "-qm", "recipe and its config")
    (repo / "notes.txt").write_text("TODO b\n")
    git(repo, "add", "notes.txt")
    report = json.loads(cli(["gate", "commit", "--format", "json"], cwd=repo, env=env).stdout)
    assert [s["status"] for s in _todo(report)] == ["checked"]


@pytest.mark.parametrize("gate", ["ci", "push"])
def test_gate_ci_and_push_run_only_the_base_recipe(
    tmp_path: Path, env, gate: str, cli: Cli
) -> None:
    repo = new_repo(tmp_path / "r", _files())
    git(repo, "commit", "-qm", "recipe")
    remote = add_remote(repo, tmp_path / "remote.git")
    base = git(repo, "rev-parse", "HEAD").strip()
    # The change adds a second recipe (new policy) and a file both would judge.
    (repo / "lint" / "more.toml").write_text(
        RECIPE.format(ext='".txt"').replace('"todo"', '"more"')
    )
    (repo / "orchestrate.toml").write_text('recipes = ["lint/todo.toml", "lint/more.toml"]\n')
    (repo / "notes.txt").write_text("TODO b\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "more")
    assert cli(["trust"], cwd=repo, env=env).returncode == 0  # never read by a gate
    tip = git(repo, "rev-parse", "HEAD").strip()
    if gate == "ci":
        res = cli(["gate", "ci", "--format", "json"], cwd=repo, env=env)
    else:
        line = f"refs/heads/main {tip} refs/heads/main {base}\n"
        res = cli(["gate", "push", "origin", "--format", "json"], cwd=repo, env=env, stdin=line)
    assert remote.is_dir()
    report = json.loads(res.stdout)
    by = {s["checker"]: s for s in report["scopes"] if s["path"] == "notes.txt"}
    assert by["todo"]["status"] == "checked"
    assert by["more"]["status"] == "not_run" and "new policy" in by["more"]["reason"]
    assert {f["checker"] for f in report["findings"]} == {"todo"}
