"""The one way orchestrate runs git: literal argv, one deadline, bounded output.

Every git question in the project goes through `Git`: it never builds a shell string,
it runs under the caller's `Deadline` (the whole process group is killed when it
passes), and it drops output past a budget instead of buffering without limit.
Callers put ``--`` before pathspecs (the listing readers do it for them), so a path
that looks like an option stays a path.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from orchestrator.deadline import Deadline
from orchestrator.procs import ProcResult, run_bounded

#: Output budget of listing commands (ls-files, ls-tree, diff, status) on huge trees.
LISTING_BUDGET = 256 * 1024 * 1024
#: Output budget of one-line answers (rev-parse, config, symbolic-ref).
SMALL_BUDGET = 64 * 1024


#: The transports `Git.ask_remote` may use (git's own, as a push uses them; never
#: ``ext::`` or a ``helper::`` URL): `GIT_ALLOW_PROTOCOL` overrides every
#: ``protocol.*.allow`` setting for that one call.
ASK_PROTOCOLS = "file:git:http:https:ssh"
#: Seconds and output bytes one ask of a remote may take.
ASK_SECONDS = 60.0
ASK_BUDGET = 64 * 1024 * 1024


#: The config keys `driver_settings` reads (section, driver name, program key).
DRIVER_PATTERN = r"^(filter|diff|merge|remote)\..*\.(clean|smudge|process|command|textconv|driver|uploadpack|receivepack)$"


class GitError(Exception):
    """Git could not answer: the surface cannot be established (an internal fault)."""


def git_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment git runs with: the caller's, with a relative index made absolute.

    Git exports ``GIT_INDEX_FILE`` to hooks, sometimes relative to the hook's cwd; the
    gate may run git elsewhere, so the path is pinned here. Optional locks are off (a
    read must not rewrite the index under a running commit) and messages are in the C
    locale, so parsing never depends on the user's language. Replace refs and grafts are
    off: what the gate reads is what git commits and pushes. No program the config or
    the caller names runs (fsmonitor, pager, external diff, signature check, transport;
    the drivers the repository names are emptied by `Git`).
    """
    out = dict(os.environ if env is None else env)
    index = out.get("GIT_INDEX_FILE")
    if index and not os.path.isabs(index):
        out["GIT_INDEX_FILE"] = os.path.abspath(index)
    out.setdefault("GIT_OPTIONAL_LOCKS", "0")
    out["LC_ALL"] = "C"
    # The gate must read the objects git stores and sends. Replace refs and a grafts
    # file make `cat-file`, `diff` and `rev-list` show other content and history than
    # `write-tree`, `commit` and `pack-objects` store and push: a secret staged beside
    # `git replace <its blob> <a clean blob>` would be judged clean and pushed as is.
    out["GIT_NO_REPLACE_OBJECTS"] = "1"
    out["GIT_GRAFT_FILE"] = os.devnull
    # Programs git would start on the configuration's or the caller's word, inside a
    # gate: an fsmonitor hook could kill the hook (a host reads a hook killed by a
    # signal as "go on") or say no file changed; a pager, an external diff, a signature
    # check, a transport (ssh, ext::, a remote's upload-pack) could do anything. None of
    # orchestrate's git calls needs one: each is set to run none (`NEUTRAL_SETTINGS`),
    # and no transport is allowed (orchestrate never fetches; a partial clone's lazy
    # fetch fails instead of running a remote helper). The one exception is
    # `Git.ask_remote`, the push gate's question to the remote it pushes to.
    for name in PROGRAM_VARIABLES:
        out.pop(name, None)
    out["GIT_PAGER"] = "cat"
    out["GIT_ALLOW_PROTOCOL"] = ""
    out["GIT_PROTOCOL_FROM_USER"] = "0"
    return with_settings(out, NEUTRAL_SETTINGS)


#: Settings that name a program git runs, each with the value that runs none.
NEUTRAL_SETTINGS: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("diff.external", ""),
    ("log.showSignature", "false"),
    ("core.sshCommand", ""),
    ("protocol.allow", "never"),
    ("protocol.ext.allow", "never"),
    ("protocol.file.allow", "never"),
    ("core.alternateRefsCommand", ""),
)
#: Variables of the caller's environment that name a program git would run.
PROGRAM_VARIABLES = ("GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_PAGER")
#: Per-driver settings (`filter.NAME.clean`, `diff.NAME.textconv`, ...) that name a
#: program, and the value that runs none; a filter so emptied must not be required.
DRIVER_PROGRAMS = {
    "filter": ("clean", "smudge", "process"),
    "diff": ("command", "textconv"),
    "merge": ("driver",),
    "remote": ("uploadpack", "receivepack"),
}


def with_settings(env: Mapping[str, str], settings: Sequence[tuple[str, str]]) -> dict[str, str]:
    """`env` with `settings` (key, value) given to git on its command-line level, after
    any the caller gave there (``GIT_CONFIG_PARAMETERS``, which git passes a hook for
    ``git -c``): the last value wins, so these override every other level."""
    out = dict(env)
    words = [out.get("GIT_CONFIG_PARAMETERS", "").strip()]
    words += [f"{_quote(key)}={_quote(value)}" for key, value in settings]
    out["GIT_CONFIG_PARAMETERS"] = " ".join(w for w in words if w)
    return out


def without_hooks(env: Mapping[str, str]) -> dict[str, str]:
    """`env` with no hook of the repository's run (``core.hooksPath`` names no folder):
    for git calls that write an index or a ref, which git would report to a hook. Not
    the default: the hooks folder is read through the same setting."""
    return with_settings(env, [("core.hooksPath", os.devnull)])


def _quote(text: str) -> str:
    """Git's own single quoting of a word in ``GIT_CONFIG_PARAMETERS``."""
    return "'" + text.replace("'", "'\\''") + "'"


def driver_settings(listing: bytes) -> list[tuple[str, str]]:
    """From ``git config -z --get-regexp`` output, the settings that empty every
    program a filter, diff or merge driver or a remote's transport names (and make
    such a filter not required, so git stores the bytes as they are)."""
    out: list[tuple[str, str]] = []
    for record in listing.split(b"\0"):
        name = record.split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
        section, _, rest = name.partition(".")
        driver, _, key = rest.rpartition(".")
        if not driver or key not in DRIVER_PROGRAMS.get(section, ()):
            continue
        if (name, "") not in out:
            out.append((name, ""))
        if section == "filter" and (f"filter.{driver}.required", "false") not in out:
            out.append((f"filter.{driver}.required", "false"))
    return out


#: Variables that bind git to one repository (``git rev-parse --local-env-vars``, less
#: the command-line config, which a submodule's git inherits as git passes it on).
LOCAL_REPO_VARIABLES = (
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_OBJECT_DIRECTORY",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_GRAFT_FILE",
    "GIT_INDEX_FILE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_REPLACE_REF_BASE",
    "GIT_PREFIX",
    "GIT_INTERNAL_SUPER_PREFIX",
    "GIT_SHALLOW_FILE",
    "GIT_COMMON_DIR",
)
#: Nested repositories (checked-out submodules, theirs, ...) whose own config is read
#: for the drivers it names; more, or deeper, is a `GitError`: a driver not read is a
#: driver not emptied.
MAX_NESTED_REPOSITORIES = 256
MAX_NESTED_DEPTH = 8
GITLINK = b"160000"


#: Bytes of driver settings one config listing may hold (a config of thousands of
#: entries is read whole; more is a `GitError`, never a partial read).
DRIVER_LISTING_BUDGET = 16 * 1024 * 1024


def _drivers_of(cwd: Path, env: Mapping[str, str], deadline: Deadline) -> list[tuple[str, str]]:
    """The settings that empty the driver programs the config seen from `cwd` names.
    `GitError` when the listing was not read whole (spawn error, deadline, budget, a
    failure other than "no such setting"): a driver not read is a driver not emptied."""
    listing = run_bounded(
        ["git", "config", "-z", "--get-regexp", DRIVER_PATTERN],
        deadline=deadline,
        cwd=cwd,
        env=env,
        output_budget=DRIVER_LISTING_BUDGET,
    )
    if not listing.ok or listing.returncode not in (0, 1):
        raise GitError(
            f"the config's driver programs cannot be read: {_describe(['config'], listing)}"
        )
    # Exit 1: no setting matches (git prints nothing).
    return driver_settings(listing.stdout) if listing.returncode == 0 else []


def _gitlinks(cwd: Path, env: Mapping[str, str], deadline: Deadline) -> list[Path]:
    """The submodule folders (gitlinks, absolute) of the whole index git sees from `cwd`
    with `env`: from a subfolder, or on a `GIT_WORK_TREE` elsewhere, git still enters
    every submodule of the tree, so the listing is the top's (`:/`, `--full-name`)."""
    top = run_bounded(
        ["git", "rev-parse", "--show-toplevel"],
        deadline=deadline,
        cwd=cwd,
        env=env,
        output_budget=SMALL_BUDGET,
    )
    if not top.ok:
        raise GitError(f"the work tree cannot be found: {_describe(['rev-parse'], top)}")
    if top.returncode != 0:
        return []  # no work tree: git has no submodule to enter
    root = Path(top.stdout.decode("utf-8", "surrogateescape").rstrip("\n"))
    res = run_bounded(
        ["git", "ls-files", "-s", "-z", "--full-name", "--", ":/"],
        deadline=deadline,
        cwd=cwd,
        env=env,
        output_budget=LISTING_BUDGET,
    )
    if not succeeded(res):
        raise GitError("the index cannot be listed: its submodules' drivers cannot be read")
    out: list[Path] = []
    for record in res.stdout.split(b"\0"):
        if record.startswith(GITLINK + b" "):
            rel = record.split(b"\t", 1)[-1].decode("utf-8", "surrogateescape")
            out.append(Path(os.path.abspath(root / rel)))
    return out


def nested_driver_settings(
    root: Path, env: Mapping[str, str], deadline: Deadline
) -> list[tuple[str, str]]:
    """The settings that empty every driver program the config of a checked-out
    submodule names (and of its submodules, to `MAX_NESTED_DEPTH`).

    Git enters a checked-out submodule to ask whether it changed (`status`, `diff`,
    `add`, `diff-index` against the work tree), and runs there the drivers its own
    config names for the attributes its files carry: a clean filter, a textconv. The
    settings git gets on its command line reach that git too, so emptying the names
    here reaches them. `GitError` past the bounds."""
    out: list[tuple[str, str]] = []
    nested_env = {k: v for k, v in env.items() if k not in LOCAL_REPO_VARIABLES}
    queue: list[tuple[Path, Mapping[str, str], int]] = [(root, env, 0)]
    seen = 0
    while queue:
        repo, repo_env, depth = queue.pop()
        for sub in _gitlinks(repo, repo_env, deadline):
            if not os.path.lexists(sub / ".git"):
                continue  # not checked out: git has nothing to enter
            seen += 1
            if seen > MAX_NESTED_REPOSITORIES or depth + 1 > MAX_NESTED_DEPTH:
                raise GitError(
                    f"more than {MAX_NESTED_REPOSITORIES} checked-out submodules, or nested "
                    f"deeper than {MAX_NESTED_DEPTH}: their drivers cannot all be read"
                )
            # As git enters it: in its folder, on its `.git`; its work tree is what its
            # own config says (`core.worktree` may put it, and its gitlinks, elsewhere).
            sub_env = {**nested_env, "GIT_DIR": str(sub / ".git")}
            for setting in _drivers_of(sub, sub_env, deadline):
                if setting not in out:
                    out.append(setting)
            queue.append((sub, sub_env, depth + 1))
    return out


#: Subcommands that leave the entries of the index as they are (a `diff` may refresh
#: their stat data, never their mode, id or path): a runner keeps its index listing
#: across them.
INDEX_KEEPING = frozenset(
    {"cat-file", "check-attr", "config", "diff", "diff-index", "diff-tree", "for-each-ref",
     "hash-object", "log", "ls-files", "ls-remote", "ls-tree", "merge-base", "rev-list",
     "rev-parse", "show", "show-ref", "symbolic-ref", "var"}
)  # fmt: skip


def keeps_index(args: Sequence[str]) -> bool:
    """Whether ``git ARGS`` leaves the index's entries as they are: a subcommand of
    `INDEX_KEEPING`, or `worktree list` (`worktree add` writes a new work tree's index)."""
    return bool(args) and (args[0] in INDEX_KEEPING or tuple(args[:2]) == ("worktree", "list"))


class Git:
    """A git runner bound to a working folder, one deadline and one environment: the
    runner of one request (a gate, a lint's selection), whose readings of the drivers
    and the index are taken once for its life."""

    def __init__(self, root: Path, deadline: Deadline, env: Mapping[str, str] | None = None):
        self.root = root
        self.deadline = deadline
        self.env = git_env(env)
        #: The trees this runner listed by full object id (`objects.read_tree`), kept for
        #: its life: an id's tree never changes (replace refs and grafts are off,
        #: `git_env`), and a gate asks the same commit's for each kind of governing file.
        self.trees: dict[str, tuple[object, ...]] = {}
        #: The index's stage-0 entries as this runner last listed them (`objects.
        #: read_index`): a gate's readers then judge one listing, not one each. Any
        #: subcommand that may write the index (not `keeps_index`) forgets it.
        self.index: tuple[object, ...] | None = None
        self._empty_drivers()

    def _empty_drivers(self) -> None:
        """Empty the driver programs the repository's config names, and the config of
        each submodule git may enter: read here, once, before the runner's first call."""
        settings = _drivers_of(self.root, self.env, self.deadline)
        settings += nested_driver_settings(self.root, self.env, self.deadline)
        if settings:
            self.env = with_settings(self.env, settings)

    def run(
        self,
        *args: str,
        stdin: bytes | None = None,
        budget: int = LISTING_BUDGET,
        check: bool = True,
    ) -> ProcResult:
        """Run ``git ARGS`` in `root`; with `check`, any failure raises `GitError`.

        A failure is a spawn error, the deadline passing, output over `budget`, or a
        non-zero exit; the error text is bounded and names which one it was.
        """
        if self.index is not None and not keeps_index(args):
            self.index = None
        res = run_bounded(
            ["git", *args],
            deadline=self.deadline,
            stdin=stdin,
            cwd=self.root,
            env=self.env,
            output_budget=budget,
        )
        if check and not succeeded(res):
            raise GitError(_describe(args, res))
        return res

    def for_deadline(self, deadline: Deadline) -> Git:
        """This runner (its folder, environment and the drivers it read) bound to
        another deadline, without reading the drivers again."""
        other = copy.copy(self)
        other.deadline = deadline
        return other

    def ask_remote(self, where: str, seconds: float = ASK_SECONDS) -> ProcResult:
        """``git ls-remote WHERE``: the refs the remote at `where` (a URL or a remote's
        name; never one starting with "-") advertises right now, the one call that
        contacts a remote. It may use only the transports a push itself uses
        (`ASK_PROTOCOLS`: never ``ext::`` or a remote helper, which run a program the
        URL names); every other neutral setting stays (no ``core.sshCommand``, no
        ``uploadpack`` the configuration names), git never prompts (a gate has no one to
        answer), and the ask has its own bound within the run's deadline. A failure is a
        result the caller reads as "the remote was not asked"; only a `where` starting
        with "-" raises (ValueError: `push.remote_holds` never passes one)."""
        if not where or where.startswith("-"):
            raise ValueError("a remote to ask never starts with '-'")
        env = {**self.env, "GIT_ALLOW_PROTOCOL": ASK_PROTOCOLS, "GIT_TERMINAL_PROMPT": "0"}
        return run_bounded(
            ["git", "ls-remote", "--end-of-options", where],
            deadline=self.deadline.within(seconds),
            cwd=self.root,
            env=env,
            output_budget=ASK_BUDGET,
        )

    def ok(self, *args: str) -> bool:
        """True when ``git ARGS`` exits 0 within the deadline and a 1 MiB budget."""
        return succeeded(self.run(*args, check=False, budget=1024 * 1024))

    def out(self, *args: str) -> str:
        """Stdout of ``git ARGS`` as stripped text; `GitError` when git fails."""
        return self.run(*args).stdout.decode("utf-8", "surrogateescape").strip()

    def answer(self, *args: str) -> str | None:
        """Stdout of a one-line ``git ARGS`` as stripped text; None when git fails or
        prints nothing (a question git cannot answer here, never an error)."""
        res = self.run(*args, check=False, budget=SMALL_BUDGET)
        if not succeeded(res):
            return None
        return res.stdout.decode("utf-8", "surrogateescape").strip() or None


#: The subcommands a `GitQuery` runs: they read refs, names, paths and config, never a
#: file's content or a remote, so git starts none of the programs the configuration
#: names (filters, diff and merge drivers, transports) for them.
QUERY_SUBCOMMANDS = frozenset({"rev-parse", "config"})
#: A `config` query must read (one of these options) and never write or edit (`--edit`
#: starts the editor the config names).
CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l"})
CONFIG_WRITES = frozenset(
    {"-e", "--edit", "edit", "set", "unset", "--add", "--unset", "--unset-all",
     "--replace-all", "--rename-section", "--remove-section"}
)  # fmt: skip


def is_query(args: Sequence[str]) -> bool:
    """Whether ``git ARGS`` is a question a `GitQuery` may ask: `rev-parse`, or a
    `config` that reads and does not write."""
    if not args or args[0] not in QUERY_SUBCOMMANDS:
        return False
    if args[0] == "config":
        options = set(args[1:])
        return bool(options & CONFIG_READS) and not options & CONFIG_WRITES
    return True


class GitQuery(Git):
    """A git runner for `QUERY_SUBCOMMANDS` alone (where is the repository, what does
    its config say), with every neutral setting of `git_env`.

    It skips what a `Git` does first, reading the config of the repository and of each
    checked-out submodule for driver programs to empty (three processes, and one per
    submodule), since these subcommands start none. Any other subcommand, and a remote
    ask, is a `GitError` before anything runs: a caller that needs more builds a `Git`."""

    def _empty_drivers(self) -> None:
        """Nothing to read: a query starts no driver program."""

    def run(self, *args: str, **options: Any) -> ProcResult:
        """``git ARGS`` as `Git.run` runs it (the same options), when it `is_query`."""
        if not is_query(args):
            raise GitError(f"not a query for this runner: git {' '.join(args[:2])}")
        return super().run(*args, **options)

    def ask_remote(self, where: str, seconds: float = ASK_SECONDS) -> ProcResult:
        """Never: a query runner does not contact a remote (`GitError`)."""
        raise GitError("a query runner does not contact a remote")


def succeeded(res: ProcResult) -> bool:
    """True when a git run finished in time, within budget, and exited 0."""
    return res.ok and res.returncode == 0


def _describe(args: Sequence[str], res: ProcResult) -> str:
    what = f"git {args[0] if args else ''}"
    if res.spawn_error:
        return f"{what}: could not start git ({res.spawn_error})"
    if res.timed_out:
        return f"{what}: timed out"
    if res.over_budget:
        return f"{what}: output over budget"
    err = " ".join(res.stderr.decode("utf-8", "replace").split())[:200]
    return f"{what}: exit {res.returncode}: {err}"
