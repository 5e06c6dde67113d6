"""What a shell command would commit or push, read from its syntax (never executed).

The agent host pre-tool gate sees a shell command before it runs. This module parses
it with the bundled tree-sitter Bash grammar and follows what Bash would do: wrappers
(`sudo`, `env`, `time`, `xargs`, ...), nested shells (`bash -c`), compound commands,
functions, `cd`, environment assignments and git's own options and `-c alias.*`
definitions. It returns one record per git operation and a verdict:

- ``no_delivery``: nothing creates or sends commits;
- ``judge_index``: exactly one plain commit or push whose surface (what it will commit
  or send) and repository are known from the text;
- ``undeterminable``: something could hide or change a delivery (a parse error, `eval`,
  a variable as command name, an earlier command that may change the index, ...);
- ``forbidden``: a bypass of the gates (`--no-verify`, `core.hooksPath`, writes to
  `.git/**`, `git update-ref refs/remotes/...`).

Reasons come from the fixed `Reason` vocabulary and never echo the command; the records
carry paths and refspecs taken from the command, so bound them before showing them to
an agent. Everything here is pure: no git calls, no I/O, no execution. It never raises:
any failure is ``undeterminable``.

Where it is used: the agent host's shell events (hosts/router.py) are analysed here (a
Codex argv list as it is); ``forbidden`` and ``undeterminable`` are refused with
`describe(result)` and ``no_delivery`` passes untouched. ``judge_index`` goes to
usecases/shell_delivery.py (the repository as absolute paths and GIT_* variables) and
usecases/pretool.py, which copies the index to a private file, replays
``surface.staging`` there with ``GIT_INDEX_FILE`` (``only_paths``: HEAD plus those
paths), and has the strict gate judge that index; a replay that fails refuses, since
the command's own `git add` would fail the same way. A push is judged only when it
sends the current branch to its upstream. `git commit -m x && git push` is two
deliveries and so undeterminable.

The analyser never reads git: what it needs from the repository's configuration is a
parameter. The caller passes git aliases as ``known_aliases``, or a callable
``aliases_of`` that reads the start repository's aliases, asked only when a reading
stops at a git subcommand the command does not define, so that ``git ci`` resolves
instead of being undeterminable.

The package, bottom to top: `records` (verdicts, reasons, words, walk state), `walk`
(the syntax walk, which takes its `CommandRules` as a parameter), `git_rules` (git's
own arguments), `commands` (builtins, wrappers, shells; the `RULES` the walk is given)
and this module, the entry point.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from orchestrator.shell.commands import RULES
from orchestrator.shell.records import (
    FORBIDDEN_REASONS,
    MAX_COMMAND_CHARS,
    Analysis,
    GitOp,
    Reason,
    Repository,
    Stop,
    Surface,
    Word,
)
from orchestrator.shell.walk import Walker

_DESCRIPTIONS = {
    Reason.SEVERAL_DELIVERIES: "several commits or pushes in one command: run them separately",
    Reason.INDEX_MAY_CHANGE: "an earlier part of the command may change what is staged: "
    "stage and commit in separate commands",
    Reason.WORKTREE_MAY_CHANGE: "an earlier part of the command may change the files "
    "being committed: change, stage and commit in separate commands",
    Reason.NO_VERIFY: "skipping git hooks (--no-verify) is not allowed",
    Reason.HOOKS_PATH_CHANGE: "changing where git looks for hooks is not allowed",
    Reason.PROGRAM_SETTING: "setting a git option that makes git run a program (hooks, "
    "fsmonitor, diff, textconv or filter drivers, pager, editor, ssh command, "
    "upload-pack, protocol.allow) is not allowed",
    Reason.GIT_RUNS_COMMAND: "git would run a program this command hands it (an external "
    "diff, ssh or pager command, --upload-pack, --exec, ext::, bisect run, rebase -x): "
    "it cannot be read, so it is refused",
    Reason.REF_MOVE_UNKNOWN: "this command moves a branch, tag or HEAD to a commit that "
    "cannot be named from the text (a substitution, an object id, :/search): move it "
    "to a branch, tag or HEAD~N by name",
    Reason.PUSH_STATE_CHANGED: "an earlier part of the command changes git's config, "
    "refs or branch before the push, or runs a program that may (tests, a build, an "
    "install): run them separately, then push",
    Reason.EXECUTES_TEXT: "a program in this command runs code given to it as text "
    "(perl -e, python -c, awk system(), sed e, ...), which cannot be read: put it in a "
    "file and run that in its own command",
    Reason.SCRIPT_WRITTEN_THEN_RUN: "this command writes a file and runs it: write it "
    "in one command and run it in another",
    Reason.SHELL_STARTUP: "this command sets code a shell runs by itself (BASH_ENV, ENV, "
    "PS4 with tracing, an array subscript evaluated as arithmetic): refused",
    Reason.REMOTE_REF_WRITE: "writing remote-tracking refs by hand is not allowed",
    Reason.REMOTE_RECORD_CHANGE: "changing a remote's URL, a URL rewrite or git's reflog "
    "subject is not allowed here: the push gate reads the remote's state from that record; "
    "run it yourself outside the agent",
    Reason.GIT_DIR_WRITE: "writing inside .git (hooks, config) or a git configuration "
    "file (~/.gitconfig, git/config) is not allowed",
    Reason.ORCHESTRATE_CONFIG_WRITE: "changing orchestrate's configuration from a "
    "command is not allowed",
    Reason.REF_WRITE: "writing branches, tags or replace refs outside a commit (a fetch "
    "into refs, git replace, a branch or reset onto a stash) is not allowed",
}


def describe(result: Analysis) -> str:
    """A short message for a deny, built only from the fixed vocabulary."""
    if result.reason is None:
        return result.verdict
    text = _DESCRIPTIONS.get(result.reason)
    if text:
        return text
    if result.verdict == "forbidden":
        return f"not allowed ({result.reason.value})"
    return (
        f"cannot determine what this command commits or pushes ({result.reason.value}): "
        "run the commit or push as a plain git command on its own"
    )


# ---------------------------------------------------------------- entry point


def analyse(
    command: object,
    *,
    known_aliases: Mapping[str, str] | None = None,
    aliases_of: Callable[[], Mapping[str, str]] | None = None,
) -> Analysis:
    """Analyse a shell command (text, bytes, or an argv list) for the pre-tool gate.

    Never raises and never executes anything: any failure is ``undeterminable``. The
    git facts come from the caller: `known_aliases` are git aliases to resolve
    (name casefolded -> definition); `aliases_of`, when given, is asked for the start
    repository's aliases only when a reading stops at a git subcommand the command
    does not define, and the second reading is kept only when every git operation runs
    in that repository (another one may define the name differently). An exception
    raised by `aliases_of` is the caller's and reaches it."""
    result = _guarded(command, dict(known_aliases or {}))
    if aliases_of is None or result.reason != Reason.UNKNOWN_GIT_SUBCOMMAND:
        return result
    aliases = {**aliases_of(), **(known_aliases or {})}
    if not aliases:
        return result
    again = _guarded(command, aliases)
    return again if all(op.repository.is_default for op in again.ops) else result


def _guarded(command: object, aliases: dict[str, str]) -> Analysis:
    """One reading with `aliases`; any failure of the analyser is ``undeterminable``."""
    try:
        return _analyse(command, aliases)
    except RecursionError:
        return Analysis("undeterminable", Reason.TOO_COMPLEX)
    except Exception:  # noqa: BLE001 - a crash must never read as "no git command"
        return Analysis("undeterminable", Reason.ANALYSER_ERROR)


def _analyse(command: object, aliases: dict[str, str]) -> Analysis:
    if isinstance(command, bytes):
        try:
            command = command.decode("utf-8")
        except UnicodeDecodeError:
            return Analysis("undeterminable", Reason.NOT_TEXT)
    early = _refuse_early(command)
    if early is not None:
        return Analysis("undeterminable", early)
    walker = Walker(aliases, RULES)
    try:
        if isinstance(command, str):
            walker.run_script(command)
        else:
            walker.run_argv([Word(w) for w in command])  # type: ignore[union-attr]
    except Stop as stop:
        walker.doubt(stop.reason)
    result = verdict(walker.ops, walker.forbidden, walker.reasons, walker.background)
    return replace(result, writes=tuple(sorted(walker.write_targets)))


def _refuse_early(command: object) -> Reason | None:
    """Inputs not worth parsing: not text, too long, or carrying a NUL."""
    if isinstance(command, (list, tuple)):
        if not all(isinstance(w, str) for w in command):
            return Reason.NOT_TEXT
        words: Sequence[str] = command
    elif isinstance(command, str):
        words = [command]
    else:
        return Reason.NOT_TEXT
    if sum(len(w) + 1 for w in words) > MAX_COMMAND_CHARS + 1:
        return Reason.TOO_LONG
    if any("\x00" in w for w in words):
        return Reason.NUL_BYTE
    return None


def verdict(
    ops: Sequence[GitOp],
    forbidden: Sequence[Reason],
    reasons: Sequence[Reason],
    background: bool,
) -> Analysis:
    """Combine what the walk found into one verdict (forbidden wins, then doubt)."""
    found = tuple(ops)
    if forbidden:
        return Analysis("forbidden", forbidden[0], found)
    if reasons:
        return Analysis("undeterminable", reasons[0], found)
    deliveries = [op for op in found if op.delivers]
    if not deliveries:
        return Analysis("no_delivery", None, found)
    if len(deliveries) > 1:
        return Analysis("undeterminable", Reason.SEVERAL_DELIVERIES, found)
    if background:
        return Analysis("undeterminable", Reason.BACKGROUND_JOB, found)
    op = deliveries[0]
    if op.kind not in ("commit", "push"):
        return Analysis("undeterminable", Reason.NOT_JUDGED_KIND, found)
    if op.reason is not None or op.surface is None:
        return Analysis("undeterminable", op.reason or Reason.ANALYSER_ERROR, found)
    return Analysis("judge_index", None, found, op.surface, op.repository)


__all__ = [
    "FORBIDDEN_REASONS",
    "MAX_COMMAND_CHARS",
    "Analysis",
    "GitOp",
    "Reason",
    "Repository",
    "Surface",
    "analyse",
    "describe",
    "verdict",
]
