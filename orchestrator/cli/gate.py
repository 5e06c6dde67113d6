"""`orchestrate gate commit|push|ci`, `install-hooks`, `uninstall-hooks`, `compat legacy-v1`.

Strict gates (the default) check the real git surface, evaluate the gate and block on
`deny` (exit 1) and `incomplete` (exit 3); an internal fault blocks too (exit 4),
never fails open (CG-02). `--protocol legacy-v1` (or `orchestrate compat legacy-v1
gate ...`) runs the old fail-open protocol instead (orchestrator/gates/legacy_gate.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from orchestrator.core.report import Report
from orchestrator.deadline import Deadline
from orchestrator.decisions.coverage import coverage_of
from orchestrator.decisions.exits import gate_exit, gate_fault_exit
from orchestrator.decisions.findings import is_blocking
from orchestrator.decisions.gate import evaluate_gate
from orchestrator.errors import UsageError
from orchestrator.git.surface import (
    MAX_PUSH_STDIN,
    Git,
    GitError,
    Surface,
    ci_surface,
    commit_surface,
    find_repo,
    parse_push_lines,
    push_surface,
    split_rounds,
)
from orchestrator.vocab import GateDecision, Purpose

EVENTS = ("commit", "push", "ci")
PROTOCOLS = ("strict", "legacy-v1")
SURFACE_NAMES = {"commit": "index", "push": "push-range", "ci": "revision"}
DEFAULT_TIMEOUT = {"commit": 600.0, "push": 900.0, "ci": 1800.0}
NO_REPO = (
    "no target repository: {cwd} is not inside a git work tree; nothing was scanned "
    "and delivery was not evaluated (use `orchestrate lint` to check a folder)"
)


class NoRepository(UsageError):
    """A git event outside any git work tree (CG-06)."""


@dataclass
class GateResult:
    """A finished gate run: the report (its gate evaluated) and the surface behind it."""

    event: str
    report: Report
    surface: Surface


def open_repo(deadline: Deadline, cwd: Path | None = None) -> Git:
    """The git runner for the work tree around `cwd`; NoRepository when there is none."""
    cwd = cwd or Path.cwd()
    root = find_repo(cwd, deadline)
    if root is None:
        raise NoRepository(NO_REPO.format(cwd=cwd))
    return Git(root, deadline)


def read_surface(
    git: Git, event: str, rev: str | None, remote: str | None, stdin: bytes
) -> Surface:
    """The surface a delivery event checks: the index, the pushed ranges, or a commit."""
    if event == "commit":
        return commit_surface(git)
    if event == "push":
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
) -> Report:
    """Run the core over the surface's blobs; one round per distinct version of a path."""
    from orchestrator.core.engine import LintRequest, run_lint

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
        )
        part = run_lint(req)
        if report is None:
            report = part
        else:
            report.scopes += part.scopes
            report.findings += part.findings
            report.scan.files_scanned += part.scan.files_scanned
    assert report is not None
    if len(rounds) > 1:
        report.coverage = coverage_of(report.scopes, len(report.plugin_failures))
        report.notes.append(f"{len(rounds)} versions of some paths were pushed; each was checked")
    report.notes += surface.notes
    return report


def required_for(root: Path) -> dict[str, str]:
    """The project's required coverage table (usage error when malformed)."""
    from orchestrator.core.config import load_config
    from orchestrator.decisions.required import required_coverage

    return required_coverage(load_config(root))


def run_strict(
    event: str,
    *,
    timeout: float,
    rev: str | None = None,
    remote: str | None = None,
    stdin: bytes = b"",
) -> GateResult:
    """A strict gate: full contract, no skip honoured, gate evaluated on the real surface."""
    from orchestrator.gates.legacy import legacy_skip_sources

    deadline = Deadline.after(timeout)
    git = open_repo(deadline)
    required = required_for(git.root)
    surface = read_surface(git, event, rev, remote, stdin)
    report = check_surface(git, event, surface, timeout)
    for source in legacy_skip_sources(git):
        report.notes.append(
            f"legacy skip present ({source}) and ignored: strict gates accept no skip; "
            "the full contract was checked"
        )
    report.gate = evaluate_gate(report, required)
    return GateResult(event, report, surface)


# --- presentation -------------------------------------------------------------------------

HEADLINE = {
    GateDecision.ALLOW: "allow: required coverage complete, no blocking finding",
    GateDecision.DENY: "deny: blocking findings (delivery blocked)",
    GateDecision.INCOMPLETE: "incomplete: required evidence is missing (delivery blocked)",
    GateDecision.NOT_APPLICABLE: "not applicable: nothing to check",
    GateDecision.NOT_EVALUATED: "not evaluated: no certification issued",
}


def gate_text(result: GateResult, label: str) -> str:
    """A short human summary: decision, reasons, recovery, notes; no tool free text."""
    rep = result.report
    lines = [f"orchestrate {label}: {HEADLINE.get(rep.gate.decision, rep.gate.decision)}"]
    lines.append(
        f"  surface: {rep.request.surface}"
        + (f" at {rep.request.revision[:12]}" if rep.request.revision else "")
        + f", {rep.scan.files_scanned} file(s)"
    )
    lines += [f"  - {r}" for r in rep.gate.reasons]
    if rep.gate.recovery:
        lines.append("  to recover:")
        lines += [f"  * {r}" for r in rep.gate.recovery]
    lines += [f"  note: {n}" for n in rep.notes]
    return "\n".join(lines) + "\n"


def emit(
    result: GateResult, fmt: str, output: str | None, label: str, extra: Sequence[str] = ()
) -> None:
    """Print the gate in `fmt` (human summary, JSON or SARIF report)."""
    from orchestrator.cli.main import emit_report

    if fmt == "human" and output is None:
        sys.stdout.write(gate_text(result, label) + "".join(f"  {x}\n" for x in extra))
        sys.stdout.flush()
        return
    emit_report(result.report, fmt, output)


def read_stdin_bounded() -> bytes:
    """Hook stdin (the pre-push lines), at most 1 MiB plus one byte to detect overflow."""
    try:
        return sys.stdin.buffer.read(MAX_PUSH_STDIN + 1)
    except (OSError, ValueError, AttributeError):
        return b""


# --- commands -----------------------------------------------------------------------------


def cmd_gate(args: argparse.Namespace) -> int:
    """`orchestrate gate EVENT`: strict unless `--protocol legacy-v1`."""
    if args.protocol == "legacy-v1":
        from orchestrator.gates.legacy_gate import run_legacy

        return run_legacy(args)
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    timeout = args.timeout or DEFAULT_TIMEOUT[args.event]
    stdin = read_stdin_bounded() if args.event == "push" else b""
    label = f"gate {args.event}"
    try:
        result = run_strict(
            args.event,
            timeout=timeout,
            rev=getattr(args, "rev", None),
            remote=getattr(args, "remote", None),
            stdin=stdin,
        )
    except UsageError:
        raise
    except (GitError, Exception) as exc:  # noqa: BLE001 - CG-02: a strict gate blocks on any fault
        print(
            f"orchestrate {label}: incomplete: internal fault ({type(exc).__name__}: "
            f"{' '.join(str(exc).split())[:300]}); delivery blocked, nothing was certified",
            file=sys.stderr,
        )
        return gate_fault_exit()
    emit(result, args.format, args.output, label)
    return gate_exit(result.report.gate.decision)


def _add_gate_events(sub: argparse._SubParsersAction, legacy_only: bool = False) -> None:  # type: ignore[type-arg]
    from orchestrator.cli.main import add_output_options

    for event in EVENTS:
        p = sub.add_parser(event, help=f"check the {SURFACE_NAMES[event]} surface of a {event}")
        p.set_defaults(func=cmd_gate, event=event)
        if legacy_only:
            p.set_defaults(protocol="legacy-v1")
        else:
            p.add_argument("--protocol", choices=PROTOCOLS, default="strict", help="hook protocol")
        p.add_argument("--timeout", type=float, help="one overall deadline in seconds")
        if event == "ci":
            p.add_argument("--rev", default="HEAD", help="the commit to check (resolved to its id)")
        if event == "push":
            p.add_argument("remote", nargs="?", help="remote name (as git passes it to pre-push)")
            p.add_argument("url", nargs="?", help="remote URL (as git passes it to pre-push)")
        add_output_options(p)


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `gate`, `install-hooks`, `uninstall-hooks` and `compat`."""
    from orchestrator.gates.install_hooks import add_install_parsers

    gate = subparsers.add_parser("gate", help="strict delivery gate on the real git surface")
    events = gate.add_subparsers(dest="event", metavar="EVENT", required=True)
    _add_gate_events(events)

    compat = subparsers.add_parser("compat", help="old protocols kept for existing installs")
    protocols = compat.add_subparsers(dest="compat_protocol", metavar="PROTOCOL", required=True)
    legacy = protocols.add_parser("legacy-v1", help="the fail-open legacy-v1 hook protocol")
    legacy_events = legacy.add_subparsers(dest="legacy_command", metavar="COMMAND", required=True)
    legacy_gate = legacy_events.add_parser("gate", help="a legacy-v1 git gate")
    _add_gate_events(
        legacy_gate.add_subparsers(dest="event", metavar="EVENT", required=True), legacy_only=True
    )
    prompt = legacy_events.add_parser(
        "prompt", help="legacy-v1 soft gate on a prompt event (stdin JSON)"
    )
    from orchestrator.gates.legacy_gate import cmd_legacy_prompt

    prompt.set_defaults(func=cmd_legacy_prompt)
    add_install_parsers(subparsers)


__all__ = ["GateResult", "add_parser", "check_surface", "is_blocking", "open_repo", "run_strict"]
