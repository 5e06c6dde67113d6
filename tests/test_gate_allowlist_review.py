"""The secret allowlist is reviewed policy: at the local strict gates (commit, push) an
entry counts only when the base holds it too, so an allowlist written and committed
together with the secret it allows does not open the gate. `gate ci` (a pull request's
review sees the allowlist change) applies the judged revision's allowlist and names
every entry it adds in the gate reasons."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import add_remote, git, new_repo, run_cli, stage
from orchestrate_plugins.secrets_allow import parse_allowlist, reviewed_allowlist
from secrets_support import AWS_KEY

from orchestrator.usecases.gate import pre_tool_gate
from orchestrator.vocab import GateDecision

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

ALLOW = ".orchestrate-secrets-allow"
SECRET = {"fixture.py": f'KEY = "{AWS_KEY}"\n'}
ADDED = "allowlist entries added in this change apply once the allowlist change is"


def _json(res) -> dict:  # type: ignore[no-untyped-def,type-arg]
    return json.loads(res.stdout)


def _fingerprint(repo: Path) -> str:
    res = run_cli(["gate", "commit", "--format", "json"], cwd=repo)
    [secret] = [f for f in _json(res)["findings"] if f["checker"] == "secrets"]
    return str(secret["fingerprint"])


def test_commit_allowlist_staged_with_the_secret_does_not_clear_it(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", SECRET)
    fp = _fingerprint(repo)
    stage(repo, {ALLOW: f"{fp} aws-access-key fixture.py test fixture\n"})
    res = run_cli(["gate", "commit", "--format", "json"], cwd=repo)
    report = _json(res)
    assert res.returncode == 1, report["gate"]
    assert [f["fingerprint"] for f in report["findings"] if f["checker"] == "secrets"] == [fp]
    text = " ".join(report["notes"] + report["gate"]["reasons"])
    assert ADDED in text and fp in text and "commit it first" in text
    assert AWS_KEY not in res.stdout + res.stderr


def test_commit_escape_hatch_is_the_allowlist_committed_alone_first(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", SECRET)
    fp = _fingerprint(repo)
    git(repo, "reset", "-q")
    stage(repo, {ALLOW: f"{fp} aws-access-key fixture.py test fixture\n"})
    alone = run_cli(["gate", "commit", "--format", "json"], cwd=repo)
    assert alone.returncode == 0, _json(alone)["gate"]
    git(repo, "commit", "-q", "-m", "allow the fixture key")
    git(repo, "add", "fixture.py")
    res = run_cli(["gate", "commit", "--format", "json"], cwd=repo)
    report = _json(res)
    assert res.returncode == 0, report["gate"]
    assert any(fp in n and "allowed" in n for n in report["notes"])


def _pushed_together(tmp_path: Path) -> tuple[Path, str, str]:
    repo = new_repo(tmp_path / "r")
    remote = add_remote(repo, tmp_path / "remote.git")
    base = git(repo, "rev-parse", "HEAD").strip()
    stage(repo, SECRET)
    fp = _fingerprint(repo)
    stage(repo, {ALLOW: f"{fp}\n"})
    git(repo, "commit", "-q", "-m", "fixture and its allowance")
    assert remote.is_dir()
    return repo, base, fp


def test_push_allowlist_pushed_with_the_secret_does_not_clear_it(tmp_path: Path) -> None:
    repo, base, fp = _pushed_together(tmp_path)
    tip = git(repo, "rev-parse", "HEAD").strip()
    line = f"refs/heads/main {tip} refs/heads/main {base}\n"
    res = run_cli(["gate", "push", "origin", "--format", "json"], cwd=repo, stdin=line)
    report = _json(res)
    assert res.returncode == 1, report["gate"]
    text = " ".join(report["notes"] + report["gate"]["reasons"])
    assert ADDED in text and fp in text

    # A new ref: the base is what the remote holds (the merge base with origin's branch).
    zero = "0" * 40
    line = f"refs/heads/topic {tip} refs/heads/topic {zero}\n"
    res = run_cli(["gate", "push", "origin", "--format", "json"], cwd=repo, stdin=line)
    assert res.returncode == 1, _json(res)["gate"]


def test_push_allowlist_already_on_the_remote_clears_the_secret(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", SECRET)
    fp = _fingerprint(repo)
    git(repo, "reset", "-q")
    stage(repo, {ALLOW: f"{fp}\n"})
    git(repo, "commit", "-q", "-m", "allow the fixture key")
    add_remote(repo, tmp_path / "remote.git")
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "add", "fixture.py")
    git(repo, "commit", "-q", "-m", "fixture")
    tip = git(repo, "rev-parse", "HEAD").strip()
    line = f"refs/heads/main {tip} refs/heads/main {base}\n"
    res = run_cli(["gate", "push", "origin", "--format", "json"], cwd=repo, stdin=line)
    assert res.returncode == 0, _json(res)["gate"]


def test_ci_applies_the_revision_allowlist_and_names_added_entries(tmp_path: Path) -> None:
    repo, _base, fp = _pushed_together(tmp_path)
    res = run_cli(["gate", "ci", "--rev", "HEAD", "--format", "json"], cwd=repo)
    report = _json(res)
    assert res.returncode == 0, report["gate"]
    assert any(fp in r and "added" in r for r in report["gate"]["reasons"]), report["gate"]


def test_ci_of_a_root_commit_names_every_entry_as_added(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", initial_commit=False)
    stage(repo, SECRET)
    fp = _fingerprint(repo)
    stage(repo, {ALLOW: f"{fp}\n"})
    git(repo, "commit", "-q", "-m", "root")
    res = run_cli(["gate", "ci", "--rev", "HEAD", "--format", "json"], cwd=repo)
    report = _json(res)
    assert res.returncode == 0, report["gate"]
    assert any(fp in r and "added" in r for r in report["gate"]["reasons"]), report["gate"]


def test_pre_tool_commit_gate_applies_only_reviewed_entries(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", SECRET)
    fp = _fingerprint(repo)
    stage(repo, {ALLOW: f"{fp}\n"})
    report = pre_tool_gate("commit", repo, 120)
    assert report.gate is not None and report.gate.decision == GateDecision.DENY
    assert any(ADDED in n and fp in n for n in report.notes)


def test_reviewed_allowlist_keeps_line_numbers_and_names_added_entries() -> None:
    base = b"aaaaaaaaaaaaaaaa old\n"
    surface = b"# reviewed\naaaaaaaaaaaaaaaa old\nbbbbbbbbbbbbbbbb new\nnot an entry\n"
    applied, added = reviewed_allowlist(base, surface)
    assert added == ("bbbbbbbbbbbbbbbb",)
    assert applied is not None
    assert parse_allowlist(applied).fingerprints == {"aaaaaaaaaaaaaaaa"}
    assert parse_allowlist(applied).problems == parse_allowlist(surface).problems
    assert reviewed_allowlist(None, surface)[0] is not None
    assert not parse_allowlist(reviewed_allowlist(None, surface)[0]).fingerprints
    assert reviewed_allowlist(base, None) == (None, ())
