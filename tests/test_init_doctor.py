"""`orchestrate init` (a starter config for what it finds, never overwriting) and
`orchestrate doctor` (tools with versions, configs, what each language gets)."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest
from helpers import eslint_path, git, new_repo, run_cli

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


def _project(tmp_path: Path) -> Path:
    return new_repo(
        tmp_path / "r",
        {
            "ruff.toml": '[lint]\nselect = ["F401"]\n',
            "a.py": "import os\n",
            "b.js": "var a = 1;\n",  # no ESLint config: syntax only, and why
            "c.toml": "x = 1\n",
        },
    )


def test_doctor_lists_tools_configs_and_what_each_language_gets(tmp_path: Path) -> None:
    eslint_path()
    repo = _project(tmp_path)
    res = run_cli(["doctor", "--format", "json"], cwd=repo)
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    tools = {t["checker"]: t for t in data["tools"]}
    assert tools["ruff"]["found"] and tools["ruff"]["version"]
    assert tools["eslint"]["version"] or tools["eslint"]["found"] is not None
    assert "ruff.toml" in data["config_files"]
    langs = {r["language"]: r for r in data["languages"]}
    assert langs["python"]["gets"] == "native" and langs["python"]["native"] == 1
    assert langs["javascript"]["gets"] == "syntax"
    assert any("eslint configuration_required" in w for w in langs["javascript"]["why"])
    assert langs["toml"]["gets"] == "syntax" and langs["toml"]["required"] == "syntax"
    human = run_cli(["doctor"], cwd=repo)
    assert human.returncode == 0 and "ruff" in human.stdout and "why: eslint" in human.stdout
    assert not (repo / ".orchestrate" / "tasks").exists()  # the doctor records nothing


def test_init_writes_a_starter_config_and_refuses_to_overwrite(tmp_path: Path) -> None:
    repo = _project(tmp_path)
    res = run_cli(["init"], cwd=repo)
    assert res.returncode == 0, res.stdout + res.stderr
    text = (repo / "orchestrate.toml").read_text()
    required = tomllib.loads(text)["required"]
    # JavaScript has no ESLint config here: init proposes what its files get (syntax),
    # not a native level no file can meet, and says how to raise it.
    assert required["python"] == "native" and required["javascript"] == "syntax"
    assert required["toml"] == "syntax"
    assert "eslint configuration_required" in text  # what is missing, as a comment
    assert '#   raise to "native" once' in text
    lint = run_cli(["lint", "--no-tasks"], cwd=repo)  # the written config is valid
    assert lint.returncode in (0, 1), lint.stderr

    (repo / "orchestrate.toml").write_text("# mine\n")
    again = run_cli(["init"], cwd=repo)
    assert again.returncode == 2 and "not overwritten" in again.stderr
    assert (repo / "orchestrate.toml").read_text() == "# mine\n"
    assert not [p for p in repo.iterdir() if p.name.startswith(".orchestrate-init-")]


def test_init_refuses_a_pyproject_that_configures_orchestrate(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", {"pyproject.toml": "[tool.orchestrate]\njobs = 2\n"})
    res = run_cli(["init"], cwd=repo)
    assert res.returncode == 2 and "pyproject.toml" in res.stderr
    assert not (repo / "orchestrate.toml").exists()


def test_doctor_names_the_eslint_version_and_says_rubocop_is_not_in_use(tmp_path: Path) -> None:
    """ESLint has not run (no ESLint config), yet its version is asked of it; with no
    .rubocop.yml RuboCop judges nothing, and the doctor says so instead of `built in`."""
    eslint_path()
    repo = _project(tmp_path)
    data = json.loads(run_cli(["doctor", "--format", "json"], cwd=repo).stdout)
    tools = {t["checker"]: t for t in data["tools"]}
    assert tools["eslint"]["found"] and tools["eslint"]["version"], tools["eslint"]
    assert tools["eslint"]["version"].lstrip("v")[:1].isdigit(), tools["eslint"]
    human = run_cli(["doctor"], cwd=repo).stdout
    eslint = next(ln for ln in human.splitlines() if ln.strip().startswith("eslint "))
    assert "version unknown" not in eslint and tools["eslint"]["version"] in eslint
    rubocop = next(ln for ln in human.splitlines() if ln.strip().startswith("rubocop "))
    assert "built in" not in rubocop and "not in use" in rubocop and ".rubocop.yml" in rubocop
    secrets = next(ln for ln in human.splitlines() if ln.strip().startswith("secrets "))
    assert "built in" in secrets


def _commit(repo: Path, *paths: str) -> subprocess.CompletedProcess[str]:
    git(repo, "add", "--", *paths)
    return subprocess.run(
        ["git", "commit", "-q", "-m", "change"], cwd=repo, capture_output=True, text=True
    )


TS_APP = {"src/app.ts": "const x: number = 1;\nconsole.log(x);\n"}


def test_init_then_install_hooks_lets_the_first_commit_through(tmp_path: Path) -> None:
    """Failed before (issue 32): in a TypeScript project without an ESLint config,
    `init` wrote `typescript = "native"`, which no file could meet, so the commit gate
    that `install-hooks` installs blocked the very first commit. `init` now proposes
    only what can be met and says how to raise it."""
    eslint_path()
    repo = new_repo(tmp_path / "r", TS_APP, initial_commit=False)
    res = run_cli(["init"], cwd=repo)
    assert res.returncode == 0, res.stdout + res.stderr
    required = tomllib.loads((repo / "orchestrate.toml").read_text())["required"]
    # What its files get without ESLint (the doctor's answer), not native.
    assert required["typescript"] in ("syntax", "none"), required
    assert 'raise to "native"' in res.stdout, res.stdout
    assert run_cli(["install-hooks"], cwd=repo).returncode == 0
    commit = _commit(repo, ".")
    assert commit.returncode == 0, commit.stdout + commit.stderr


def test_in_a_repository_with_history_init_says_to_commit_the_policy_first(
    tmp_path: Path,
) -> None:
    """The gates apply the stricter of the base's policy and the new one, so a lowered
    level counts once orchestrate.toml is committed; init says so, and following it works."""
    eslint_path()
    repo = new_repo(tmp_path / "r", TS_APP)
    git(repo, "reset", "-q")  # new_repo stages the file: the policy goes first
    res = run_cli(["init"], cwd=repo)
    assert "commit it on its own first" in res.stdout, res.stdout
    assert run_cli(["install-hooks"], cwd=repo).returncode == 0
    first = _commit(repo, "orchestrate.toml")
    assert first.returncode == 0, first.stderr
    second = _commit(repo, "src/app.ts")
    assert second.returncode == 0, second.stderr
