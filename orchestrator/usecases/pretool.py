"""The surface an agent's shell command will deliver, prepared for the strict gate.

The host's pre-tool hook reads a commit or push from the command's syntax
(hosts/shell_surface.py) before the command runs. This use case turns that reading
into something the strict gate can judge: the repository the command acts on (its
directory and GIT_* variables), and for a commit the index as the command's own
staging will leave it (git/staging.py). What cannot be prepared raises: `NoRepository`
outside a work tree, `NotJudgeable` for a push whose target this gate cannot read,
`ReplayFailed` when the command's staging would fail.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.git.push import current_push
from orchestrator.git.repo import NO_REPO, NoRepository, config_get
from orchestrator.git.runner import Git, succeeded
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
    git = Git(delivery.cwd, deadline, {**os.environ, **delivery.env})
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
    git = Git(cwd, deadline)
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
    res = Git(cwd, deadline).run(
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
    if default not in _SINGLE_BRANCH_DEFAULTS or (
        remote and config_get(git, f"remote.{remote}.push")
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


__all__ = [
    "NoRepository",
    "NotJudgeable",
    "ReplayFailed",
    "ShellDelivery",
    "git_places",
    "prepared",
]
