"""legacy-v1: strict skip-value parsing, git-config skips as git resolves them, the audit
log, and the gate's text matching its exit code for every legacy outcome."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from gate_support import (
    BAD_PY,
    GOOD_PY,
    SECRET_VALUE,
    audit_records,
    broken_index,
    clean_env,
    orchestrate,
    ruff_unavailable,
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
from orchestrator.render.output import legacy_headline
from orchestrator.vocab import GateDecision

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


@pytest.mark.e2e
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


# --- the legacy gate's text matches its exit code, outcome by outcome --------------------

#: How the legacy texts deny a certification; every other "certif..." would claim one.
NEGATIONS = (
    "not certified",
    "nothing was certified",
    "not a certified pass",
    "not a certification",
    "no certification",
)


def _claims_certified(text: str) -> bool:
    low = text.lower()
    for phrase in NEGATIONS:
        low = low.replace(phrase, "")
    return "certif" in low


def _missing_tool(repo: Path) -> dict[str, str]:
    ruff_unavailable(repo)
    stage(repo, {"a.py": GOOD_PY})
    return clean_env()


def _configured_tool_missing(repo: Path) -> dict[str, str]:
    """The project configures Ruff (ruff.toml) and Ruff is not there: lint exits 3 for
    it (issue 32), the legacy protocol still fails open, unverified."""
    (repo / "ruff.toml").write_text("line-length = 100\n")
    git(repo, "add", "ruff.toml")
    ruff_unavailable(repo)
    stage(repo, {"a.py": GOOD_PY})
    return clean_env()


def _missing_tool_and_secret(repo: Path) -> dict[str, str]:
    ruff_unavailable(repo)
    stage(repo, {"a.py": GOOD_PY, "config/.env": f"TOKEN={SECRET_VALUE}\n"})
    return clean_env()


def _finding(repo: Path) -> dict[str, str]:
    stage(repo, {"a.py": BAD_PY})
    return clean_env()


def _clean(repo: Path) -> dict[str, str]:
    stage(repo, {"a.py": GOOD_PY})
    return clean_env()


def _nothing_staged(repo: Path) -> dict[str, str]:
    return clean_env()


def _skip(repo: Path) -> dict[str, str]:
    stage(repo, {"a.py": BAD_PY})
    return clean_env(CODEGUARD_SKIP_GATE="1")


def _skip_with_secret(repo: Path) -> dict[str, str]:
    stage(repo, {"a.py": BAD_PY, "config/.env": f"TOKEN={SECRET_VALUE}\n"})
    return clean_env(CODEGUARD_SKIP_GATE="1")


def _fault(repo: Path) -> dict[str, str]:
    stage(repo, {"a.py": GOOD_PY})
    return broken_index(repo)


#: (set-up, exit code, a word the headline must carry). Exit 2 blocks; exit 0 passes or
#: fails open, and then says why nothing was certified.
OUTCOMES: dict[str, tuple[Callable[[Path], dict[str, str]], int, str]] = {
    "missing tool": (_missing_tool, 0, "unverified"),
    "configured tool missing": (_configured_tool_missing, 0, "unverified"),
    "missing tool and a secret": (_missing_tool_and_secret, 2, "blocked"),
    "blocking finding": (_finding, 2, "blocked"),
    "clean": (_clean, 0, "pass"),
    "nothing staged": (_nothing_staged, 0, "not applicable"),
    "skip": (_skip, 0, "skipped, not certified"),
    "skip with a secret": (_skip_with_secret, 2, "blocked"),
    "internal fault": (_fault, 0, "unverified"),
}


@pytest.mark.e2e
@pytest.mark.parametrize("outcome", list(OUTCOMES))
def test_legacy_text_matches_the_exit_code(git_repo: Path, outcome: str) -> None:
    setup, code, word = OUTCOMES[outcome]
    env = setup(git_repo)
    res = orchestrate(git_repo, "compat", "legacy-v1", "gate", "commit", env=env)
    out = res.stdout + res.stderr
    assert res.returncode == code, out
    headline = res.stdout.splitlines()[0].lower()
    assert word in headline, headline
    assert not _claims_certified(out), out
    if code == 0:
        assert "blocked" not in out.lower(), out
    else:
        assert "blocked (exit 2)" in headline, headline


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("outcome", "word"),
    [("missing tool", "unverified (exit 0)"), ("blocking finding", "blocked (exit 2)")],
)
def test_soft_prompt_names_the_legacy_outcome(git_repo: Path, outcome: str, word: str) -> None:
    """The prompt's advice says what the legacy commit gate does with the staged files."""
    env = OUTCOMES[outcome][0](git_repo)
    event = json.dumps({"prompt": "commit this", "cwd": str(git_repo)})
    res = orchestrate(git_repo, "compat", "legacy-v1", "prompt", env=env, stdin=event)
    assert res.returncode == 0, res.stderr
    context = json.loads(res.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "advice only" in context and word in context.lower(), context
    assert not _claims_certified(context)
    if "exit 0" in word:
        assert "blocked" not in context.lower()


def test_every_legacy_headline_matches_its_exit() -> None:
    """Every gate decision, blocking or not: "blocked" only with exit 2; with exit 0 a
    pass, nothing to check, a skip or UNVERIFIED, and never a certification."""
    open_words = {
        GateDecision.ALLOW: "pass (exit 0)",
        GateDecision.NOT_APPLICABLE: "not applicable (exit 0)",
        GateDecision.NOT_EVALUATED: "skipped, not certified (exit 0)",
    }
    for decision in GateDecision:
        blocked = legacy_headline(decision, block=True)
        assert blocked.startswith("blocked (exit 2): ") and not _claims_certified(blocked)
        passed = legacy_headline(decision, block=False)
        assert "block" not in passed.replace("no blocking finding", "")
        assert not _claims_certified(passed)
        assert passed.startswith(open_words.get(decision, "UNVERIFIED (exit 0): ")), passed


def test_the_legacy_prompt_decodes_its_event_as_the_hosts_do(monkeypatch) -> None:
    """One host-event decoder: the legacy-v1 prompt reads stdin through hosts/events."""
    import io

    from orchestrator.cli import legacy_gate

    seen: list[bytes] = []

    def decode(data: bytes) -> dict[str, object] | None:
        seen.append(data)
        return None

    monkeypatch.setattr(legacy_gate, "decode_event", decode)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b'{"prompt": "hi"}')))
    assert legacy_gate._read_event() is None
    assert seen == [b'{"prompt": "hi"}']
