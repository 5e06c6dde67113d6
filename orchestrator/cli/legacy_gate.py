"""The legacy-v1 presenters: the fail-open git gate and the soft prompt gate (policy: usecases/gate.py).

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

from orchestrator.cli.stdin import read_stdin_bounded
from orchestrator.decisions.exits import Protocol, gate_fault_exit, legacy_exit
from orchestrator.gates.legacy import NOT_CERTIFIED
from orchestrator.hosts.events import decode_event, read_stdin
from orchestrator.model.report import Finding, Report
from orchestrator.render.output import emit_gate, legacy_headline
from orchestrator.safetext import printable
from orchestrator.usecases.gate import DEFAULT_TIMEOUT, NoRepository, legacy_gate

MAX_CONTEXT = 1200
MAX_PATH_LABEL = 128
#: Old soft-gate trigger: the prompt speaks of committing or pushing. The text is only
#: matched, never echoed, stored or used to choose what to check.
COMMIT_INTENT = re.compile(r"\b(commit|push)\b|提交|推送", re.IGNORECASE)


def _label(path: str) -> str:
    return path if len(path) <= MAX_PATH_LABEL else path[: MAX_PATH_LABEL - 1] + "…"


def _secret_lines(findings: list[Finding]) -> list[str]:
    return [f"{_label(f.path)}{f':{f.line}' if f.line else ''} {f.rule}" for f in findings]


def _legacy_gate(args: argparse.Namespace, label: str) -> int:
    stdin = read_stdin_bounded() if args.event == "push" else b""
    try:
        res = legacy_gate(
            args.event,
            timeout=args.timeout or DEFAULT_TIMEOUT[args.event],
            rev=getattr(args, "rev", None),
            remote=getattr(args, "remote", None),
            url=getattr(args, "url", None),
            stdin=stdin,
        )
    except NoRepository as exc:
        print(printable(f"orchestrate {label}: {exc}"))
        return legacy_exit(block=False)
    if res.skip is not None and res.secrets:
        extra = [f"secret: {s}" for s in _secret_lines(res.secrets)]
    elif res.skip is not None:
        extra = [f"skip #{res.skip_count} recorded in .orchestrate/audit/"]
    else:
        extra = []
    headline = legacy_headline(res.gate.report.gate.decision, block=res.block)
    emit_gate(res.gate.report, args.format, args.output, label, extra, headline=headline)
    return legacy_exit(block=res.block)


def run_legacy(args: argparse.Namespace) -> int:
    """The legacy-v1 git gate. Never raises: any fault is a diagnostic and exit 0 (CG-01)."""
    label = f"legacy-v1 gate {args.event}"
    try:
        return _legacy_gate(args, label)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - the old protocol fails open
        print(
            f"orchestrate {label}: diagnostic: {type(exc).__name__}: "
            f"{printable(' '.join(str(exc).split())[:300])}",
            file=sys.stderr,
        )
        print(
            f"orchestrate {label}: UNVERIFIED: legacy-v1 fails open on an internal error (exit 0); "
            "nothing was certified"
        )
        return gate_fault_exit(Protocol.LEGACY_V1)


# --- the soft gate: a prompt that speaks of committing ---------------------------------------


def _read_event() -> dict[str, object] | None:
    """The prompt event on stdin, decoded as every host event is (hosts/events)."""
    try:
        stream = sys.stdin.buffer
    except AttributeError:  # a replaced stdin without bytes: no event
        return None
    return decode_event(read_stdin(stream))


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
    try:
        res = legacy_gate("commit", timeout=timeout, cwd=_event_dir(event), audit_as="prompt")
    except NoRepository:
        return (
            "orchestrate (legacy-v1): no target repository here; nothing was scanned and "
            "delivery was not evaluated."
        )
    if res.skip is None:
        return _summary(res.gate.report, res.block)
    head = (
        f"orchestrate (legacy-v1) commit security report, advice only: language gate {NOT_CERTIFIED} "
        f"({res.skip.source}, audited as skip #{res.skip_count})."
    )
    if res.secrets:
        listed = "; ".join(_secret_lines(res.secrets)[:5])
        return (
            f"{head} {len(res.secrets)} sensitive item(s) staged: {listed}. The git pre-commit gate "
            "blocks this commit (exit 2): unstage them first."
        )
    return f"{head} Secret scan of the staged files: nothing sensitive found."


def _summary(report: Report, block: bool) -> str:
    """The soft gate's advice: what the legacy-v1 commit gate answers on these staged
    files (its own headline, never the strict one), and the first reasons."""
    gate = report.gate
    return (
        "orchestrate (legacy-v1) check of the staged files, advice only (not a "
        f"certification): the commit gate answers {legacy_headline(gate.decision, block=block)}. "
        + " ".join(r for r in gate.reasons[:4])
    )


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
    return legacy_exit(block=False)
