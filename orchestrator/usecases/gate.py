"""The gate use cases: strict commit / push / ci / pre-tool gates and the legacy-v1 gate.

A strict gate reads the real git surface (the index, the pushed ranges, a commit),
runs the core over its blobs, evaluates the gate and ignores every legacy skip
(saying so in the notes). The legacy-v1 gate keeps the old policy: a skip skips the
language gate only (audited), the secret scan always runs, and only blocking
findings or a secret block; missing evidence fails open. The exit code of each
outcome comes from decisions/exits.py; printing is the presenters' part.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.core import plugin_host
from orchestrator.core.config import load_config
from orchestrator.core.plugin_host import PluginSet
from orchestrator.deadline import Deadline
from orchestrator.decisions.coverage import coverage_of
from orchestrator.decisions.gate import evaluate_gate, legacy_blocks, policy_findings
from orchestrator.errors import UsageError
from orchestrator.gates.legacy import NOT_CERTIFIED, Skip, audit_skip, legacy_skip
from orchestrator.git.push import current_push, parse_push_lines, push_surface
from orchestrator.git.repo import NoRepository, open_repo
from orchestrator.git.runner import Git
from orchestrator.git.surfaces import (
    Surface,
    ci_surface,
    commit_surface,
    read_files_at,
    split_rounds,
)
from orchestrator.model.report import Finding, Gate, Report
from orchestrator.vocab import GateDecision, Purpose, Tier

EVENTS = ("commit", "push", "ci")
SURFACE_NAMES = {"commit": "index", "push": "push-range", "ci": "revision"}
DEFAULT_TIMEOUT = {"commit": 600.0, "push": 900.0, "ci": 1800.0}


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


def read_surface(
    git: Git, event: str, rev: str | None, remote: str | None, stdin: bytes | None
) -> Surface:
    """The surface a delivery event checks: the index, the pushed ranges, or a commit.

    A push with `stdin` None is seen before it happens (an agent's `git push`): the
    range is the current branch against its upstream as git knows it locally.
    """
    if event == "commit":
        return commit_surface(git)
    if event == "push":
        if stdin is None:
            updates, remote = current_push(git)
        else:
            try:
                updates = parse_push_lines(stdin)
            except ValueError as exc:
                raise UsageError(f"gate push: {exc}") from exc
        return push_surface(git, updates, remote)
    return ci_surface(git, rev or "HEAD")


def check_surface(
    git: Git,
    event: str,
    surface: Surface,
    timeout: float,
    only_checkers: frozenset[str] | None = None,
    plugins: PluginSet | None = None,
) -> Report:
    """Run the core over the surface's blobs; one round per distinct version of a path.

    The files that govern a checker's verdict and that it reads itself (the secret
    scan's allowlist) come from the judged surface, never the work tree: an untracked
    or unstaged allowlist cannot clear a staged secret.
    """
    from orchestrator.core.engine import LintRequest, run_lint

    # One plugin load per gate: the same set answers the declarations and runs the checks.
    plugins = plugins or _checkers(git.root)
    governing = _governing_files(git, surface, plugins)
    rounds = split_rounds(surface.targets) or [[]]
    report: Report | None = None
    for i, targets in enumerate(rounds):
        req = LintRequest(
            project_root=git.root,
            targets=targets,
            refused=surface.refused if i == 0 else (),
            entry=f"gate-{event}",
            purpose=Purpose.DELIVERY,
            surface=SURFACE_NAMES[event],
            revision=surface.revision,
            timeout=max(0.0, git.deadline.remaining()) if i else timeout,
            only_checkers=only_checkers,
            env=git.env,
            surface_files=governing,
            plugins=plugins,
        )
        part = run_lint(req)
        if report is None:
            report = part
        else:
            report.scopes += part.scopes
            report.findings += part.findings
            report.scan.files_scanned += part.scan.files_scanned
            report.notes += [n for n in part.notes if n not in report.notes]
    assert report is not None
    if len(rounds) > 1:
        report.coverage = coverage_of(report.scopes, len(report.plugin_failures))
        report.notes.append(f"{len(rounds)} versions of some paths were pushed; each was checked")
    report.notes += surface.notes
    return report


def _governing_files(git: Git, surface: Surface, plugins: PluginSet) -> dict[str, bytes]:
    """The files the loaded checkers declare they read (`config_names`), as the judged
    surface holds them; none when the surface has no single source (several tips)."""
    names = sorted({n for c in plugins.checkers() for n in getattr(c, "config_names", ()) or ()})
    if not names or surface.source is None:
        return {}
    return read_files_at(git, surface.source, names)


def required_for(root: Path) -> dict[str, str]:
    """The project's required coverage table (usage error when malformed)."""
    from orchestrator.core.config import load_config
    from orchestrator.decisions.required import required_coverage

    return required_coverage(load_config(root))


def gate(
    event: str,
    *,
    timeout: float,
    cwd: Path | None = None,
    rev: str | None = None,
    remote: str | None = None,
    stdin: bytes | None = b"",
    env: Mapping[str, str] | None = None,
) -> GateResult:
    """A strict gate: full contract, no skip honoured, gate evaluated on the real surface.

    `cwd` is the folder whose repository is gated (default: the process's); `stdin`
    is the pre-push hook's input, or None for a push about to happen (pre-tool);
    `env` the environment git runs with (default: the process's; the pre-tool gate
    names a prepared index in it).
    Raises NoRepository outside a work tree; any other fault propagates, and every
    presenter turns it into a refusal.
    """
    from orchestrator.gates.legacy import legacy_skip_sources

    git = open_repo(Deadline.after(timeout), cwd, env)
    required = required_for(git.root)
    surface = read_surface(git, event, rev, remote, stdin)
    plugins = _checkers(git.root)
    report = check_surface(git, event, surface, timeout, plugins=plugins)
    for source in legacy_skip_sources(git):
        report.notes.append(
            f"legacy skip present ({source}) and ignored: strict gates accept no skip; "
            "the full contract was checked"
        )
    report.gate = evaluate_gate(report, required, plugins.native_languages())
    return GateResult(event, report, surface)


def _checkers(root: Path) -> PluginSet:
    """The plugin set the core loads for `root` (its block list applies), for what the
    checkers declare: their native languages, which of them are policy checks."""
    return plugin_host.load(block=tuple(load_config(root).get("disable_plugins", []) or ()))


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
) -> LegacyResult:
    """The legacy-v1 gate policy (CG-03, CG-04, CG-07, CG-10). Raises NoRepository.

    `audit_as` names the event in the skip audit (default: `event`).
    """
    git = open_repo(Deadline.after(timeout), cwd)
    skip = legacy_skip(git)
    surface = read_surface(git, event, rev, remote, stdin)
    plugins = _checkers(git.root)
    if skip is not None:
        policy = _policy_checkers(plugins)
        report = check_surface(git, event, surface, timeout, policy, plugins)
        secrets, count = _skipped(git, audit_as or event, report, skip)
        result = GateResult(event, report, surface)
        return LegacyResult(result, legacy_blocks(report, skipped=True), skip, secrets, count)
    report = check_surface(git, event, surface, timeout, plugins=plugins)
    report.gate = evaluate_gate(report, required_for(git.root), plugins.native_languages())
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
    "check_surface",
    "gate",
    "legacy_gate",
    "pre_tool_gate",
    "read_surface",
    "required_for",
]
