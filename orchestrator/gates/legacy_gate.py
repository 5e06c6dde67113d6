"""The legacy-v1 runners: the fail-open git gate and the soft prompt gate.

Old protocol, kept for existing installs: exit 0 passes (or fails open), exit 2
blocks. An uncaught exception prints a diagnostic on stderr and exits 0, saying the
result is unverified (CG-01). A missing tool exits 0, unverified (CG-07). A skip
(git config or CODEGUARD_SKIP_GATE) skips the language gate only, is audited, and
says "skipped, not certified" (CG-03, CG-10); the secret scan still runs, and a
secret blocks with exit 2 (CG-04).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from orchestrator.cli.gate import (
    DEFAULT_TIMEOUT,
    GateResult,
    NoRepository,
    check_surface,
    emit,
    open_repo,
    read_stdin_bounded,
    read_surface,
    required_for,
)
from orchestrator.core.report import Finding, Gate, Report
from orchestrator.deadline import Deadline
from orchestrator.decisions.exits import Protocol, gate_fault_exit, legacy_exit
from orchestrator.decisions.findings import has_blocking
from orchestrator.decisions.gate import evaluate_gate
from orchestrator.gates.legacy import NOT_CERTIFIED, Skip, audit_skip, legacy_skip
from orchestrator.git.surface import Git, commit_surface
from orchestrator.vocab import GateDecision

SECRETS_ONLY = frozenset({"secrets"})
MAX_EVENT_BYTES = 1024 * 1024
MAX_CONTEXT = 1200
MAX_PATH_LABEL = 128
#: Old soft-gate trigger: the prompt speaks of committing or pushing. The text is only
#: matched, never echoed, stored or used to choose what to check.
COMMIT_INTENT = re.compile(r"\b(commit|push)\b|提交|推送", re.IGNORECASE)


def _label(path: str) -> str:
    return path if len(path) <= MAX_PATH_LABEL else path[: MAX_PATH_LABEL - 1] + "…"


def _secret_lines(findings: list[Finding]) -> list[str]:
    return [f"{_label(f.path)}{f':{f.line}' if f.line else ''} {f.rule}" for f in findings]


def _skip_run(
    git: Git, event: str, surface_result: GateResult, skip: Skip
) -> tuple[list[Finding], int]:
    report = surface_result.report
    secrets = [f for f in report.findings if f.checker == "secrets"]
    count = audit_skip(git.root, event, skip, len(secrets))
    report.gate = Gate(
        decision=GateDecision.NOT_EVALUATED,
        reasons=[f"{NOT_CERTIFIED}: language gate skipped by {skip.source} (legacy-v1, audited)"],
    )
    return secrets, count


def _legacy_gate(args: argparse.Namespace, label: str) -> int:
    timeout = args.timeout or DEFAULT_TIMEOUT[args.event]
    stdin = read_stdin_bounded() if args.event == "push" else b""
    deadline = Deadline.after(timeout)
    try:
        git = open_repo(deadline)
    except NoRepository as exc:
        print(f"orchestrate {label}: {exc}")
        return 0
    skip = legacy_skip(git)
    surface = read_surface(
        git, args.event, getattr(args, "rev", None), getattr(args, "remote", None), stdin
    )
    if skip is not None:
        report = check_surface(git, args.event, surface, timeout, only_checkers=SECRETS_ONLY)
        result = GateResult(args.event, report, surface)
        secrets, count = _skip_run(git, args.event, result, skip)
        if secrets:
            report.gate.reasons.append("the secret scan is never skipped: sensitive content blocks")
            emit(
                result,
                args.format,
                args.output,
                label,
                [f"secret: {s}" for s in _secret_lines(secrets)],
            )
            return legacy_exit(block=True)
        emit(
            result,
            args.format,
            args.output,
            label,
            [f"skip #{count} recorded in .orchestrate/audit/"],
        )
        return legacy_exit(block=False)
    report = check_surface(git, args.event, surface, timeout)
    report.gate = evaluate_gate(report, required_for(git.root))
    result = GateResult(args.event, report, surface)
    # Legacy-v1 blocks on findings only; missing evidence fails open (CG-07).
    if has_blocking(report):
        emit(result, args.format, args.output, label)
        return legacy_exit(block=True)
    if report.gate.decision == GateDecision.INCOMPLETE:
        report.notes.append(
            "UNVERIFIED: legacy-v1 fails open on missing evidence (exit 0); this is not a certified pass"
        )
    emit(result, args.format, args.output, label)
    return legacy_exit(block=False)


def run_legacy(args: argparse.Namespace) -> int:
    """The legacy-v1 git gate. Never raises: any fault is a diagnostic and exit 0 (CG-01)."""
    label = f"legacy-v1 gate {args.event}"
    try:
        return _legacy_gate(args, label)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - the old protocol fails open
        print(
            f"orchestrate {label}: diagnostic: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}",
            file=sys.stderr,
        )
        print(
            f"orchestrate {label}: UNVERIFIED: legacy-v1 fails open on an internal error (exit 0); "
            "nothing was certified"
        )
        return gate_fault_exit(Protocol.LEGACY_V1)


# --- the soft gate: a prompt that speaks of committing ---------------------------------------


def _read_event() -> dict[str, object] | None:
    try:
        data = sys.stdin.buffer.read(MAX_EVENT_BYTES + 1)
    except (OSError, ValueError, AttributeError):
        return None
    if len(data) > MAX_EVENT_BYTES:
        return None
    try:
        event = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None
    return event if isinstance(event, dict) else None


def _event_dir(event: dict[str, object]) -> Path:
    cwd = event.get("cwd")
    if isinstance(cwd, str) and len(cwd) < 4096 and Path(cwd).is_absolute() and Path(cwd).is_dir():
        return Path(cwd)
    return Path.cwd()


def soft_report(event: dict[str, object], timeout: float = 60.0) -> str | None:
    """The legacy-v1 soft gate's non-blocking context for a prompt event, or None."""
    prompt = event.get("prompt")
    if not isinstance(prompt, str) or not COMMIT_INTENT.search(prompt[:8192]):
        return None
    deadline = Deadline.after(timeout)
    try:
        git = open_repo(deadline, _event_dir(event))
    except NoRepository:
        return (
            "orchestrate (legacy-v1): no target repository here; nothing was scanned and "
            "delivery was not evaluated."
        )
    skip = legacy_skip(git)
    surface = commit_surface(git)
    if skip is not None:
        report = check_surface(
            git, "commit", surface, deadline.remaining(), only_checkers=SECRETS_ONLY
        )
        secrets, count = _skip_run(git, "prompt", GateResult("commit", report, surface), skip)
        head = (
            f"orchestrate (legacy-v1) commit security report, advice only: language gate {NOT_CERTIFIED} "
            f"({skip.source}, audited as skip #{count})."
        )
        if secrets:
            listed = "; ".join(_secret_lines(secrets)[:5])
            return (
                f"{head} {len(secrets)} sensitive item(s) staged: {listed}. The git pre-commit gate "
                "blocks this commit (exit 2): unstage them first."
            )
        return f"{head} Secret scan of the staged files: nothing sensitive found."
    report = check_surface(git, "commit", surface, deadline.remaining())
    report.gate = evaluate_gate(report, required_for(git.root))
    return _summary(report)


def _summary(report: Report) -> str:
    gate = report.gate
    text = (
        f"orchestrate (legacy-v1) check of the staged files, advice only (not a certification): "
        f"{gate.decision}. " + " ".join(r for r in gate.reasons[:4])
    )
    return text


def cmd_legacy_prompt(args: argparse.Namespace) -> int:
    """`orchestrate compat legacy-v1 prompt`: host prompt event on stdin; never blocks."""
    try:
        event = _read_event()
        context = soft_report(event) if event is not None else None
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - the old protocol fails open
        print(f"orchestrate legacy-v1 prompt: diagnostic: {type(exc).__name__}", file=sys.stderr)
        context = "orchestrate (legacy-v1): the staged-file check failed internally; UNVERIFIED, not certified."
    if context:
        if len(context) > MAX_CONTEXT:
            context = context[: MAX_CONTEXT - 1] + "…"
        out = {
            "hookSpecificOutput": {
                "hookEventName": "UserPromptSubmit",
                "additionalContext": context,
            }
        }
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    return 0
