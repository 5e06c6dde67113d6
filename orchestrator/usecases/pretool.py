"""The surface an agent's shell command will deliver, prepared for the strict gate.

The host's pre-tool hook reads a commit or push from the command's syntax
(orchestrator/shell/) before the command runs. This use case turns that reading
into something the strict gate can judge: the repository the command acts on (its
directory and GIT_* variables), and for a commit the index as the command's own
staging will leave it (git/staging.py). What cannot be prepared raises: `NoRepository`
outside a work tree, `NotJudgeable` for a push whose target this gate cannot read,
`ReplayFailed` when the command's staging would fail.

`surface_changes` says which governing files the prepared commit changes against
HEAD (a push: its tip against the remote-tracking commit), as fixed labels:
orchestrate's own policy files (the router refuses such a commit: a person makes it)
and the checkers' declared config files (named in the agent text).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.git.push import current_push
from orchestrator.git.repo import NO_REPO, NoRepository, config_get
from orchestrator.git.runner import Git, GitError, GitQuery, succeeded
from orchestrator.git.staging import ReplayFailed, replayed_index

#: `push.default` values under which a plain `git push` sends only the current branch.
_SINGLE_BRANCH_DEFAULTS = (None, "simple", "upstream", "current")
#: Push flags that do not change which commits are sent.
_HARMLESS_PUSH_FLAGS = frozenset({"--force"})


class NotJudgeable(Exception):
    """The delivery's surface cannot be read by the pre-tool gate (a fixed word)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ShellDelivery:
    """One commit or push a shell command will make, with absolute paths only.

    `cwd`: where the command's git runs (after `cd` and `-C`); `env`: the GIT_*
    variables that select its repository and index; `staging`: the command's own
    `git add` / `git rm` argv before the commit, in order; `only_paths`: the paths of
    `git commit PATHS` (None: not such a commit); for a push, its remote, refspecs and
    the flags that widen what it sends."""

    kind: str
    cwd: Path
    env: Mapping[str, str] = field(default_factory=dict)
    staging: tuple[tuple[str, ...], ...] = ()
    only_paths: tuple[str, ...] | None = None
    remote: str | None = None
    refspecs: tuple[str, ...] = ()
    push_flags: tuple[str, ...] = ()


@contextmanager
def prepared(delivery: ShellDelivery, deadline: Deadline) -> Iterator[tuple[Path, dict[str, str]]]:
    """Yield (folder, GIT_* variables) under which the strict gate reads exactly what
    `delivery` will commit or push; the private index is removed on exit."""
    env = {**os.environ, **delivery.env}
    # A commit with nothing to replay only asks git where things are (`rev-parse`): a
    # query runner. A replay's runners start from this runner's environment, whose
    # emptied drivers (those of the submodules the real index holds) cover its first
    # step; a push's check reads refs and remotes: both need a full runner.
    replays = bool(delivery.staging) or delivery.only_paths is not None
    full = delivery.kind == "push" or replays
    git = (Git if full else GitQuery)(delivery.cwd, deadline, env)
    # The work tree may lie elsewhere (GIT_WORK_TREE, --work-tree): ask for its top.
    if git.answer("rev-parse", "--show-toplevel") is None:
        raise NoRepository(NO_REPO.format(cwd=delivery.cwd))
    if delivery.kind == "push":
        _check_push(git, delivery)
        yield delivery.cwd, dict(delivery.env)
        return
    with replayed_index(git, delivery.staging, delivery.only_paths) as extra:
        yield delivery.cwd, {**delivery.env, **extra}


def git_places(cwd: Path, deadline: Deadline) -> dict[str, Path]:
    """The folders of the repository around `cwd` that no agent edit may write: its git
    folder, the common folder of its worktrees and the hooks folder (absolute; those
    git cannot name are left out, and none outside a repository)."""
    git = GitQuery(cwd, deadline)
    places: dict[str, Path] = {}
    for name, args in (
        ("git_dir", ("rev-parse", "--absolute-git-dir")),
        ("common_dir", ("rev-parse", "--path-format=absolute", "--git-common-dir")),
        ("hooks", ("rev-parse", "--path-format=absolute", "--git-path", "hooks")),
    ):
        value = git.answer(*args)
        if value:
            places[name] = Path(os.path.realpath(value))
    return places


def git_aliases(cwd: Path, deadline: Deadline) -> dict[str, str]:
    """The git aliases the repository around `cwd` defines (every config level, as git
    resolves them), name casefolded -> definition; {} when git cannot say."""
    res = GitQuery(cwd, deadline).run(
        "config", "--get-regexp", r"^alias\.", check=False, budget=256 * 1024
    )
    if not succeeded(res):
        return {}
    aliases: dict[str, str] = {}
    for line in res.stdout.decode("utf-8", "surrogateescape").splitlines():
        key, _, value = line.partition(" ")
        aliases[key.removeprefix("alias.").casefold()] = value
    return aliases


def _check_push(git: Git, delivery: ShellDelivery) -> None:
    """The pre-tool push gate reads the current branch against its upstream; a push
    that may send anything else is not judged here."""
    if set(delivery.push_flags) - _HARMLESS_PUSH_FLAGS:
        raise NotJudgeable("push_sends_more_than_current_branch")
    default = config_get(git, "push.default")
    updates, remote = current_push(git)
    # `push.followTags` sends annotated tags beside the branch; a mirror remote every ref.
    follows = config_get(git, "push.followTags", as_bool=True) == "true"
    mirror = bool(remote) and config_get(git, f"remote.{remote}.mirror", as_bool=True) == "true"
    if (
        default not in _SINGLE_BRANCH_DEFAULTS
        or (remote and config_get(git, f"remote.{remote}.push"))
        or follows
        or mirror
    ):
        raise NotJudgeable("push_configuration_sends_more")
    if delivery.remote is not None and delivery.remote != remote:
        raise NotJudgeable("push_to_other_remote")
    if not delivery.refspecs:
        return
    if len(delivery.refspecs) > 1 or not updates:
        raise NotJudgeable("push_refspec_not_current_branch")
    src, _, dst = delivery.refspecs[0].removeprefix("+").partition(":")
    update = updates[0]
    branch = update.local_ref.removeprefix("refs/heads/")
    dst = dst or (branch if src == "HEAD" else src)
    judged = update.remote_ref.removeprefix("refs/heads/")
    if src not in ("HEAD", branch, update.local_ref) or dst.removeprefix("refs/heads/") != judged:
        raise NotJudgeable("push_refspec_not_current_branch")


#: orchestrate's own policy files: a commit changing one is refused to the agent.
POLICY_FILES = ("orchestrate.toml", ".orchestrate-secrets-allow")
PYPROJECT = "pyproject.toml"
PYPROJECT_POLICY = "pyproject.toml [tool.orchestrate]"
#: Governing files besides the checkers' own declared config names.
GOVERNING_FILES = (PYPROJECT, ".gitattributes")
_DIFF_BUDGET = 4 * 1024 * 1024
_BLOB_BUDGET = 1024 * 1024


class DriversUnread(RuntimeError):
    """A git runner for the delivery could not read the driver programs to empty."""


@dataclass(frozen=True)
class SurfaceChanges:
    """What a prepared delivery changes among the files that govern the gate, as labels from a fixed vocabulary (file names, never paths): `policy` of
    orchestrate's own policy, `configs` of the checkers' and git's config files."""

    policy: tuple[str, ...] = ()
    configs: tuple[str, ...] = ()


def checker_config_names() -> frozenset[str]:
    """The config file names the installed checkers declare (`config_names`), every
    installed plugin's: loaded as a strict gate loads them, so the caller's environment
    (`ORCHESTRATE_DISABLE_PLUGINS`) never takes a checker's config files out of what a
    delivery is said to change."""
    from orchestrator.core import plugin_host

    plugins = plugin_host.load(strict=True)
    return frozenset(n for c in plugins.checkers() for n in c.config_names if "/" not in n)


def surface_changes(
    root: Path,
    env: Mapping[str, str],
    deadline: Deadline,
    names: Iterable[str],
    kind: str = "commit",
) -> SurfaceChanges:
    """The governing files the delivery prepared under `env` changes, read from git's
    index and objects only, never the work tree: a commit's index against HEAD (an
    unborn HEAD: the empty tree), a push's branch tip against the remote-tracking
    commit it is judged against (a new branch: nothing named). `names` are the
    checkers' declared config names. A `pyproject.toml` counts as policy when its
    [tool.orchestrate] table differs (or either side is not TOML). Raises GitError
    when git cannot say, and DriversUnread when no runner can be built (a fault)."""
    try:
        git = Git(root, deadline, {**os.environ, **env})
    except GitError as exc:
        # A runner that cannot read the drivers it must empty (too many or too deep
        # submodules, the deadline) is the gate's own fault, as it is at the gate's runner:
        # not a policy change git cannot name (the caller's reading of a GitError here).
        raise DriversUnread(str(exc)) from exc
    flags = ("--no-renames", "--name-only", "-z")
    if kind == "push":
        updates, _ = current_push(git)
        if not updates or not updates[0].remote_oid.strip("0"):
            return SurfaceChanges()
        base, after = updates[0].remote_oid, updates[0].local_oid
        res = git.run("diff-tree", "-r", *flags, base, after, budget=_DIFF_BUDGET)
    else:
        base = git.answer("rev-parse", "--verify", "-q", "HEAD^{commit}") or _empty_tree(git)
        after = ""  # `:path` is the index's copy
        res = git.run("diff-index", "--cached", *flags, base, budget=_DIFF_BUDGET)
    vocabulary = set(names) | set(GOVERNING_FILES)
    policy: set[str] = set()
    configs: set[str] = set()
    for raw in res.stdout.split(b"\0"):
        path = raw.decode("utf-8", "surrogateescape")
        name = path.rsplit("/", 1)[-1]
        if name in POLICY_FILES:
            policy.add(name)
        elif name == PYPROJECT and _orchestrate_table_changed(git, base, after, path):
            policy.add(PYPROJECT_POLICY)
        elif name in vocabulary and path:
            configs.add(name)
    configs -= {PYPROJECT} if PYPROJECT_POLICY in policy else set()
    return SurfaceChanges(tuple(sorted(policy)), tuple(sorted(configs)))


def _empty_tree(git: Git) -> str:
    """The empty tree's id in this repository's hash (nothing is written)."""
    res = git.run("hash-object", "-t", "tree", "--stdin", stdin=b"")
    return res.stdout.decode("ascii", "replace").strip()


def _orchestrate_table_changed(git: Git, base: str, after: str, path: str) -> bool:
    old = _orchestrate_table(git, f"{base}:{path}")
    new = _orchestrate_table(git, f"{after}:{path}")
    return old != new or "unreadable" in (old, new)


def _orchestrate_table(git: Git, spec: str) -> object:
    """`[tool.orchestrate]` of the blob `spec` (None: absent; "unreadable": not TOML)."""
    res = git.run("cat-file", "blob", spec, check=False, budget=_BLOB_BUDGET)
    if not succeeded(res):
        return None if res.ok and res.returncode != 0 else "unreadable"
    try:
        data = tomllib.loads(res.stdout.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return "unreadable"
    tool = data.get("tool")
    return tool.get("orchestrate") if isinstance(tool, dict) else None


__all__ = [
    "DriversUnread",
    "GitError",
    "NoRepository",
    "NotJudgeable",
    "ReplayFailed",
    "ShellDelivery",
    "SurfaceChanges",
    "checker_config_names",
    "git_places",
    "prepared",
    "surface_changes",
]
