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

Where it is used: hosts/router.py analyses each shell event (a Codex argv list as
it is) and refuses ``forbidden`` and ``undeterminable`` with `describe(result)`;
``no_delivery`` passes untouched. ``judge_index`` goes to hosts/shell_delivery.py (the
repository as absolute paths and GIT_* variables) and usecases/pretool.py, which
copies the index to a private file, replays ``surface.staging`` there with
``GIT_INDEX_FILE`` (``only_paths``: HEAD plus those paths), and has the strict gate
judge that index; a replay that fails refuses, since the command's own `git add` would
fail the same way. A push is judged only when it sends the current branch to its
upstream. `git commit -m x && git push` is two deliveries and so undeterminable. Git
aliases from the repository's config can be passed as ``known_aliases`` so ``git ci``
resolves instead of being undeterminable (the router does not read them today).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

MAX_COMMAND_CHARS = 64 * 1024
MAX_SHELL_DEPTH = 4  # nested `bash -c`, shell aliases and function calls
MAX_NODE_DEPTH = 150  # syntax nesting the walker follows
MAX_STEPS = 20_000  # syntax nodes and commands visited, whatever the nesting
MAX_ALIAS_EXPANSIONS = 8
DYN = "\x00"  # stands for a part of a word only known when the command runs

Verdict = Literal["no_delivery", "judge_index", "undeterminable", "forbidden"]


class Reason(StrEnum):
    """Why a command is undeterminable or forbidden (fixed words, never the command)."""

    TOO_LONG = "too_long"
    NUL_BYTE = "nul_byte"
    NOT_TEXT = "not_text"
    PARSE_ERROR = "parse_error"
    TOO_COMPLEX = "too_complex"
    NESTING_TOO_DEEP = "nesting_too_deep"
    ANALYSER_ERROR = "analyser_error"
    DYNAMIC_COMMAND_NAME = "dynamic_command_name"
    EVAL = "eval_or_trap"
    SOURCE = "source"
    SHELL_ALIAS = "shell_alias"
    SHELL_READS_STDIN = "shell_reads_stdin"
    FOREIGN_SHELL = "foreign_shell"
    DYNAMIC_SCRIPT = "dynamic_script"
    UNKNOWN_CONSTRUCT = "unknown_construct"
    UNKNOWN_WRAPPER_OPTION = "unknown_wrapper_option"
    COMMAND_LOOKUP_CHANGED = "command_lookup_changed"
    DYNAMIC_GIT_SUBCOMMAND = "dynamic_git_subcommand"
    UNKNOWN_GIT_SUBCOMMAND = "git_alias_or_extension"
    ALIAS_UNRESOLVABLE = "alias_unresolvable"
    UNKNOWN_GIT_OPTION = "unknown_git_option"
    DYNAMIC_ARGUMENT = "dynamic_argument"
    UNKNOWN_OPTION = "unknown_option"
    INTERACTIVE = "interactive"
    PATHS_UNKNOWN = "paths_unknown"
    REPOSITORY_UNKNOWN = "repository_unknown"
    CONFIG_OVERRIDE = "config_override"
    INDEX_MAY_CHANGE = "earlier_command_may_change_index"
    WORKTREE_MAY_CHANGE = "earlier_command_may_change_files"
    STAGED_ELSEWHERE = "staged_in_other_repository_spelling"
    DELIVERY_IN_LOOP = "delivery_in_loop"
    SEVERAL_DELIVERIES = "several_deliveries"
    CONCURRENT_CHANGE = "concurrent_change"
    BACKGROUND_JOB = "background_job"
    NOT_JUDGED_KIND = "commits_created_otherwise"
    PUSH_EXEC_OPTION = "push_exec_option"
    DELIVERY_IN_ARGUMENT = "delivery_in_program_argument"
    # forbidden
    NO_VERIFY = "no_verify"
    HOOKS_PATH_CHANGE = "hooks_path_change"
    REMOTE_REF_WRITE = "remote_ref_write"
    GIT_DIR_WRITE = "git_dir_write"
    ORCHESTRATE_CONFIG_WRITE = "orchestrate_config_write"
    REF_WRITE = "ref_write_outside_commit"


FORBIDDEN_REASONS = frozenset(
    {
        Reason.NO_VERIFY,
        Reason.HOOKS_PATH_CHANGE,
        Reason.REMOTE_REF_WRITE,
        Reason.GIT_DIR_WRITE,
        Reason.ORCHESTRATE_CONFIG_WRITE,
        Reason.REF_WRITE,
    }
)

_DESCRIPTIONS = {
    Reason.SEVERAL_DELIVERIES: "several commits or pushes in one command: run them separately",
    Reason.INDEX_MAY_CHANGE: "an earlier part of the command may change what is staged: "
    "stage and commit in separate commands",
    Reason.WORKTREE_MAY_CHANGE: "an earlier part of the command may change the files "
    "being committed: change, stage and commit in separate commands",
    Reason.NO_VERIFY: "skipping git hooks (--no-verify) is not allowed",
    Reason.HOOKS_PATH_CHANGE: "changing where git looks for hooks is not allowed",
    Reason.REMOTE_REF_WRITE: "writing remote-tracking refs by hand is not allowed",
    Reason.GIT_DIR_WRITE: "writing inside .git (hooks, config) is not allowed",
    Reason.ORCHESTRATE_CONFIG_WRITE: "changing orchestrate's configuration from a "
    "command is not allowed",
    Reason.REF_WRITE: "writing branches, tags or replace refs outside a commit (a fetch "
    "into refs, git replace, a branch or reset onto a stash) is not allowed",
}


# ---------------------------------------------------------------- records


@dataclass(frozen=True)
class Repository:
    """Which repository a git operation acts on, as the command spells it.

    `cwd` is the shell's directory relative to where the command starts ("." there;
    None when it cannot be known); `chdirs` are git's `-C` arguments in order;
    `options` git's own options that select or shape the repository (`--git-dir=`,
    `--work-tree=`, pathspec flags); `env_vars` the GIT_* variables set by the command
    (a None value: set to something unknown)."""

    cwd: str | None = "."
    chdirs: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    env_vars: tuple[tuple[str, str | None], ...] = ()

    @property
    def known(self) -> bool:
        """True when every part is literal text known before the command runs."""
        parts = [*self.chdirs, *self.options, *(v or DYN for _, v in self.env_vars)]
        return self.cwd is not None and all(DYN not in p for p in parts)

    @property
    def is_default(self) -> bool:
        """True for the repository the command starts in, spelled plainly."""
        return self.cwd == "." and not self.chdirs and not self.options and not self.env_vars

    def git_args(self) -> list[str]:
        """Git options (after `git`) that select this repository, relative to the start."""
        args: list[str] = []
        if self.cwd not in (None, "."):
            args += ["-C", self.cwd or "."]
        for d in self.chdirs:
            args += ["-C", d]
        return args + list(self.options)

    def env(self) -> dict[str, str]:
        """The GIT_* variables to set when reading this repository's surface."""
        return {k: v for k, v in self.env_vars if v is not None}


@dataclass(frozen=True)
class Surface:
    """What a judged commit or push delivers.

    kind: ``index`` (the index as it is), ``index_plus_added`` (the index after the
    command's own `git add/rm/mv`, replayed from `staging`), ``tracked_worktree``
    (`commit -a`: `staging` ends with `add -u`), ``only_paths`` (`commit PATHS`: HEAD
    plus those paths from the work tree), ``push`` (`remote` and `refspecs`; empty
    refspecs: the default push)."""

    kind: Literal["index", "index_plus_added", "tracked_worktree", "only_paths", "push"]
    staging: tuple[tuple[str, ...], ...] = ()
    only_paths: tuple[str, ...] = ()
    remote: str | None = None
    refspecs: tuple[str, ...] = ()
    push_flags: tuple[str, ...] = ()  # e.g. "--tags", "--all", "--mirror", "--delete"


@dataclass(frozen=True)
class GitOp:
    """One git operation found in the command, with what matters to the gates."""

    kind: str
    delivers: bool
    repository: Repository
    flags: frozenset[str] = frozenset()
    paths: tuple[str, ...] = ()
    staged_before: tuple[tuple[str, ...], ...] = ()
    refspecs: tuple[str, ...] = ()
    remote: str | None = None
    aliases: tuple[tuple[str, str], ...] = ()
    config: tuple[str, ...] = ()
    surface: Surface | None = None
    reason: Reason | None = None


@dataclass(frozen=True)
class Analysis:
    """The verdict on one command: see the module docstring."""

    verdict: Verdict
    reason: Reason | None = None
    ops: tuple[GitOp, ...] = ()
    surface: Surface | None = None
    repository: Repository | None = None

    @property
    def deliveries(self) -> tuple[GitOp, ...]:
        """The operations that create or send commits."""
        return tuple(op for op in self.ops if op.delivers)


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


def analyse(command: object, *, known_aliases: Mapping[str, str] | None = None) -> Analysis:
    """Analyse a shell command (text, bytes, or an argv list) for the pre-tool gate.

    Never raises and never executes anything: any failure is ``undeterminable``."""
    try:
        return _analyse(command, dict(known_aliases or {}))
    except RecursionError:
        return Analysis("undeterminable", Reason.TOO_COMPLEX)
    except Exception:  # noqa: BLE001 - a crash must never read as "no git command"
        return Analysis("undeterminable", Reason.ANALYSER_ERROR)


def _analyse(command: object, aliases: dict[str, str]) -> Analysis:
    # Imported here: the walker builds the records this module defines.
    from orchestrator.hosts.shell_surface_walk import Stop, Walker, Word

    if isinstance(command, bytes):
        try:
            command = command.decode("utf-8")
        except UnicodeDecodeError:
            return Analysis("undeterminable", Reason.NOT_TEXT)
    early = _refuse_early(command)
    if early is not None:
        return Analysis("undeterminable", early)
    walker = Walker(aliases)
    try:
        if isinstance(command, str):
            walker.run_script(command)
        else:
            walker.run_argv([Word(w) for w in command])  # type: ignore[union-attr]
    except Stop as stop:
        walker.doubt(stop.reason)
    return verdict(walker.ops, walker.forbidden, walker.reasons, walker.background)


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
