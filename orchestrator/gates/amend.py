"""Whether the commit gate runs for a `git commit --amend`.

An amended commit's parent is HEAD's parent, not HEAD: what HEAD changed (perhaps
committed past the hooks with `--no-verify`) enters the new commit as well, so the
gate must judge the index against HEAD's parent. git tells a pre-commit hook nothing
about an amend (no argument, no variable), but the hook runs as a child of the
`git commit` process, whose command line says it. On Linux that command line is read
from ``/proc`` and parsed as git's option parser reads it: global options before the
command, aliases (`alias.NAME`, including `-c alias...` on the command line), unique
prefixes of long options (`--amen`), bundled short options and option values (so
`-m --amend` is a message, not an amend), `--no-amend`, and `--` ending the options.

A shell alias (`!git commit --amend`) is seen through the `git commit` it starts, the
nearest git above the hook; git run under its dashed name (`git-commit`) is read as
`git commit`. Where no `git commit` parent can be seen (another system,
`gate commit` run by hand or before git runs, as an agent host's pre-tool gate does)
the commit gate judges the index against HEAD as for any commit; the installed hook
judges the amend when git makes it, and the push gate judges every pushed commit.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from orchestrator.git.grammar import COMMIT_LONG, COMMIT_SHORT, GLOBAL_WITH_VALUE
from orchestrator.git.repo import config_get
from orchestrator.git.runner import Git

PROC = "/proc"
#: Processes looked at above the gate: git -> hook script (or exec'd) -> pre-commit ...
#: (a hook manager such as husky or lefthook puts shells, node and npx in between).
MAX_ANCESTORS = 32
#: Alias expansions followed (git itself refuses a loop).
MAX_ALIASES = 8

#: `git commit` long options that take a value (`--message X` or `--message=X`).
LONG_WITH_VALUE = frozenset(name for name, kind in COMMIT_LONG.items() if kind == "value")
#: `git commit` long options without a value (or with an optional `=value` only), and
#: the negations read here (abbreviations are resolved against these names).
LONG_FLAGS = frozenset(name for name, kind in COMMIT_LONG.items() if kind != "value") | {
    "no-amend",
    "no-verbose",
    "no-quiet",
}
#: Short options whose value follows (attached, or as the next word).
SHORT_WITH_VALUE = frozenset(s for s, name in COMMIT_SHORT.items() if COMMIT_LONG[name] == "value")
#: `git commit` options that give or reuse a message (then git runs no editor unless
#: `--edit` is given, or git's choice is not certain: such a message is not cut).
MESSAGE_LONG = frozenset({"message", "file", "reuse-message", "reedit-message", "fixup", "squash"})
MESSAGE_SHORT = frozenset({"m", "F", "C", "c"})
#: Short options whose optional value can only be attached (`-Skey`, `-uno`).
SHORT_OPTIONAL = frozenset(s for s, name in COMMIT_SHORT.items() if COMMIT_LONG[name] == "optional")


def amending(git: Git) -> bool:
    """True when this process runs inside the hook of a `git commit` whose command line
    amends HEAD (module docs); False when it does not, or when that cannot be seen."""
    if "GIT_INDEX_FILE" not in git.env:  # git sets it for every commit hook it runs
        return False
    argv = _git_parent_argv()
    if argv is None:
        return False
    return commit_amends(argv, lambda name: config_get(git, f"alias.{name}"))


def commit_amends(argv: Sequence[str], alias: Callable[[str], str | None]) -> bool:
    """Whether the git command line `argv` (``git [global options] COMMAND ...``) is a
    `git commit` that amends, reading options as git does; `alias(name)` gives the
    value of `alias.NAME` or None. A shell alias (`!...`) or a command line that does
    not parse is no amend."""
    args = commit_arguments(argv, alias)
    return args is not None and _read_options(args).amend


def commit_arguments(argv: Sequence[str], alias: Callable[[str], str | None]) -> list[str] | None:
    """The arguments of the `git commit` the git command line `argv` runs, aliases
    expanded (`alias` as for `commit_amends`); None when it runs no `git commit` (another
    command, a shell alias, a command line that does not parse)."""
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] in GLOBAL_WITH_VALUE else 1
    if i >= len(argv):
        return None
    name, rest = argv[i], list(argv[i + 1 :])
    for _ in range(MAX_ALIASES):
        if name == "commit":
            return rest
        value = alias(name)
        if not value or value.startswith("!"):
            return None
        try:
            words = shlex.split(value)
        except ValueError:
            return None
        if not words:
            return None
        name, rest = words[0], words[1:] + rest
    return None


@dataclass
class CommitOptions:
    """What a `git commit` command line says about amending and the message's cut."""

    amend: bool = False
    #: `--verbose` / `--no-verbose` (the last wins); None when neither is given.
    verbose: bool | None = None
    #: The `--cleanup` mode, when given.
    cleanup: str | None = None
    #: A message given or reused on the command line (`-m`, `-F`, `-C`, `-c`,
    #: `--fixup`, `--squash`): git then runs no editor unless told to.
    message: bool = False
    #: `--edit` / `--no-edit` (the last wins); None when neither is given.
    edit: bool | None = None


def _read_options(args: Sequence[str]) -> CommitOptions:
    """`git commit` arguments read as git reads them; the last word of each kind wins."""
    out = CommitOptions()
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            break
        if word.startswith("--"):
            key, has_value, value = word[2:].partition("=")
            full = _long_name(key)
            if full in ("amend", "no-amend"):
                out.amend = full == "amend"
            elif full in ("verbose", "no-verbose"):
                out.verbose = full == "verbose"
            elif full in ("edit", "no-edit"):
                out.edit = full == "edit"
            if full in MESSAGE_LONG:
                out.message = True
            if full in LONG_WITH_VALUE and not has_value:
                if full == "cleanup" and i < len(args):
                    out.cleanup = args[i]
                i += 1
            elif full == "cleanup":
                out.cleanup = value
        elif word.startswith("-") and len(word) > 1:
            for j, ch in enumerate(word[1:], start=1):
                if ch == "v":
                    out.verbose = True
                elif ch == "e":
                    out.edit = True
                elif ch in MESSAGE_SHORT:
                    out.message = True
                if ch in SHORT_OPTIONAL:
                    break
                if ch in SHORT_WITH_VALUE:
                    i += 0 if word[j + 1 :] else 1
                    break
    return out


def cuts_at_scissors(git: Git) -> bool:
    """Whether the `git commit` whose commit-msg hook runs this process drops what
    follows git's scissors line from the message (`drops_below_scissors`). False when
    that `git commit` cannot be seen: then every line of the message file is judged
    (what git keeps of it is not known)."""
    if "GIT_INDEX_FILE" not in git.env:
        return False
    argv = _git_parent_argv()
    args = commit_arguments(argv, lambda n: config_get(git, f"alias.{n}")) if argv else None
    if args is None:
        return False
    return drops_below_scissors(args, lambda key: config_get(git, key))


def drops_below_scissors(args: Sequence[str], config: Callable[[str], str | None]) -> bool:
    """Whether `git commit ARGS` (`config(key)`: the repository's value of a setting, or
    None) drops what follows its scissors line from the message, as git decides it:
    with `--verbose` (or `commit.verbose`) always; with the `scissors` cleanup
    (`--cleanup`, `commit.cleanup`) only when git runs the editor, that is when no
    message is given or reused on the command line (`-m`, `-F`, `-C`, `-c`, `--fixup`,
    `--squash`) or `--edit` says so; `--no-edit` runs none. Without an editor git reads
    the scissors cleanup as `whitespace` and keeps every line. Only with `#` as the
    comment character (git looks for the line it writes itself). Where git's choice
    is not certain (`-c`, `--fixup` and `--squash` without `--edit`), the answer is
    False: every line is judged."""
    if config("core.commentChar") not in (None, "#"):
        return False
    opts = _read_options(args)
    verbose = opts.verbose
    if verbose is None:
        value = config("commit.verbose")
        verbose = value is not None and _verbose_value(value)
    cleanup = opts.cleanup if opts.cleanup is not None else config("commit.cleanup")
    editor = opts.edit if opts.edit is not None else not opts.message
    return verbose or (cleanup == "scissors" and editor)


def _verbose_value(value: str) -> bool:
    """`commit.verbose` as git reads it: a boolean or a count (an empty value is true)."""
    text = value.strip().lower()
    if text in ("", "true", "yes", "on"):
        return True
    return text.lstrip("-").isdigit() and int(text) > 0


def _long_name(key: str) -> str | None:
    """The `git commit` long option `key` names: itself, or the one option it is a
    unique prefix of (git's abbreviations); None when unknown or ambiguous."""
    names = LONG_WITH_VALUE | LONG_FLAGS
    if key in names:
        return key
    found = [n for n in names if n.startswith(key)] if key else []
    return found[0] if len(found) == 1 else None


def _git_parent_argv() -> list[str] | None:
    """The command line of the nearest git process above this one, or None. A git
    started under its dashed name (`git-core/git-commit --amend`, which git still
    installs) is read as `git commit --amend`: its program, then the command's name."""
    for argv, exe in _ancestors():
        if not argv:
            continue
        name = os.path.basename(argv[0])
        if name.startswith("git-") and len(name) > 4:
            return [argv[0], name[4:], *argv[1:]]
        if name == "git" or os.path.basename(exe) == "git":
            return argv
    return None


def _ancestors() -> Iterator[tuple[list[str], str]]:
    """(command line, executable) of each process above this one, nearest first, as
    far as ``/proc`` shows them (nothing where there is no ``/proc``)."""
    pid = os.getppid()
    for _ in range(MAX_ANCESTORS):
        if pid <= 1:
            return
        try:
            with open(f"{PROC}/{pid}/cmdline", "rb") as fh:
                raw = fh.read(256 * 1024)
            with open(f"{PROC}/{pid}/stat", "rb") as fh:
                stat = fh.read(4096)
        except OSError:
            return
        try:
            exe = os.readlink(f"{PROC}/{pid}/exe")
        except OSError:
            exe = ""
        argv = [a.decode("utf-8", "surrogateescape") for a in raw.split(b"\0")[:-1]]
        yield argv, exe
        try:
            pid = int(stat.rsplit(b")", 1)[1].split()[1])
        except (IndexError, ValueError):
            return
