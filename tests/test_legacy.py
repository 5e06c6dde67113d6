"""legacy-v1: strict skip-value parsing, git-config skips as git resolves them, the audit log."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from gate_support import (
    BAD_PY,
    audit_records,
    clean_env,
    orchestrate,
    run,
    stage,
)
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

ACCEPTED = ["1", "true", "TRUE", "True", "tRuE", "yes", "YES", "Yes"]
#: Spellings the old protocol never accepted: blanks around an accepted word, other
#: booleans git or YAML would take, look-alike characters.
ADVERSARIAL = [
    " 1",
    "1 ",
    " true",
    "true ",
    "\ttrue",
    "yes\n",
    "\nyes",
    " yes ",
    "TRUE\r",
    "1\t",
    "\u00a0yes",
    "\uff59\uff45\uff53",  # full-width "yes"
    "on",
    "ON",
    "y",
    "Y",
    "2",
    "-1",
    "0x1",
    "01",
]


@pytest.mark.parametrize("value", ACCEPTED)
def test_accepted_env_values(value: str) -> None:
    skip = env_skip({"CODEGUARD_SKIP_GATE": value})
    assert skip is not None and skip.source == "CODEGUARD_SKIP_GATE"
    assert skip.value == value


@pytest.mark.parametrize(
    "value", ["0", "false", "FALSE", "", "no", "off", "truee", "1 1", *ADVERSARIAL]
)
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


@pytest.mark.parametrize("value", ACCEPTED)
def test_config_accepts_the_same_values(git_repo: Path, value: str) -> None:
    skip = config_skip(_git(git_repo, GIT_CONFIG_PARAMETERS=f"'codeguard.skipGate'='{value}'"))
    assert skip is not None and skip.source == "git config codeguard.skipGate"


@pytest.mark.parametrize("value", ["0", "false", "", "no", "off", *ADVERSARIAL])
def test_config_rejects_what_the_environment_rejects(git_repo: Path, value: str) -> None:
    """One value rule for both sources: git's own boolean parsing (which takes `on`, `2`,
    `0x1`, and a key with no value) does not decide a legacy skip."""
    git(git_repo, "config", "codeguard.skipGate", value)
    resolved = subprocess.run(
        ["git", "config", "--null", "--get", "codeguard.skipGate"],
        cwd=git_repo,
        capture_output=True,
        check=True,
    ).stdout
    assert resolved == (value + "\0").encode()  # git hands the exact spelling over
    assert config_skip(_git(git_repo)) is None
    assert legacy_skip(_git(git_repo), {}) is None


def test_config_key_without_a_value_does_not_skip(git_repo: Path) -> None:
    with (git_repo / ".git/config").open("a") as fh:
        fh.write("[codeguard]\n\tskipGate\n")
    assert git(git_repo, "config", "--type=bool", "--get", "codeguard.skipGate") == "true\n"
    assert config_skip(_git(git_repo)) is None


@pytest.mark.parametrize("value", [" 1", "true ", "yes\n", "on"])
def test_adversarial_values_do_not_skip_the_real_commit(git_repo: Path, value: str) -> None:
    """Through the installed legacy hook, from the environment and from `git -c`."""
    assert orchestrate(git_repo, "install-hooks", "--protocol", "legacy-v1").returncode == 0
    stage(git_repo, {"a.py": BAD_PY})
    for env, pre in (
        (clean_env(CODEGUARD_SKIP_GATE=value), ()),
        (clean_env(), ("-c", f"codeguard.skipGate={value}")),
    ):
        res = run(git_repo, "git", *pre, "commit", "-q", "-m", "x", env=env)
        out = res.stdout + res.stderr
        assert res.returncode != 0 and "F401" in out, out
        assert "skipped" not in out
    assert audit_records(git_repo) == []
    assert git(git_repo, "rev-list", "--count", "HEAD").strip() == "1"


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
