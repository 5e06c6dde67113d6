"""Git's own argument rules, for the shell analyser: global options, aliases, and the
subcommands that stage, commit, push or could bypass the gates.

Long options may be abbreviated to any unique prefix (git's parse-options does the
same), so options are resolved against per-subcommand tables; an option not in a
table makes a delivery undeterminable rather than guessed.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import replace

from orchestrator.git.grammar import (
    ADD_LONG,
    ADD_SHORT,
    COMMIT_LONG,
    COMMIT_SHORT,
    FETCH_LONG,
    FETCH_SHORT,
    GLOBAL_WITH_VALUE,
    INFO_OPTIONS,
    OUTPUT_OPTIONS,
    PUSH_LONG,
    PUSH_SHORT,
    REPOSITORY_OPTIONS,
)
from orchestrator.git.program_settings import (
    CONFIG_FILE_ENV,
    PROGRAM_SECTIONS,
    harmless_env,
    harmless_value,
    parameter_pairs,
    runs_program,
)
from orchestrator.git.remote_settings import (
    LOCATION_SECTIONS,
    REFLOG_ENV,
    moves_remote,
    section_of,
)
from orchestrator.shell.records import (
    DYN,
    MAX_ALIAS_EXPANSIONS,
    Ctx,
    GitOp,
    Reason,
    Repository,
    State,
    Surface,
    Word,
)
from orchestrator.shell.walk import Walker, normpath, split_words


def _names(text: str) -> frozenset[str]:
    """A set of names written as one space-separated string (tables read better so)."""
    return frozenset(text.split())


# -- global options, as git's grammar gives them
_GLOBAL_WITH_ARG = tuple(o for o in REPOSITORY_OPTIONS if o in GLOBAL_WITH_VALUE)
_GLOBAL_KEEP = frozenset(o for o in REPOSITORY_OPTIONS if o not in GLOBAL_WITH_VALUE)
_SAFE_CONFIG = (
    "user.",
    "author.",
    "committer.",
    "color.",
    "advice.",
    "i18n.",
    "gpg.",
    "commit.gpgsign",
    "core.pager",
    "core.editor",
    "credential.",
    "http.",
    "alias.",
)

# -- subcommand families
_OTHER_DELIVERIES = _names("""merge pull cherry-pick am rebase revert commit-tree send-pack http-push send-email
    svn p4 fast-import filter-branch replay citool gui quiltimport archimport
    cvsimport cvsexportcommit subtree""")
_NO_COMMIT_FLAGS = _names(
    "--abort --quit --no-commit -n --squash --show-current-patch --edit-todo --skip"
)
_NO_VERIFY_SUBS = frozenset({"commit", "push", "merge", "pull", "rebase", "am"})
_INDEX_CHANGERS = _names("""reset restore checkout switch stash apply update-index read-tree checkout-index
    clean sparse-checkout bisect mergetool merge-file merge-index rerere submodule lfs
    worktree notes""")
_READ_ONLY = _names("""status log diff show branch tag rev-parse ls-files ls-tree ls-remote cat-file blame
    annotate grep describe shortlog reflog remote help version whatchanged show-ref
    for-each-ref rev-list diff-files diff-index diff-tree name-rev merge-base count-objects
    fsck check-ignore check-attr check-ref-format check-mailmap var show-branch range-diff
    cherry verify-commit verify-tag format-patch archive bundle clone init gc prune repack
    maintenance hash-object mktag mktree write-tree fmt-merge-msg interpret-trailers
    mailinfo mailsplit patch-id stripspace column credential fast-export request-pull
    get-tar-commit-id difftool instaweb pack-refs prune-packed verify-pack index-pack
    pack-objects unpack-objects unpack-file merge-tree fetch-pack backfill
    multi-pack-index commit-graph diagnose bugreport""")

_MESSAGE_LIKE = _names("""message file reuse-message reedit-message fixup squash author date cleanup template
    trailer gpg-sign untracked-files""")


def _resolve_long(name: str, table: dict[str, str]) -> str | None:
    """Git's rule: an exact name, or a unique prefix of one (negations included)."""
    if name in table:
        return name
    if name.startswith("no-") and name[3:] in table and table[name[3:]] == "none":
        return name
    hits = [k for k in table if k.startswith(name)]
    return hits[0] if len(hits) == 1 else None


def _is_no_verify(text: str) -> bool:
    """`--no-verify` or an abbreviation git would accept (or reject as ambiguous)."""
    return text.startswith("--no-v") and "--no-verify".startswith(text.split("=")[0])


def _parse(
    args: list[Word], long: dict[str, str], short: dict[str, str]
) -> tuple[list[tuple[str, Word]], list[Word], Reason | None]:
    """Options as (long name, value) and the other words; a reason when an option is
    unknown or not literal. Options and other words may be mixed, as git allows."""
    opts: list[tuple[str, Word]] = []
    rest: list[Word] = []
    i = 0
    while i < len(args):
        a, t = args[i], args[i].text
        i += 1
        if t == "--":
            rest.extend(args[i:])
            break
        if not t.startswith("-") or t == "-":
            rest.append(a)
            continue
        if not a.literal:
            return opts, rest, Reason.DYNAMIC_ARGUMENT
        if t.startswith("--"):
            key, eq, val = t[2:].partition("=")
            name = _resolve_long(key, long)
            if name is None:
                return opts, rest, Reason.UNKNOWN_OPTION
            kind = long.get(name, "none")
            if kind == "value" and not eq:
                if i >= len(args):
                    return opts, rest, Reason.UNKNOWN_OPTION
                opts.append((name, args[i]))
                i += 1
            else:
                opts.append((name, Word(val)))
            continue
        j = 1
        while j < len(t):
            name = short.get(t[j])
            if name is None:
                return opts, rest, Reason.UNKNOWN_OPTION
            kind = long.get(name, "none")
            if kind in ("value", "optional"):
                val = t[j + 1 :]
                if not val and kind == "value":
                    if i >= len(args):
                        return opts, rest, Reason.UNKNOWN_OPTION
                    opts.append((name, args[i]))
                    i += 1
                else:
                    opts.append((name, Word(val)))
                break
            opts.append((name, Word("")))
            j += 1
    return opts, rest, None


# ---------------------------------------------------------------- entry


class _Git:
    """Git's global options as one command spells them."""

    def __init__(self) -> None:
        self.chdirs: list[str] = []
        self.options: list[str] = []
        self.config: list[str] = []
        self.aliases: dict[str, str] = {}
        self.expansions = 0
        #: A setting for this run changes where a remote's name leads (a URL, a
        #: rewrite): refused if the subcommand records contact with a remote.
        self.relocates = False

    def repository(self, st: State) -> Repository:
        env = tuple((k, v) for k, v in st.env if k.startswith("GIT_"))
        return Repository(st.cwd, tuple(self.chdirs), tuple(self.options), env)


def run_git(w: Walker, args: list[Word], st: State, ctx: Ctx) -> State:
    """Run `git ARGS` abstractly; return the state if it succeeds."""
    g = _Git()
    _check_config_env(w, st)
    _check_program_env(w, st, g)
    if any("ext::" in a.text.casefold() for a in args):
        w.doubt(Reason.GIT_RUNS_COMMAND)  # an `ext::` URL is a command git runs
    i = 0
    while i < len(args):
        a, t = args[i], args[i].text
        if not a.literal:
            w.doubt(Reason.DYNAMIC_GIT_SUBCOMMAND)
            return st.tainted()
        value = args[i + 1].text if i + 1 < len(args) else None
        if t in ("-C", "-c") or t in _GLOBAL_WITH_ARG:
            if value is None:
                return st
            if t == "-C":
                g.chdirs.append(value)
            elif t == "-c":
                _config(w, g, value)
            else:
                g.options.append(f"{t}={value}")
            i += 2
            continue
        if t.startswith(tuple(o + "=" for o in _GLOBAL_WITH_ARG)) or t in _GLOBAL_KEEP:
            g.options.append(t)
        elif t.startswith("--config-env="):
            _config(w, g, t.split("=", 2)[1] + "=" + DYN)
        elif t.startswith("--exec-path="):
            g.options.append(t)
        elif t in INFO_OPTIONS or t.startswith("--list-cmds="):
            return st
        elif t not in OUTPUT_OPTIONS:
            if t.startswith("-"):
                w.doubt(Reason.UNKNOWN_GIT_OPTION)
                return st.tainted()
            return _subcommand(w, g, t, args[i + 1 :], st, ctx)
        i += 1
    return st


def _check_config_env(w: Walker, st: State) -> None:
    for key, value in st.env:
        if key.startswith("GIT_CONFIG") and value and "hookspath" in value.casefold():
            w.forbid(Reason.HOOKS_PATH_CHANGE)


def _check_program_env(w: Walker, st: State, g: _Git) -> None:
    """Variables that make git run a program (`GIT_SSH_COMMAND`, `GIT_EXTERNAL_DIFF`,
    a pager or editor, ...) or read a configuration the command does not show: git
    would run what the gate cannot read. Settings passed through `GIT_CONFIG_*` are
    judged as `-c` is."""
    env = dict(st.env)
    for key, value in st.env:
        if key in REFLOG_ENV:
            w.forbid(Reason.REMOTE_RECORD_CHANGE)  # writes any reflog subject
        if key == "GIT_ALLOW_PROTOCOL" and not harmless_env(key, value):
            w.forbid(Reason.PROGRAM_SETTING)
        elif key == "GIT_EXEC_PATH":
            w.doubt(Reason.CONFIG_OVERRIDE)  # where git finds its own programs
        elif not harmless_env(key, value):
            w.doubt(Reason.GIT_RUNS_COMMAND)
        elif key in CONFIG_FILE_ENV and value != "/dev/null":
            w.doubt(Reason.CONFIG_OVERRIDE)  # a file that may set any program
        elif key in ("HOME", "XDG_CONFIG_HOME"):
            w.doubt(Reason.CONFIG_OVERRIDE)  # another user-level configuration
        elif key == "GIT_CONFIG_PARAMETERS":
            pairs = parameter_pairs(value) if value is not None else None
            if pairs is None:
                w.doubt(Reason.CONFIG_OVERRIDE)
            for k, v in pairs or ():
                _setting(w, g, k, v)
        elif key.startswith("GIT_CONFIG_KEY_"):
            v = env.get("GIT_CONFIG_VALUE_" + key.removeprefix("GIT_CONFIG_KEY_"))
            if value is None:
                w.doubt(Reason.CONFIG_OVERRIDE)
            else:
                _setting(w, g, value, v)


def _setting(w: Walker, g: _Git | None, key: str, value: str | None) -> None:
    """A setting given for one git run (`-c`, `--config-env`, `GIT_CONFIG_*`; `g`
    None: `clone -c`, which records contact): judged as a program setting, and as a
    remote's location once the subcommand is known (`_relocated`)."""
    _program_setting(w, key, value)
    if g is None:
        _location_setting(w, key)
    elif moves_remote(key) or (DYN in key and section_of(key) in LOCATION_SECTIONS):
        g.relocates = True


#: Subcommands that write what the push gates read as contact with a remote: the
#: remote-tracking refs a fetch, pull, clone, push or `remote update` stores (and their
#: reflog subjects), a submodule's own fetch.
_RECORDS_CONTACT = frozenset({"fetch", "pull", "clone", "push", "remote", "submodule"})


def _relocated(w: Walker, g: _Git, sub: str, args: list[Word]) -> None:
    """A run whose settings move a remote's name elsewhere is forbidden when the
    subcommand records contact (a `fetch --dry-run` records none)."""
    dry = sub == "fetch" and any(a.text == "--dry-run" for a in args)
    if g.relocates and (sub in _RECORDS_CONTACT or sub not in _READ_ONLY) and not dry:
        w.forbid(Reason.REMOTE_RECORD_CHANGE)


def _location_setting(w: Walker, key: str) -> None:
    """Changing where a remote's name leads (a URL, a push URL, a URL rewrite) is
    forbidden: git would record a fetch from elsewhere as contact with that remote."""
    if moves_remote(key) or (DYN in key and section_of(key) in LOCATION_SECTIONS):
        w.forbid(Reason.REMOTE_RECORD_CHANGE)


def _program_setting(w: Walker, key: str, value: str | None) -> None:
    """Setting `key` to `value` (None: unknown) is forbidden when it makes git run a
    program (core.hooksPath and includes keep their own reason)."""
    k = key.casefold()
    if k == "core.hookspath" or k.startswith(("include.", "includeif.")):
        w.forbid(Reason.HOOKS_PATH_CHANGE)
    elif runs_program(k) and not harmless_value(k, value):
        w.forbid(Reason.PROGRAM_SETTING)
    elif k == "core.worktree" and (
        value is None
        or not value.startswith("/")
        or w.rules.protected_write(value.rstrip("/") + "/x", "/") is not None
    ):
        # A relative work tree is read from the git folder (`core.worktree=hooks`
        # checks files out into `.git/hooks`): git's files, then, are hooks.
        w.forbid(Reason.GIT_DIR_WRITE)


def _config(w: Walker, g: _Git, kv: str) -> None:
    key, _, value = kv.partition("=")
    k = key.casefold()
    if DYN in k:
        w.doubt(Reason.DYNAMIC_ARGUMENT)
    _setting(w, g, k, None if DYN in value else value)
    if _is_fetch_mapping(k):
        w.forbid(Reason.REF_WRITE)
    if k.startswith("alias."):
        g.aliases[key[6:].casefold()] = value
    g.config.append(k)


#: Options of a subcommand whose value is a command git runs (`--upload-pack`, `--exec`,
#: `difftool --extcmd`, `rebase --exec`, ...), long names and short letters; `clone
#: --template` copies hooks that run at its checkout, `init --template` copies them
#: into the repository, an existing one too (git adds the files it lacks).
_COMMAND_LONG: dict[str, tuple[str, ...]] = {
    "fetch": ("upload-pack",),
    "pull": ("upload-pack",),
    "clone": ("upload-pack", "template"),
    "init": ("template",),
    "ls-remote": ("upload-pack",),
    "archive": ("exec",),
    "fetch-pack": ("upload-pack", "exec"),
    "send-pack": ("receive-pack", "exec"),
    "difftool": ("extcmd",),
    "rebase": ("exec",),
    "grep": ("open-files-in-pager",),
    "daemon": ("access-hook",),
    "instaweb": ("httpd", "browser"),
}
_COMMAND_SHORT = {
    "clone": "u",
    "ls-remote": "u",
    "difftool": "x",
    "rebase": "x",
    "grep": "O",
    "instaweb": "db",
}


def _runs_command(sub: str, args: list[Word]) -> bool:
    """Whether `git SUB ARGS` hands git a command to run (an option above, in any
    abbreviation git accepts, or `bisect run`)."""
    if sub == "bisect" and any(a.text == "run" for a in args[:1]):
        return True
    long, short = _COMMAND_LONG.get(sub, ()), _COMMAND_SHORT.get(sub, "")
    for a in _before_dashdash(args):
        t = a.text
        if t.startswith("--") and len(t) > 3:
            name = t[2:].split("=", 1)[0]
            if any(opt.startswith(name) for opt in long):
                return True
        elif t.startswith("-") and not t.startswith("--") and any(c in short for c in t[1:]):
            return True
    return False


def _clone_config(w: Walker, args: list[Word]) -> None:
    """`git clone -c KEY=VALUE` / `--config`: set in the new repository and used by the
    clone's own checkout, judged as `git -c` is."""
    for i, a in enumerate(args):
        t = a.text
        value = args[i + 1].text if i + 1 < len(args) else ""
        if t in ("-c", "--config"):
            kv = value
        elif t.startswith("--config="):
            kv = t.split("=", 1)[1]
        elif t.startswith("-c") and not t.startswith("--"):
            kv = t[2:]
        else:
            continue
        key, _, val = kv.partition("=")
        _setting(w, None, key, None if DYN in val else val)


def _subcommand(w: Walker, g: _Git, sub: str, args: list[Word], st: State, ctx: Ctx) -> State:
    repo = g.repository(st)
    _relocated(w, g, sub, args)
    # A delivery that is undeterminable anyway keeps its own reason.
    delivers = sub in _OTHER_DELIVERIES and not any(
        a.literal and a.text in _NO_COMMIT_FLAGS for a in args
    )
    if not delivers and _runs_command(sub, args):
        w.doubt(Reason.GIT_RUNS_COMMAND)
    if sub == "clone":
        _clone_config(w, args)
    _check_places(w, g, sub, args, st)
    if _brings_files(sub, args):
        w.maybe_unnamed = w.fetched = True  # files named by another repository or a diff
    if sub in _NO_VERIFY_SUBS and any(
        a.literal and _is_no_verify(a.text) for a in _before_dashdash(args)
    ):
        w.forbid(Reason.NO_VERIFY)
    if sub == "commit":
        return _commit(w, g, args, st, ctx)
    if sub == "push":
        return _push(w, g, args, st, ctx)
    if sub in ("add", "stage", "rm", "mv"):
        return _stage(w, repo, sub, args, st)
    if sub == "config":
        return _config_cmd(w, repo, args, st)
    if sub in ("update-ref", "symbolic-ref"):
        return _ref_write(w, repo, sub, args, st)
    if sub == "fetch":
        _fetch_refspecs(w, args)
        w.record(GitOp("fetch", False, repo))
        return st
    if sub == "replace":
        w.forbid(Reason.REF_WRITE)  # swaps any object for another behind every gate
        return st.tainted()
    if sub in _STASH_REF_WRITERS or (sub == "stash" and args and args[0].text == "branch"):
        _stash_ref_write(w, sub, args)
    if sub in _STASH_REF_WRITERS and _unnamed_target(sub, args):
        w.doubt(Reason.REF_MOVE_UNKNOWN)
    if sub in _OTHER_DELIVERIES:
        delivers = not any(a.literal and a.text in _NO_COMMIT_FLAGS for a in args)
        flags = frozenset(a.text for a in args if a.literal and a.text in ("--exec", "-x"))
        w.record(GitOp(sub, delivers, repo, flags=flags, config=tuple(g.config)))
        return st.tainted()
    if sub == "submodule" and any(a.text == "foreach" for a in args):
        return _foreach(w, args, st, ctx)
    if sub == "submodule" and _remote_verb(args) in ("set-url", "sync", DYN):
        # Both write the URL .gitmodules names into the submodule's own `origin`: its
        # refs stay, its URL changes (`git remote set-url` inside it).
        w.forbid(Reason.REMOTE_RECORD_CHANGE)
    if sub in _INDEX_CHANGERS:
        w.record(GitOp(sub, False, repo))
        read_only = sub == "stash" and args and args[0].text in ("list", "show")
        return st if read_only else st.tainted()
    if sub == "remote" and any(a.text.startswith("--mirror") for a in args):
        w.forbid(Reason.REF_WRITE)  # a mirror remote's fetch overwrites every local ref
    if sub == "remote" and _remote_verb(args) in ("set-url", DYN):
        w.forbid(Reason.REMOTE_RECORD_CHANGE)  # the name keeps its refs, not its URL
    if sub in _READ_ONLY:
        writes = sub in _REF_LISTERS and _writes_refs(sub, args)
        w.record(GitOp(sub, False, repo, flags=frozenset({"write"} if writes else ())))
        return st
    return _alias(w, g, sub, args, st, ctx)


def _before_dashdash(args: list[Word]) -> list[Word]:
    out: list[Word] = []
    for a in args:
        if a.text == "--":
            break
        out.append(a)
    return out


def _alias(w: Walker, g: _Git, sub: str, args: list[Word], st: State, ctx: Ctx) -> State:
    """Expand `-c alias.NAME=...` (or a known alias); anything else is unknown."""
    value = g.aliases.get(sub.casefold(), w.aliases.get(sub.casefold()))
    if value is None:
        w.doubt(Reason.UNKNOWN_GIT_SUBCOMMAND)
        return st.tainted()
    g.expansions += 1
    if g.expansions > MAX_ALIAS_EXPANSIONS or DYN in value:
        w.doubt(Reason.ALIAS_UNRESOLVABLE)
        return st.tainted()
    if value.startswith("!"):
        if not all(a.literal for a in args):
            w.doubt(Reason.DYNAMIC_ARGUMENT)
            return st.tainted()
        script = " ".join([value[1:], *(shlex.quote(a.text) for a in args)])
        # Shell aliases run from the top of the work tree: the directory is unknown.
        return w.run_script(script, replace(st, cwd=None), ctx.depth + 1)
    words = split_words(value)
    if not words or words[0].text.startswith("-"):
        w.doubt(Reason.ALIAS_UNRESOLVABLE)
        return st.tainted()
    return _subcommand(w, g, words[0].text, [*words[1:], *args], st, ctx)


#: `git submodule foreach` options before its command (`--` ends them).
_FOREACH_OPTIONS = _names("--recursive -q --quiet")


def _foreach(w: Walker, args: list[Word], st: State, ctx: Ctx) -> State:
    """`git submodule foreach CMD ARGS...`: in every submodule git runs `sh -c` with the
    first word after foreach's options as shell text and the other words as its
    arguments, so the script read here is that word followed by the others quoted."""
    words = args[next(i for i, a in enumerate(args) if a.text == "foreach") + 1 :]
    while words and words[0].literal and words[0].text in _FOREACH_OPTIONS:
        words = words[1:]
    if words and words[0].literal and words[0].text == "--":
        words = words[1:]
    if not words or not all(a.literal for a in words):
        w.doubt(Reason.DYNAMIC_SCRIPT)
        return st.tainted()
    if words[0].text.startswith("-"):
        w.doubt(Reason.UNKNOWN_OPTION)
        return st.tainted()
    script = " ".join([words[0].text, *(shlex.quote(a.text) for a in words[1:])])
    marks = len(w.ops)
    after = w.run_script(script, replace(st, cwd=None), ctx.depth + 1)
    if any(op.delivers for op in w.ops[marks:]):
        w.doubt(Reason.DELIVERY_IN_LOOP)
    return after.tainted()


# ---------------------------------------------------------------- staging


def _stage(w: Walker, repo: Repository, sub: str, args: list[Word], st: State) -> State:
    """`git add/stage/rm/mv`: remember an argv that replays it, or lose track."""
    opts, paths, reason = _parse(args, ADD_LONG, ADD_SHORT)
    names = {n for n, _ in opts}
    kind = "add" if sub == "stage" else sub
    w.record(GitOp(kind, False, repo, flags=frozenset(names), paths=tuple(a.text for a in paths)))
    changed = replace(st, worktree_changed=st.worktree_changed or kind in ("rm", "mv"))
    if "dry-run" in names and reason is None:
        return st
    if (
        reason is not None
        or names & {"patch", "interactive", "edit", "pathspec-from-file"}
        or not all(a.literal for a in paths)
        or any(not v.literal for _, v in opts)
        or st.staged is None
    ):
        return replace(changed, staged=None)
    argv = (
        kind,
        *(f"--{n}={v.text}" if v.text else f"--{n}" for n, v in opts),
        "--",
        *(a.text for a in paths),
    )
    return replace(changed, staged=(*st.staged, (repo, argv, st.worktree_changed)))


# ---------------------------------------------------------------- commit


def _delivery_doubt(g: _Git, repo: Repository, st: State, ctx: Ctx) -> Reason | None:
    """Reasons common to every delivery: loop, unknown repository, config override."""
    if ctx.in_loop:
        return Reason.DELIVERY_IN_LOOP
    if not repo.known:
        return Reason.REPOSITORY_UNKNOWN
    overridden = [k for k in g.config if not k.startswith(_SAFE_CONFIG)]
    env_override = any(
        (k.startswith(("GIT_CONFIG", "GIT_EXEC_PATH")) and k != "GIT_CONFIG_NOSYSTEM")
        or k in ("PATH", "HOME", "XDG_CONFIG_HOME")
        for k, _ in st.env
    )
    if overridden or env_override or any(o.startswith("--exec-path") for o in g.options):
        return Reason.CONFIG_OVERRIDE
    return None


def _commit(w: Walker, g: _Git, args: list[Word], st: State, ctx: Ctx) -> State:
    repo = g.repository(st)
    opts, paths, reason = _parse(args, COMMIT_LONG, COMMIT_SHORT)
    names = {n for n, _ in opts}
    if "no-verify" in names:
        w.forbid(Reason.NO_VERIFY)
    dry = bool(names & {"dry-run", "short", "porcelain", "long"})
    if reason is None and any(not v.literal for n, v in opts if n not in _MESSAGE_LIKE):
        reason = Reason.DYNAMIC_ARGUMENT
    if reason is None and not all(a.literal for a in paths):
        reason = Reason.PATHS_UNKNOWN
    if reason is None and names & {"patch", "interactive"}:
        reason = Reason.INTERACTIVE
    if reason is None and names & {"pathspec-from-file"}:
        reason = Reason.PATHS_UNKNOWN
    if reason is None and (("all" in names and paths) or ("include" in names and not paths)):
        reason = Reason.UNKNOWN_OPTION
    reason = reason or _delivery_doubt(g, repo, st, ctx)
    surface, why = (None, reason) if reason else _commit_surface(names, paths, repo, st)
    flags = frozenset(names & {"all", "no-verify", "amend", "include", "only", "dry-run"})
    w.record(
        GitOp(
            "commit",
            not dry,
            repo,
            flags=flags,
            paths=tuple(a.text for a in paths),
            staged_before=tuple(e[1] for e in (st.staged or ())),
            aliases=tuple(sorted(g.aliases.items())),
            config=tuple(g.config),
            surface=surface,
            reason=why,
        )
    )
    return st if dry else replace(st, staged=())


def _commit_surface(
    names: set[str], paths: list[Word], repo: Repository, st: State
) -> tuple[Surface | None, Reason | None]:
    """What a commit will contain, from the index and what the command staged."""
    if paths and "include" not in names:
        if st.worktree_changed:
            return None, Reason.WORKTREE_MAY_CHANGE
        return Surface("only_paths", only_paths=tuple(a.text for a in paths)), None
    if st.staged is None:
        return None, Reason.INDEX_MAY_CHANGE
    if any(r != repo for r, _, _ in st.staged):
        return None, Reason.STAGED_ELSEWHERE
    if any(changed for _, _, changed in st.staged):
        return None, Reason.WORKTREE_MAY_CHANGE
    staging = tuple(argv for _, argv, _ in st.staged)
    if "include" in names:
        staging += (("add", "--", *(a.text for a in paths)),)
    if "all" in names:
        if st.worktree_changed:
            return None, Reason.WORKTREE_MAY_CHANGE
        return Surface("tracked_worktree", staging=(*staging, ("add", "--update"))), None
    if staging:
        if "include" in names and st.worktree_changed:
            return None, Reason.WORKTREE_MAY_CHANGE
        return Surface("index_plus_added", staging=staging), None
    return Surface("index"), None


# ---------------------------------------------------------------- push, refs, config

#: Subcommands that can point a branch, a tag or HEAD at a stash commit (or any commit
#: no gate judged).
_STASH_REF_WRITERS = _names("reset branch checkout switch worktree tag")
#: Options of `branch` / `tag` that list, delete, rename or copy refs: none points a ref
#: at new content.
_REF_LIST_OPTIONS = {
    "branch": _names("""-d -D --delete -l --list -a -r --all --remotes --contains
        --no-contains --merged --no-merged --points-at --show-current -m -M -c -C --move
        --copy -u --set-upstream-to --unset-upstream --edit-description -v -vv --verbose
        --format --sort --column"""),
    "tag": _names("""-d --delete -l --list -v --verify -n --contains --no-contains --merged
        --no-merged --points-at --sort --format --column"""),
}
#: Options whose value is the next word (a message, a file, a name), not a revision.
_REF_VALUE_OPTIONS = _names("-m -F -u --message --file --local-user --reason --orphan")
#: A revision spelled as an object id: nothing in the text says which commit it is.
_OBJECT_ID = re.compile(r"[0-9a-fA-F]{4,64}([~^@].*)?")


def _ref_words(sub: str, args: list[Word]) -> list[Word] | None:
    """The words of a ref-moving subcommand that are names or revisions (option values
    left out), or None when it moves no ref to a revision (paths after `--`, a listing
    or deleting `branch`/`tag`, a `worktree` subcommand other than `add`)."""
    before = _before_dashdash(args)
    if len(before) < len(args) - 1:
        return None  # paths after `--`: files are restored, no ref moves
    if sub == "worktree":
        if not before or before[0].text != "add":
            return None
        before = before[1:]
    if any(a.text.split("=", 1)[0] in _REF_LIST_OPTIONS.get(sub, ()) for a in before):
        return None
    words: list[Word] = []
    skip = False
    for a in before:
        if skip:
            skip = False
        elif a.text in _REF_VALUE_OPTIONS:
            skip = True
        elif not a.text.startswith("-") or a.text == "-":
            words.append(a)
    return words


def _unnamed_target(sub: str, args: list[Word]) -> bool:
    """Whether a branch, tag or HEAD is moved onto a revision the text does not name: a
    substitution or variable, an object id, or a `:/` message search (which finds
    stash commits as well)."""
    words = _ref_words(sub, args)
    if not words:
        return False
    creates = any(a.text.split("=", 1)[0] in ("-b", "-B", "-c", "-C", "--detach") for a in args)
    if sub in ("reset", "checkout") and len(words) > 1 and not creates:
        return False  # `git reset REV PATHS`, `git checkout REV PATHS`: files only
    if sub in ("branch", "tag", "worktree") and len(words) < 2:
        return False  # the new ref starts at HEAD
    target = words[-1]
    t = target.text.lstrip(DYN)
    return not target.literal or t.startswith(":") or bool(_OBJECT_ID.fullmatch(t))


#: `branch`, `tag` and `remote` read or write refs and settings depending on their words.
_REF_LISTERS = frozenset({"branch", "tag", "remote"})
_REMOTE_WRITES = _names("add rename remove rm set-head set-branches set-url prune update")
#: `branch` / `tag` options that change refs or upstreams even with no other word.
_REF_CHANGING_OPTIONS = _names("-u --set-upstream-to --unset-upstream -d -D --delete -m -M -c -C")


#: `git apply` options that only report, writing no file.
_APPLY_REPORTS = _names("--check --stat --numstat --summary")


#: Options of `clone`, `init`, `worktree add` and `submodule add` that take a value
#: which is not the folder they fill.
_PLACE_VALUE_OPTIONS = _names("""-o --origin -b --branch -B -u --upload-pack --reference
    --reference-if-able --depth -c --config -j --jobs --filter --shallow-since
    --shallow-exclude --bundle-uri --server-option --name --template --object-format
    --ref-format --reason --shared --initial-branch""")
#: Which positional words (after the verb, for `worktree add` and `submodule add`) name
#: the folder a subcommand checks files out into or makes a repository in.
_PLACE_WORDS = {
    "clone": slice(1, 2),
    "init": slice(0, 1),
    "worktree": slice(1, 2),
    "submodule": slice(2, 3),
}
_PLACE_VERBS = {"worktree": "add", "submodule": "add"}


def written_places(g: _Git, sub: str, args: list[Word], st: State) -> list[str]:
    """The folders `git SUB ARGS` writes files into beside the start tree, as spelled:
    a work tree named by `--work-tree` or `GIT_WORK_TREE` (git checks files out, or
    writes them on a `checkout`/`restore`, there), the folder `clone`, `init`,
    `worktree add` or `submodule add` fills (the shell's folder when none is named:
    the new one is made there), and a `--separate-git-dir`. A work tree counts for a
    subcommand that may write its files (not `status`, `log`, `diff`, ...)."""
    places: list[str] = []
    if sub not in _READ_ONLY or sub in ("init", "clone"):  # these record the work tree
        places += [o.split("=", 1)[1] for o in g.options if o.startswith("--work-tree=")]
        env = dict(st.env)
        if "GIT_WORK_TREE" in env:
            places.append(env["GIT_WORK_TREE"] or DYN)
    places += _output_places(sub, args)
    if sub not in _PLACE_WORDS:
        return places
    words: list[str] = []
    i = 0
    while i < len(args):
        t = args[i].text
        nxt = args[i + 1].text if i + 1 < len(args) else None
        if t.startswith("--separate-git-dir="):
            places.append(t.split("=", 1)[1])
        elif t == "--separate-git-dir" and nxt is not None:
            places.append(nxt)
            i += 1
        elif t in _PLACE_VALUE_OPTIONS:
            i += 1
        elif not t.startswith("-") or t == "-":
            words.append(t)
        i += 1
    verb = _PLACE_VERBS.get(sub)
    if verb is not None and (not words or words[0] != verb):
        return places
    return places + (words[_PLACE_WORDS[sub]] or ["."])


#: Options naming a file or folder git writes its output to (`archive -o`, `diff
#: --output`, `format-patch -o`, `checkout-index --prefix`), short letters per
#: subcommand.
_OUTPUT_LONG = ("--output", "--output-directory", "--prefix")
_OUTPUT_SHORT = {"archive": "o", "format-patch": "o"}


def _output_places(sub: str, args: list[Word]) -> list[str]:
    """Where `git SUB ARGS` writes output files beside the work tree (`--prefix` only
    for `checkout-index`, where it is a folder; `bundle create FILE`, `worktree move
    FROM TO`)."""
    out: list[str] = []
    letters = _OUTPUT_SHORT.get(sub, "")
    longs = [o for o in _OUTPUT_LONG if o != "--prefix" or sub == "checkout-index"]
    for i, a in enumerate(args):
        t = a.text
        nxt = args[i + 1].text if i + 1 < len(args) else None
        key = t.split("=", 1)[0]
        if key in longs and "=" in t:
            out.append(t.split("=", 1)[1])
        elif (t in longs or (letters and t in {"-" + c for c in letters})) and nxt:
            out.append(nxt)
        elif letters and t[:1] == "-" and t[1:2] in letters and len(t) > 2:
            out.append(t[2:])
    words = [a.text for a in args if not a.text.startswith("-")]
    if sub == "bundle" and words[:1] == ["create"] and len(words) > 1:
        out.append(words[1])
    if sub == "worktree" and words[:1] == ["move"] and len(words) > 2:
        out.append(words[2])
    return out


def _check_places(w: Walker, g: _Git, sub: str, args: list[Word], st: State) -> None:
    """A work tree, clone, worktree or repository made inside `.git` (its hooks) or
    orchestrate's configuration writes there what the tree holds (`git
    --work-tree=.git/hooks checkout HEAD -- .`, `git worktree add .git/hooks`):
    forbidden as any other write there is; one known only at run time that may be
    there is undeterminable. Each is also one of the command's write targets
    (`Analysis.writes`), and a folder whose files a later program looked up on `PATH`
    may be (`Walker.lands_on_path`)."""
    cwd = st.cwd
    for d in g.chdirs:
        cwd = None if cwd is None or DYN in d else normpath(cwd, d)
    for place in written_places(g, sub, args, st):
        reason = w.rules.protected_write(place.rstrip("/") + "/x", cwd)
        if reason is not None and DYN in place:
            w.doubt(Reason.DYNAMIC_ARGUMENT)  # `git clone URL "$DIR"`: it may be `.git`
        elif reason is not None:
            w.forbid(reason)
        if DYN not in place and (seen := normpath(cwd, place)) is not None:
            w.write_targets.add(seen)  # read by the router against the hooks folder
        # files named by the tree or another repository: `git clone URL ~/.local/bin`
        w.lands_on_path(place, replace(st, cwd=cwd), named=False)


def _brings_files(sub: str, args: list[Word]) -> bool:
    """Whether `git SUB ARGS` writes work-tree files under names it is given from
    elsewhere: a clone, a submodule cloned or updated, a patch applied to the tree."""
    if sub == "clone":
        return True
    if sub == "apply":
        return not any(a.text in _APPLY_REPORTS for a in args) and "--cached" not in {
            a.text for a in args
        }
    return sub == "submodule" and _remote_verb(args) in ("update", "add", DYN)


def _remote_verb(args: list[Word]) -> str:
    """The verb of `git remote ARGS` (`add`, `set-url`, ...); DYN when it is not a
    literal word; "" when there is none (a listing)."""
    words = [a for a in args if not a.text.startswith("-")]
    if not words:
        return ""
    return words[0].text if words[0].literal and DYN not in words[0].text else DYN


def _writes_refs(sub: str, args: list[Word]) -> bool:
    """Whether `git branch/tag/remote ARGS` changes a ref or a remote's settings."""
    if sub == "remote":
        words = [a for a in args if not a.text.startswith("-")]
        return bool(words) and words[0].text in _REMOTE_WRITES
    if any(a.text.split("=", 1)[0] in _REF_CHANGING_OPTIONS for a in args):
        return True
    return bool(_ref_words(sub, args))


def _is_stash_rev(text: str) -> bool:
    """`stash`, `refs/stash`, `stash@{N}` and revisions built on them (`stash^`, ...)."""
    # A leading DYN marks a possible brace expansion (`stash@{0}` looks like one).
    t = text.lstrip(DYN).casefold().removeprefix("refs/")
    return t.startswith("stash") and (len(t) == 5 or t[5] in "@^~:{")


def _stash_ref_write(w: Walker, sub: str, args: list[Word]) -> None:
    """A branch, HEAD or worktree moved onto a stash commit (its content bypassed the
    commit gate) is forbidden; `git stash branch` makes exactly that. Restoring files
    from a stash (`git checkout stash@{0} -- PATH`, `git reset stash PATH`) is not a
    ref write."""
    if sub == "stash":
        w.forbid(Reason.REF_WRITE)
        return
    before = _before_dashdash(args)
    words = [a for a in before if not a.text.startswith("-")]
    # The revision is the last word before any paths; words after it are paths.
    if words and len(before) >= len(args) - 1 and _is_stash_rev(words[-1].text):
        w.forbid(Reason.REF_WRITE)


def _is_fetch_mapping(key: str) -> bool:
    """`remote.NAME.fetch` / `remote.NAME.mirror`: where a plain `git fetch` writes refs."""
    k = key.casefold()
    return k.startswith("remote.") and k.endswith((".fetch", ".mirror"))


def _fetch_refspecs(w: Walker, args: list[Word]) -> None:
    """A fetch may update remote-tracking refs as configured; a refspec that names a
    destination writes it by hand: remote-tracking refs, or a branch, tag or replace
    ref (a destination without `refs/` is a branch) that no gate judged. Refspecs read
    from standard input (`--stdin`) are not seen: forbidden. The repository word (a
    URL, `git@host:org/repo`) is no refspec, where git's own parse says which it is."""
    if not all(a.literal for a in args):
        # `git fetch origin "$SPEC"` may name any destination, or `--stdin`.
        w.doubt(Reason.DYNAMIC_ARGUMENT)
    specs = _fetch_specs(args)
    if specs is None:  # an option this table does not know: every word may be a refspec
        specs = [a for a in args if not a.text.startswith("-")]
        if any(a.text.startswith("--std") for a in args):
            w.forbid(Reason.REF_WRITE)
    _forged_refspecs(w, specs)
    if any(_is_stash_rev(a.text.lstrip(DYN + "+").split(":", 1)[0]) for a in specs):
        w.forbid(Reason.REF_WRITE)  # FETCH_HEAD (or a ref) set to a stash commit
    if any(a.text.startswith("--refm") and ":" in a.text for a in args):
        w.forbid(Reason.REF_WRITE)  # --refmap maps the command line's refspecs anywhere
    for a in specs:
        if ":" not in a.text:
            continue
        dst = a.text.lstrip("+").split(":", 1)[1]
        if dst:
            w.forbid(Reason.REF_WRITE)


def _fetch_specs(args: list[Word]) -> list[Word] | None:
    """The refspecs of `git fetch ARGS` by git's own parse (with `--stdin`, one more
    that stands for the unseen ones and names a destination), or None when an option
    is unknown or not literal (then nothing is ruled out)."""
    opts, rest, reason = _parse(args, FETCH_LONG, FETCH_SHORT)
    if reason is not None:
        return None
    names = {name for name, _ in opts}
    stdin = [Word(":stdin")] if "stdin" in names else []  # refspecs unseen: a destination
    if "multiple" in names:
        return stdin  # every word names a repository or a group of them
    if "all" in names:
        return rest + stdin  # no repository word (git refuses refspecs with --all)
    return rest[1:] + stdin


def _forged_refspecs(w: Walker, args: list[Word]) -> None:
    for a in args:
        if a.text.startswith("-") or ":" not in a.text:
            continue
        dst = a.text.lstrip("+").split(":", 1)[1]
        if dst.casefold().startswith("refs/remotes/") or (DYN in dst and "remotes" in dst):
            w.forbid(Reason.REMOTE_REF_WRITE)


#: Git operations before a push that leave what it sends as the gate reads it now:
#: reading, staging, fetching, stashing and restoring files.
_PUSH_NEUTRAL = (_READ_ONLY - _REF_LISTERS) | _names(
    "add rm mv fetch config stash restore clean status branch tag remote"
)


def _push_state_changed(w: Walker, st: State) -> Reason | None:
    """The push gate reads git's config, refs and current branch before the command
    runs: an earlier git operation of the same command that writes config
    (`push.followTags`, `remote.*.push`), a tag or branch, a remote, or moves HEAD
    would make the push send what was not judged; so would an earlier program that
    may do anything (`make test`, `pytest`, `npm install` run the project's code,
    which can commit: the state is tainted, `st.staged` unknown)."""
    if st.staged is None:
        return Reason.PUSH_STATE_CHANGED
    for op in w.ops:
        if op.kind not in _PUSH_NEUTRAL or "write" in op.flags:
            return Reason.PUSH_STATE_CHANGED
    return None


def _push(w: Walker, g: _Git, args: list[Word], st: State, ctx: Ctx) -> State:
    repo = g.repository(st)
    opts, rest, reason = _parse(args, PUSH_LONG, PUSH_SHORT)
    names = {n for n, _ in opts}
    _forged_refspecs(w, rest)
    if reason is None and names & {"receive-pack", "exec"}:
        reason = Reason.PUSH_EXEC_OPTION
        if "dry-run" in names:
            w.doubt(reason)  # a dry run still runs the program on the other end
    if reason is None and not all(a.literal for a in rest):
        reason = Reason.DYNAMIC_ARGUMENT
    if reason is None and any(
        n == "recurse-submodules" and v.text not in ("no", "check") for n, v in opts
    ):
        reason = Reason.UNKNOWN_OPTION
    reason = reason or _delivery_doubt(g, repo, st, ctx) or _push_state_changed(w, st)
    remote = rest[0].text if rest else None
    refspecs = tuple(a.text for a in rest[1:])
    surface = None
    if reason is None:
        widen = ("all", "branches", "mirror", "tags", "follow-tags", "delete", "force")
        flags = tuple(sorted(f"--{n}" for n in names if n in widen))
        surface = Surface("push", remote=remote, refspecs=refspecs, push_flags=flags)
    w.record(
        GitOp(
            "push",
            "dry-run" not in names,
            repo,
            flags=frozenset(names & {"all", "branches", "mirror", "tags", "delete", "force"}),
            refspecs=refspecs,
            remote=remote,
            aliases=tuple(sorted(g.aliases.items())),
            config=tuple(g.config),
            surface=surface,
            reason=reason,
        )
    )
    return st


def _ref_write(w: Walker, repo: Repository, sub: str, args: list[Word], st: State) -> State:
    """`update-ref` moves a ref to any commit (history without gates);
    remote-tracking refs are never written by hand."""
    words = [a for a in args if not a.text.startswith("-")]
    if any(a.text == "-m" for a in args):
        # -m MSG takes the next word
        idx = next(i for i, a in enumerate(args) if a.text == "-m")
        if idx + 1 < len(args):
            words = [a for a in words if a is not args[idx + 1]]
    writes = sub == "update-ref" or len(words) >= 2 or any(a.text == "-d" for a in args)
    if writes and words:
        ref = words[0].text
        if ref.casefold().startswith("refs/remotes/") or (DYN in ref and writes):
            w.forbid(Reason.REMOTE_REF_WRITE)
        elif ref.casefold().startswith("refs/replace/"):
            w.forbid(Reason.REF_WRITE)
    if sub == "update-ref" and any(a.text == "--stdin" for a in args):
        w.forbid(Reason.REMOTE_REF_WRITE)  # refs read from input could be anything
    delivers = sub == "update-ref" and not any(a.text == "-d" for a in args)
    w.record(GitOp(sub, delivers, repo, refspecs=tuple(a.text for a in words[:1])))
    return st


_CONFIG_READ = _names(
    "--get --get-all --get-regexp --get-urlmatch --get-color --get-colorbool -l --list"
)
_CONFIG_WRITE = _names(
    "--replace-all --add --unset --unset-all --rename-section --remove-section -e --edit"
)
_CONFIG_VALUE_OPTS = _names("-f --file --blob --default --comment --value --type --url")


def _config_cmd(w: Walker, repo: Repository, args: list[Word], st: State) -> State:
    """`git config`: changing core.hooksPath (or an include that could) is forbidden."""
    modes: set[str] = set()
    names: list[Word] = []
    i = 0
    while i < len(args):
        t = args[i].text
        if t in _CONFIG_VALUE_OPTS:
            i += 2
            continue
        if t.startswith("-"):
            modes.add(t.split("=")[0])
        else:
            names.append(args[i])
        i += 1
    if not modes & _CONFIG_READ and any(DYN in n.text for n in names):
        # A word not known from the text (`xargs git config`, `git config $k`) may be
        # any key and value, or several words: a write of any setting.
        w.doubt(Reason.DYNAMIC_ARGUMENT)
    verb = names[0].text if names else ""
    if verb in ("get", "list", "set", "unset", "rename-section", "remove-section", "edit"):
        names = names[1:]
        write = verb not in ("get", "list")
    else:
        write = bool(modes & _CONFIG_WRITE) or (not modes & _CONFIG_READ and len(names) >= 2)
    section_op = verb in ("rename-section", "remove-section") or bool(
        modes & {"--rename-section", "--remove-section"}
    )
    if write and (verb == "edit" or modes & {"-e", "--edit"}):
        w.doubt(Reason.INTERACTIVE)
    if write and names:
        key = names[0].text.casefold()
        if DYN in key:
            w.doubt(Reason.DYNAMIC_ARGUMENT)
        if _is_fetch_mapping(key):
            w.forbid(Reason.REF_WRITE)
        hooks = key == "core.hookspath" or key.startswith(("include.", "includeif."))
        if hooks or (section_op and (key in ("core", "include") or key.startswith("includeif"))):
            w.forbid(Reason.HOOKS_PATH_CHANGE)
        unsets = bool(modes & {"--unset", "--unset-all"}) or verb == "unset"
        if not section_op and not unsets and len(names) >= 2:
            _program_setting(w, key, None if DYN in names[1].text else names[1].text)
        elif not section_op and not unsets and runs_program(key):
            w.forbid(Reason.PROGRAM_SETTING)  # a value git reads from elsewhere
        renamed = names[1].text.casefold().split(".", 1)[0] if len(names) >= 2 else ""
        if section_op and renamed in PROGRAM_SECTIONS:
            w.forbid(Reason.PROGRAM_SETTING)  # a section renamed onto a program setting
        if section_op and ({section_of(key), renamed} & LOCATION_SECTIONS or DYN in key + renamed):
            # `remote.evil` renamed `remote.origin` (or origin's section removed, then
            # added again elsewhere) keeps origin's refs under another URL.
            w.forbid(Reason.REMOTE_RECORD_CHANGE)
        if not section_op:
            _location_setting(w, key)
    w.record(GitOp("config", False, repo, flags=frozenset({"write"} if write else set())))
    return st
