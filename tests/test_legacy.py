"""legacy-v1: strict skip-value parsing, git-config skips as git resolves them, the audit log."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import git

from orchestrator.deadline import Deadline
from orchestrator.gates.legacy import (
    audit_skip,
    config_skip,
    env_skip,
    legacy_skip,
    legacy_skip_sources,
)
from orchestrator.git.runner import Git


@pytest.mark.parametrize("value", ["1", "true", "TRUE", "True", "yes", "YES", " yes "])
def test_accepted_env_values(value: str) -> None:
    skip = env_skip({"CODEGUARD_SKIP_GATE": value})
    assert skip is not None and skip.source == "CODEGUARD_SKIP_GATE"


@pytest.mark.parametrize("value", ["0", "false", "FALSE", "", "no", "on", "2", "y", "truee", "1 1"])
def test_rejected_env_values(value: str) -> None:
    assert env_skip({"CODEGUARD_SKIP_GATE": value}) is None
    assert env_skip({}) is None


def _git(repo: Path, **env: str) -> Git:
    return Git(repo, Deadline.after(30), env={**os.environ, **env})


def test_config_skip_follows_git_resolution(git_repo: Path, tmp_path: Path) -> None:
    assert config_skip(_git(git_repo)) is None
    # `git -c codeguard.skipGate=true` reaches hooks as GIT_CONFIG_PARAMETERS.
    assert (
        config_skip(_git(git_repo, GIT_CONFIG_PARAMETERS="'codeguard.skipGate'='true'")) is not None
    )
    assert config_skip(_git(git_repo, GIT_CONFIG_PARAMETERS="'codeguard.skipGate'='maybe'")) is None
    # A chained (included) config file counts: git resolves it.
    extra = tmp_path / "chained.gitconfig"
    extra.write_text("[codeguard]\n\tskipGate = yes\n")
    git(git_repo, "config", "include.path", str(extra))
    skip = config_skip(_git(git_repo))
    assert skip is not None and skip.source == "git config codeguard.skipGate"
    git(git_repo, "config", "codeguard.skipGate", "false")  # the later setting wins
    assert config_skip(_git(git_repo)) is None
    assert legacy_skip(_git(git_repo), {"CODEGUARD_SKIP_GATE": "1"}) is not None


def test_sources_report_any_value_for_strict_entries(git_repo: Path) -> None:
    assert legacy_skip_sources(_git(git_repo), {}) == []
    git(git_repo, "config", "codeguard.skipGate", "false")
    found = legacy_skip_sources(_git(git_repo), {"CODEGUARD_SKIP_GATE": "0"})
    assert found == ["git config codeguard.skipGate", "CODEGUARD_SKIP_GATE"]


def test_audit_log_counts_and_stays_ignored(git_repo: Path) -> None:
    skip = env_skip({"CODEGUARD_SKIP_GATE": "yes"})
    assert skip is not None
    assert audit_skip(git_repo, "commit", skip, 0) == 1
    assert audit_skip(git_repo, "push", skip, 2) == 2
    lines = (git_repo / ".orchestrate/audit/skips.jsonl").read_text().splitlines()
    last = json.loads(lines[-1])
    assert last["event"] == "push" and last["secret_findings"] == 2 and last["certified"] is False
    status = git(git_repo, "status", "--porcelain", "--untracked-files=all")
    assert "audit" not in status  # runtime state stays git-ignored
