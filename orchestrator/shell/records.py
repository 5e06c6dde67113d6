"""The shell analyser's records: its verdicts, reasons and limits, and the words and
states its walk passes around.

The bottom of `orchestrator.shell`: every other module of the package builds or reads
these, and this module imports none of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal

Node = Any  # tree_sitter.Node; kept loose so a grammar update cannot break typing

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
    GIT_RUNS_COMMAND = "git_runs_command"
    REF_MOVE_UNKNOWN = "ref_move_target_unknown"
    PUSH_STATE_CHANGED = "earlier_command_may_change_push"
    EXECUTES_TEXT = "program_executes_text"
    SCRIPT_WRITTEN_THEN_RUN = "script_written_then_run"
    SHELL_STARTUP = "shell_startup_code"
    # forbidden
    NO_VERIFY = "no_verify"
    HOOKS_PATH_CHANGE = "hooks_path_change"
    PROGRAM_SETTING = "program_setting_change"
    REMOTE_REF_WRITE = "remote_ref_write"
    REMOTE_RECORD_CHANGE = "remote_record_change"
    GIT_DIR_WRITE = "git_dir_write"
    ORCHESTRATE_CONFIG_WRITE = "orchestrate_config_write"
    REF_WRITE = "ref_write_outside_commit"


FORBIDDEN_REASONS = frozenset(
    {
        Reason.NO_VERIFY,
        Reason.HOOKS_PATH_CHANGE,
        Reason.PROGRAM_SETTING,
        Reason.REMOTE_REF_WRITE,
        Reason.REMOTE_RECORD_CHANGE,
        Reason.GIT_DIR_WRITE,
        Reason.ORCHESTRATE_CONFIG_WRITE,
        Reason.REF_WRITE,
    }
)

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
    """The verdict on one command (the verdicts are described in `shell.analyser`)."""

    verdict: Verdict
    reason: Reason | None = None
    ops: tuple[GitOp, ...] = ()
    surface: Surface | None = None
    repository: Repository | None = None
    #: The files the command names as ones it writes (redirects, `tee`, `cp`/`mv`,
    #: `sed`, `dd of=`, ...): paths as seen from its start directory (a glob as
    #: spelled), sorted. A target known only at run time is not here.
    writes: tuple[str, ...] = ()

    @property
    def deliveries(self) -> tuple[GitOp, ...]:
        """The operations that create or send commits."""
        return tuple(op for op in self.ops if op.delivers)


# ---------------------------------------------------------------- walk state


class Stop(Exception):
    """Ends the walk early: the command is undeterminable for `reason`."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason.value)
        self.reason = reason


@dataclass(frozen=True)
class Word:
    """A shell word after quote removal; DYN marks parts known only at run time, and
    `glob` an unquoted pattern character the shell would expand."""

    text: str
    glob: bool = False

    @property
    def literal(self) -> bool:
        """True when the word is fully known before the command runs."""
        return DYN not in self.text and not self.glob


@dataclass(frozen=True)
class State:
    """What the walk knows at one point.

    cwd: the shell's directory relative to the start (None: unknown). env: GIT_* and
    CDPATH variables set by the command (a None value: set, to something unknown).
    staged: each `git add/rm/mv` run so far with its repository, its argv and whether
    files may have changed before it (None: the index may have changed in ways the
    text does not show). worktree_changed: files may have changed."""

    cwd: str | None = "."
    env: tuple[tuple[str, str | None], ...] = ()
    staged: tuple[tuple[Any, tuple[str, ...], bool], ...] | None = ()
    worktree_changed: bool = False

    def with_env(self, name: str, value: str | None) -> State:
        """This state with `name` set (None: to an unknown value)."""
        env = dict(self.env)
        env[name] = value
        return replace(self, env=tuple(sorted(env.items())))

    def without_env(self, name: str) -> State:
        """This state with `name` unset."""
        return replace(self, env=tuple(kv for kv in self.env if kv[0] != name))

    def world(self, other: State) -> State:
        """This shell state with `other`'s effects on files (after a subshell)."""
        return replace(self, staged=other.staged, worktree_changed=other.worktree_changed)

    def tainted(self) -> State:
        """After a program that may change any file or the index."""
        return replace(self, staged=None, worktree_changed=True)


def join(a: State, b: State) -> State:
    """A state true after either path: fields that differ become unknown."""
    if a == b:
        return a
    da, db = dict(a.env), dict(b.env)
    env = {k: (da[k] if da.get(k, DYN) == db.get(k, DYN) else None) for k in {*da, *db}}
    return State(
        cwd=a.cwd if a.cwd == b.cwd else None,
        env=tuple(sorted(env.items())),
        staged=a.staged if a.staged == b.staged else None,
        worktree_changed=a.worktree_changed or b.worktree_changed,
    )


@dataclass
class Ctx:
    """Per-script context: source bytes, functions defined, nesting and loops."""

    src: bytes = b""
    depth: int = 0
    in_loop: bool = False
    funcs: dict[str, Node] = field(default_factory=dict)
