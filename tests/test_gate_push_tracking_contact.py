"""A remote-tracking ref forged by a fetch from another repository into it (`git fetch
. +side:refs/remotes/origin/main`, a path, a URL, another remote) changes nothing the
push gates believe: they ask the remote itself what it holds (`git ls-remote`), never
a local record. Real forged fetches in a real repository with a real bare remote,
judged in-process by the pre-tool push gate and by `gate push` with git's pre-push
line for a new ref. (tests/test_gate_push_remote_asked.py forges the reflog's text
itself, and every URL override.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gate_support import commit_files
from helpers import add_remote, git
from secrets_support import AWS_KEY

from orchestrator.usecases.gate import gate, pre_tool_gate
from orchestrator.vocab import GateDecision

ZERO = "0" * 40


@pytest.fixture
def forged(git_repo: Path, tmp_path: Path) -> tuple[Path, str]:
    """`origin` holds main; then a commit adding a key and one removing it (branch
    `side`, the remote lacks both); the id of the commit that adds the key."""
    commit_files(git_repo, {"README.md": "# project\n"}, "readme")
    add_remote(git_repo, tmp_path / "remote.git")
    first = commit_files(git_repo, {"keys.txt": f"{AWS_KEY}\n"}, "keys")
    commit_files(git_repo, {}, "drop keys", delete=("keys.txt",))
    git(git_repo, "branch", "side")
    return git_repo, first


#: Real forged fetches of `side` into refs/remotes/origin/main ({repo}: the repository
#: itself; `other`: a second remote naming it).
FETCHES = (
    ("fetch", ".", "+side:refs/remotes/origin/main"),
    ("fetch", "-q", ".", "side:refs/remotes/origin/main"),
    ("fetch", "--no-tags", "./", "+side:refs/remotes/origin/main"),
    ("fetch", "{repo}", "+side:refs/remotes/origin/main"),
    ("fetch", "{uri}", "+side:refs/remotes/origin/main"),
    ("fetch", "other", "+side:refs/remotes/origin/main"),
)


def _forge(repo: Path, spelling: tuple[str, ...]) -> None:
    git(repo, "remote", "add", "other", str(repo))
    real = git(repo, "rev-parse", "refs/remotes/origin/main").strip()
    git(repo, *(w.format(repo=repo, uri=repo.as_uri()) for w in spelling))
    assert git(repo, "rev-parse", "refs/remotes/origin/main").strip() != real


@pytest.mark.parametrize("spelling", FETCHES, ids=" ".join)
def test_a_forged_fetch_does_not_open_the_pre_tool_push_gate(
    forged: tuple[Path, str], spelling: tuple[str, ...]
) -> None:
    repo, _first = forged
    _forge(repo, spelling)
    report = pre_tool_gate("push", repo, 120)
    assert report.gate is not None
    assert report.gate.decision == GateDecision.DENY, report.gate
    assert any(f.path == "keys.txt" for f in report.findings)


@pytest.mark.parametrize("spelling", FETCHES, ids=" ".join)
def test_a_forged_fetch_does_not_shrink_a_new_refs_range(
    forged: tuple[Path, str], spelling: tuple[str, ...]
) -> None:
    """A new ref's range is what none of the remote's refs holds, as the remote says:
    the forged remote-tracking ref is not read, the commit adding the key stays in."""
    repo, first = forged
    _forge(repo, spelling)
    tip = git(repo, "rev-parse", "side").strip()
    line = f"refs/heads/side {tip} refs/heads/side {ZERO}\n"
    report = gate("push", timeout=120, cwd=repo, remote="origin", stdin=line.encode()).report
    assert report.gate is not None
    assert report.gate.decision == GateDecision.DENY, report.gate
    assert any(first[:12] in n for n in report.notes)


def test_real_contact_is_still_believed(forged: tuple[Path, str]) -> None:
    """After a push to the remote and a fetch from it, a clean commit on top is judged
    alone."""
    repo, _ = forged
    git(repo, "push", "-q", "origin", "main")
    git(repo, "fetch", "-q", "origin")
    commit_files(repo, {"ok.txt": "fine\n"}, "ok")
    report = pre_tool_gate("push", repo, 120)
    assert report.gate is not None and report.gate.decision != GateDecision.DENY, report.gate
    assert {s.path for s in report.scopes if not s.path.startswith("<")} == {"ok.txt"}
