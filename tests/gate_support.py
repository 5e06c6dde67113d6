"""Helpers for gate cases (tests/ and conformance/): git and orchestrate in a clean env."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from helpers import (  # noqa: F401 - stage re-exported
    VENV_BIN,
    add_remote,
    from_template,
    git,
    new_repo,
    run_cli,
    set_machine_tool,
    stage,
)

SECRET_VALUE = "hunter2-" + "s3cr3t-value"  # assembled so no file holds it whole
BAD_PY = "import os\n"  # F401: a blocking Ruff finding
GOOD_PY = "x = 1\n"


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without legacy skips or git hook variables, venv first on PATH."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "CODEGUARD_SKIP_GATE" and not k.startswith("GIT_")
    }
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def run(
    cwd: Path, *argv: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run argv (a list) in `cwd`; never raises on a non-zero exit."""
    return subprocess.run(
        list(argv),
        cwd=cwd,
        env=env or clean_env(),
        capture_output=True,
        text=True,
        input=stdin,
        timeout=180,
        check=False,
    )


def orchestrate(
    cwd: Path, *args: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The real console script in a clean environment (the one CLI runner, run_cli)."""
    return run_cli(args, cwd, env=env or clean_env(), stdin=stdin, timeout=180, inherit_env=False)


def ruff_unavailable(repo: Path) -> None:
    """Point the machine's Ruff at a path that does not exist (`ORCHESTRATE_TOOL_RUFF`,
    for the rest of the test: a project's `[tools]` names no tool), and commit a
    project config as the step before."""
    set_machine_tool("ruff", "/nonexistent/bin/ruff")
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n')
    git(repo, "add", "pyproject.toml")
    git(repo, "commit", "-q", "-m", "config")


def broken_index(repo: Path) -> dict[str, str]:
    """An environment whose GIT_INDEX_FILE is garbage: git cannot read the surface."""
    bad = repo / ".git" / "garbage-index"
    bad.write_bytes(b"DIRC-not-really-an-index")
    return clean_env(GIT_INDEX_FILE=str(bad))


def audit_records(repo: Path) -> list[dict[str, object]]:
    """The legacy skip audit records, oldest first."""
    path = repo / ".orchestrate/audit/skips.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def commit_files(
    repo: Path, files: dict[str, str], msg: str = "c", *, delete: tuple[str, ...] = ()
) -> str:
    """Write `files`, remove `delete`, commit past the hooks; the new commit's id."""
    for rel, text in files.items():
        p = repo / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        git(repo, "add", "--", f"./{rel}")
    for rel in delete:
        git(repo, "rm", "-q", "--", f"./{rel}")
    git(repo, "commit", "-q", "--no-verify", "-m", msg)
    return git(repo, "rev-parse", "HEAD").strip()


def _readme_pushed(folder: Path) -> Path:
    repo = new_repo(folder / "repo")
    commit_files(repo, {"README.md": "# project\n"}, "readme")
    add_remote(repo, folder / "remote.git")
    return repo


def readme_pushed(tmp_path: Path) -> tuple[Path, Path]:
    """`tmp_path/repo` (as `new_repo`) with README.md committed ("readme") and
    `tmp_path/remote.git`, a bare `origin` holding main (as `add_remote`): copied from
    a per-process template (`from_template`). Returns the repository and the remote."""
    from_template("readme-pushed", tmp_path, _readme_pushed)
    return tmp_path / "repo", tmp_path / "remote.git"


def _side_with_key(folder: Path, key_line: str, drop: bool) -> tuple[str, str]:
    repo = _readme_pushed(folder)
    git(repo, "fetch", "-q", "origin")
    git(repo, "checkout", "-q", "-b", "side")
    first = commit_files(repo, {"keys.txt": key_line}, "keys")
    if drop:
        commit_files(repo, {}, "drop keys", delete=("keys.txt",))
    git(repo, "checkout", "-q", "main")
    return git(repo, "rev-parse", "side").strip(), first


def side_with_key(tmp_path: Path, key_line: str, *, drop: bool) -> tuple[Path, Path, str, str]:
    """`readme_pushed`, then a branch `side` the remote lacks that adds `key_line` in
    keys.txt (and, with `drop`, removes it again in a second commit); main checked out.
    Copied from a per-process template per (`key_line`, `drop`). Returns the
    repository, the remote, side's tip and the id of the commit adding the key."""
    tip, first = from_template(
        f"side-with-key:{drop}:{key_line}", tmp_path, lambda f: _side_with_key(f, key_line, drop)
    )
    return tmp_path / "repo", tmp_path / "remote.git", tip, first
