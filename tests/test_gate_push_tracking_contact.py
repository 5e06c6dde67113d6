"""A remote-tracking ref is believed only as the last real contact with its remote left
it: a fetch or pull from that remote, a clone, a push to it. A fetch from another
repository into the ref (`git fetch . +side:refs/remotes/origin/main`, a path, a URL,
another remote) forges what the push gates take the remote to hold, as `update-ref`
does; its value is not believed, and the last real contact decides.

The reflog subjects are read as git writes them (generated spellings, both ways); then
real forged fetches in a real repository with a real bare remote, judged in-process by
the pre-tool push gate and by `gate push` with git's pre-push line for a new ref.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gate_support import commit_files
from helpers import add_remote, git
from secrets_support import AWS_KEY

from orchestrator.git.history import contacts_remote
from orchestrator.usecases.gate import gate, pre_tool_gate
from orchestrator.vocab import GateDecision

ZERO = "0" * 40

#: Subjects git writes when the ref follows `origin` itself (as git 2.39 writes them).
CONTACT = (
    "update by push",
    "clone: from /srv/repo.git",
    "fetch: fast-forward",
    "fetch origin: fast-forward",
    "fetch -q origin: forced-update",
    "fetch --prune origin: fast-forward",
    "fetch --all: fast-forward",
    "fetch --multiple --all: fast-forward",
    "fetch --multiple upstream origin: fast-forward",
    "fetch --append --no-auto-gc --no-write-commit-graph origin: fast-forward",
    "fetch --depth 5 origin: fast-forward",
    "fetch --depth=5 origin: fast-forward",
    "fetch -j 2 origin: fast-forward",
    "fetch origin +main:refs/remotes/origin/main: forced-update",
    "pull --ff-only: fast-forward",
    "pull --ff-only origin main: fast-forward",
    "pull --rebase origin: fast-forward",
)

#: Sources of a forged fetch: anything but `origin` by name.
SOURCES = (".", "./", "..", "/tmp/other", "file:///tmp/other", "../other.git", "upstream", "Origin")
#: Options a forged fetch may carry before its source.
PREFIXES = ("", "-q ", "--no-tags ", "--depth 1 ", "-j 2 ", "--multiple ", "-- ")
GENERATED = tuple(
    f"{cmd} {pre}{src} +side:refs/remotes/origin/main: {note}"
    for cmd in ("fetch", "pull")
    for pre in PREFIXES
    for src in SOURCES
    for note in ("forced-update", "fast-forward", "storing head")
)
FORGED = (
    *GENERATED,
    "fetch --upload-pack=./fake origin: fast-forward",
    "fetch --upload-pack ./fake origin: fast-forward",
    "fetch --upl=./fake origin: fast-forward",
    "pull --upload-pack=./fake origin: fast-forward",
    "fetch --multiple upstream: fast-forward",
    "branch: Created from HEAD",
    "reset: moving to HEAD~1",
    "update by push2",
    "fetchorigin: fast-forward",
    "fetch origin",
    "",
)


@pytest.mark.parametrize("subject", CONTACT)
def test_a_record_of_contact_with_the_remote_is_believed(subject: str) -> None:
    assert contacts_remote(subject, "origin")


@pytest.mark.parametrize("subject", FORGED)
def test_a_move_from_elsewhere_is_no_contact_with_the_remote(subject: str) -> None:
    assert not contacts_remote(subject, "origin")


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
    assert any("moved by something other than a fetch or push" in n for n in report.notes)


@pytest.mark.parametrize("spelling", FETCHES, ids=" ".join)
def test_a_forged_fetch_does_not_shrink_a_new_refs_range(
    forged: tuple[Path, str], spelling: tuple[str, ...]
) -> None:
    """A new ref's range is what no remote-tracking ref holds: a forged one is read as
    its last real contact left it, so the commit adding the key stays in the range."""
    repo, first = forged
    _forge(repo, spelling)
    tip = git(repo, "rev-parse", "side").strip()
    line = f"refs/heads/side {tip} refs/heads/side {ZERO}\n"
    report = gate("push", timeout=120, cwd=repo, remote="origin", stdin=line.encode()).report
    assert report.gate is not None
    assert report.gate.decision == GateDecision.DENY, report.gate
    assert any(first[:12] in n for n in report.notes)


def test_real_contact_is_still_believed(forged: tuple[Path, str]) -> None:
    """A push to the remote and a fetch from it move the ref as the remote holds it:
    believed, no note, and a clean commit on top is judged alone."""
    repo, _ = forged
    git(repo, "push", "-q", "origin", "main")
    git(repo, "fetch", "-q", "origin")
    commit_files(repo, {"ok.txt": "fine\n"}, "ok")
    report = pre_tool_gate("push", repo, 120)
    assert report.gate is not None and report.gate.decision != GateDecision.DENY, report.gate
    assert not any("moved by something other" in n for n in report.notes)
    assert {s.path for s in report.scopes if not s.path.startswith("<")} == {"ok.txt"}
