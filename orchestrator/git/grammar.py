"""Git's command-line grammar, written once: its global options and the options of the
subcommands orchestrate reads (`commit`, `push`, `add`).

Facts about git only, no verdict: the shell analyser (`orchestrator.shell.git_rules`)
reads a command an agent is about to run with them, the commit gate
(`gates/amend.py`) reads the command line of the `git commit` whose hook it runs, and
the agent's pre-tool gate (`usecases/shell_delivery.py`) turns repository options into
the GIT_* variables they stand for. Nothing here runs git.
"""

from __future__ import annotations


def _names(text: str) -> frozenset[str]:
    """A set of names written as one space-separated string (tables read better so)."""
    return frozenset(text.split())


# ---------------------------------------------------------------- global options

#: Global options (before the subcommand) whose value may be the next word; each also
#: takes it attached after `=` (`--git-dir=DIR`). `--list-cmds=` and `--exec-path=`
#: take theirs attached only.
GLOBAL_WITH_VALUE = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env"}
    | {"--attr-source"}
)
#: Global options that select or shape the repository git reads, and the GIT_*
#: variable each stands for (None: none does).
REPOSITORY_OPTIONS: dict[str, str | None] = {
    "--git-dir": "GIT_DIR",
    "--work-tree": "GIT_WORK_TREE",
    "--namespace": "GIT_NAMESPACE",
    "--attr-source": "GIT_ATTR_SOURCE",
    "--super-prefix": None,
    "--bare": None,
    "--literal-pathspecs": "GIT_LITERAL_PATHSPECS",
    "--glob-pathspecs": "GIT_GLOB_PATHSPECS",
    "--noglob-pathspecs": "GIT_NOGLOB_PATHSPECS",
    "--icase-pathspecs": "GIT_ICASE_PATHSPECS",
}
#: Global options that change only how git shows or looks up things, not what a
#: commit or push contains.
OUTPUT_OPTIONS = _names(
    "-p --paginate -P --no-pager --no-replace-objects --no-lazy-fetch --no-optional-locks "
    "--no-advice"
)
#: Global options that print something and run no subcommand (so does `--list-cmds=`).
INFO_OPTIONS = _names("--version -v --help -h --html-path --man-path --info-path --exec-path")


# ---------------------------------------------------------------- subcommand options

# Each table: long name -> "none" | "value" | "optional" (an optional value is attached
# only); short letter -> long name. Long options may be abbreviated to a unique prefix.
COMMIT_LONG = {
    **dict.fromkeys(
        _names("""all patch interactive include only no-verify verify quiet verbose signoff
        no-signoff edit no-edit amend allow-empty allow-empty-message dry-run short branch
        porcelain long null reset-author no-gpg-sign status no-status no-post-rewrite
        pathspec-file-nul ahead-behind no-ahead-behind"""),
        "none",
    ),
    **dict.fromkeys(
        _names("""message file reuse-message reedit-message fixup squash author date cleanup
        template trailer pathspec-from-file"""),
        "value",
    ),
    "gpg-sign": "optional",
    "untracked-files": "optional",
}
COMMIT_SHORT = {
    "a": "all",
    "p": "patch",
    "i": "include",
    "o": "only",
    "n": "no-verify",
    "q": "quiet",
    "v": "verbose",
    "s": "signoff",
    "e": "edit",
    "z": "null",
    "m": "message",
    "F": "file",
    "C": "reuse-message",
    "c": "reedit-message",
    "t": "template",
    "S": "gpg-sign",
    "u": "untracked-files",
}
PUSH_LONG = {
    **dict.fromkeys(
        _names("""all branches mirror tags follow-tags no-follow-tags atomic no-atomic dry-run
        porcelain delete prune force force-if-includes no-force-if-includes set-upstream
        thin no-thin quiet verbose progress no-progress no-recurse-submodules verify
        no-verify no-signed ipv4 ipv6 no-force-with-lease"""),
        "none",
    ),
    **dict.fromkeys(_names("repo recurse-submodules receive-pack exec push-option"), "value"),
    "force-with-lease": "optional",
    "signed": "optional",
}
PUSH_SHORT = {
    "n": "dry-run",
    "d": "delete",
    "f": "force",
    "u": "set-upstream",
    "q": "quiet",
    "v": "verbose",
    "4": "ipv4",
    "6": "ipv6",
    "o": "push-option",
}
#: `git fetch`'s options (git 2.39 `git fetch -h`): which take a value. Its first other
#: word is the repository (a remote's name, a URL, `host:path`), the rest refspecs;
#: with `--multiple` every other word is a repository or group.
FETCH_LONG = {
    **dict.fromkeys(
        _names("""all set-upstream append atomic force multiple tags no-tags prefetch prune
        prune-tags no-recurse-submodules dry-run porcelain write-fetch-head
        no-write-fetch-head keep update-head-ok progress no-progress unshallow refetch
        update-shallow ipv4 ipv6 negotiate-only no-filter auto-maintenance
        no-auto-maintenance auto-gc no-auto-gc show-forced-updates no-show-forced-updates
        write-commit-graph no-write-commit-graph stdin verbose quiet"""),
        "none",
    ),
    **dict.fromkeys(
        _names("""upload-pack jobs depth shallow-since shallow-exclude deepen refmap
        server-option negotiation-tip filter recurse-submodules-default submodule-prefix"""),
        "value",
    ),
    "recurse-submodules": "optional",
}
FETCH_SHORT = {
    "v": "verbose",
    "q": "quiet",
    "a": "append",
    "f": "force",
    "m": "multiple",
    "t": "tags",
    "n": "no-tags",
    "j": "jobs",
    "p": "prune",
    "P": "prune-tags",
    "k": "keep",
    "u": "update-head-ok",
    "o": "server-option",
    "4": "ipv4",
    "6": "ipv6",
}
ADD_LONG = {
    **dict.fromkeys(
        _names("""all no-all update force intent-to-add verbose ignore-removal no-ignore-removal
        sparse renormalize ignore-errors ignore-missing refresh dry-run patch interactive
        edit cached recursive quiet ignore-unmatch skip-errors pathspec-file-nul"""),
        "none",
    ),
    "chmod": "value",
    "pathspec-from-file": "value",
}
ADD_SHORT = {
    "A": "all",
    "u": "update",
    "f": "force",
    "N": "intent-to-add",
    "v": "verbose",
    "n": "dry-run",
    "p": "patch",
    "i": "interactive",
    "e": "edit",
    "r": "recursive",
    "q": "quiet",
    "k": "skip-errors",
}
