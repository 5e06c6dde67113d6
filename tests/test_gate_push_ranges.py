"""Push ranges at the strict push gate: every pushed commit is scanned for secrets, the
tip is linted, and the range comes from git's pre-push lines (the remote's real commit).

Real git, a real bare remote in a tmp folder, real `git push` through our installed
pre-push hook, `gate push` with hand-written pre-push lines, and the pre-tool push.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gate_support import BAD_PY, GOOD_PY, commit_files
from gate_support import orchestrate as _orchestrate
from gate_support import run as _run
from helpers import add_remote, git, run_cli
from secrets_support import AWS_KEY

from orchestrator.usecases.gate import pre_tool_gate
from orchestrator.vocab import GateDecision

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

ZERO = "0" * 40


_commit = commit_files


def _head(repo: Path, rev: str = "HEAD") -> str:
    return git(repo, "rev-parse", rev).strip()


@pytest.fixture
def remote(git_repo: Path, tmp_path: Path) -> Path:
    """`git_repo` with `origin` (a bare repository) holding main; hooks installed after."""
    _commit(git_repo, {"app.py": GOOD_PY})
    add_remote(git_repo, tmp_path / "remote.git")
    res = run_cli(["install-hooks"], cwd=git_repo)
    assert res.returncode == 0, res.stderr
    return git_repo


def _secret_then_removed(repo: Path) -> tuple[str, str]:
    """Commit 1 adds an AWS key (in a kept file and in a file deleted again); commit 2
    removes both. The tip is clean."""
    first = _commit(
        repo,
        {"config.py": f'KEY = "{AWS_KEY}"\n', "notes/keys.txt": f"aws {AWS_KEY}\n"},
        "add config",
    )
    second = _commit(repo, {"config.py": 'KEY = ""\n'}, "remove key", delete=("notes/keys.txt",))
    return first, second


def test_secret_added_then_removed_in_a_pushed_range_blocks_the_real_push(remote: Path) -> None:
    first, _ = _secret_then_removed(remote)
    res = _run(remote, "git", "push", "-q", "origin", "main")
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "secret-aws-access-key-id" in out and first[:12] in out
    assert "config.py" in out and "notes/keys.txt" in out
    assert AWS_KEY not in out
    assert _head(remote, "refs/remotes/origin/main") != _head(remote)  # nothing was pushed


def test_gate_push_names_the_commit_and_judges_the_tip_whole(remote: Path) -> None:
    old = _head(remote)
    first, second = _secret_then_removed(remote)
    line = f"refs/heads/main {second} refs/heads/main {old}\n"
    res = _orchestrate(remote, "gate", "push", "origin", "--format", "json", stdin=line)
    assert res.returncode == 1, res.stdout + res.stderr
    report = json.loads(res.stdout)
    assert report["gate"]["decision"] == "deny"
    findings = {(f["path"], f["rule"]) for f in report["findings"]}
    assert findings == {
        ("config.py", "secret-aws-access-key-id"),
        ("notes/keys.txt", "secret-aws-access-key-id"),
    }
    assert any(f"added by commit {first[:12]}" in n for n in report["notes"])
    # The tip's config.py is judged by every checker; the earlier versions by the scan alone.
    scopes = {(s["path"], s["checker"], s.get("reason") or "") for s in report["scopes"]}
    assert ("config.py", "ruff", "") in {(p, c, "") for p, c, _ in scopes}
    history = [s for s in report["scopes"] if "secret scan only" in (s.get("reason") or "")]
    # Each pushed commit's message is scanned too, under a synthetic label.
    messages = {f"<commit {c[:12]} message>" for c in (first, second)}
    assert {s["path"] for s in history} == {"config.py", "notes/keys.txt"} | messages
    assert all(s["checker"] == "secrets" and s["status"] == "checked" for s in history)
    # An earlier version's lint does not matter, only the tip's: no incomplete, no F401.
    assert not any(f["rule"] == "F401" for f in report["findings"])


def test_a_range_whose_history_is_clean_allows(remote: Path) -> None:
    old = _head(remote)
    _commit(remote, {"b.py": BAD_PY})
    tip = _commit(remote, {"b.py": GOOD_PY})
    line = f"refs/heads/main {tip} refs/heads/main {old}\n"
    res = _orchestrate(remote, "gate", "push", "origin", "--format", "json", stdin=line)
    report = json.loads(res.stdout)
    assert res.returncode == 0, report["gate"]
    assert report["gate"]["decision"] == "allow"


def test_new_branch_range_is_what_the_remote_says_it_lacks(
    remote: Path,
) -> None:
    _commit(remote, {"legacy.py": BAD_PY}, "on main, pushed unchecked")
    assert _run(remote, "git", "push", "-q", "--no-verify", "origin", "main").returncode == 0
    git(remote, "checkout", "-q", "-b", "feature")
    tip = _commit(remote, {"feat.py": GOOD_PY})
    line = f"refs/heads/feature {tip} refs/heads/feature {ZERO}\n"
    res = _orchestrate(remote, "gate", "push", "origin", "--format", "json", stdin=line)
    report = json.loads(res.stdout)
    assert res.returncode == 0, report["gate"]
    # legacy.py is on the remote; the one pushed commit's message is scanned.
    assert {s["path"] for s in report["scopes"]} == {"feat.py", f"<commit {tip[:12]} message>"}
    assert any(
        "new ref refs/heads/feature" in n and "as the remote advertised them" in n
        for n in report["notes"]
    )
    res = _orchestrate(remote, "gate", "push", "origin", stdin=line)
    assert "as the remote advertised them" in res.stdout


def test_remote_commit_unknown_locally_is_incomplete_never_not_applicable(remote: Path) -> None:
    tip = _head(remote)
    unknown = "1234abcd" * 5
    line = f"refs/heads/main {tip} refs/heads/main {unknown}\n"
    res = _orchestrate(remote, "gate", "push", "origin", "--format", "json", stdin=line)
    assert res.returncode == 3, res.stdout + res.stderr
    report = json.loads(res.stdout)
    assert report["gate"]["decision"] == "incomplete"
    assert any(
        "1234abcd1234" in r and "not in this repository" in r for r in report["gate"]["reasons"]
    )
    assert any("git fetch origin" in r for r in report["gate"]["recovery"])
    assert not any("essential plugins" in r for r in report["gate"]["recovery"])


def test_forged_remote_tracking_ref_does_not_open_either_push_gate(remote: Path) -> None:
    first, second = _secret_then_removed(remote)
    git(remote, "update-ref", "refs/remotes/origin/main", second)  # the remote lacks both
    # git's own pre-push lines carry the remote's real commit: the hook still blocks.
    res = _run(remote, "git", "push", "-q", "origin", "main")
    out = res.stdout + res.stderr
    assert res.returncode != 0 and first[:12] in out, out
    # Before the push (an agent's `git push`) the remote is asked for its commit: the
    # ref moved by hand is not read.
    report = pre_tool_gate("push", remote, 120)
    assert report.gate is not None
    assert report.gate.decision == GateDecision.DENY, report.gate
    assert any("as the remote advertised it before the push" in n for n in report.notes)


def test_pre_tool_push_of_new_commits_says_where_its_range_comes_from(remote: Path) -> None:
    tip = _commit(remote, {"ok.py": GOOD_PY})
    report = pre_tool_gate("push", remote, 120)
    assert report.gate is not None and report.gate.decision == GateDecision.ALLOW
    assert any("as the remote advertised it before the push" in n for n in report.notes)
    assert {s.path for s in report.scopes} == {"ok.py", f"<commit {tip[:12]} message>"}


def test_pushed_submodule_update_is_named_and_incomplete(remote: Path, tmp_path: Path) -> None:
    old = _head(remote)
    sub = tmp_path / "sub"
    sub.mkdir()
    git(sub, "init", "-q", "-b", "main")
    _commit(sub, {"s.py": GOOD_PY})
    oid = _head(sub)
    git(remote, "update-index", "--add", "--cacheinfo", f"160000,{oid},vendor/sub")
    git(remote, "commit", "-q", "--no-verify", "-m", "add submodule")
    line = f"refs/heads/main {_head(remote)} refs/heads/main {old}\n"
    res = _orchestrate(remote, "gate", "push", "origin", "--format", "json", stdin=line)
    report = json.loads(res.stdout)
    assert res.returncode == 3, report["gate"]
    assert any(f"submodule at commit {oid[:12]}" in r for r in report["gate"]["reasons"])
    assert not any("essential plugins" in r for r in report["gate"]["recovery"])


def test_history_scan_reads_odd_file_names_as_names(remote: Path) -> None:
    old = _head(remote)
    odd = {"f" * 40: f"aws {AWS_KEY}\n", ":colon.txt": f"aws {AWS_KEY}\n", "new\nline.txt": "ok\n"}
    first = _commit(remote, odd, "odd names")
    tip = _commit(remote, {}, "remove", delete=("f" * 40, ":colon.txt"))
    line = f"refs/heads/main {tip} refs/heads/main {old}\n"
    res = _orchestrate(remote, "gate", "push", "origin", "--format", "json", stdin=line)
    report = json.loads(res.stdout)
    assert res.returncode == 1, report["gate"]
    assert {f["path"] for f in report["findings"]} == {"f" * 40, ":colon.txt"}
    assert any(first[:12] in n for n in report["notes"])
