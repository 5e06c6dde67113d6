"""The pre-tool gate against commands that make git run a program, move a ref onto a
commit no gate judged, or change what a push sends before it runs (issue 24, classes
3, 4, 6 and 7), written as an adversary: each class is spelled many ways, generated
where the class allows (every program-running git setting through every way of
setting it, every program variable through every way of exporting it), and the
ordinary commands beside each class are checked to pass.

Reasons are compared by their fixed words so that the same file runs against code
that predates them."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from helpers import git
from shell_gate_support import make_project

from orchestrator.git.program_settings import PROGRAM_ENV, PROGRAM_KEYS, runs_program
from orchestrator.hosts.events import Kind, RouterEvent
from orchestrator.hosts.router import RouteResult, route
from orchestrator.shell.analyser import analyse

REFUSED = ("undeterminable", "forbidden")
#: A program an agent could have written beside the repository.
PROGRAM = "./run-me"


def _wraps(command: str) -> list[str]:
    """The command as written and inside the wrappers a shell offers."""
    q = shlex.quote(command)
    return [command, f"bash -c {q}", f"sh -lc {q}", f"( {command} )", f"{{ {command}; }}"]


def _setting(pattern: str) -> tuple[str, str]:
    """A concrete key for a pattern (`*` -> a subsection), mixed case as git accepts,
    and a value that makes git run a program through it."""
    if pattern.startswith("protocol."):
        key, value = pattern.replace("*", "ext"), "always"
    elif pattern.startswith("url."):
        key, value = pattern.replace("*", "ext::" + PROGRAM), "origin"
    else:
        key, value = pattern.replace("*", "x"), PROGRAM
    head, _, rest = key.partition(".")
    return head.upper() + "." + rest, value


# ---------------------------------------------------------------- class 3: settings

_SETTING_SPELLINGS = (
    "git -c {k}={v} status",
    "git -c {k}={v} log -1",
    "git --config-env={k}=SOMEVAR diff",
    "git config {k} {v}",
    "git config --global {k} {v}",
    "git config --local --add {k} {v}",
    "git config set {k} {v}",
    "git config --replace-all {k} {v}",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0={k} GIT_CONFIG_VALUE_0={v} git status",
    "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0={k} GIT_CONFIG_VALUE_0={v}; git diff",
    "GIT_CONFIG_PARAMETERS=\"'{k}'='{v}'\" git log",
    "env GIT_CONFIG_PARAMETERS=\"'{k}'='{v}'\" git show",
    "git clone -c {k}={v} ../src dst",
    "git clone --config={k}={v} ../src dst",
)
_SETTINGS = [
    spelling.format(k=k, v=v)
    for k, v in map(_setting, PROGRAM_KEYS)
    for spelling in _SETTING_SPELLINGS
]


@pytest.mark.parametrize("command", _SETTINGS)
def test_every_program_running_setting_is_forbidden_in_every_spelling(command: str) -> None:
    r = analyse(command)
    assert r.verdict == "forbidden", (command, r.verdict, r.reason)
    assert r.reason is not None
    assert r.reason.value in ("program_setting_change", "hooks_path_change"), command


@pytest.mark.parametrize(
    "command",
    [
        "git -c protocol.allow=always fetch origin",
        "git -c protocol.ext.allow=user fetch origin",
        "git config --global protocol.ext.allow always",
        "GIT_ALLOW_PROTOCOL=ext:https git fetch origin",
        "git -c 'url.ext::sh -c x.insteadOf=origin' fetch origin",
        "git config --rename-section mine diff.x",
        "git config --rename-section mine filter.lfs",
        "git -c core.fsmonitor=./x status",
        "git -c core.sshCommand='ssh -o ProxyCommand=./x' fetch",
        "git -c core.pager='less; ./x' log",
        "git -c alias.l=log -c pager.l='./x' l",
    ],
)
def test_settings_that_let_git_run_programs_in_other_ways_are_forbidden(command: str) -> None:
    for spelled in _wraps(command):
        r = analyse(spelled)
        assert r.verdict == "forbidden", (spelled, r.reason)


@pytest.mark.parametrize(
    "command",
    [
        "git -c core.pager=cat log",
        "git -c core.pager='less -FRX' log",
        "git -c pager.log=false log",
        "git -c color.ui=never diff",
        "git -c protocol.file.allow=always submodule status",
        "git -c url.https://github.com/.insteadOf=gh: fetch --dry-run",
        "git config user.name someone",
        "git config --get diff.external",
        "git config core.pager",
        "git config --unset core.pager",
        "git config --list",
        "GIT_PAGER=cat git log -3",
        "PAGER=less git log -3",
        "GIT_CONFIG_GLOBAL=/dev/null git status",
        "GIT_CONFIG_PARAMETERS=\"'color.ui'='never'\" git status",
    ],
)
def test_settings_that_run_nothing_pass(command: str) -> None:
    r = analyse(command)
    assert (r.verdict, r.reason) == ("no_delivery", None), command


def test_the_setting_table_knows_what_it_names() -> None:
    for key in ("core.fsmonitor", "DIFF.External", "diff.py.textconv", "filter.lfs.smudge"):
        assert runs_program(key), key
    for key in ("user.name", "color.ui", "commit.gpgsign", "diff.renames"):
        assert not runs_program(key), key


# ---------------------------------------------------------------- class 4: commands


_RUNS_COMMAND = [
    # an external diff / textconv program handed in the command
    "git -c diff.external=./x diff",
    "git -c diff.py.textconv=./x log -p",
    "git -c diff.x.command=./x diff HEAD",
    # difftool's own command
    "git difftool -x ./x",
    "git difftool -yx ./x HEAD",
    "git difftool --extcmd=./x",
    "git difftool --extc ./x",
    "git difftool --ext=./x HEAD~1",
    # ext:: URLs, wherever a URL goes
    "git fetch 'ext::sh -c ./x'",
    "git ls-remote 'ext::sh -c ./x'",
    "git clone 'ext::sh -c ./x' dst",
    "git remote add r 'ext::sh -c ./x'",
    "git remote set-url origin ext::./x",
    "git submodule add 'ext::sh -c ./x' sub",
    "git config remote.origin.url 'ext::sh -c ./x'",
    # the program on the other end of a fetch or push
    "git ls-remote --upload-pack=./x origin",
    "git ls-remote -u ./x origin",
    "git fetch --upload-pack ./x origin",
    "git fetch --upl=./x origin",
    "git fetch-pack --exec=./x origin",
    "git clone -u ./x origin dst",
    "git clone --upload-pack=./x origin dst",
    "git clone --template=./tpl origin dst",
    # `git init` copies a template's hooks into the repository, an existing one too
    "git init --template=./tpl",
    "git init --template ./tpl",
    "git init -q --templ=./tpl .",
    "git -C sub init --template=/tmp/t",
    "git push --dry-run --receive-pack=./x origin",
    "git push -n --exec=./x origin",
    "git send-pack --receive-pack=./x origin main",
    "git archive --exec=./x --remote=origin HEAD",
    "git archive --remote=origin --exec ./x HEAD",
    # commands git runs for its own subcommands
    "git bisect run ./x",
    "git bisect run sh -c 'git commit --no-verify -m x'",
    "git rebase -x ./x --abort",
    "git grep -O./x needle",
    "git grep --open-files-in-pager=./x needle",
    "git daemon --access-hook=./x",
    "git instaweb --httpd=./x",
]


@pytest.mark.parametrize("command", _RUNS_COMMAND)
def test_commands_git_would_run_are_refused(command: str) -> None:
    for spelled in _wraps(command):
        r = analyse(spelled)
        assert r.verdict in REFUSED, (spelled, r.verdict)


_ENV_SPELLINGS = (
    "{n}={v} git {sub}",
    "export {n}={v}; git {sub}",
    "export {n}={v} && git {sub}",
    "env {n}={v} git {sub}",
    "{n}={v} command git {sub}",
    "declare -x {n}={v}; git {sub}",
)


@pytest.mark.parametrize("name", sorted(PROGRAM_ENV))
def test_every_program_variable_on_git_is_refused(name: str) -> None:
    for sub in ("diff", "log -p", "fetch origin", "status", "push", "commit -m x"):
        for spelling in _ENV_SPELLINGS:
            command = spelling.format(n=name, v=PROGRAM, sub=sub)
            r = analyse(command)
            assert r.verdict in REFUSED, (command, r.verdict)


#: Variables that make every git command read a configuration the command does not
#: show (which may set any program setting: `core.fsmonitor` runs on `git status`), or
#: find git's own programs elsewhere.
_CONFIG_FROM_ENV = (
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "HOME",
    "XDG_CONFIG_HOME",
    "GIT_EXEC_PATH",
)


@pytest.mark.parametrize("name", _CONFIG_FROM_ENV)
def test_a_configuration_from_the_environment_is_refused_for_every_git_command(
    name: str,
) -> None:
    # Not only a commit or a push: a read-only command runs what that file names.
    for sub in ("status", "diff", "log -p", "show", "grep needle", "fetch origin"):
        for spelling in _ENV_SPELLINGS:
            command = spelling.format(n=name, v="./cfg", sub=sub)
            r = analyse(command)
            assert r.verdict in REFUSED, (command, r.verdict)


def test_an_ssh_command_beside_a_plain_push_is_refused() -> None:
    # This push was judged, then git ran the ssh command, which may commit anything.
    for command in (
        "GIT_SSH_COMMAND=./x git push",
        "GIT_SSH=./x git push origin main",
        "git -c core.sshCommand=./x push",
    ):
        assert analyse(command).verdict in REFUSED, command


@pytest.mark.parametrize(
    "command",
    [
        "git diff",
        "git log -p -3",
        "git difftool --tool-help",
        "git fetch origin",
        "git ls-remote origin",
        "git clone ../src dst",
        "git archive HEAD -o /tmp/a.tar",
        "git bisect start",
        "git bisect good",
        "git grep needle",
        "git remote add upstream https://example.org/r.git",
    ],
)
def test_the_same_commands_without_a_program_pass(command: str) -> None:
    r = analyse(command)
    assert (r.verdict, r.reason) == ("no_delivery", None), command


# ---------------------------------------------------------------- class 6: ref moves

_STASH_SOURCES = (
    "$(git stash create)",
    '"$(git stash create)"',
    "`git stash create`",
    "$(git rev-parse stash)",
    "$(git rev-parse refs/stash)",
    "$S",
    '"${S}"',
)
_MOVES = (
    "git reset --hard {r}",
    "git reset --soft {r}",
    "git reset --keep {r}",
    "git reset {r}",
    "git checkout -B main {r}",
    "git checkout -b other {r}",
    "git checkout --detach {r}",
    "git checkout {r}",
    "git switch -C main {r}",
    "git switch --detach {r}",
    "git branch -f main {r}",
    "git branch other {r}",
    "git tag t {r}",
    "git tag -a t -m note {r}",
    "git worktree add -b x ../wt {r}",
    "git worktree add ../wt {r}",
)
_UNNAMED = [m.format(r=s) for m in _MOVES for s in _STASH_SOURCES]


@pytest.mark.parametrize("command", _UNNAMED)
def test_a_ref_moved_onto_an_unnamed_commit_is_refused(command: str) -> None:
    for spelled in (command, f"S=$(git stash create); {command}"):
        r = analyse(spelled)
        assert r.verdict in REFUSED, (spelled, r.verdict)


@pytest.mark.parametrize(
    "command",
    [
        "git tag t stash && git reset --hard t",
        "git tag t stash@{0}",
        "git tag -a t -m note refs/stash",
        "git tag -f t stash^0",
        "git fetch . stash && git reset --hard FETCH_HEAD",
        "git fetch . refs/stash",
        "git fetch . +stash@{0}",
        "git reset --hard ':/WIP on main'",
        "git checkout -B main :/index",
        "git reset --hard 0123abcd",
        "git branch -f main 0123456789abcdef0123456789abcdef01234567",
        "git tag t 0123abcd^0",
    ],
)
def test_other_ways_to_put_a_stash_commit_under_a_name_are_refused(command: str) -> None:
    for spelled in _wraps(command):
        assert analyse(spelled).verdict in REFUSED, spelled


@pytest.mark.parametrize(
    "command",
    [
        "git reset --hard",
        "git reset --hard HEAD~1",
        "git reset --soft HEAD^",
        "git reset --hard origin/main",
        "git reset HEAD app.py",
        "git reset -- app.py",
        "git reset $(git rev-parse HEAD) -- app.py",
        "git checkout main",
        "git checkout -b feature",
        "git checkout -- app.py",
        "git checkout stash@{0} -- app.py",
        "git switch -c feature origin/main",
        "git branch feature main",
        "git branch -d $(git branch --merged)",
        "git tag v1",
        "git tag -a v1 -m 'release 1'",
        "git tag -l 'v*'",
        "git tag -d $(git tag -l 'tmp*')",
        "git worktree add ../wt",
        "git worktree list",
    ],
)
def test_ordinary_ref_moves_pass(command: str) -> None:
    r = analyse(command)
    assert (r.verdict, r.reason) == ("no_delivery", None), command


# ---------------------------------------------------------------- class 7: push state


_BEFORE_PUSH = [
    "git config push.followTags true",
    "git config --bool push.followtags yes",
    "git config set push.followTags 1",
    "git config push.default matching",
    "git config remote.origin.push 'refs/heads/*:refs/heads/*'",
    "git config --add remote.origin.push refs/tags/v1",
    "git config branch.main.merge refs/heads/other",
    "git tag -a v1 -m note",
    "git tag v1",
    "git branch -u origin/other",
    "git branch --set-upstream-to=origin/other",
    "git checkout other",
    "git switch other",
    "git reset --hard HEAD~1",
    "git remote set-url origin ../elsewhere",
    "git remote rename origin old",
    # Where or what a plain push sends (the brief of issue 24's last round, item 3).
    "git config branch.main.pushRemote other",
    "git config branch.main.pushremote other",
    "git config remote.pushDefault other",
    "git config --local remote.pushdefault other",
    "git config set remote.pushDefault other",
    "git config push.default current",
    "git config push.default upstream",
    "git config --replace-all push.default matching",
    "git config remote.origin.mirror true",
    "git config remote.origin.pushurl ../elsewhere",
    "git config --global push.default matching",
    "git config branch.main.remote other",
    # Programs that run the project's code, which may commit or move a ref first.
    "pytest -q",
    "make test",
    "npm test",
    "./build.sh",
]
_JOINS = ("{a} && {p}", "{a}; {p}", "{a} || {p}", "{a}\n{p}", "bash -c '{a}' && {p}")
_PUSHES = ("git push", "git push origin main", "git push -u origin HEAD")


@pytest.mark.parametrize("before", _BEFORE_PUSH)
def test_a_push_after_the_command_changes_what_it_sends_is_refused(before: str) -> None:
    for join in _JOINS:
        for push in _PUSHES:
            command = join.format(a=before, p=push)
            if "'" in before and join.startswith("bash"):
                continue
            r = analyse(command)
            assert r.verdict in REFUSED, (command, r.verdict)


@pytest.mark.parametrize(
    "before",
    [
        "git status",
        "git log -1",
        "git fetch origin",
        "git diff --stat",
        "git tag -l",
        "git branch -a",
        "git remote -v",
        "git config --get push.default",
        "git add -A",
        "ls -la",
    ],
)
def test_a_push_after_a_command_that_changes_nothing_of_it_is_judged(before: str) -> None:
    r = analyse(f"{before} && git push")
    assert r.verdict == "judge_index", (before, r.reason)


# ---------------------------------------------------------------- through the router


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path, dirty=False).resolve()


def _shell(root: Path, command: str) -> RouteResult:
    return route(RouterEvent(Kind.SHELL_COMMAND, root, command=command, shell_cwd=root))


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("push.followTags", "true"),
        ("remote.origin.mirror", "true"),
        ("push.default", "matching"),
        ("remote.origin.push", "refs/heads/*:refs/heads/*"),
        ("remote.origin.push", "refs/tags/*"),
    ],
)
def test_a_push_the_configuration_widens_is_refused(project: Path, key: str, value: str) -> None:
    assert not _shell(project, "git push").block  # judged, and clean
    git(project, "tag", "-a", "v1", "-m", "an annotated tag a plain push would carry")
    git(project, "config", key, value)
    res = _shell(project, "git push")
    assert res.block and res.report is None, res.context
    assert "nothing was judged" in res.context


def test_a_branch_reset_onto_a_stash_commit_by_its_id_is_refused(project: Path) -> None:
    (project / "app" / "settings.py").write_text("VALUE = 3\n")
    oid = git(project, "stash", "create").strip()
    assert oid
    head = git(project, "rev-parse", "HEAD")
    for command in (f"git reset --hard {oid}", f"git checkout -B main {oid[:10]}"):
        res = _shell(project, command)
        assert res.block, (command, res.context)
        assert "nothing was judged" in res.context
    assert git(project, "rev-parse", "HEAD") == head
    assert not _shell(project, "git reset --hard HEAD~1").block


def test_a_push_beside_a_program_git_runs_is_refused(project: Path) -> None:
    for command in ("GIT_SSH_COMMAND=./x git push", "git config push.followTags true && git push"):
        res = _shell(project, command)
        assert res.block and res.report is None, (command, res.context)


@pytest.mark.parametrize(
    "setting", ["branch.main.pushRemote", "branch.main.pushremote", "remote.pushDefault"]
)
def test_a_push_remote_already_configured_is_the_one_judged(tmp_path: Path, setting: str) -> None:
    """A plain `git push` goes to `branch.NAME.pushRemote`, else `remote.pushDefault`:
    a key origin already holds is new to that remote, so the push is judged against
    what that remote holds (nothing here) and refused; on origin it is not new."""
    root = make_project(tmp_path, dirty=True).resolve()
    git(root, "push", "-q", "origin", "main")
    assert not _shell(root, "git push").block  # origin holds every commit already
    git(tmp_path, "init", "-q", "--bare", "other.git")
    git(root, "remote", "add", "other", str(tmp_path / "other.git"))
    git(root, "config", setting, "other")
    res = _shell(root, "git push")
    assert res.block, res.context
