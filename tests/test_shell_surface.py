"""The pre-tool gate's shell analyser: every spelling of a commit or push is judged on
its real surface or refused, benign commands pass, and no input makes it raise."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestrator.shell.analyser import (
    FORBIDDEN_REASONS,
    MAX_COMMAND_CHARS,
    Analysis,
    Reason,
    analyse,
    describe,
)

VERDICTS = {"no_delivery", "judge_index", "undeterminable", "forbidden"}


def _judged(command: object) -> Analysis:
    r = analyse(command)
    assert r.verdict == "judge_index", (command, r.verdict, r.reason)
    assert r.surface is not None and r.repository is not None
    return r


# ---------------------------------------------------------------- the spellings


@pytest.mark.parametrize(
    "command",
    [
        "git commit -m x",
        "git \\\n  commit \\\n  -m x",  # line continuations
        "time git commit -m x",
        "time -p git commit -m x",
        "nice git commit -m x",
        "nice -n 5 git commit -m x",
        "env git commit -m x",
        "env -i git commit -m x",
        "env -i FOO=1 git commit -m x",
        "sudo git commit -m x",
        "sudo -u bob git commit -m x",
        "command git commit -m x",
        "command -p git commit -m x",
        "exec git commit -m x",
        "nohup git commit -m x",
        "timeout 10 git commit -m x",
        "timeout -s KILL 10 git commit -m x",
        "stdbuf -oL git commit -m x",
        "stdbuf -o L git commit -m x",
        "{ git commit -m x; }",
        "(git commit -m x)",
        "if true; then git commit -m x; fi",
        "if false; then :; else git commit -m x; fi",
        "! git commit -m x",
        "true && git commit -m x",
        "false || git commit -m x",
        "git commit -m x | cat",
        "f() { git commit -m x; }; f",
        "bash -c 'git commit -m x'",
        "bash -c -- 'git commit -m x'",
        "sh -lc 'git commit -m x'",
        "bash -e -o pipefail -c 'git commit -m x'",
        "bash -c \"bash -c 'git commit -m x'\"",
        "env -S 'git commit -m x'",
        "g\\it commit -m x",
        "'git' 'commit' -m x",
        'gi"t" com""mit -m x',
        "$'git' $'\\x63ommit' -m x",
        "/usr/bin/git commit -m x",
        "git -c alias.ci=commit ci -m x",
        "git -c user.name=x commit -m x",
        'git commit -m "$(date)"',
        "echo start; git commit -m x; echo done",
    ],
)
def test_plain_commit_spellings_are_judged_on_the_index(command: str) -> None:
    r = _judged(command)
    assert r.surface.kind == "index"
    assert r.repository.is_default
    assert [op.kind for op in r.deliveries] == ["commit"]


@pytest.mark.parametrize(
    "command",
    [
        "git push",
        'sh -lc "git push"',
        "time git push origin main",
        "env -i git push",
        "sudo -u bob git push",
        "{ git push; }",
    ],
)
def test_plain_push_spellings_are_judged(command: str) -> None:
    r = _judged(command)
    assert r.surface.kind == "push"
    assert r.repository.is_default


def test_codex_argv_form_is_followed_into_the_nested_shell() -> None:
    r = _judged(["bash", "-lc", "git commit -m x"])
    assert r.surface.kind == "index"
    assert analyse(["git", "status"]).verdict == "no_delivery"
    assert analyse(["bash", "-lc", "git commit --no-verify -m x"]).verdict == "forbidden"


def test_refspecs_are_recorded_for_push() -> None:
    r = _judged("git push origin HEAD:main")
    assert r.surface.remote == "origin"
    assert r.surface.refspecs == ("HEAD:main",)
    assert r.deliveries[0].refspecs == ("HEAD:main",)


def test_push_flags_that_change_what_is_sent_are_recorded() -> None:
    assert _judged("git push --tags").surface.push_flags == ("--tags",)
    assert _judged("git push --all -f origin").surface.push_flags == ("--all", "--force")
    assert _judged("git push 2>&1 | tee push.log").surface.kind == "push"


def test_add_then_commit_is_judged_on_the_index_plus_the_added_paths() -> None:
    r = _judged("git add app/settings.py && git commit -m x")
    assert r.surface.kind == "index_plus_added"
    assert r.surface.staging == (("add", "--", "app/settings.py"),)
    assert r.deliveries[0].staged_before == (("add", "--", "app/settings.py"),)
    r = _judged("git add -A && git rm --cached old.py && git commit -m x")
    assert r.surface.staging == (("add", "--all", "--"), ("rm", "--cached", "--", "old.py"))


def test_commit_all_is_judged_on_the_tracked_work_tree() -> None:
    for command in ("git commit -am x", "git commit -a -m x", "git commit --all -m x"):
        r = _judged(command)
        assert r.surface.kind == "tracked_worktree"
        assert r.surface.staging[-1] == ("add", "--update")
        assert "all" in r.deliveries[0].flags


def test_commit_with_paths_is_judged_on_those_paths() -> None:
    assert _judged("git commit -m x -- a.py b.py").surface.only_paths == ("a.py", "b.py")
    assert _judged("git commit --only a.py -m x").surface.kind == "only_paths"
    r = _judged("git commit --include a.py -m x")
    assert r.surface.kind == "index_plus_added"
    assert r.surface.staging == (("add", "--", "a.py"),)


def test_another_repository_is_named_not_assumed() -> None:
    r = _judged("git -C vendor/lib commit -m x")
    assert r.repository.git_args() == ["-C", "vendor/lib"]
    r = _judged("GIT_DIR=../other/.git GIT_WORK_TREE=../other git commit -m x")
    assert r.repository.env() == {"GIT_DIR": "../other/.git", "GIT_WORK_TREE": "../other"}
    assert not r.repository.is_default
    r = _judged("cd sub && git commit -m x")
    assert r.repository.cwd == "sub"
    assert r.repository.git_args() == ["-C", "sub"]
    r = _judged("cd sub && cd ../other && git -C lib commit -m x")
    assert r.repository.git_args() == ["-C", "other", "-C", "lib"]
    r = _judged("export GIT_INDEX_FILE=/tmp/idx; git commit -m x")
    assert r.repository.env() == {"GIT_INDEX_FILE": "/tmp/idx"}
    r = _judged("env -C sub git commit -m x")
    assert r.repository.cwd == "sub"


def test_aliases_defined_with_dash_c_are_resolved_and_recorded() -> None:
    r = _judged("git -c alias.x=commit x -m y")
    assert r.deliveries[0].kind == "commit"
    assert r.deliveries[0].aliases == (("x", "commit"),)
    assert analyse("git -c alias.x='commit --no-verify' x -m y").verdict == "forbidden"
    assert analyse("git -c alias.p=push p").deliveries[0].kind == "push"
    assert analyse("git ci -m x").reason == Reason.UNKNOWN_GIT_SUBCOMMAND
    assert analyse("git ci -m x", known_aliases={"ci": "commit"}).verdict == "judge_index"


def test_the_start_repository_aliases_are_asked_only_when_a_git_name_is_unknown() -> None:
    asked: list[int] = []

    def aliases_of() -> dict[str, str]:
        asked.append(1)
        return {"ci": "commit"}

    assert analyse("git commit -m x", aliases_of=aliases_of).verdict == "judge_index"
    assert asked == []
    assert analyse("git ci -m x", aliases_of=aliases_of).verdict == "judge_index"
    assert asked == [1]
    # Another repository may define `ci` differently: the first reading stays.
    r = analyse("git -C other ci -m x", aliases_of=aliases_of)
    assert r.reason == Reason.UNKNOWN_GIT_SUBCOMMAND
    assert analyse("git ci -m x", aliases_of=dict).reason == Reason.UNKNOWN_GIT_SUBCOMMAND


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("echo a | xargs git commit -m", Reason.DELIVERY_IN_LOOP),
        ("for i in 1; do git commit -m x; done", Reason.DELIVERY_IN_LOOP),
        ("while true; do git push; done", Reason.DELIVERY_IN_LOOP),
        ("x" * (MAX_COMMAND_CHARS + 1) + "; git commit -m x", Reason.TOO_LONG),
        ("git commit -m x\x00", Reason.NUL_BYTE),
        ("git commit -m 'x", Reason.PARSE_ERROR),
        ("git commit-tree t -m x && git update-ref refs/heads/main c", Reason.SEVERAL_DELIVERIES),
        ("git commit-tree t -m x", Reason.NOT_JUDGED_KIND),
        ("git update-ref refs/heads/main abc123", Reason.NOT_JUDGED_KIND),
        ("git merge feature", Reason.NOT_JUDGED_KIND),
        ("git pull", Reason.NOT_JUDGED_KIND),
        ("git cherry-pick abc", Reason.NOT_JUDGED_KIND),
        ("git am fix.patch", Reason.NOT_JUDGED_KIND),
        ("git rebase --exec 'make test' main", Reason.NOT_JUDGED_KIND),
        ("git revert HEAD", Reason.NOT_JUDGED_KIND),
        ("git commit -m x && git push", Reason.SEVERAL_DELIVERIES),
        ("eval 'git commit -m x'", Reason.EVAL),
        ("trap 'git commit -m x' EXIT", Reason.EVAL),
        ("$(echo git) commit -m x", Reason.DYNAMIC_COMMAND_NAME),
        ("$GIT commit -m x", Reason.DYNAMIC_COMMAND_NAME),
        ("gi* commit -m x", Reason.DYNAMIC_COMMAND_NAME),
        ("git $SUB -m x", Reason.DYNAMIC_GIT_SUBCOMMAND),
        ("git {commit,status}", Reason.DYNAMIC_GIT_SUBCOMMAND),
        ("git commit $FLAGS", Reason.PATHS_UNKNOWN),
        ("source deliver.sh", Reason.SOURCE),
        (". deliver.sh", Reason.SOURCE),
        ("alias c='git commit'", Reason.SHELL_ALIAS),
        ("bash <<EOF\ngit commit -m x\nEOF", Reason.SHELL_READS_STDIN),
        ("cat <<EOF | sh\ngit commit -m x\nEOF", Reason.SHELL_READS_STDIN),
        ("echo 'git commit -m x' | bash", Reason.SHELL_READS_STDIN),
        ("bash <<< 'git commit -m x'", Reason.SHELL_READS_STDIN),
        ('bash -c "$SCRIPT"', Reason.DYNAMIC_SCRIPT),
        ("fish -c 'git commit -m x'", Reason.FOREIGN_SHELL),
        ('git -C "$D" commit -m x', Reason.REPOSITORY_UNKNOWN),
        ('cd "$D" && git commit -m x', Reason.REPOSITORY_UNKNOWN),
        ("cd sub; git commit -m x", Reason.REPOSITORY_UNKNOWN),  # cd may fail
        ("cd && git commit -m x", Reason.REPOSITORY_UNKNOWN),
        ("git commit -m x &", Reason.BACKGROUND_JOB),
        ("npm test && git commit -m x", Reason.INDEX_MAY_CHANGE),
        ("git add x; git commit -m y", Reason.INDEX_MAY_CHANGE),  # the add may fail
        ("git stash && git commit -m x", Reason.INDEX_MAY_CHANGE),
        ("echo k > app.py && git commit -am x", Reason.WORKTREE_MAY_CHANGE),
        ("echo k > app.py && git add app.py && git commit -m x", Reason.WORKTREE_MAY_CHANGE),
        ("git -C lib add x && git commit -m y", Reason.STAGED_ELSEWHERE),
        ("git add x | git commit -m y", Reason.CONCURRENT_CHANGE),
        ("git commit -p -m x", Reason.INTERACTIVE),
        ("git commit --pathspec-from-file=list -m x", Reason.PATHS_UNKNOWN),
        ("git commit --frobnicate -m x", Reason.UNKNOWN_OPTION),
        ("git --frobnicate commit -m x", Reason.UNKNOWN_GIT_OPTION),
        ("sudo --frobnicate git commit -m x", Reason.UNKNOWN_WRAPPER_OPTION),
        ("git -c core.worktree=/x commit -m x", Reason.CONFIG_OVERRIDE),
        ("GIT_EXEC_PATH=/tmp/x git commit -m x", Reason.CONFIG_OVERRIDE),
        ("git push --receive-pack='sh -c x' ../r", Reason.PUSH_EXEC_OPTION),
        ("git submodule foreach 'git commit -m x'", Reason.DELIVERY_IN_LOOP),
        ("find . -name x -exec git push ';'", Reason.DELIVERY_IN_LOOP),
        ("hash -p /tmp/git git", Reason.COMMAND_LOOKUP_CHANGED),
        ("time { git push; }", Reason.UNKNOWN_CONSTRUCT),
        ("su bob -lc 'git commit -m x'", Reason.REPOSITORY_UNKNOWN),
        ("echo 'git push' | sudo -s", Reason.SHELL_READS_STDIN),
        ("echo 'git push' | su", Reason.SHELL_READS_STDIN),
        ("ssh localhost 'cd repo && git push'", Reason.DELIVERY_IN_ARGUMENT),
        ("python3 -c \"import os; os.system('git commit -m x')\"", Reason.DELIVERY_IN_ARGUMENT),
        ("command_not_found_handle() { git push; }; nothere", Reason.EVAL),
        ("bash /dev/stdin <<< 'git push'", Reason.SHELL_READS_STDIN),
        ("bash <(echo git push)", Reason.DYNAMIC_SCRIPT),
        ("python3 - <<EOF\nimport os\nos.system('git push')\nEOF", Reason.DELIVERY_IN_ARGUMENT),
        ("node -e \"fs.writeFileSync('.git/hooks/pre-commit', s)\"", Reason.DELIVERY_IN_ARGUMENT),
        ("PATH=/tmp/evil:$PATH git commit -m x", Reason.CONFIG_OVERRIDE),
        ("HOME=/tmp/h git push", Reason.CONFIG_OVERRIDE),
        ("export XDG_CONFIG_HOME=/tmp/x; git commit -m x", Reason.CONFIG_OVERRIDE),
        ("GIT_CONFIG_GLOBAL=/tmp/g git commit -m x", Reason.CONFIG_OVERRIDE),
        ("! { git push; }", Reason.UNKNOWN_CONSTRUCT),
        ("git -c alias.x='!git commit' x -m y", Reason.REPOSITORY_UNKNOWN),
        ("sudo GIT_DIR=x git commit -m y", Reason.REPOSITORY_UNKNOWN),
    ],
)
def test_what_cannot_be_determined_is_said(command: str, reason: Reason) -> None:
    r = analyse(command)
    assert (r.verdict, r.reason) == ("undeterminable", reason)
    text = describe(r)
    assert "git commit -m" not in text and text  # the command is never echoed


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("git commit --no-verify -m x", Reason.NO_VERIFY),
        ("git commit -n -m x", Reason.NO_VERIFY),
        ("git commit -anm x", Reason.NO_VERIFY),
        ("git commit --no-veri -m x", Reason.NO_VERIFY),  # git accepts unique prefixes
        ("git push --no-verify", Reason.NO_VERIFY),
        ("git merge --no-verify feature", Reason.NO_VERIFY),
        ("bash -c 'git commit --no-verify -m x'", Reason.NO_VERIFY),
        ("git -c core.hooksPath=/dev/null commit -m x", Reason.HOOKS_PATH_CHANGE),
        ("git -c CORE.HOOKSPATH=x status", Reason.HOOKS_PATH_CHANGE),
        ("git --config-env=core.hooksPath=H commit -m x", Reason.HOOKS_PATH_CHANGE),
        ("git -c include.path=/tmp/c commit -m x", Reason.HOOKS_PATH_CHANGE),
        ("git config core.hooksPath /tmp/h", Reason.HOOKS_PATH_CHANGE),
        ("git config --global core.hooksPath /tmp/h", Reason.HOOKS_PATH_CHANGE),
        ("git config --unset core.HooksPath", Reason.HOOKS_PATH_CHANGE),
        ("git config set core.hookspath x", Reason.HOOKS_PATH_CHANGE),
        ("git config --remove-section core", Reason.HOOKS_PATH_CHANGE),
        (
            "GIT_CONFIG_PARAMETERS=\"'core.hooksPath'='/x'\" git commit -m x",
            Reason.HOOKS_PATH_CHANGE,
        ),
        ("git update-ref refs/remotes/origin/main abc", Reason.REMOTE_REF_WRITE),
        ("git update-ref -d refs/remotes/origin/main", Reason.REMOTE_REF_WRITE),
        ("git push . HEAD:refs/remotes/origin/main", Reason.REMOTE_REF_WRITE),
        ("git fetch . HEAD:refs/remotes/origin/main", Reason.REMOTE_REF_WRITE),
        (
            "git symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/x",
            Reason.REMOTE_REF_WRITE,
        ),
        ("echo 'exit 0' > .git/hooks/pre-commit", Reason.GIT_DIR_WRITE),
        ("echo x >> ./.git/config", Reason.GIT_DIR_WRITE),
        ("echo x > a/../.GIT/hooks/pre-push", Reason.GIT_DIR_WRITE),
        ("cp evil .git/hooks/pre-commit", Reason.GIT_DIR_WRITE),
        ("mv .git/hooks/pre-commit /tmp/x", Reason.GIT_DIR_WRITE),
        ("ln -sf /bin/true .git/hooks/pre-push", Reason.GIT_DIR_WRITE),
        ("git status | tee .git/hooks/pre-commit", Reason.GIT_DIR_WRITE),
        ("cd .git/hooks && cat > pre-commit", Reason.GIT_DIR_WRITE),
        ("cd .git && echo x > hooks/pre-commit", Reason.GIT_DIR_WRITE),
        ("chmod -x .git/hooks/pre-commit", Reason.GIT_DIR_WRITE),
        ("rm -rf .git", Reason.GIT_DIR_WRITE),
        ("cp x .gi?/hooks/pre-commit", Reason.GIT_DIR_WRITE),
        ("sed -i s/a/b/ .git/config", Reason.GIT_DIR_WRITE),
        ("echo 'disable_plugins=[\"ruff\"]' > orchestrate.toml", Reason.ORCHESTRATE_CONFIG_WRITE),
        ("rm -rf .orchestrate", Reason.ORCHESTRATE_CONFIG_WRITE),
    ],
)
def test_bypasses_are_forbidden(command: str, reason: Reason) -> None:
    r = analyse(command)
    assert (r.verdict, r.reason) == ("forbidden", reason)
    assert reason in FORBIDDEN_REASONS


@pytest.mark.parametrize(
    "command",
    [
        "git status",
        "git status --porcelain",
        "git log --oneline -5",
        "git log --grep commit",
        "git diff HEAD",
        "git diff --cached",
        "git branch -a",
        "git show HEAD:app.py",
        "git rev-parse HEAD",
        "git config --get core.hooksPath",
        "git config core.hooksPath",
        "git config user.name x",
        "git fetch origin",
        "git commit --dry-run",
        "git push --dry-run",
        "git push -n origin main",
        "ls -la",
        "cat .git/config",
        "grep -r 'git push' .",
        "echo 'git commit -m x'",
        'echo "git push --no-verify"',
        "printf '%s\\n' 'git commit --no-verify'",
        "echo x > notes.txt",
        "echo x > /dev/null 2>&1",
        "pytest -q",
        "cd sub && ls",
        "for f in *.py; do echo $f; done",
        "f() { git status; }; f",
        "bash -c 'git log -1'",
        "git add app.py",
        "# git commit -m x",
        "cat > notes.md <<EOF\nthen run git push\nEOF",
        "git stash push -m wip",
    ],
)
def test_benign_commands_are_no_delivery(command: str) -> None:
    r = analyse(command)
    assert (r.verdict, r.reason) == ("no_delivery", None)


def test_shells_started_through_other_programs_are_followed() -> None:
    assert _judged("su -c 'git push'").surface.kind == "push"
    assert _judged("script -qc 'git commit -m x' /dev/null").surface.kind == "index"
    assert _judged("flock /tmp/l -c 'git push'").surface.kind == "push"
    assert analyse("watch -n 5 git push").reason == Reason.DELIVERY_IN_LOOP
    assert analyse("(( i++ ))").verdict == "no_delivery"
    assert analyse("case $(git push) in x) :;; esac").deliveries[0].kind == "push"


def test_code_points_that_crash_the_grammar_never_reach_it() -> None:
    # The bundled scanner can segfault on `{` followed by such code points.
    for cp in (0xD0000, 0xE0001, 0xE0100, 0x10FFFD):
        for _ in range(20):
            assert analyse("{" + chr(cp)).verdict in VERDICTS
    flag = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"
    r = _judged(f'git commit -m "{flag} release"')
    assert r.surface.kind == "index"
    assert analyse(f"git add {flag}.py && git commit -m x").reason == Reason.INDEX_MAY_CHANGE


def test_substitutions_run_and_are_seen() -> None:
    assert analyse("echo $(git push)").deliveries[0].kind == "push"
    assert analyse("x=`git commit -m y`").deliveries[0].kind == "commit"
    assert analyse("cat <(git push)").deliveries[0].kind == "push"
    assert analyse("cat <<EOF\n$(git push)\nEOF").deliveries[0].kind == "push"
    assert analyse("[[ -n $(git commit -m x) ]]").verdict == "judge_index"


def test_inputs_that_are_not_text_are_undeterminable() -> None:
    assert analyse(None).reason == Reason.NOT_TEXT
    assert analyse(["git", 1]).reason == Reason.NOT_TEXT
    assert analyse(b"\xff\xfe").reason == Reason.NOT_TEXT
    assert analyse(b"git commit -m x").verdict == "judge_index"
    assert analyse(["git", "commit\x00"]).reason == Reason.NUL_BYTE


def test_deep_nesting_is_bounded_not_a_crash() -> None:
    for command in (
        "(" * 5000 + "git status" + ")" * 5000,
        "{ " * 3000 + "git status; " + "}; " * 3000,
        "echo " + "$(" * 3000 + "x" + ")" * 3000,
        "f() { f; }; f",
        "a" + " && a" * 20000,
    ):
        r = analyse(command)
        assert r.verdict in ("undeterminable", "no_delivery")
    nested = "git commit -m x"
    for _ in range(8):
        nested = "bash -c " + shlex.quote(nested)
    assert analyse(nested).reason == Reason.NESTING_TOO_DEEP


# ---------------------------------------------------------------- generated spellings

_WRAPPERS = [
    [],
    ["sudo"],
    ["sudo", "-u", "bob"],
    ["env"],
    ["env", "-i"],
    ["env", "FOO=1"],
    ["command"],
    ["command", "-p"],
    ["time"],
    ["nice"],
    ["nice", "-n", "5"],
    ["nohup"],
    ["timeout", "10"],
    ["stdbuf", "-oL"],
    ["exec"],
]
_DOUBTFUL_WRAPPERS = [["xargs"], ["xargs", "-0"], ["watch", "-n", "1"]]


@st.composite
def _quoted(draw: st.DrawFn, w: str) -> str:
    style = draw(st.sampled_from(["plain", "single", "double", "backslash", "split", "ansi"]))
    if style == "plain" and shlex.quote(w) == w:
        return w
    if style == "double":
        return '"' + "".join("\\" + c if c in '"\\$`' else c for c in w) + '"'
    if style == "backslash" and w and "\n" not in w:
        return "".join("\\" + c for c in w)
    if style == "split" and len(w) > 1:
        cut = draw(st.integers(1, len(w) - 1))
        return shlex.quote(w[:cut]) + "''" + shlex.quote(w[cut:])
    if style == "ansi":
        return "$'" + "".join(f"\\x{ord(c):02x}" if ord(c) < 128 else c for c in w) + "'"
    return shlex.quote(w)


@st.composite
def _simple(draw: st.DrawFn, argv: list[str], wrappers: list[list[str]], env: str = "") -> str:
    words = [*draw(st.sampled_from(wrappers)), *argv]
    spelled = [draw(_quoted(w)) for w in words]
    out = env
    for i, w in enumerate(spelled):
        out += w
        if i + 1 < len(spelled):
            out += draw(st.sampled_from([" ", "  ", " \\\n  ", "\t"]))
    return out


# Whole-command shapes that keep the surface and the repository of the inner command.
_KEEPING = [
    "{{ {}; }}",
    "( {} )",  # spaced: `((` would start arithmetic
    "if true; then {}; fi",
    "if false; then :; else {}; fi",
    "! ( {} )",
    "true && {}",
    "false || {}",
    "{} | cat",
    "f() {{ {}; }}; f",
    "echo start; {}",
    "{}; echo done",
    "while false; do :; done; {}",
]
_NESTING = ["bash -c {}", "sh -lc {}", "bash -c -- {}", "zsh -c {}"]
_DOUBTING = [
    "! {{ {}; }}",  # the grammar reads `! {` as a command named `{`
    "time {{ {}; }}",
    "for i in 1 2; do {}; done",
    "{} &",
    "eval {}",
    "cd sub; {}",
]  # eval: quoted


@st.composite
def _shaped(draw: st.DrawFn, inner: str, doubtful: bool) -> tuple[str, int]:
    """Wrap a command in shapes; returns the command and how many `cd sub &&` apply."""
    cds = 0
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["keep", "nest", "cd"] + (["doubt"] if doubtful else [])))
        if kind == "keep":
            inner = draw(st.sampled_from(_KEEPING)).format(inner)
        elif kind == "nest":
            inner = draw(st.sampled_from(_NESTING)).format(shlex.quote(inner))
        elif kind == "cd":
            inner, cds = "cd sub && " + inner, cds + 1
        else:
            shape = draw(st.sampled_from(_DOUBTING))
            inner = shape.format(shlex.quote(inner) if shape.startswith("eval") else inner)
    return inner, cds


_DELIVERIES = [
    # (commands joined by &&, expected surface kind, expected staging)
    ([["git", "commit", "-m", "fix: x y"]], "index", ()),
    ([["git", "commit", "--amend", "--no-edit"]], "index", ()),
    ([["git", "commit", "-am", "x"]], "tracked_worktree", (("add", "--update"),)),
    ([["git", "-c", "alias.ci=commit", "ci", "-m", "x"]], "index", ()),
    ([["git", "push"]], "push", ()),
    ([["git", "push", "origin", "HEAD:main"]], "push", ()),
    ([["git", "push", "-u", "origin", "feature"]], "push", ()),
    (
        [["git", "add", "app/settings.py"], ["git", "commit", "-m", "x"]],
        "index_plus_added",
        (("add", "--", "app/settings.py"),),
    ),
]


@st.composite
def _delivery(draw: st.DrawFn) -> tuple[str, str, tuple[tuple[str, ...], ...], int, bool]:
    steps, kind, staging = draw(st.sampled_from(_DELIVERIES))
    git_dir = draw(st.booleans())
    parts = []
    for i, argv in enumerate(steps):
        wrapper = draw(st.sampled_from(_WRAPPERS + _DOUBTFUL_WRAPPERS))
        last = i == len(steps) - 1
        env = "GIT_DIR=.git " if git_dir and last else ""
        parts.append(draw(_simple(argv, [wrapper], env)))
    # `env -i` drops the GIT_DIR set before it: the default repository is then right.
    git_dir = git_dir and wrapper != ["env", "-i"]
    inner = " && ".join(parts)
    command, cds = draw(_shaped(inner, doubtful=True))
    return command, kind, staging, cds, git_dir


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_delivery())
def test_every_spelling_of_a_delivery_is_judged_on_its_surface_or_refused(
    case: tuple[str, str, tuple[tuple[str, ...], ...], int, bool],
) -> None:
    command, kind, staging, cds, git_dir = case
    r = analyse(command)
    assert r.verdict != "no_delivery", command
    if r.verdict != "judge_index":
        assert r.reason is not None
        return
    assert r.surface is not None and r.repository is not None
    assert r.surface.kind == kind, command
    if kind != "push":
        assert r.surface.staging == staging, command
    assert r.repository.cwd == ("/".join(["sub"] * cds) if cds else "."), command
    assert ("GIT_DIR", ".git") in r.repository.env_vars or not git_dir, command
    if not cds and not git_dir:
        assert r.repository.is_default, command


_PLAIN = [
    (["git", "commit", "-m", "x"], "index"),
    (["git", "commit", "-m", "feat: a 'quoted' $word"], "index"),
    (["git", "push"], "push"),
    (["git", "push", "origin", "main"], "push"),
]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_PLAIN), st.data())
def test_a_plain_clean_delivery_is_judged_not_refused(
    case: tuple[list[str], str], data: st.DataObject
) -> None:
    argv, kind = case
    command = data.draw(_simple(argv, _WRAPPERS))
    for _ in range(data.draw(st.integers(0, 2))):
        if data.draw(st.booleans()):
            command = data.draw(st.sampled_from(_KEEPING)).format(command)
        else:
            command = data.draw(st.sampled_from(_NESTING)).format(shlex.quote(command))
    r = analyse(command)
    assert r.verdict == "judge_index", (command, r.reason)
    assert r.surface is not None and r.surface.kind == kind
    assert r.repository is not None and r.repository.is_default


_BENIGN = [
    ["git", "status"],
    ["git", "log", "--oneline", "-3"],
    ["git", "log", "--grep", "commit"],
    ["git", "diff", "HEAD"],
    ["git", "branch", "-a"],
    ["git", "show", "HEAD"],
    ["git", "commit", "--dry-run"],
    ["git", "push", "--dry-run"],
    ["ls", "-la"],
    ["cat", "README.md"],
    ["echo", "git commit -m x"],
    ["echo", "git push --no-verify"],
    ["printf", "%s", "git commit"],
    ["grep", "-r", "git push", "."],
]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(_BENIGN), st.data())
def test_benign_commands_in_any_spelling_are_no_delivery(
    argv: list[str], data: st.DataObject
) -> None:
    command = data.draw(_simple(argv, [*_WRAPPERS, ["xargs"]]))
    command, _ = data.draw(_shaped(command, doubtful=False))
    r = analyse(command)
    assert (r.verdict, r.reason) == ("no_delivery", None), command


# ---------------------------------------------------------------- never raises

_SHELLISH = st.text(alphabet="gitcomupshbaenv -;&|(){}[]'\"\\$`\n<>!*=/.#~", max_size=200)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=300), _SHELLISH))
def test_any_text_gives_a_verdict(text: str) -> None:
    r = analyse(text)
    assert r.verdict in VERDICTS
    assert (r.reason is None) == (r.verdict in ("no_delivery", "judge_index"))
    describe(r)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_give_a_verdict(raw: bytes) -> None:
    assert analyse(raw).verdict in VERDICTS
    assert analyse(raw.decode("utf-8", "replace")).verdict in VERDICTS
    assert analyse(raw.decode("latin-1")).verdict in VERDICTS


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=30), _SHELLISH), max_size=6))
def test_any_argv_gives_a_verdict(argv: list[str]) -> None:
    assert analyse(argv).verdict in VERDICTS
    assert analyse(["bash", "-lc", *argv]).verdict in VERDICTS


# ---------------------------------------------------------------- submodule foreach


@pytest.mark.parametrize(
    "command",
    [
        "git submodule foreach git commit -m x",
        "git submodule foreach --recursive git commit -qam x",
        "git submodule foreach git push origin main",
        "git submodule --quiet foreach --recursive -- git commit -m x",
        "git submodule foreach -q git commit -m x",
        "git submodule foreach 'git add -A && git commit' -m x",
    ],
)
def test_submodule_foreach_words_are_read_as_the_command_git_runs(command: str) -> None:
    # Unquoted words after foreach's options are the command git runs in each submodule.
    r = analyse(command)
    assert (r.verdict, r.reason) == ("undeterminable", Reason.DELIVERY_IN_LOOP), command


@pytest.mark.parametrize(
    ("command", "verdict"),
    [
        ("git submodule foreach git status", "no_delivery"),
        ("git submodule foreach --recursive git log -1", "no_delivery"),
        ("git submodule foreach git commit --no-verify -m x", "forbidden"),
        # Only the first word is shell text; the others are its arguments.
        ("git submodule foreach echo hi '&&' git commit -m x", "no_delivery"),
    ],
)
def test_submodule_foreach_of_other_commands_keeps_their_verdict(
    command: str, verdict: str
) -> None:
    assert analyse(command).verdict == verdict


# ---------------------------------------------------------------- refs outside the flow


@pytest.mark.parametrize(
    "command",
    [
        "git fetch origin main:refs/heads/main",
        "git fetch origin +HEAD:refs/heads/feature",
        "git fetch . stash@{0}:refs/heads/x",
        "git fetch . HEAD:refs/replace/abc",
        "git fetch origin refs/tags/v1:refs/tags/v1",
        "git fetch origin main:main",
        "git fetch origin 'refs/heads/*:refs/heads/*'",
        "git replace abc def",
        "git replace --graft HEAD",
        "git -c alias.r=replace r abc def",
        "git --no-pager replace -f abc def",
        "bash -c 'git replace abc def'",
        "git update-ref refs/replace/abc def",
        "git reset --soft stash@{0}",
        "git reset --hard stash@{1}",
        "git reset --mixed refs/stash",
        "git reset stash",
        "git reset -q --keep stash@{0}^",
        "git branch feature stash@{0}",
        "git branch -f main refs/stash",
        "git checkout -b feature stash@{0}",
        "git checkout -B feature stash",
        "git checkout stash@{0}",
        "git reset --hard stash@{0} --",
        "git switch -c feature stash@{0}",
        "git worktree add -b x ../wt stash@{0}",
        "git stash branch feature",
        "git stash branch feature stash@{1}",
        "git submodule foreach git stash branch x",
        "git fetch --refmap='+refs/heads/*:refs/heads/*' origin main",
        # Refspecs on standard input, by the option and by its abbreviations.
        "echo 'main:refs/heads/x' | git fetch --stdin origin",
        "git fetch --stdin origin < specs.txt",
        "git fetch --std origin < specs.txt",
        "git fetch -q --stdin . < specs.txt",
        # A URL is the repository word; the words after it are still refspecs.
        "git fetch git@github.com:org/repo main:x",
        "git fetch https://github.com/org/repo +main:refs/heads/x",
        "git fetch --depth 1 git@github.com:org/repo main:x",
        # An abbreviated option this table cannot resolve: every word counts.
        "git fetch --dep 1 git@github.com:org/repo main:x",
        "git -c remote.origin.fetch='+refs/heads/*:refs/heads/*' fetch origin",
        "git config remote.origin.fetch '+refs/heads/*:refs/heads/*'",
        "git config --add remote.origin.fetch +refs/tags/*:refs/tags/*",
        "git config set remote.up.mirror true",
        "git remote add --mirror=fetch up ../up",
    ],
)
def test_ref_writes_outside_the_normal_flow_are_forbidden(command: str) -> None:
    r = analyse(command)
    assert (r.verdict, r.reason) == ("forbidden", Reason.REF_WRITE), command
    assert Reason.REF_WRITE in FORBIDDEN_REASONS
    assert "stash" not in describe(r) or "refs" in describe(r)


@pytest.mark.parametrize(
    "command",
    [
        "git fetch origin",
        "git fetch origin main",
        "git fetch --all --prune",
        # A repository named by URL or `host:path` is no refspec (it writes FETCH_HEAD).
        "git fetch git@github.com:org/repo",
        "git fetch git@github.com:org/repo main",
        "git fetch https://github.com/org/repo main",
        "git fetch --depth 1 git@github.com:org/repo",
        "git fetch -j4 -- git@github.com:org/repo",
        "git fetch --multiple origin git@github.com:org/repo",
        "git reset --hard HEAD",
        "git reset --soft HEAD~1",
        "git reset HEAD app.py",
        "git reset stash@{0} -- app.py",
        "git branch feature",
        "git branch -d old",
        "git checkout -b feature",
        "git checkout stash@{0} -- app.py",
        "git checkout stash@{0} app.py",
        "git switch -c feature origin/main",
        "git stash",
        "git stash pop",
        "git stash list",
        "git stash show -p stash@{0}",
        "git config --get remote.origin.fetch",
        "git remote add upstream ../up",
    ],
)
def test_ordinary_ref_and_stash_commands_are_not_forbidden(command: str) -> None:
    r = analyse(command)
    assert r.verdict != "forbidden", (command, r.reason)
    assert r.verdict == "no_delivery", (command, r.reason)


@pytest.mark.parametrize(
    "command",
    [
        'git fetch origin "$SPEC"',  # may be main:refs/heads/x
        "git fetch $OPTS origin",  # may be --stdin, or split into a refspec
        "git fetch origin $(cat specs)",
    ],
)
def test_a_fetch_with_words_known_only_at_run_time_is_undeterminable(command: str) -> None:
    r = analyse(command)
    assert (r.verdict, r.reason) == ("undeterminable", Reason.DYNAMIC_ARGUMENT), command
