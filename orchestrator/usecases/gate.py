"""The gate use cases: strict commit / push / ci / pre-tool gates and the legacy-v1 gate.

A strict gate reads the real git surface (the index, the pushed ranges, a commit),
materialises it with the files that govern it into a private tree, runs the core
there under the stricter of the base's and the surface's policy (never the working
tree's), evaluates the gate and ignores every legacy skip (saying so in the notes). The legacy-v1 gate keeps the old policy: a skip skips the
language gate only (audited), the secret scan always runs, and only blocking
findings or a secret block; missing evidence fails open. The exit code of each
outcome comes from decisions/exits.py; printing is the presenters' part.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orchestrator.checkers import project_recipes
from orchestrator.core import plugin_host
from orchestrator.core.plugin_host import PluginSet
from orchestrator.core.tool_paths import committed_tools_note, machine_tools
from orchestrator.deadline import Deadline
from orchestrator.decisions import suppressions
from orchestrator.decisions.coverage import coverage_of
from orchestrator.decisions.gate import evaluate_gate, legacy_blocks, policy_findings
from orchestrator.decisions.policy import effective_config
from orchestrator.errors import UsageError
from orchestrator.gates.amend import amending, cuts_at_scissors
from orchestrator.gates.legacy import NOT_CERTIFIED, Skip, audit_skip, legacy_skip
from orchestrator.gates.materialise import (
    governing_paths,
    materialised,
    read_governing,
    read_surface_files,
)
from orchestrator.gates.strict_policy import (
    LOCAL_EVENTS,
    Change,
    PolicyInputs,
    Reviewer,
    config_changes,
    policy_inputs,
    reviewed_files,
)
from orchestrator.git.objects import has_commit
from orchestrator.git.push import current_push, parse_push_lines, push_surface, push_url
from orchestrator.git.repo import NoRepository, open_repo
from orchestrator.git.runner import Git, succeeded
from orchestrator.git.surfaces import (
    Surface,
    ci_surface,
    commit_surface,
    message_surface,
    read_files_at,
    split_rounds,
)
from orchestrator.model import languages
from orchestrator.model.checker import FileTarget
from orchestrator.model.generated import GITATTRIBUTES
from orchestrator.model.report import Finding, Gate, Report, summed_times
from orchestrator.safetext import printable
from orchestrator.tasks.baseline import BaselineError, hide_baselined, parse_baseline
from orchestrator.vocab import BASELINE_FILE, GateDecision, Purpose, Tier

EVENTS = ("commit", "push", "ci")
SURFACE_NAMES = {"commit": "index", "push": "push-range", "ci": "revision"}
DEFAULT_TIMEOUT = {"commit": 600.0, "push": 900.0, "ci": 1800.0}
#: The share of a strict gate's one deadline the checkers may not use: it is kept for
#: the gate's own work after them (comparing the governing files with the base, the
#: legacy skip sources, the verdict) and for ending a checker that overran. A tenth of
#: the whole, within these bounds, never more than half of it.
FINISH_RESERVE_SHARE = 0.1
FINISH_RESERVE_MIN_S = 1.0
FINISH_RESERVE_MAX_S = 15.0


@dataclass
class GateResult:
    """A finished gate run: the report (its gate evaluated) and the surface behind it."""

    event: str
    report: Report
    surface: Surface


@dataclass
class LegacyResult:
    """A finished legacy-v1 gate: whether it blocks, and what the old protocol lists."""

    gate: GateResult
    block: bool
    skip: Skip | None = None
    secrets: list[Finding] = field(default_factory=list)
    #: How many skips the audit log holds after this one (0 when none was taken).
    skip_count: int = 0


def finish_reserve(timeout: float) -> float:
    """Seconds of a gate's `timeout` kept from the checkers for the gate's own work
    after them, so a checker that hangs is killed and recorded `timed_out` while the
    gate still has the time to finish and answer (its git reads run on the same
    deadline: without the reserve they would time out and fault the gate)."""
    share = min(FINISH_RESERVE_MAX_S, max(FINISH_RESERVE_MIN_S, FINISH_RESERVE_SHARE * timeout))
    return min(share, max(0.0, timeout) / 2)


def _open_strict(timeout: float, cwd: Path | None, env: Mapping[str, str] | None = None) -> Git:
    """The repository a gate judges. From here on this process detects languages from
    the grammar manifest's own file, never from its parsed copy in the user's cache
    folder (a gate trusts no cache anything running as the user can write; the plugin
    list is searched afresh likewise, `strict_policy`)."""
    languages.manifest_from_its_file()
    return open_repo(Deadline.after(timeout), cwd, env)


def read_surface(
    git: Git,
    event: str,
    rev: str | None,
    remote: str | None,
    stdin: bytes | None,
    url: str | None = None,
) -> Surface:
    """The surface a delivery event checks: the index, the pushed ranges, or a commit.

    A push with `stdin` None is seen before it happens (an agent's `git push`): the
    range is the current branch against the remote's commit, the remote asked at its
    push URL. With git's pre-push lines, `url` is the URL git pushes to (asked for
    what the remote holds where a line does not say it). A `rev` that names no commit,
    and malformed push lines, are usage errors.
    """
    if event == "commit":
        return commit_surface(git, amend=amending(git))
    if event == "push":
        if stdin is None:
            updates, remote = current_push(git)
            url = push_url(git, remote) if remote else None
        else:
            try:
                updates = parse_push_lines(stdin)
            except ValueError as exc:
                raise UsageError(f"gate push: {exc}") from exc
        return push_surface(git, updates, remote, url)
    rev = rev or "HEAD"
    if rev.startswith("-") or not has_commit(git, rev):
        # The caller's words, not git's fault: a usage error (exit 2), never "internal".
        raise UsageError(f"gate ci: --rev '{printable(rev[:200])}' names no commit here")
    return ci_surface(git, rev)


@dataclass(frozen=True)
class StrictPolicy:
    """What a strict gate runs with, read from the base and the judged surface (never
    the working tree): the plugins loaded, the effective settings, the required table.
    Complete before the first run and never written after it: what only the runs and
    the governing files tell is a `SurfaceCheck`."""

    plugins: PluginSet
    config: dict[str, Any]
    required: dict[str, str]
    inputs: PolicyInputs
    notes: tuple[str, ...] = ()
    #: Language -> the native checker whose evidence the gate asks (`_gate_native`).
    native: dict[str, str] = field(default_factory=dict)
    #: The machine's explicit tool paths (core/tool_paths): never a committed file's.
    tools: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SurfaceCheck:
    """The runs over a surface under a `StrictPolicy`: the merged report, what differs
    between the base and the judged surface, and the gate reasons naming the allowlist
    entries the surface adds (both read while checking, so kept beside the policy)."""

    report: Report
    changes: tuple[Change, ...] = ()
    allowlist_reasons: tuple[str, ...] = ()


def strict_policy(git: Git, event: str, surface: Surface) -> StrictPolicy:
    """The stricter of the base's and the surface's policy (decisions/policy.py), with
    the machine's tool paths; usage error when either side's config is malformed. The
    environment disables no plugin here (`plugin_host.load` strict)."""
    inputs = policy_inputs(git, event, surface)
    plugins = plugin_host.load(block=tuple(inputs.disabled), strict=True)
    native = _gate_native(git, surface, inputs, plugins)
    config = effective_config(inputs.base_config, inputs.surface_config, native)
    tools, notes = machine_tools()
    for side, cfg in (
        ("the base", inputs.base_config),
        ("the judged surface", inputs.surface_config),
    ):
        note = committed_tools_note(cfg, f"orchestrate config at {side}")
        if note is not None and note not in notes:
            notes.append(note)
    if plugin_host.environment_blocked():
        notes.append(
            f"{plugin_host.DISABLE_ENV} is ignored by strict gates: a plugin stays off only "
            "when both the base and the judged surface disable it"
        )
    notes = [*inputs.notes, *notes]
    return StrictPolicy(plugins, config, config["required"], inputs, tuple(notes), native, tools)


def _gate_native(
    git: Git, surface: Surface, inputs: PolicyInputs, plugins: PluginSet
) -> dict[str, str]:
    """The native checkers a gate asks evidence of, by language. A `config_required`
    checker counts where the base or the judged surface holds one of its config files at
    the root: the stricter of both, so a change that deletes the config is still held
    to the tool the base uses (and the deletion is named as a change of policy)."""
    names = sorted(n for n in plugins.config_names() if "/" not in n)
    present: set[str] = set()
    for source in (surface.source, inputs.base):
        if source:
            present |= set(read_files_at(git, source, names))
    return plugins.native_languages(present)


def check_surface(
    git: Git,
    event: str,
    surface: Surface,
    timeout: float,
    only_checkers: frozenset[str] | None = None,
    policy: StrictPolicy | None = None,
) -> SurfaceCheck:
    """Run the core over the surface in a private tree; one round per distinct version
    of a path. Report paths stay project-relative; the report names the real root.

    Each round's tree holds the round's files and every file that governs them (each
    loaded checker's `config_names`, orchestrate's config, git's attribute files) as
    the surface's source holds them (gates/materialise.py), so the checkers' own config
    discovery never sees the working tree. What differs between the base and the
    surface (policy, governing files) is named in the notes, and returned beside the
    report for the verdict (`_evaluated`); the policy itself is only read.
    """
    from orchestrator.core.engine import LintRequest, run_lint

    # One plugin load per gate: the same set answers the declarations and runs the checks.
    policy = policy or strict_policy(git, event, surface)
    # A root commit at `gate ci` is its own policy base; its allowlist adds every entry.
    base = policy.inputs.base
    base = None if event == "ci" and base == surface.revision else base
    sources = _recipe_sources(git, policy.inputs, surface, base)
    recipes = project_recipes.for_gate(sources)
    # The base's project recipes run there: their config files govern too.
    names = sorted({*_config_names(policy.plugins), *project_recipes.config_names_of(sources)})
    scans = split_rounds([s.target for s in surface.scan_only])
    paths = sorted({t.path for t in surface.targets} | {t.path for r in scans for t in r})
    governing = read_governing(git, surface.source, paths, names)
    candidates = governing_paths(paths, names)
    # Modes and links as the source holds them: a checker sees more than bytes (EXE001,
    # Lint/ScriptPermission, a config linked to a shared one).
    # A policy file (the secret allowlist, the baseline) is never a link nor a link's
    # target there: only its reviewed bytes count. Nor are git's own attribute and
    # ignore files: git does not follow them when they are links.
    never = _allowlists(policy.plugins) | {BASELINE_FILE, ".gitattributes", ".gitignore"}
    files = read_surface_files(git, surface.source, [*surface.links, *candidates], never)
    reviewed = reviewed_files(git, event, base, governing, _reviewers(policy.plugins))
    base_files = _base_attributes(git, event, base)
    baselined, baseline_notes = _base_baseline(git, base)
    rounds = [(r, only_checkers) for r in split_rounds(surface.targets)] or [([], only_checkers)]
    # Versions judged by the policy checks alone: what the delivery's history adds.
    policy_only = _policy_checkers(policy.plugins)
    if only_checkers is not None:
        policy_only &= only_checkers
    rounds += [(r, policy_only) for r in scans]
    # Every round's checkers share the gate's one deadline, short of the reserve.
    checks = git.deadline.short_of(finish_reserve(timeout))
    report: Report | None = None
    for i, (targets, only) in enumerate(rounds):
        # A policy-only round writes link texts as files to scan: no modes, no links.
        judged = i < len(rounds) - len(scans)
        with materialised(git.root, targets, reviewed.applied, files if judged else None) as tree:
            req = LintRequest(
                project_root=tree.root,
                targets=tree.targets,
                refused=surface.refused if i == 0 else (),
                entry=f"gate-{event}",
                purpose=Purpose.DELIVERY,
                surface=SURFACE_NAMES[event],
                revision=surface.revision,
                timeout=checks.remaining(),
                only_checkers=only,
                env=git.env,
                config=policy.config,
                surface_files=reviewed.applied,
                base_files=base_files,
                plugins=policy.plugins,
                tools=policy.tools,
                # Nothing inside the real repository runs either (a linked `.venv`, a
                # tool in another worktree of it or in its git folders).
                untrusted_roots=repository_places(git),
                project_recipes=recipes,
            )
            part = run_lint(req)
            where = f"{BASELINE_FILE} (the base's copy)"
            hide_baselined(part, tree.root, baselined, where)
            part = relocate(part, tree.root, git.root)
        if i >= len(rounds) - len(scans):
            _name_origins(part, surface, targets)
        if report is None:
            report = part
        else:
            report.scopes += part.scopes
            report.findings += part.findings
            report.scan.files_scanned += part.scan.files_scanned
            report.timings = summed_times(report.timings, part.timings)
            report.notes += [n for n in part.notes if n not in report.notes]
    assert report is not None
    # The request is the gate's: its one deadline, not the checkers' share of it.
    report.request.timeout_s = timeout
    if len(rounds) > 1:
        report.coverage = coverage_of(report.scopes, len(report.plugin_failures))
    if len(rounds) - len(scans) > 1:
        report.notes.append(
            f"{len(rounds) - len(scans)} versions of some paths were pushed; each was checked"
        )
    if surface.source is None and surface.targets:
        report.notes.append(
            "several pushed tips: no single commit holds the governing config files, "
            "so the checkers ran on their defaults"
        )
    if added := _added_suppressions(git, policy.inputs.base, surface):
        report.notes.append(added)
    allowlists = sorted(_allowlists(policy.plugins))
    local = event in LOCAL_EVENTS
    changes = config_changes(git, policy.inputs, governing, candidates, allowlists, local)
    report.notes += [*surface.notes, *policy.notes, *(c.line for c in changes)]
    report.notes += reviewed.notes + baseline_notes
    return SurfaceCheck(report, tuple(changes), tuple(reviewed.reasons))


def repository_places(git: Git) -> tuple[Path, ...]:
    """Every folder of the repository a strict gate judges, none of whose files it runs:
    the work tree, its git folder, the common folder of its worktrees and every worktree
    git lists (a tool in the main worktree is the repository's as much as the linked
    one's); those git cannot name are left out (the work tree always stays)."""
    places = [git.root]
    for args in (
        ("rev-parse", "--absolute-git-dir"),
        ("rev-parse", "--path-format=absolute", "--git-common-dir"),
    ):
        if value := git.answer(*args):
            places.append(Path(value))
    res = git.run("worktree", "list", "--porcelain", "-z", check=False)
    if succeeded(res):
        for item in res.stdout.split(b"\0"):
            if item.startswith(b"worktree "):
                places.append(Path(os.fsdecode(item.removeprefix(b"worktree "))))
    return tuple(dict.fromkeys(places))


def _recipe_sources(
    git: Git, inputs: PolicyInputs, surface: Surface, base: str | None
) -> project_recipes.StrictSources:
    """The project recipes each side names and the bytes its commit holds for them
    (checkers/project_recipes.strict_recipes): never the work tree's, never the user's
    trust. No base: every recipe is new policy."""
    base_paths = tuple(inputs.base_config.get("recipes", []) or ()) if base else ()
    surface_paths = tuple(inputs.surface_config.get("recipes", []) or ())
    return project_recipes.StrictSources(
        base_paths=base_paths,
        base=read_files_at(git, base, list(base_paths)) if base and base_paths else {},
        surface_paths=surface_paths,
        surface=(
            read_files_at(git, surface.source, list(surface_paths))
            if surface.source and surface_paths
            else {}
        ),
    )


def _added_suppressions(git: Git, base: str | None, surface: Surface) -> str | None:
    """The note naming the linter suppressions the judged files add over the base's
    versions (decisions/suppressions.py); None when they add none. Never raises: a file
    that cannot be read adds nothing to the note (the checks judged it anyway)."""
    before = read_files_at(git, base, [t.path for t in surface.targets]) if base else {}
    per_path = {}
    for t in surface.targets:
        try:
            per_path[t.path] = suppressions.added(before.get(t.path), t.read_bytes())
        except OSError:
            continue
    return suppressions.note(per_path, printable)


def _base_attributes(git: Git, event: str, base: str | None) -> dict[str, bytes] | None:
    """The base's root `.gitattributes` (absent: {}), whose generated-file marks bound the
    surface's (model/generated.stricter); None where the surface's policy is its own (a
    first commit, a root commit at `gate ci`). A push onto an unknown base is held to
    the defaults: no file is generated by attribute there."""
    if base is not None:
        return read_files_at(git, base, [GITATTRIBUTES])
    return None if event in ("commit", "ci") else {}


def _base_baseline(git: Git, base: str | None) -> tuple[frozenset[str], list[str]]:
    """The fingerprints the base's findings baseline holds (never the judged surface's:
    a baseline committed in the change cannot hide that change's findings), and a note
    when that copy is malformed (then nothing is hidden)."""
    if base is None:
        return frozenset(), []
    data = read_files_at(git, base, [BASELINE_FILE]).get(BASELINE_FILE)
    if data is None:
        return frozenset(), []
    try:
        return parse_baseline(data), []
    except BaselineError as exc:
        return frozenset(), [f"findings baseline {BASELINE_FILE} of the base ignored: {exc}"]


def _config_names(plugins: PluginSet) -> list[str]:
    """The file names the loaded checkers declare they are governed by (`config_names`)."""
    return sorted({n for c in plugins.checkers() for n in c.config_names})


HISTORY_FIX = (
    ": a later commit that removes it still delivers it; take it out of that commit "
    "(rewrite the branch, e.g. an interactive rebase) and revoke the credential"
)


def _name_origins(part: Report, surface: Surface, targets: list[FileTarget]) -> None:
    """Say on each scope and finding of a policy-only round which version was judged."""
    by_target = {id(s.target): s for s in surface.scan_only}
    where = {t.path: by_target[id(t)] for t in targets if id(t) in by_target}
    for scope in part.scopes:
        if scope.path in where and scope.reason is None:
            scope.reason = f"secret scan only: {where[scope.path].origin}"
    for f in part.findings:
        if f.path in where:
            scan = where[f.path]
            part.notes.append(
                f"{f.checker}/{f.rule} in {f.path}:{f.line or '-'} is in {scan.origin}"
                + (HISTORY_FIX if scan.commit else "")
            )


def _allowlists(plugins: PluginSet) -> set[str]:
    """The governing files of the policy checkers (the secret scan's allowlist)."""
    policy = [c for c in plugins.checkers() if c.tier == Tier.POLICY]
    return {n for c in policy for n in c.config_names}


def _reviewers(plugins: PluginSet) -> dict[str, Reviewer]:
    """Each policy checker's allowlist names, with how it reduces one to what the base
    holds too (`reviewed_policy_file`); a checker without one declares no allowlist."""
    out: dict[str, Reviewer] = {}
    for c in plugins.checkers():
        review = c.reviewed_policy_file
        if c.tier == Tier.POLICY and review is not None:
            out |= {n: review for n in c.config_names}
    return out


def relocate(report: Report, tree: Path, root: Path) -> Report:
    """`report` of a run in the private `tree`, as if run in the project `root`: the
    scan's root, tool paths and texts that name the tree name the project instead."""
    old, new = str(tree), str(root)
    report.scan.project_root = new

    def fix(text: str | None) -> str | None:
        return text.replace(old, new) if text and old in text else text

    for scope in report.scopes:
        scope.reason, scope.hint = fix(scope.reason), fix(scope.hint)
        if scope.tool is not None:
            scope.tool.path = fix(scope.tool.path)
    for finding in report.findings:
        finding.message = fix(finding.message) or ""
    report.notes = [fix(n) or "" for n in report.notes]
    for failure in report.plugin_failures:
        failure.reason = fix(failure.reason) or ""
    return report


def gate(
    event: str,
    *,
    timeout: float,
    cwd: Path | None = None,
    rev: str | None = None,
    remote: str | None = None,
    stdin: bytes | None = b"",
    env: Mapping[str, str] | None = None,
    new_from_rev: str | None = None,
    url: str | None = None,
) -> GateResult:
    """A strict gate: full contract, no skip honoured, gate evaluated on the real surface.

    At `gate ci`, `new_from_rev` judges each finding new or unchanged against that
    revision (usecases/new_from_rev.py, under the gate's own policy): unchanged ones do
    not block. Where the merge-base is unknown (a shallow clone) every finding counts
    as new, and a note says so.

    `cwd` is the folder whose repository is gated (default: the process's); `stdin`
    is the pre-push hook's input, or None for a push about to happen (pre-tool);
    `remote` and `url` are the pre-push hook's arguments (the remote asked what it holds);
    `env` the environment git runs with (default: the process's; the pre-tool gate
    names a prepared index in it).
    Raises NoRepository outside a work tree; any other fault propagates, and every
    presenter turns it into a refusal.
    """
    from orchestrator.gates.legacy import legacy_skip_sources

    git = _open_strict(timeout, cwd, env)
    surface = read_surface(git, event, rev, remote, stdin, url)
    policy = strict_policy(git, event, surface)
    checked = check_surface(git, event, surface, timeout, policy=policy)
    report = checked.report
    if new_from_rev is not None and event == "ci" and surface.revision:
        _judge_new(git, report, new_from_rev, surface.revision, policy)
    for source in legacy_skip_sources(git):
        report.notes.append(
            f"legacy skip present ({source}) and ignored: strict gates accept no skip; "
            "the full contract was checked"
        )
    report.gate = _evaluated(checked, policy)
    return GateResult(event, report, surface)


def _judge_new(git: Git, report: Report, rev: str, judged: str, policy: StrictPolicy) -> None:
    """`gate ci --new-from-rev REV`: each finding new or unchanged against REV's
    merge-base with the judged commit and REV's tip, the other sides run under the
    gate's policy; an unknown merge-base leaves every finding new (fail closed)."""
    from orchestrator.usecases.new_from_rev import judge_new, revisions

    found = revisions(git.root, rev, head=judged)
    if isinstance(found, str):
        report.notes.append(
            f"--new-from-rev {printable(rev[:200])}: {found}: every finding counts as new"
        )
        return
    judge_new(
        report,
        git.root,
        found,
        git.deadline,
        revision=judged,
        config=policy.config,
        plugins=policy.plugins,
    )


def message_gate(
    data: bytes, *, timeout: float, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> GateResult:
    """The commit-msg gate: the message bytes `data` git is about to record, judged by
    the secret scan alone under the commit gate's policy (base HEAD, the index's
    allowlist, reviewed); any finding denies. Raises NoRepository outside a work tree."""
    git = _open_strict(timeout, cwd, env)
    surface = message_surface(git, data, cut=cuts_at_scissors(git))
    policy = strict_policy(git, "commit", surface)
    only = _policy_checkers(policy.plugins)
    checked = check_surface(git, "commit", surface, timeout, only, policy)
    report = checked.report
    report.gate = _evaluated(checked, policy)
    return GateResult("commit", report, surface)


def _evaluated(checked: SurfaceCheck, policy: StrictPolicy) -> Gate:
    """The gate verdict under the effective policy; each change of policy, checker
    config or allowlist since the base is also a reason line of the gate output."""
    verdict = evaluate_gate(checked.report, policy.required, policy.native)
    if checked.changes:
        names = ", ".join(c.name for c in checked.changes)
        verdict.reasons.append(f"changed since the base (see the notes): {names}")
    verdict.reasons += checked.allowlist_reasons
    return verdict


def _policy_checkers(plugins: PluginSet) -> frozenset[str]:
    """Names of the loaded policy checkers (the secret scan): what a legacy skip keeps."""
    return frozenset(c.name for c in plugins.checkers() if c.tier == Tier.POLICY)


def pre_tool_gate(
    kind: str,
    root: Path,
    timeout: float,
    rev: str = "HEAD",
    env: Mapping[str, str] | None = None,
) -> Report:
    """The strict gate an agent host runs before its `git commit` / `git push` (or the
    MCP gate tool): the repository at `root`, a push as git would make it now. `env`
    adds GIT_* variables to the process's environment (the repository and index the
    command will use)."""
    stdin = None if kind == "push" else b""
    full = {**os.environ, **env} if env else None
    return gate(kind, timeout=timeout, cwd=root, rev=rev, stdin=stdin, env=full).report


def _skipped(git: Git, event: str, report: Report, skip: Skip) -> tuple[list[Finding], int]:
    """Audit a legacy skip; the language gate is not evaluated, the secret scan still ran."""
    secrets = policy_findings(report)
    count = audit_skip(git.root, event, skip, len(secrets))
    report.gate = Gate(
        decision=GateDecision.NOT_EVALUATED,
        reasons=[f"{NOT_CERTIFIED}: language gate skipped by {skip.source} (legacy-v1, audited)"],
    )
    if secrets:
        report.gate.reasons.append("the secret scan is never skipped: sensitive content blocks")
    return secrets, count


def legacy_gate(
    event: str,
    *,
    timeout: float,
    cwd: Path | None = None,
    rev: str | None = None,
    remote: str | None = None,
    stdin: bytes = b"",
    audit_as: str | None = None,
    url: str | None = None,
) -> LegacyResult:
    """The legacy-v1 gate policy (CG-03, CG-04, CG-07, CG-10). Raises NoRepository.

    `audit_as` names the event in the skip audit (default: `event`).
    """
    git = _open_strict(timeout, cwd)
    skip = legacy_skip(git)
    surface = read_surface(git, event, rev, remote, stdin, url)
    policy = strict_policy(git, event, surface)
    if skip is not None:
        only = _policy_checkers(policy.plugins)
        report = check_surface(git, event, surface, timeout, only, policy).report
        secrets, count = _skipped(git, audit_as or event, report, skip)
        result = GateResult(event, report, surface)
        return LegacyResult(result, legacy_blocks(report, skipped=True), skip, secrets, count)
    checked = check_surface(git, event, surface, timeout, policy=policy)
    report = checked.report
    report.gate = _evaluated(checked, policy)
    blocks = legacy_blocks(report, skipped=False)
    if not blocks and report.gate.decision == GateDecision.INCOMPLETE:
        report.notes.append(
            "UNVERIFIED: legacy-v1 fails open on missing evidence (exit 0); this is not a certified pass"
        )
    return LegacyResult(GateResult(event, report, surface), blocks)


__all__ = [
    "DEFAULT_TIMEOUT",
    "EVENTS",
    "SURFACE_NAMES",
    "GateResult",
    "LegacyResult",
    "NoRepository",
    "StrictPolicy",
    "SurfaceCheck",
    "check_surface",
    "gate",
    "legacy_gate",
    "message_gate",
    "pre_tool_gate",
    "read_surface",
    "relocate",
    "repository_places",
    "strict_policy",
]
