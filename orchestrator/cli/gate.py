"""`orchestrate gate commit|push|ci|commit-msg`, `install-hooks`, `uninstall-hooks`, `compat legacy-v1`.

Strict gates (the default) check the real git surface, evaluate the gate and block on
`deny` (exit 1) and `incomplete` (exit 3); an internal fault blocks too (exit 4),
never fails open (CG-02). `--protocol legacy-v1` (or `orchestrate compat legacy-v1
gate ...`) runs the old fail-open protocol instead (orchestrator/cli/legacy_gate.py, policy in orchestrator/usecases/gate.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from orchestrator.cli.stdin import read_stdin_bounded
from orchestrator.decisions.exits import gate_exit, gate_fault_exit
from orchestrator.errors import UsageError
from orchestrator.render.output import emit_gate
from orchestrator.safetext import printable
from orchestrator.usecases.gate import (
    DEFAULT_TIMEOUT,
    EVENTS,
    SURFACE_NAMES,
    GateResult,
    gate,
    message_gate,
)

PROTOCOLS = ("strict", "legacy-v1")
#: Bytes of a commit message file read by `gate commit-msg` (the scan's own file limit).
MESSAGE_LIMIT = 16 * 1024 * 1024


# --- commands -----------------------------------------------------------------------------


def cmd_gate(args: argparse.Namespace) -> int:
    """`orchestrate gate EVENT`: strict unless `--protocol legacy-v1`."""
    if args.protocol == "legacy-v1":
        from orchestrator.cli.legacy_gate import run_legacy

        return run_legacy(args)
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    if args.event == "commit-msg":
        return _run_gate(args, "gate commit-msg", lambda: _message(args))
    timeout = args.timeout or DEFAULT_TIMEOUT[args.event]
    stdin = read_stdin_bounded() if args.event == "push" else b""
    return _run_gate(
        args,
        f"gate {args.event}",
        lambda: gate(
            args.event,
            timeout=timeout,
            rev=getattr(args, "rev", None),
            new_from_rev=getattr(args, "new_from_rev", None),
            remote=getattr(args, "remote", None),
            url=getattr(args, "url", None),
            stdin=stdin,
        ),
    )


def _message(args: argparse.Namespace) -> GateResult:
    """The commit-msg gate over the message file git names (read bounded)."""
    try:
        with open(args.file, "rb") as fh:
            data = fh.read(MESSAGE_LIMIT + 1)  # one byte more: a longer message is refused
    except OSError as exc:
        raise UsageError(
            f"gate commit-msg: cannot read the message file ({type(exc).__name__})"
        ) from exc
    return message_gate(data, timeout=args.timeout or DEFAULT_TIMEOUT["commit"])


def _run_gate(args: argparse.Namespace, label: str, run: Callable[[], GateResult]) -> int:
    """Run a strict gate, print it, and map its decision (or any fault) to an exit code."""
    try:
        result = run()
    except UsageError:
        raise
    except Exception as exc:  # noqa: BLE001 - CG-02: a strict gate blocks on any fault
        print(
            f"orchestrate {label}: incomplete: internal fault ({type(exc).__name__}: "
            f"{printable(' '.join(str(exc).split())[:300])}); delivery blocked, nothing was"
            " certified",
            file=sys.stderr,
        )
        return gate_fault_exit()
    emit_gate(result.report, args.format, args.output, label, messages=True)
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
            p.add_argument(
                "--new-from-rev",
                metavar="REV",
                help="only findings new against REV (its merge-base with --rev, and its tip) block",
            )
        if event == "push":
            p.add_argument("remote", nargs="?", help="remote name (as git passes it to pre-push)")
            p.add_argument("url", nargs="?", help="remote URL (as git passes it to pre-push)")
        add_output_options(p)
    if not legacy_only:
        m = sub.add_parser("commit-msg", help="scan a commit message file for secrets")
        m.set_defaults(func=cmd_gate, event="commit-msg", protocol="strict")
        m.add_argument("file", help="the message file (as git passes it to commit-msg)")
        m.add_argument("--timeout", type=float, help="one overall deadline in seconds")
        add_output_options(m)


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
    from orchestrator.cli.legacy_gate import cmd_legacy_prompt

    prompt.set_defaults(func=cmd_legacy_prompt)
    add_install_parsers(subparsers)


__all__ = ["add_parser", "cmd_gate"]
