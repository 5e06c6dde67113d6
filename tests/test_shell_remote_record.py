"""Issue 24, class 9, the spellings the reflog cannot tell apart: the push gates take a
remote-tracking ref's last `fetch origin` / `update by push` reflog entry as the last
real contact with `origin`. Git records the words it was given, not where they led:

- a remote whose URL was changed (`git config remote.origin.url ...`, `git remote
  set-url`, a `url.*.insteadOf` rewrite, a config section renamed or removed) still
  records `fetch origin` while storing what another repository holds;
- `GIT_REFLOG_ACTION` writes any subject on any ref move.

A URL given for one run (`git -c`, `GIT_CONFIG_*`) is refused only when that run
records contact (a fetch, pull, clone, push, `remote`, `submodule`, an alias or any
subcommand not known to be read-only); `fetch --dry-run` and `ls-remote` record none.

The first half shows, with real git, that each forges what `network_value` believes
(so no reading of the reflog can catch it). The second half shows that the agent's
pre-tool gate forbids every spelling of each (generated), and still lets the commands
that change no remote's record pass.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gate_support import commit_files
from helpers import add_remote, git
from secrets_support import AWS_KEY

from orchestrator.deadline import Deadline
from orchestrator.git.history import network_value
from orchestrator.git.remote_settings import LOCATION_KEYS, moves_remote, section_of
from orchestrator.git.runner import Git
from orchestrator.shell.analyser import analyse, describe
from orchestrator.shell.records import Reason

# ---------------------------------------------------------------- the forgeries are real


@pytest.fixture
def repo_with_side(git_repo: Path, tmp_path: Path) -> tuple[Path, Path, str]:
    """`origin` (a bare repository) holds main; branch `side` adds a key the remote
    lacks. Returns the repository, the remote's path and side's tip."""
    commit_files(git_repo, {"README.md": "# project\n"}, "readme")
    remote = add_remote(git_repo, tmp_path / "remote.git")
    git(git_repo, "fetch", "-q", "origin")
    git(git_repo, "checkout", "-q", "-b", "side")
    commit_files(git_repo, {"keys.txt": f"{AWS_KEY}\n"}, "keys")
    git(git_repo, "checkout", "-q", "main")
    tip = git(git_repo, "rev-parse", "side").strip()
    return git_repo, remote, tip


def _believed(repo: Path, ref: str) -> str | None:
    value, _current = network_value(Git(repo, Deadline.after(60)), ref, "origin")
    return value


def test_a_url_changed_for_a_fetch_is_recorded_as_contact(
    repo_with_side: tuple[Path, Path, str],
) -> None:
    """`origin` pointed at the repository itself for one fetch, then back: the reflog
    says `fetch origin` and the push gate would take side's key as on the remote."""
    repo, remote, tip = repo_with_side
    git(repo, "config", "remote.origin.url", str(repo))
    git(repo, "fetch", "-q", "origin")
    git(repo, "config", "remote.origin.url", str(remote))
    assert _believed(repo, "refs/remotes/origin/side") == tip


def test_a_url_rewrite_is_recorded_as_contact(repo_with_side: tuple[Path, Path, str]) -> None:
    repo, remote, tip = repo_with_side
    git(repo, "-c", f"url.{repo}.insteadOf={remote}", "fetch", "-q", "origin")
    assert _believed(repo, "refs/remotes/origin/side") == tip


def test_a_reflog_action_is_recorded_as_contact(repo_with_side: tuple[Path, Path, str]) -> None:
    """A second remote naming the repository itself, mapped (by the test, as an
    earlier command could) into origin's refs: its fetch records `fetch other`, not
    contact; with `GIT_REFLOG_ACTION` it records `fetch origin`."""
    repo, _remote, tip = repo_with_side
    git(repo, "remote", "add", "other", str(repo))
    git(repo, "config", "remote.other.fetch", "+refs/heads/side:refs/remotes/origin/side")
    git(repo, "fetch", "-q", "other")
    assert _believed(repo, "refs/remotes/origin/side") is None
    git(repo, "update-ref", "-d", "refs/remotes/origin/side")
    git(repo, "fetch", "-q", "other", env={"GIT_REFLOG_ACTION": "fetch origin"})
    assert _believed(repo, "refs/remotes/origin/side") == tip


def test_a_section_renamed_onto_origin_is_recorded_as_contact(
    repo_with_side: tuple[Path, Path, str],
) -> None:
    """origin's section swapped for one naming the repository itself: origin's refs
    stay, its fetches now come from elsewhere."""
    repo, remote, tip = repo_with_side
    git(repo, "config", "--rename-section", "remote.origin", "remote.real")
    git(repo, "config", "remote.evil.url", str(repo))
    git(repo, "config", "remote.evil.fetch", "+refs/heads/*:refs/remotes/origin/*")
    git(repo, "config", "--rename-section", "remote.evil", "remote.origin")
    git(repo, "fetch", "-q", "origin")
    git(repo, "config", "--remove-section", "remote.origin")
    git(repo, "config", "--rename-section", "remote.real", "remote.origin")
    assert git(repo, "config", "remote.origin.url").strip() == str(remote)
    assert _believed(repo, "refs/remotes/origin/side") == tip


# ---------------------------------------------------------------- the pre-tool gate


def _forbidden(command: str) -> None:
    result = analyse(command)
    assert result.verdict == "forbidden", (command, result)
    text = describe(result)
    assert "evil" not in text and "/tmp/" not in text, text  # never echoes the command


#: Concrete keys of each location pattern, in several cases.
KEYS = tuple(
    variant
    for pattern in LOCATION_KEYS
    for key in (pattern.replace("*", "origin"), pattern.replace("*", "https://h/"))
    for variant in (key, key.upper(), key.title())
)
VALUE = "/tmp/evil.git"
ONE_RUN = (
    "git -c {k}={v} fetch origin",
    "git -c {k}={v} pull",
    "git -c {k}={v} push origin side",
    "git -c {k}={v} remote update",
    "git -c {k}={v} submodule update --remote",
    "git -c {k}={v} fetch --dry-run=no origin",
    "git -c alias.f=fetch -c {k}={v} f origin",
    "git --config-env={k}=EVIL fetch origin",
    "git -C . -c {k}={v} fetch",
    "git clone -c {k}={v} https://h/r.git",
    "git clone --config {k}={v} https://h/r.git",
    "git clone --config={k}={v} https://h/r.git",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0={k} GIT_CONFIG_VALUE_0={v} git fetch origin",
    "GIT_CONFIG_PARAMETERS=\"'{k}'='{v}'\" git fetch origin",
    "env GIT_CONFIG_PARAMETERS=\"'{k}'='{v}'\" git fetch",
    "bash -c 'git -c {k}={v} fetch origin'",
    "sudo git -c {k}={v} fetch origin",
)
WRITES = (
    "git config {k} {v}",
    "git config set {k} {v}",
    "git config --add {k} {v}",
    "git config --replace-all {k} {v}",
    "git config --local {k} {v}",
    "git config --global {k} {v}",
    "git config --system {k} {v}",
    "git config -f .git/config {k} {v}",
    "git config --file=.git/config {k} {v}",
    "git config --unset {k}",
    "git config --unset-all {k}",
    "git config unset {k}",
    "cd sub && git config {k} {v}",
    "true; git config {k} {v}",
)


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("form", ONE_RUN + WRITES)
def test_every_spelling_of_a_location_change_is_forbidden(form: str, key: str) -> None:
    _forbidden(form.format(k=key, v=VALUE))


SECTIONS = ("remote.origin", "remote.evil", "url.https://h/", "Remote.Origin")
SECTION_FORMS = (
    "git config --rename-section {s} user.x",
    "git config --rename-section user.x {s}",
    "git config rename-section {s} core2",
    "git config rename-section core2 {s}",
    "git config --remove-section {s}",
    "git config remove-section {s}",
)


@pytest.mark.parametrize("section", SECTIONS)
@pytest.mark.parametrize("form", SECTION_FORMS)
def test_a_remote_or_rewrite_section_renamed_or_removed_is_forbidden(
    form: str, section: str
) -> None:
    _forbidden(form.format(s=section))


@pytest.mark.parametrize(
    "command",
    [
        "git remote set-url origin /tmp/evil.git",
        "git remote set-url --push origin /tmp/evil.git",
        "git remote set-url --add origin /tmp/evil.git",
        "git remote set-url --delete origin x",
        "git remote -v set-url origin /tmp/evil.git",
        "git remote $verb origin /tmp/evil.git",
        "git -c remote.$name.url=/tmp/evil.git fetch",
        'git -c "url.$base.insteadOf=x" fetch',
        "git config remote.$r.url /tmp/evil.git",
    ],
)
def test_a_remote_url_change_by_other_means_is_forbidden(command: str) -> None:
    _forbidden(command)


REFLOG_FORMS = (
    "GIT_REFLOG_ACTION='fetch origin' git {c}",
    "GIT_REFLOG_ACTION=x git {c}",
    "env GIT_REFLOG_ACTION='fetch origin' git {c}",
    "env -i GIT_REFLOG_ACTION='fetch origin' git {c}",
    "export GIT_REFLOG_ACTION='fetch origin'; git {c}",
    "export GIT_REFLOG_ACTION='fetch origin' && git {c}",
    "GIT_REFLOG_ACTION=$a git {c}",
    "sudo GIT_REFLOG_ACTION=x git {c}",
    "bash -c \"GIT_REFLOG_ACTION='fetch origin' git {c}\"",
)
REF_MOVERS = ("fetch other", "fetch", "pull --ff-only", "branch -f x side", "checkout -b x")


@pytest.mark.parametrize("sub", REF_MOVERS)
@pytest.mark.parametrize("form", REFLOG_FORMS)
def test_a_reflog_subject_set_for_git_is_forbidden(form: str, sub: str) -> None:
    result = analyse(form.format(c=sub))
    assert result.verdict == "forbidden", (form, sub, result)
    assert result.reason == Reason.REMOTE_RECORD_CHANGE or form.startswith("env -i"), result


BENIGN = (
    "git fetch origin",
    "git fetch --all --prune",
    "git remote -v",
    "git remote",
    "git remote show origin",
    "git remote get-url origin",
    "git remote add upstream https://github.com/a/b.git",
    "git remote prune origin",
    "git remote rename upstream up",
    "git config --get remote.origin.url",
    "git config get remote.origin.url",
    "git config --get-regexp '^remote\\.'",
    "git config -l",
    "git config remote.origin.prune true",
    "git config user.name Someone",
    "git config --rename-section user.a user.b",
    "git -c user.name=x log -1",
    "git -c core.quotepath=off status",
    "git log -g refs/remotes/origin/main",
    "git -c url.https://github.com/.insteadOf=gh: fetch --dry-run",
    "git -c remote.origin.url=/tmp/x ls-remote origin",
    "git -c url.a.insteadOf=b log -1",
    "echo $GIT_REFLOG_ACTION",
)


@pytest.mark.parametrize("command", BENIGN)
def test_commands_that_change_no_remote_record_still_pass(command: str) -> None:
    result = analyse(command)
    assert result.verdict == "no_delivery", (command, result)


@pytest.mark.parametrize(
    "key, moves",
    [
        ("remote.origin.url", True),
        ("REMOTE.x.y.PushURL", True),
        ("url.git@h:.insteadOf", True),
        ("url.a.pushInsteadOf", True),
        ("remote.origin.fetch", False),  # refused as a ref write, not here
        ("remote.origin.prune", False),
        ("user.url", False),
        ("remote.url", False),
    ],
)
def test_the_location_keys(key: str, moves: bool) -> None:
    assert moves_remote(key) is moves
    assert section_of(key) == key.split(".", 1)[0].casefold()
