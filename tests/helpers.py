"""Shared test helpers: tool requirements (no silent skips under CI), repos, the CLI.

Import them with `from helpers import ...` (tests/ is on sys.path via the root conftest)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
IN_CI = os.environ.get("CI", "").lower() == "true"


def require_tool(name: str, install_hint: str, path: str | None = None) -> str:
    """The absolute path of `name`, or fail (under CI=true) / skip (locally) with the hint."""
    found = path if path and Path(path).exists() else shutil.which(name)
    if found:
        return found
    message = f"{name} is required for this test: {install_hint}"
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


def eslint_path() -> str:
    """The managed ESLint installed by the set-up (tools/eslint)."""
    return require_tool(
        "eslint",
        "run ./run setup (npm ci --prefix tools/eslint)",
        path=str(REPO / "tools/eslint/node_modules/.bin/eslint"),
    )


def run_cli(
    args: Sequence[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the real `orchestrate` console script (end-to-end cases only)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [str(VENV_BIN / "orchestrate"), *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run git in `repo` with a fixed identity; return stdout."""
    full_env = dict(os.environ)
    full_env.update(
        {
            "GIT_AUTHOR_NAME": "Test",
            "GIT_AUTHOR_EMAIL": "test@example.invalid",
            "GIT_COMMITTER_NAME": "Test",
            "GIT_COMMITTER_EMAIL": "test@example.invalid",
        }
    )
    full_env.update(env or {})
    out = subprocess.run(
        ["git", *args], cwd=repo, env=full_env, capture_output=True, text=True, check=True
    )
    return out.stdout


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """An empty git repository with an initial commit on branch main."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Test")
    git(repo, "config", "user.email", "test@example.invalid")
    git(repo, "config", "commit.gpgsign", "false")
    (repo / "README.md").write_text("test\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "init")
    return repo


@pytest.fixture
def write_files() -> Callable[[Path, dict[str, str | bytes]], None]:
    """Write a mapping of relative path -> content under a folder."""

    def _write(base: Path, files: dict[str, str | bytes]) -> None:
        for rel, content in files.items():
            p = base / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                p.write_bytes(content)
            else:
                p.write_text(content)

    return _write


# Third-party schemas and the scenario catalogue travel with the repository
# (schemas/*/SOURCE.md, conformance/SCENARIOS.md): a fresh clone needs nothing beside it.
SCHEMAS = REPO / "schemas"
SCENARIOS = REPO / "conformance" / "SCENARIOS.md"


def sarif_schema() -> dict:
    """The OASIS SARIF 2.1.0 schema with its one known-bad pattern fixed.

    The upstream `run.language` pattern uses an inline `(?i)` flag Python's `re` refuses
    (see schemas/sarif/SOURCE.md). The vendored file stays byte-for-byte upstream; the
    fix proposed upstream is applied here, in memory, and nowhere else.
    """
    import json

    text = (SCHEMAS / "sarif" / "sarif-schema-2.1.0.json").read_text()
    text = text.replace("^(?i)[a-zA]{2}(-[a-z]{2})?$", "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$")
    schema = json.loads(text)
    return schema
