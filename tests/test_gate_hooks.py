"""End to end: installed git hooks run the real gates on real repositories.

Real git, real Ruff, the real `orchestrate` console script and pre-commit.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml
from gate_support import BAD_PY, GOOD_PY, SECRET_VALUE
from gate_support import clean_env as _env
from gate_support import run as _run
from helpers import REPO, VENV_BIN, add_remote, git, run_cli, set_machine_tool
from secrets_support import AWS_KEY

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e


def _commit(
    repo: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return _run(repo, "git", "commit", "-q", "-m", "change", *args, env=env)


def _stage(repo: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = repo / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        git(repo, "add", rel)


def _head_count(repo: Path) -> int:
    return int(git(repo, "rev-list", "--count", "HEAD").strip())


@pytest.fixture
def hooked(git_repo: Path) -> Path:
    res = run_cli(["install-hooks"], cwd=git_repo)
    assert res.returncode == 0, res.stderr
    return git_repo


def test_secret_in_config_env_blocks_commit_and_skips_do_not_help(hooked: Path) -> None:
    _stage(hooked, {"config/.env": f"DB_PASSWORD={SECRET_VALUE}\n"})
    for env, pre in (
        (_env(), ()),
        (_env(CODEGUARD_SKIP_GATE="true"), ()),
        (_env(), ("-c", "codeguard.skipGate=true")),
    ):
        res = _run(hooked, "git", *pre, "commit", "-q", "-m", "leak", env=env)
        out = res.stdout + res.stderr
        assert res.returncode != 0, out
        assert "config/.env" in out and "secret-dotenv-file" in out
        assert SECRET_VALUE not in out
        if env.get("CODEGUARD_SKIP_GATE") or pre:
            assert "legacy skip present" in out and "ignored" in out
    assert _head_count(hooked) == 1


def test_legacy_v1_skip_allows_language_gate_with_audit_but_never_secrets(git_repo: Path) -> None:
    assert run_cli(["install-hooks", "--protocol", "legacy-v1"], cwd=git_repo).returncode == 0
    _stage(git_repo, {"a.py": BAD_PY})
    res = _commit(git_repo)
    assert res.returncode != 0 and "F401" in res.stdout + res.stderr  # no skip: the gate checks
    res = _commit(git_repo, env=_env(CODEGUARD_SKIP_GATE="Yes"))
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert "skipped, not certified" in out
    audit = (git_repo / ".orchestrate/audit/skips.jsonl").read_text().splitlines()
    record = json.loads(audit[-1])
    assert record["source"] == "CODEGUARD_SKIP_GATE" and record["certified"] is False
    _stage(git_repo, {"config/.env": f"TOKEN={SECRET_VALUE}\n"})
    res = _run(git_repo, "git", "-c", "codeguard.skipGate=true", "commit", "-q", "-m", "leak")
    out = res.stdout + res.stderr
    assert res.returncode != 0 and "secret-dotenv-file" in out and SECRET_VALUE not in out
    assert len((git_repo / ".orchestrate/audit/skips.jsonl").read_text().splitlines()) == 2


def test_commit_all_and_partial_commits_check_the_index_git_uses(hooked: Path) -> None:
    _stage(hooked, {"a.py": GOOD_PY})
    assert _commit(hooked).returncode == 0
    (hooked / "a.py").write_text(BAD_PY)  # dirty worktree, clean index
    _stage(hooked, {"b.py": GOOD_PY})
    res = _commit(hooked)
    assert res.returncode == 0, res.stdout + res.stderr  # the worktree is not what is committed
    (hooked / "c.py").write_text(GOOD_PY)
    git(hooked, "add", "c.py")
    res = _commit(hooked, "-a")  # git sets GIT_INDEX_FILE to its temporary index
    assert res.returncode != 0 and "a.py" in res.stdout + res.stderr
    res = _commit(hooked, "--", "a.py")  # a partial commit, another temporary index
    assert res.returncode != 0 and "F401" in res.stdout + res.stderr
    res = _commit(hooked, "--", "c.py")
    assert res.returncode == 0, res.stdout + res.stderr
    # Staged bad, worktree fixed: the staged bytes are judged.
    git(hooked, "add", "a.py")
    (hooked / "a.py").write_text(GOOD_PY)
    assert _commit(hooked).returncode != 0


def test_real_push_runs_the_pre_push_gate(hooked: Path, tmp_path: Path) -> None:
    add_remote(hooked, tmp_path / "remote.git", push=False)
    assert _run(hooked, "git", "push", "-q", "origin", "main").returncode == 0
    git(hooked, "remote", "set-head", "origin", "main")
    _stage(hooked, {"bad.py": BAD_PY})
    assert _commit(hooked, "--no-verify").returncode == 0
    res = _run(hooked, "git", "push", "-q", "origin", "main")
    assert res.returncode != 0 and "bad.py" in res.stdout + res.stderr
    _stage(hooked, {"bad.py": GOOD_PY})
    assert _commit(hooked).returncode == 0
    res = _run(hooked, "git", "push", "-q", "origin", "main")
    assert res.returncode == 0, res.stdout + res.stderr
    # New branch: only what it adds over the default branch is checked.
    git(hooked, "checkout", "-q", "-b", "feature")
    _stage(hooked, {"feat.py": BAD_PY})
    assert _commit(hooked, "--no-verify").returncode == 0
    res = _run(hooked, "git", "push", "-q", "origin", "feature")
    assert res.returncode != 0 and "feat.py" in res.stdout + res.stderr
    git(hooked, "checkout", "-q", "-b", "clean", "main")
    assert _run(hooked, "git", "push", "-q", "origin", "clean").returncode == 0
    # Deleting a ref checks nothing and passes.
    res = _run(hooked, "git", "push", "-q", "origin", "--delete", "clean")
    assert res.returncode == 0, res.stdout + res.stderr


def test_missing_ruff_is_incomplete_under_strict_unverified_under_legacy(git_repo: Path) -> None:
    set_machine_tool("ruff", "/nonexistent/bin/ruff")
    (git_repo / "pyproject.toml").write_text('[project]\nname = "x"\n')
    git(git_repo, "add", "pyproject.toml")
    git(git_repo, "commit", "-q", "-m", "config")
    _stage(git_repo, {"a.py": GOOD_PY})
    res = run_cli(["gate", "commit"], cwd=git_repo, env=_env())
    assert res.returncode == 3, res.stdout + res.stderr
    assert "incomplete" in res.stdout and "install Ruff" in res.stdout
    assert "does not mean the code has errors" in res.stdout
    assert "finding:" not in res.stdout
    res = run_cli(["gate", "commit", "--protocol", "legacy-v1"], cwd=git_repo, env=_env())
    assert res.returncode == 0 and "UNVERIFIED" in res.stdout


def test_ci_gate_checks_an_immutable_commit(git_repo: Path) -> None:
    _stage(git_repo, {"a.py": GOOD_PY})
    git(git_repo, "commit", "-q", "-m", "good")
    good = git(git_repo, "rev-parse", "HEAD").strip()
    _stage(git_repo, {"a.py": BAD_PY})
    git(git_repo, "commit", "-q", "-m", "bad")
    (git_repo / "a.py").write_text(GOOD_PY)
    res = run_cli(["gate", "ci", "--format", "json"], cwd=git_repo, env=_env())
    assert res.returncode == 1
    report = json.loads(res.stdout)
    assert report["request"]["surface"] == "revision" and report["gate"]["decision"] == "deny"
    assert len(report["request"]["revision"]) == 40
    res = run_cli(["gate", "ci", "--rev", good], cwd=git_repo, env=_env())
    assert res.returncode == 0, res.stdout


def test_pre_commit_framework_runs_the_gate(git_repo: Path, tmp_path: Path) -> None:
    manifest = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    hook = next(h for h in manifest if h["id"] == "orchestrate-commit-gate")
    config = {"repos": [{"repo": "local", "hooks": [hook]}]}
    (git_repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    git(git_repo, "add", ".pre-commit-config.yaml")
    git(git_repo, "commit", "-q", "-m", "pre-commit")
    env = _env(PRE_COMMIT_HOME=str(tmp_path / "pc-home"))
    _stage(git_repo, {"a.py": GOOD_PY})
    res = _run(git_repo, str(VENV_BIN / "pre-commit"), "run", "--all-files", env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "orchestrate commit gate" in res.stdout
    _stage(git_repo, {"b.py": BAD_PY})
    res = _run(git_repo, str(VENV_BIN / "pre-commit"), "run", "--all-files", env=env)
    assert res.returncode != 0 and "F401" in res.stdout


def test_pre_commit_framework_runs_the_gate_on_merges(git_repo: Path, tmp_path: Path) -> None:
    """A merge that needs no conflict resolution runs pre-merge-commit, not pre-commit:
    the manifest's hook must run there too, or `git merge feature` lands a finding."""
    manifest = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    hook = next(h for h in manifest if h["id"] == "orchestrate-commit-gate")
    assert "pre-merge-commit" in hook["stages"]
    config = {"repos": [{"repo": "local", "hooks": [hook]}]}
    (git_repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    git(git_repo, "add", ".pre-commit-config.yaml")
    git(git_repo, "commit", "-q", "-m", "pre-commit")
    base = git(git_repo, "rev-parse", "--abbrev-ref", "HEAD").strip()
    env = _env(PRE_COMMIT_HOME=str(tmp_path / "pc-home"))
    git(git_repo, "checkout", "-q", "-b", "feature")
    _stage(git_repo, {"feat.py": BAD_PY})
    git(git_repo, "commit", "-q", "-m", "feature")
    git(git_repo, "checkout", "-q", base)
    _stage(git_repo, {"other.py": GOOD_PY})
    git(git_repo, "commit", "-q", "-m", "diverge")  # so the merge is a real merge commit
    res = _run(
        git_repo,
        str(VENV_BIN / "pre-commit"),
        "install",
        "--hook-type",
        "pre-merge-commit",
        env=env,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    before = _head_count(git_repo)
    res = _run(git_repo, "git", "merge", "--no-edit", "feature", env=env)
    assert res.returncode != 0, res.stdout + res.stderr
    assert "F401" in res.stdout + res.stderr
    assert _head_count(git_repo) == before


def test_pre_commit_framework_scans_the_commit_message(git_repo: Path, tmp_path: Path) -> None:
    manifest = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    hook = next(h for h in manifest if h["id"] == "orchestrate-commit-msg-gate")
    config = {"repos": [{"repo": "local", "hooks": [hook]}]}
    (git_repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    git(git_repo, "add", ".pre-commit-config.yaml")
    git(git_repo, "commit", "-q", "-m", "pre-commit")
    env = _env(PRE_COMMIT_HOME=str(tmp_path / "pc-home"))
    res = _run(
        git_repo, str(VENV_BIN / "pre-commit"), "install", "--hook-type", "commit-msg", env=env
    )
    assert res.returncode == 0, res.stdout + res.stderr
    before = _head_count(git_repo)
    msg = tmp_path / "msg.txt"
    msg.write_text(f"config\n\naws {AWS_KEY}\n")
    res = _run(git_repo, "git", "commit", "-q", "--allow-empty", "-F", str(msg), env=env)
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "secret-aws-access-key-id" in out and AWS_KEY not in out
    assert _head_count(git_repo) == before
    msg.write_text("a clean message\n")
    res = _run(git_repo, "git", "commit", "-q", "--allow-empty", "-F", str(msg), env=env)
    assert res.returncode == 0, res.stdout + res.stderr
