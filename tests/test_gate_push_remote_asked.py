"""Issue 24, class 9, forged contact with the remote: the push gates no longer take any
local record as what the remote holds. A remote-tracking ref and its reflog are files
anything running here can write: `git update-ref -m "fetch origin: fast-forward"`,
`GIT_REFLOG_ACTION`, a fetch "from origin" whose URL was overridden for one run (`git
-c remote.origin.url=.`, a `url.*.insteadOf`, `GIT_CONFIG_*`), a URL changed and put
back, a config section renamed onto `origin`, or the ref and its log written by hand
all leave the same record as a real fetch. The gate now asks the remote itself (`git
ls-remote` at the URL git pushes to) what it holds; a remote that cannot be asked holds
nothing as far as the gate knows (every commit of the ref is judged).

Each forgery is made with real git against a real bare remote, shown to leave a record
that reads as contact, then judged by `gate push` with git's pre-push line for a new
ref (and the hook's arguments) and by the pre-tool push gate: both deny, the commit
adding the key judged. Real fetches and pushes still give the small range.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from gate_support import commit_files, side_with_key
from helpers import git
from secrets_support import AWS_KEY

from orchestrator.deadline import Deadline
from orchestrator.git.push import remote_holds
from orchestrator.git.runner import ASK_PROTOCOLS, Git
from orchestrator.usecases.gate import gate, pre_tool_gate
from orchestrator.vocab import GateDecision

ZERO = "0" * 40

#: Reflog subjects a real contact with `origin` writes (as git 2.39 writes them); each
#: is written here by `git update-ref -m`, with no contact at all.
CONTACT_SUBJECTS = (
    "update by push",
    "clone: from /srv/repo.git",
    "fetch: fast-forward",
    "fetch origin: fast-forward",
    "fetch -q origin: forced-update",
    "fetch --prune origin: fast-forward",
    "fetch --all: fast-forward",
    "fetch --multiple upstream origin: fast-forward",
    "fetch --depth=5 origin: fast-forward",
    "fetch origin +main:refs/remotes/origin/main: forced-update",
    "pull --ff-only: fast-forward",
    "pull --ff-only origin main: fast-forward",
    "pull --rebase origin: fast-forward",
)


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, str, str]:
    """`origin` (a bare repository) holds main; branch `side` adds a key and then a
    clean commit, neither on the remote. Returns the repository, the remote's path,
    side's tip and the id of the commit adding the key."""
    return side_with_key(tmp_path, f"{AWS_KEY}\n", drop=True)


def _subject(repo: Path, ref: str) -> str:
    return git(repo, "log", "-g", "-1", "--format=%gs", ref).strip()


def _forge_reflog_text(repo: Path, remote: Path, tip: str, subject: str) -> None:
    git(repo, "update-ref", "-m", subject, "refs/remotes/origin/main", tip)


def _forge_reflog_action(repo: Path, remote: Path, tip: str) -> None:
    git(repo, "remote", "add", "other", str(repo))
    git(repo, "config", "remote.other.fetch", "+refs/heads/side:refs/remotes/origin/main")
    git(repo, "fetch", "-q", "other", env={"GIT_REFLOG_ACTION": "fetch origin"})


def _forge_insteadof(repo: Path, remote: Path, tip: str) -> None:
    git(repo, "-c", f"url.{repo}.insteadOf={remote}", "fetch", "-q", "origin")


def _forge_insteadof_dot(repo: Path, remote: Path, tip: str) -> None:
    """`.` (this repository) for origin's URL, for one run."""
    git(repo, "-c", f"url../.insteadOf={remote}", "fetch", "-q", "origin")


def _forge_config_env(repo: Path, remote: Path, tip: str) -> None:
    env = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"url.{repo}.insteadOf"}
    git(repo, "fetch", "-q", "origin", env={**env, "GIT_CONFIG_VALUE_0": str(remote)})


def _forge_url_for_one_run(repo: Path, remote: Path, tip: str) -> None:
    """A remote set only for one run, its refs mapped onto origin's, the reflog
    subject set to read as origin's."""
    git(
        repo,
        "-c",
        "remote.mirror.url=.",
        "-c",
        "remote.mirror.fetch=+refs/heads/*:refs/remotes/origin/*",
        "fetch",
        "-q",
        "mirror",
        env={"GIT_REFLOG_ACTION": "fetch origin"},
    )


def _forge_url_changed_back(repo: Path, remote: Path, tip: str) -> None:
    git(repo, "config", "remote.origin.url", str(repo))
    git(repo, "fetch", "-q", "origin")
    git(repo, "config", "remote.origin.url", str(remote))


def _forge_section_renamed(repo: Path, remote: Path, tip: str) -> None:
    git(repo, "config", "--rename-section", "remote.origin", "remote.real")
    git(repo, "config", "remote.evil.url", str(repo))
    git(repo, "config", "remote.evil.fetch", "+refs/heads/*:refs/remotes/origin/*")
    git(repo, "config", "--rename-section", "remote.evil", "remote.origin")
    git(repo, "fetch", "-q", "origin")
    git(repo, "config", "--remove-section", "remote.origin")
    git(repo, "config", "--rename-section", "remote.real", "remote.origin")


def _forge_by_hand(repo: Path, remote: Path, tip: str) -> None:
    """The ref and its reflog written as files, no git command moving them."""
    git(repo, "pack-refs", "--all")
    old = git(repo, "rev-parse", "refs/remotes/origin/main").strip()
    (repo / ".git/refs/remotes/origin").mkdir(parents=True, exist_ok=True)
    (repo / ".git/refs/remotes/origin/main").write_text(f"{tip}\n")
    log = repo / ".git/logs/refs/remotes/origin/main"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as fh:
        fh.write(
            f"{old} {tip} Test <t@example.invalid> 1700000000 +0000\tfetch origin: fast-forward\n"
        )
    (repo / ".git/FETCH_HEAD").write_text(f"{tip}\t\tbranch 'main' of {remote}\n")


FORGERIES = {
    **{
        f"update-ref -m {s!r}": functools.partial(_forge_reflog_text, subject=s)
        for s in CONTACT_SUBJECTS
    },
    "GIT_REFLOG_ACTION": _forge_reflog_action,
    "-c remote.mirror.url=. with origin's refs": _forge_url_for_one_run,
    "-c url.REPO.insteadOf=REMOTE": _forge_insteadof,
    "-c url../.insteadOf=REMOTE": _forge_insteadof_dot,
    "GIT_CONFIG_KEY_0=url.REPO.insteadOf": _forge_config_env,
    "url changed and put back": _forge_url_changed_back,
    "section renamed onto origin": _forge_section_renamed,
    "ref, reflog and FETCH_HEAD written by hand": _forge_by_hand,
}


def _forged(setup: tuple[Path, Path, str, str], name: str) -> tuple[Path, Path, str, str]:
    repo, remote, tip, first = setup
    FORGERIES[name](repo, remote, tip)
    # The forgery is real: a remote-tracking ref of origin holds side's tip (the key's
    # commit), recorded as contact with origin.
    listing = git(repo, "for-each-ref", "--format=%(objectname) %(refname)", "refs/remotes/origin/")
    pairs = (ln.split() for ln in listing.splitlines())
    forged_ref = next(ref for oid, ref in pairs if oid == tip and not ref.endswith("/HEAD"))
    subject = _subject(repo, forged_ref)
    assert any(w in subject for w in ("fetch", "pull", "push", "clone")), (forged_ref, subject)
    return repo, remote, tip, first


@pytest.mark.parametrize("name", FORGERIES)
def test_a_forged_contact_does_not_shrink_the_pre_push_range(
    setup: tuple[Path, Path, str, str], name: str
) -> None:
    repo, remote, tip, _first = _forged(setup, name)
    line = f"refs/heads/side {tip} refs/heads/side {ZERO}\n"
    report = gate(
        "push", timeout=120, cwd=repo, remote="origin", url=str(remote), stdin=line.encode()
    ).report
    assert report.gate is not None
    assert report.gate.decision == GateDecision.DENY, (name, report.gate)
    assert any(f.path == "keys.txt" for f in report.findings), name
    assert any("as the remote advertised them" in n for n in report.notes), report.notes


@pytest.mark.parametrize("name", FORGERIES)
def test_a_forged_contact_does_not_open_the_pre_tool_push_gate(
    setup: tuple[Path, Path, str, str], name: str
) -> None:
    repo, _remote, _tip, _first = _forged(setup, name)
    git(repo, "checkout", "-q", "side")
    report = pre_tool_gate("push", repo, 120)
    assert report.gate is not None
    assert report.gate.decision == GateDecision.DENY, (name, report.gate)
    assert any(f.path == "keys.txt" for f in report.findings), name


# ---------------------------------------------------------------- what still passes


def test_a_real_fetch_then_a_push_of_a_new_branch_judges_only_its_commits(
    setup: tuple[Path, Path, str, str], tmp_path: Path
) -> None:
    """Someone else pushes to main; `git fetch && git push` of a new branch on top of
    it: only the new branch's commit is judged, and it allows."""
    repo, remote, _tip, _first = setup
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", "-b", "main", str(remote), str(other))
    commit_files(other, {"theirs.txt": "theirs\n"}, "theirs")
    git(other, "push", "-q", "origin", "HEAD:main")
    git(repo, "fetch", "-q", "origin")
    git(repo, "checkout", "-q", "-b", "feature", "origin/main")
    tip = commit_files(repo, {"ok.txt": "fine\n"}, "ok")
    line = f"refs/heads/feature {tip} refs/heads/feature {ZERO}\n"
    report = gate(
        "push", timeout=120, cwd=repo, remote="origin", url=str(remote), stdin=line.encode()
    ).report
    assert report.gate is not None and report.gate.decision == GateDecision.ALLOW, report.gate
    assert {s.path for s in report.scopes} == {"ok.txt", f"<commit {tip[:12]} message>"}
    pre = pre_tool_gate("push", repo, 120)
    assert pre.gate is not None and pre.gate.decision == GateDecision.ALLOW, pre.gate
    assert {s.path for s in pre.scopes} == {"ok.txt", f"<commit {tip[:12]} message>"}


def test_a_push_onto_a_branch_the_remote_has_is_judged_from_the_remotes_commit(
    setup: tuple[Path, Path, str, str],
) -> None:
    """The pre-tool gate asks the remote for the branch's commit: a forged upstream
    (update-ref with a contact subject) changes nothing, a clean commit on top of the
    real one is judged alone."""
    repo, _remote, _tip, _first = setup
    tip = commit_files(repo, {"ok.txt": "fine\n"}, "ok")
    git(repo, "update-ref", "-m", "fetch origin: fast-forward", "refs/remotes/origin/main", tip)
    report = pre_tool_gate("push", repo, 120)
    assert report.gate is not None and report.gate.decision == GateDecision.ALLOW, report.gate
    assert {s.path for s in report.scopes} == {"ok.txt", f"<commit {tip[:12]} message>"}


# ---------------------------------------------------------------- a remote not asked


@pytest.mark.parametrize(
    "url",
    [
        "{tmp}/nowhere.git",
        "https://user:s3cr3t-token@127.0.0.1:9/r.git",
        "ext::sh -c touch% {tmp}/MARKER",
        "fake::{tmp}/remote.git",
        "-uploadpack=touch {tmp}/MARKER",
    ],
)
def test_a_remote_that_cannot_be_asked_holds_nothing(
    setup: tuple[Path, Path, str, str], tmp_path: Path, url: str
) -> None:
    """Fail closed: a remote that cannot be asked (missing, refused, a transport that
    runs a program, a URL that reads as an option) is taken to hold nothing; every
    commit of the ref is judged, whatever the remote-tracking refs say, no program
    the URL names runs, and the URL (it may hold a credential) is never printed."""
    repo, _remote, tip, _first = setup
    _forge_reflog_text(repo, _remote, tip, "fetch origin: fast-forward")
    where = url.format(tmp=tmp_path)
    line = f"refs/heads/side {tip} refs/heads/side {ZERO}\n"
    report = gate(
        "push", timeout=120, cwd=repo, remote="origin", url=where, stdin=line.encode()
    ).report
    assert report.gate is not None and report.gate.decision == GateDecision.DENY, report.gate
    assert any(f.path == "keys.txt" for f in report.findings)
    assert any("could not be asked" in n for n in report.notes), report.notes
    assert not (tmp_path / "MARKER").exists()
    assert not any("s3cr3t" in n for n in report.notes)


def test_the_ask_allows_only_gits_own_transports(setup: tuple[Path, Path, str, str]) -> None:
    repo, remote, _tip, _first = setup
    assert set(ASK_PROTOCOLS.split(":")) == {"file", "git", "http", "https", "ssh"}
    main = git(repo, "rev-parse", "main").strip()
    holds = remote_holds(Git(repo, Deadline.after(60)), str(remote))
    assert holds.refs is not None and holds.refs["refs/heads/main"] == main
    assert holds.commits == (main,)
    # The rest of orchestrate's git calls still allow no transport at all.
    env = Git(repo, Deadline.after(60)).env
    assert env["GIT_ALLOW_PROTOCOL"] == ""
