"""The agent path's use cases: what a host hook runs for an edit or a delivery.

The hosts' router picks the route and spells the answer (render/agent.py); the work
below it is here: the edit-feedback lint of named files (`lint_here`, the request
built here, never in a presenter) and the judging of a commit or push a shell command
will make (`judge_delivery`: its repository and staging prepared, the governing files
it changes read, the strict gate run on that surface). Nothing here decides what the
agent is told; a judged delivery or the reason it could not be judged is returned.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.deadline import GIT_LOOKUP_DEADLINE_S, Deadline
from orchestrator.decisions.agent import refuses_policy_change
from orchestrator.shell.analyser import Analysis, Reason, analyse
from orchestrator.vocab import Purpose

if TYPE_CHECKING:  # the engine loads only when a route needs it (fast hook start)
    from orchestrator.core.engine import LintRequest
    from orchestrator.model.declared import LoadedChecker
    from orchestrator.model.report import Report
    from orchestrator.usecases.lint import LintResult
    from orchestrator.usecases.pretool import ShellDelivery, SurfaceChanges


def lint_here(root: Path, paths: Sequence[str], timeout: float) -> LintResult:
    """The edit-feedback lint of a hook, in this process (the warm engine runs this).

    `paths` name files (a confirmed edit's target, or what `git status` lists): lint's
    selection judges each as the entry it is and never walks a folder among them, so
    an unsafe one is the `unsafe` scope the whole-project lint gives it.
    """
    from orchestrator.core.engine import LintRequest
    from orchestrator.usecases.lint import FEEDBACK_TASKS, lint

    req = LintRequest(
        project_root=root,
        paths=tuple(paths),
        entry="hook",
        purpose=Purpose.FEEDBACK,
        timeout=timeout,
        cwd=root,
        paths_are_entries=True,
    )
    result = lint(req, FEEDBACK_TASKS)
    result.suppressions = added_suppressions(root, result.report)
    result.config_edits = edited_configs(root, paths)
    return result


#: How long the feedback may spend reading the committed versions of its files.
SUPPRESSION_READ_S = 2.0


def added_suppressions(root: Path, report: Report) -> dict[str, dict[str, int]]:
    """The linter suppressions each file the feedback checked adds over its version at
    HEAD (a file HEAD lacks: all of its markers), read from the bytes on disk. Outside
    a repository, or when git cannot answer, the committed side is taken as absent for
    no file: nothing is reported rather than a guess."""
    from orchestrator.decisions import suppressions
    from orchestrator.decisions.coverage import is_checked

    paths = sorted({s.path for s in report.scopes if is_checked(s)})
    if not paths or (before := _committed(root, paths)) is None:
        return {}
    out = {}
    for path in paths:
        try:
            data = (root / path).read_bytes()
        except OSError:
            continue
        if added := suppressions.added(before.get(path), data):
            out[path] = added
    return out


def _committed(root: Path, paths: Sequence[str]) -> dict[str, bytes] | None:
    """The bytes `paths` hold at HEAD (a path HEAD lacks is absent; an unborn HEAD holds
    none), or None outside a repository or when git cannot answer in time."""
    from orchestrator.git.repo import NoRepository, open_repo
    from orchestrator.git.runner import GitError
    from orchestrator.git.surfaces import read_files_at

    try:
        git = open_repo(Deadline.after(SUPPRESSION_READ_S), cwd=root)
        head = git.answer("rev-parse", "--verify", "-q", "HEAD^{commit}")
        return read_files_at(git, head, list(paths)) if head else {}
    except (NoRepository, GitError, OSError):
        return None


def edited_configs(root: Path, paths: Sequence[str]) -> tuple[str, ...]:
    """The edited `paths` (project-relative) that are a lint checker's configuration and
    differ from HEAD (decisions/suppressions.config_edited), sorted. Nothing when git
    cannot answer: no guess."""
    from orchestrator.decisions import suppressions

    names = [p for p in paths if suppressions.config_checker(p)]
    if not names or (before := _committed(root, names)) is None:
        return ()
    out = []
    for path in sorted(set(names)):
        try:
            now: bytes | None = (root / path).read_bytes()
        except FileNotFoundError:
            now = None
        except OSError:
            continue
        if suppressions.config_edited(path, before.get(path), now):
            out.append(path)
    return tuple(out)


def analyse_command(command: str, start: Path | None, deadline: Deadline | None = None) -> Analysis:
    """The analyser's verdict on a shell command; a git alias it does not know is looked
    up in the start repository's config (within `deadline`, at most 5 s) and the command
    read again, kept only when every git operation runs in that repository (another one
    may define the name differently)."""
    result = analyse(command)
    if result.reason != Reason.UNKNOWN_GIT_SUBCOMMAND or start is None:
        return result
    from orchestrator.usecases.pretool import git_aliases

    aliases = git_aliases(start, _lookup(deadline))
    if not aliases:
        return result
    again = analyse(command, known_aliases=aliases)
    return again if all(op.repository.is_default for op in again.ops) else result


def _lookup(deadline: Deadline | None) -> Deadline:
    """The bound of a git lookup before a tool runs: GIT_LOOKUP_DEADLINE_S, within the
    event's `deadline` when one is given."""
    return (deadline or Deadline.after(GIT_LOOKUP_DEADLINE_S)).within(GIT_LOOKUP_DEADLINE_S)


def protected_edit(
    target: object, project_root: Path | None, deadline: Deadline | None = None
) -> str | None:
    """Why a file-edit tool aimed at `target` is refused ("protected_path": inside git's
    folder, the hooks or orchestrate's configuration; or a reason word when the target
    cannot be determined), or None when it may run. Git's places are read from the
    project root and the target's nearest existing folder, within GIT_LOOKUP_DEADLINE_S
    (and the event's `deadline`)."""
    from orchestrator.usecases.pretool import git_places
    from orchestrator.usecases.shell_delivery import protected_target

    bound = _lookup(deadline)
    places: dict[str, Path] = {}
    for where in _nearest_dirs(target, project_root):
        for name, place in git_places(where, bound).items():
            places[f"{name}:{place}"] = place
    reason = protected_target(target, project_root, places)
    if reason is None and project_root is not None and _is_checker_config(target, project_root):
        return "protected_checker_config"
    return reason


def _protects_checker_config(root: Path) -> bool:
    """True when the project sets `protect_checker_config = true`. Opt-in: a
    configuration that cannot be read turns nothing on, so an agent can still repair a
    broken pyproject.toml (any other fault propagates: refused)."""
    from orchestrator.errors import UsageError
    from orchestrator.usecases.settings import project_settings

    try:
        return project_settings(root).get("protect_checker_config") is True
    except UsageError:
        return False


def _names_checker_config(target: str, root: Path, names: frozenset[str]) -> bool:
    """True when `target` (as spelled, a glob the shell may expand, or with its links
    followed) is named like one of `names`."""
    given = Path(target) if os.path.isabs(target) else root / target
    if any(c in given.name for c in "*?["):
        return any(fnmatch.fnmatchcase(n, given.name) for n in names)
    return bool({given.name, Path(os.path.realpath(given)).name} & names)


def _config_names(root: Path | None = None) -> frozenset[str]:
    """The loaded checkers' config file names and, with `root`, the file names of the
    project's own recipes (`recipes`: each governs its checker too)."""
    names = {n for c in loaded_checkers()[0] for n in c.config_names}
    if root is not None:
        from orchestrator.errors import UsageError
        from orchestrator.usecases.settings import project_settings

        with contextlib.suppress(UsageError):  # a broken config protects no recipe name
            names |= {Path(p).name for p in project_settings(root).get("recipes", []) or []}
    return frozenset(names)


def _is_checker_config(target: object, root: Path) -> bool:
    """True when the project sets `protect_checker_config` and `target` (as spelled or
    with its links followed) is named like a loaded checker's configuration file."""
    if not isinstance(target, str) or not _protects_checker_config(root):
        return False
    return _names_checker_config(target, root, _config_names(root))


def protected_shell_write(
    writes: Sequence[str],
    start: Path | None,
    project_root: Path | None,
    deadline: Deadline | None = None,
) -> str | None:
    """The reason word `protected_path` when a shell command names, among the files it
    writes (`writes`: the analyser's targets, relative to `start`, the shell's folder),
    one inside the folder git runs hooks from (`core.hooksPath`, e.g. `.husky`: the
    analyser knows `.git` only), `protected_checker_config` when the project sets that
    setting and one is a checker's configuration file; None otherwise. A target known
    only at run time is not seen (docs/hosts.md)."""
    if project_root is None or not writes or "\x00" in "".join(writes):
        return None
    from orchestrator.usecases.pretool import git_places
    from orchestrator.usecases.shell_delivery import protected_target

    base = start or project_root
    hooks = {k: v for k, v in git_places(base, _lookup(deadline)).items() if k == "hooks"}
    for path in writes:
        target = path if os.path.isabs(path) else str(base / path)
        if hooks and protected_target(target, None, hooks) is not None:
            return "protected_path"
    if not _protects_checker_config(project_root):
        return None
    names = _config_names(project_root)
    for path in writes:
        target = path if os.path.isabs(path) else str(base / path)
        if _names_checker_config(target, project_root, names):
            return "protected_checker_config"
    return None


def _nearest_dirs(target: object, project_root: Path | None) -> list[Path]:
    """The project root and the nearest existing folder of the edit target, as spelled
    and with its links followed."""
    out = [project_root] if project_root else []
    if isinstance(target, str) and os.path.isabs(target) and "\x00" not in target:
        for spelled in (os.path.normpath(target), os.path.realpath(target)):
            here = Path(spelled).parent
            while not here.is_dir() and here != here.parent:
                here = here.parent
            if here not in out:
                out.append(here)
    return out


def tool_lint_request(
    root: Path,
    paths: Sequence[str],
    feedback: bool,
    only: Sequence[str] | None,
    timeout: float,
) -> LintRequest:
    """The request of an agent's lint tool call (MCP): feedback tasks, the project's
    own folder as cwd, `only` naming the checkers to run (all when empty)."""
    from orchestrator.core.engine import LintRequest

    return LintRequest(
        project_root=root,
        paths=tuple(paths),
        entry="feedback" if feedback else "lint",
        purpose=Purpose.FEEDBACK,
        timeout=timeout,
        only_checkers=frozenset(only) if only else None,
        cwd=root,
    )


def loaded_checkers() -> tuple[list[LoadedChecker], int]:
    """The checkers the plugin host loads, and how many plugins failed to load."""
    from orchestrator.core.plugin_host import load

    plugins = load()
    return plugins.checkers(), len(plugins.failed)


def project_root_of(cwd: Path) -> Path:
    """The project an agent's server started in `cwd` serves (core/config's root)."""
    from orchestrator.core.config import find_project_root

    return find_project_root(cwd)


@dataclass(frozen=True)
class DeliveryJudged:
    """A delivery the strict gate judged on the surface it will have."""

    #: The gate's report; None only when the gate failed on a commit that is refused
    #: for changing the gate's own policy anyway (the policy it changes may not load).
    report: Report | None
    #: Changed governing files (labels): the checkers' and git's config, then the policy.
    configs: tuple[str, ...]
    #: Changed files of orchestrate's own policy (labels).
    policy: tuple[str, ...]
    #: decisions/agent.refuses_policy_change of this delivery.
    policy_refused: bool


@dataclass(frozen=True)
class DeliveryUnjudged:
    """A delivery whose surface could not be read, so nothing was judged.

    `cause`: "no_repository", "policy_undeterminable", "push_undeterminable" (with the
    push reader's own word as `detail`, unfiltered) or "staging_replay_failed".
    """

    cause: str
    detail: object = None


def judge_delivery(
    delivery: ShellDelivery,
    event: Deadline,
    surface_changes: Callable[[Path, Mapping[str, str], Deadline, str], SurfaceChanges],
    gate: Callable[..., Report],
    policy_deadline_s: float,
) -> DeliveryJudged | DeliveryUnjudged:
    """Judge the commit or push `delivery` describes by the strict gate, on the surface
    it will have (its repository, its own staging), within `event`.

    The governing files it changes are read first (within `policy_deadline_s` of the
    event); a fault of the gate itself is raised, never turned into an answer, except
    on a commit that is refused for changing the gate's policy anyway.
    """
    from orchestrator.git.repo import NoRepository
    from orchestrator.usecases.pretool import GitError, NotJudgeable, ReplayFailed, prepared

    try:
        with prepared(delivery, event) as (root, env):
            try:
                changes = surface_changes(root, env, event.within(policy_deadline_s), delivery.kind)
            except GitError:  # only this read: a fault of the gate itself stays a fault
                return DeliveryUnjudged("policy_undeterminable")
            # A commit changing the gate's own policy is refused whatever the verdict, but
            # still judged: the agent learns what the gate found too, and every surface
            # keeps one core report (CG-12). A push may carry a person's policy commit:
            # named, not refused, here.
            policy_refused = refuses_policy_change(delivery.kind, changes.policy)
            configs = changes.configs + changes.policy
            extra = {"env": env} if env else {}
            try:
                report = gate(delivery.kind, root, event.remaining(), **extra)
            except Exception:
                if policy_refused:  # refused anyway; the policy it changes may not load
                    return DeliveryJudged(None, configs, changes.policy, True)
                raise
    except NoRepository:
        return DeliveryUnjudged("no_repository")
    except NotJudgeable as exc:
        return DeliveryUnjudged("push_undeterminable", exc.reason)
    except ReplayFailed:
        return DeliveryUnjudged("staging_replay_failed")
    return DeliveryJudged(report, configs, changes.policy, policy_refused)
