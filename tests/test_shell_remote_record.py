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

The first half shows, with real git, that each forges the local record (so no reading
of the reflog can catch it: the push gates now ask the remote instead). The second half shows that the agent's
pre-tool gate forbids every spelling of each (generated), and still lets the commands
that change no remote's record pass.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gate_support import side_with_key
from helpers import git
from secrets_support import AWS_KEY

from orchestrator.git.remote_settings import LOCATION_KEYS, moves_remote, section_of
from orchestrator.shell.analyser import analyse, describe
from orchestrator.shell.records import Reason

# ---------------------------------------------------------------- the forgeries are real


@pytest.fixture
def repo_with_side(tmp_path: Path) -> tuple[Path, Path, str]:
    """`origin` (a bare repository) holds main; branch `side` adds a key the remote
    lacks. Returns the repository, the remote's path and side's tip."""
    repo, remote, tip, _first = side_with_key(tmp_path, f"{AWS_KEY}\n", drop=False)
    return repo, remote, tip


def _believed(repo: Path, ref: str) -> str | None:
    """The commit `ref`'s local record says `origin` holds: its value when its newest
    reflog entry reads as a fetch from `origin` (the record the push gates read before
    they asked the remote itself; tests/test_gate_push_remote_asked.py judges each of
    these forgeries with the gates)."""
    subject = git(repo, "log", "-g", "-1", "--format=%gs", ref).strip()
    words = subject.partition(": ")[0].split()
    if words[:1] == ["fetch"] and "origin" in words:
        return git(repo, "rev-parse", ref).strip()
    return None


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


# ---------------------------------------------------------------- a second, adversarial pass


def test_a_rewrite_in_the_user_config_file_is_recorded_as_contact(
    repo_with_side: tuple[Path, Path, str], tmp_path: Path
) -> None:
    """The rewrite written into the configuration file git reads for every repository
    of the user (here named by GIT_CONFIG_GLOBAL; `~/.gitconfig` by default), by any
    program but git, then removed: the reflog says `fetch origin`."""
    repo, remote, tip = repo_with_side
    user_config = tmp_path / "user.gitconfig"
    user_config.write_text(f'[url "{repo}"]\n\tinsteadOf = {remote}\n')
    git(repo, "fetch", "-q", "origin", env={"GIT_CONFIG_GLOBAL": str(user_config)})
    user_config.unlink()
    assert _believed(repo, "refs/remotes/origin/side") == tip


def test_submodule_sync_changes_the_url_of_a_submodules_origin(
    repo_with_side: tuple[Path, Path, str], tmp_path: Path
) -> None:
    """`git submodule sync` (and `set-url`, which syncs) writes the URL .gitmodules names
    into the submodule's own `remote.origin.url`: its refs stay, its URL moves, as with
    `git remote set-url` inside it."""
    repo, remote, _tip = repo_with_side
    sup = tmp_path / "sup"
    sup.mkdir()
    git(sup, "init", "-q", "-b", "main")
    git(sup, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(repo), "sub")
    before = git(sup / "sub", "config", "remote.origin.url").strip()
    git(sup, "config", "-f", ".gitmodules", "submodule.sub.url", str(remote))
    git(sup, "submodule", "sync", "-q")
    assert before == str(repo)
    assert git(sup / "sub", "config", "remote.origin.url").strip() == str(remote)
    assert git(sup / "sub", "rev-parse", "refs/remotes/origin/main").strip()


#: Files git reads as configuration for every repository of the user or the machine.
CONFIG_FILES = (
    "~/.gitconfig",
    "$HOME/.gitconfig",
    "~/.config/git/config",
    "${XDG_CONFIG_HOME:-$HOME/.config}/git/config",
    "/etc/gitconfig",
    "~/.GitConfig",
    "~/.gitconf?g",
)
#: Programs other than git writing such a file.
FILE_WRITERS = (
    "echo '[url \"/tmp/evil.git\"] insteadOf = https://h/r.git' >> {f}",
    "printf '[remote \"origin\"]\\n url = /tmp/evil.git\\n' > {f}",
    "cat /tmp/evil > {f}",
    "cp /tmp/evil {f}",
    "mv /tmp/evil {f}",
    "install -m 644 /tmp/evil {f}",
    "ln -sf /tmp/evil {f}",
    "tee -a {f} < /tmp/evil",
    "cat /tmp/evil | tee {f}",
    "sed -i s/a/b/ {f}",
    "dd if=/tmp/evil of={f}",
    "sudo tee {f} < /tmp/evil",
)


@pytest.mark.parametrize("path", CONFIG_FILES)
@pytest.mark.parametrize("writer", FILE_WRITERS)
def test_writing_a_git_config_file_by_another_program_is_forbidden(writer: str, path: str) -> None:
    """The file may set a URL rewrite (or any program setting) for every git run."""
    for command in (writer, writer + " && git fetch origin", writer + "; git commit -m x"):
        _forbidden(command.format(f=path))


#: The folder holding `git/config` replaced, linked or filled whole.
CONFIG_FOLDER_WRITES = (
    "ln -s /tmp/evil ~/.config/git",
    "ln -sfn /tmp/evil ~/.config",
    "mv /tmp/evil ~/.config/git",
    "cp -r /tmp/evil ~/.config/git",
    "rsync -a /tmp/evil/ ~/.config/git/",
    "tar xf evil.tar -C ~/.config/git",
    "unzip evil.zip -d ~/.config/git",
    'ln -s /tmp/evil "$XDG_CONFIG_HOME/git"',
)


@pytest.mark.parametrize("command", CONFIG_FOLDER_WRITES)
def test_replacing_the_folder_of_the_user_git_config_is_forbidden(command: str) -> None:
    _forbidden(command)
    _forbidden(command + " && git fetch origin")


#: Builtins that set a variable to a value read while the command runs.
ASSIGNERS = (
    "read {n} <<< 'fetch origin'",
    "read -r {n} < f",
    "read -r -a {n} <<< x",
    "IFS= read -r {n} < f",
    "mapfile -t {n} < f",
    "readarray {n} < f",
    "getopts ab {n}",
    "printf -v {n} 'fetch origin'",
    "printf -v{n} %s x",
    "declare -n r={n}; r='fetch origin'",
    "typeset -n r={n}; r=x",
    "for {n} in 'fetch origin'; do :; done",
    "builtin read {n} < f",
    "builtin printf -v {n} x",
    "command read -r {n} < f",
)


@pytest.mark.parametrize("assign", ASSIGNERS)
@pytest.mark.parametrize("sub", ("fetch .", "branch -f x side"))
def test_a_reflog_subject_set_by_a_builtin_is_forbidden(assign: str, sub: str) -> None:
    command = assign.format(n="GIT_REFLOG_ACTION") + f"; export GIT_REFLOG_ACTION; git {sub}"
    result = analyse(command)
    assert result.verdict == "forbidden", (command, result)
    assert result.reason == Reason.REMOTE_RECORD_CHANGE, (command, result)


@pytest.mark.parametrize("assign", ASSIGNERS)
@pytest.mark.parametrize(
    "names", (("GIT_SSH_COMMAND",), ("GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"))
)
def test_a_git_variable_set_by_a_builtin_is_refused(assign: str, names: tuple[str, ...]) -> None:
    """`read GIT_CONFIG_KEY_0 ...` may hold `remote.origin.url`; `GIT_SSH_COMMAND` a
    program: the values are not in the text."""
    sets = "; ".join(assign.format(n=n) for n in names)
    command = f"{sets}; export {' '.join(names)}; git fetch origin"
    result = analyse(command)
    assert result.verdict in ("forbidden", "undeterminable"), (command, result)


#: Ways a `git config` is handed words the text does not show.
UNSEEN_WORDS = (
    "echo {k} /tmp/evil.git | xargs git config",
    "echo {k} /tmp/evil.git | xargs git config --global",
    "xargs -n2 git config <<< '{k} /tmp/evil.git'",
    "xargs git config < pairs.txt",
    "xargs -a pairs.txt git config --local",
    "git config $pair",
)


@pytest.mark.parametrize("form", UNSEEN_WORDS)
@pytest.mark.parametrize("key", ("remote.origin.url", "url./tmp/e.insteadOf", "core.hooksPath"))
def test_a_git_config_of_words_not_in_the_text_is_refused(form: str, key: str) -> None:
    command = form.format(k=key)
    result = analyse(command)
    assert result.verdict in ("forbidden", "undeterminable"), (command, result)


@pytest.mark.parametrize(
    "command",
    [
        "git submodule set-url sub /tmp/evil.git",
        "git submodule set-url -- sub /tmp/evil.git",
        "git submodule --quiet set-url sub /tmp/evil.git",
        "git submodule sync",
        "git submodule sync --recursive",
        "git submodule sync -- sub",
        "git -C sup submodule --quiet sync",
        "git submodule $verb",
        "command git submodule sync",
        "bash -c 'git submodule sync'",
    ],
)
def test_moving_a_submodules_origin_is_forbidden(command: str) -> None:
    _forbidden(command)


SECOND_PASS_BENIGN = (
    "git submodule update --init --recursive",
    "git submodule update --remote",
    "git submodule status",
    "git submodule foreach git status",
    "git config --get $key",
    "git config --global user.name Someone",
    "cat ~/.gitconfig",
    "cat ~/.gitconfig > /tmp/gitconfig.bak",
    "echo x > ~/.config/app/config",
    "echo x > git.config",
    "read -r line < notes.txt; echo $line",
    "for f in *.py; do echo $f; done",
    "printf -v out %s x; echo $out",
    "while getopts ab opt; do echo $opt; done",
    "git remote remove upstream",
    "mkdir -p ~/.config/app && cp settings.json ~/.config/app/",
    "builtin echo hi",
)


@pytest.mark.parametrize("command", SECOND_PASS_BENIGN)
def test_the_second_pass_still_lets_ordinary_commands_pass(command: str) -> None:
    result = analyse(command)
    assert result.verdict == "no_delivery", (command, result)
