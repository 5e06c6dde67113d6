"""The decision table: outcome -> exit code or host action, per protocol.

Every presenter returns what this module says; none maps a decision itself. The
exit policy (DESIGN.md "CLI exit codes") is written here and only here:

* lint: cancelled > internal > incomplete > findings > pass, in `lint_exit_code`
  (incomplete: a planned check failed, or `--require` is unmet; findings: what
  `--fail-on` counts, blocking findings by default; `--exit-zero` reports only);
* a strict gate (the CLI and the installed git hooks): allow / not_applicable 0,
  deny 1, incomplete / not_evaluated 3, internal fault 4 (`gate_exit`);
* legacy-v1: exit 2 blocks, everything else (including a fault) exits 0;
* agent hosts (Claude Code, Codex, Gemini): always exit 0, a refusal and a
  continuation are spelled in the host's JSON (`HOST_REFUSAL`, `HOST_CONTINUE`);
* `baseline` (`baseline_exit`), `lint --diff` (`diff_exit`), `lint --since` with an
  unknown base (`unknown_base_exit`);
* MCP: `isError` only when the tool could not do its work (`mcp_is_error`);
* exceptions at a `main`: one mapping, `exit_for_exception` / `guarded`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from orchestrator.decisions.findings import FailOn, fails_exit
from orchestrator.errors import OrchestrateError
from orchestrator.safetext import printable
from orchestrator.vocab import ExitCode, GateDecision

if TYPE_CHECKING:  # annotations only: the CLI must start without pydantic
    from orchestrator.model.report import Report


class Protocol(StrEnum):
    """Who reads the outcome: each protocol has its own exit / action vocabulary."""

    CLI = "cli"
    GIT_HOOK = "git-hook"
    LEGACY_V1 = "legacy-v1"
    CLAUDE_CODE = "claude-code"
    CODEX = "codex"
    GEMINI = "gemini"
    MCP = "mcp"


#: Exit precedence, most severe first (DESIGN.md).
PRECEDENCE = (
    ExitCode.CANCELLED,
    ExitCode.INTERNAL,
    ExitCode.USAGE,
    ExitCode.INCOMPLETE,
    ExitCode.FINDINGS,
    ExitCode.PASS,
)
#: The legacy-v1 protocol's "block".
LEGACY_BLOCK = 2
#: An agent host reads its JSON only on exit 0: a block is expressed in the JSON.
HOST_EXIT = 0
#: What a strict gate that could not run (fault, unreadable event) decides.
FAULT_DECISION = GateDecision.INCOMPLETE
#: How each host spells "refuse this tool call": (field, value).
HOST_REFUSAL = {
    Protocol.CLAUDE_CODE: ("permissionDecision", "deny"),
    Protocol.CODEX: ("permissionDecision", "deny"),
    Protocol.GEMINI: ("decision", "deny"),
}
#: How each host spells "continue the turn once more": (field, value).
HOST_CONTINUE = {
    Protocol.CLAUDE_CODE: ("decision", "block"),
    Protocol.CODEX: ("decision", "block"),
    Protocol.GEMINI: ("decision", "deny"),
}


def most_severe(codes: Iterable[int]) -> int:
    """The code that wins under the documented precedence (PASS when none)."""
    present = set(codes)
    return next((int(c) for c in PRECEDENCE if c in present), int(ExitCode.PASS))


@dataclass(frozen=True)
class LintExitPolicy:
    """What the caller of `orchestrate lint` lets fail the exit (`--fail-on`,
    `--exit-zero`). The default is the documented policy."""

    fail_on: FailOn = FailOn.ERROR
    #: Report, and exit 0 for every finished run (faults and usage errors still exit).
    exit_zero: bool = False


DEFAULT_LINT_EXIT = LintExitPolicy()


def lint_exit_code(
    report: Report,
    required_gaps: Sequence[str],
    policy: LintExitPolicy = DEFAULT_LINT_EXIT,
) -> int:
    """The exit code of a finished lint run, under the precedence incomplete > findings
    > pass:

    * 3 when a planned check failed (`decisions.coverage.failed_checks`: `tool_error`,
      `timed_out`, `partial`, a plugin that failed to load) or a `--require` level is
      unmet (`required_gaps`, which an empty run never meets);
    * 1 when a finding fails the exit under `policy.fail_on` (`fails_exit`);
    * 0 otherwise, and always under `policy.exit_zero`.

    The reported gaps (`missing`, `configuration_required`, `unsupported`,
    `unqualified`, `unsafe`, `not_run`) count only through `required_gaps`.
    Cancellation and internal faults never reach here: they are exceptions, mapped by
    `exit_for_exception`.
    """
    # Here, not at the top: the CLI imports this module before it dispatches, and the
    # coverage decisions import the report model (pydantic).
    from orchestrator.decisions.coverage import failed_checks

    if policy.exit_zero:
        return int(ExitCode.PASS)
    codes = []
    if required_gaps or failed_checks(report):
        codes.append(ExitCode.INCOMPLETE)
    if any(fails_exit(f, policy.fail_on) for f in report.findings):
        codes.append(ExitCode.FINDINGS)
    return most_severe(codes)


def gate_blocks(decision: GateDecision) -> bool:
    """Whether a strict gate refuses delivery (deny and incomplete alike, DESIGN.md)."""
    return decision in (GateDecision.DENY, GateDecision.INCOMPLETE)


def gate_exit(decision: GateDecision, protocol: Protocol = Protocol.CLI) -> int:
    """Exit code of a strict gate decision for the CLI or an installed git hook."""
    if protocol not in (Protocol.CLI, Protocol.GIT_HOOK):
        raise ValueError(f"gate_exit: {protocol} has no exit code for a decision")
    if decision == GateDecision.DENY:
        return ExitCode.FINDINGS
    if decision in (GateDecision.INCOMPLETE, GateDecision.NOT_EVALUATED):
        return ExitCode.INCOMPLETE
    return ExitCode.PASS


def gate_fault_exit(protocol: Protocol = Protocol.CLI) -> int:
    """Exit code when a gate could not run: strict blocks (4), legacy-v1 fails open (0)."""
    return 0 if protocol == Protocol.LEGACY_V1 else ExitCode.INTERNAL


def legacy_exit(*, block: bool) -> int:
    """Exit code of the legacy-v1 protocol: 2 blocks, 0 passes or fails open."""
    return LEGACY_BLOCK if block else 0


def mcp_is_error(*, fault: bool) -> bool:
    """MCP `isError`: only when the tool could not do its work (a fault, a bad argument);
    a deny or incomplete gate is a successful answer."""
    return fault


def verify_exit(outcome: str, reason: str | None) -> int:
    """`orchestrate task verify`: still present 1, absent 0, unknown task 2, otherwise 3."""
    if reason == "task_not_found":
        return ExitCode.USAGE
    # The observation words of tasks/verify.py (STILL_PRESENT, ABSENT_UNVERIFIED).
    return {
        "still_present": ExitCode.FINDINGS,
        "absent_unverified": ExitCode.PASS,
    }.get(outcome, ExitCode.INCOMPLETE)


def hygiene_exit(*, pending: bool) -> int:
    """`check` / `clean` / `clean --undo`: 1 when something is left to do, else 0."""
    return ExitCode.FINDINGS if pending else ExitCode.PASS


def tools_exit(*, installed: bool) -> int:
    """`orchestrate tools install` / `tools status`: 0 when the managed tools are in
    place, 1 when one is not (npm absent, offline, not installed yet)."""
    return ExitCode.PASS if installed else ExitCode.FINDINGS


def baseline_exit(*, written: bool) -> int:
    """`orchestrate baseline`: 0 when the baseline was written, 3 when it was not because
    a planned check did not finish (it would miss what that check did not see)."""
    return ExitCode.PASS if written else ExitCode.INCOMPLETE


def diff_exit(*, changes: bool) -> int:
    """`orchestrate lint --diff`: 1 when a fix would change something, else 0."""
    return ExitCode.FINDINGS if changes else ExitCode.PASS


def unknown_base_exit() -> int:
    """`orchestrate lint --since REV` whose merge-base git cannot tell: incomplete (3),
    nothing was checked against it."""
    return ExitCode.INCOMPLETE


#: Invalid input files (a report, a rulebook, an unknown run id) are usage errors.
INVALID_INPUT = ExitCode.USAGE
#: `orchestrate` with no command: a usage error (the help is printed).
NO_COMMAND = ExitCode.USAGE
#: A listed command whose module could not be imported: the installation is faulty.
UNAVAILABLE_COMMAND = ExitCode.INTERNAL


def exit_for_exception(
    exc: BaseException, prog: str = "orchestrate", protocol: Protocol = Protocol.CLI
) -> int:
    """The one exception -> exit code mapping, with its one diagnostic line on stderr.

    KeyboardInterrupt 130; SystemExit its own code (argparse: 2); OrchestrateError its
    code; a closed stdout (BrokenPipeError) 0; anything else 4. The gates' protocols
    differ: at a strict gate (`Protocol.GIT_HOOK`) a closed stdout is an internal fault
    too (a gate whose answer could not be written never passes); a legacy-v1 gate fails
    open (exit 0, "UNVERIFIED", never a certified pass) on any fault but a usage error
    or a cancellation. After a closed stdout, stdout is pointed at os.devnull
    (`_stdout_to_devnull`). Other BaseExceptions (GeneratorExit and the like) are
    re-raised.
    """
    if isinstance(exc, BrokenPipeError):
        # Whatever it maps to: nothing may fail again on the closed pipe at exit.
        _stdout_to_devnull()
    if isinstance(exc, KeyboardInterrupt):
        print(f"{prog}: cancelled", file=sys.stderr)
        return ExitCode.CANCELLED
    if isinstance(exc, SystemExit):
        return int(exc.code) if isinstance(exc.code, int) else ExitCode.USAGE
    if isinstance(exc, OrchestrateError) and int(exc.exit_code) == ExitCode.USAGE:
        print(f"{prog}: error: {printable(exc)}", file=sys.stderr)
        return ExitCode.USAGE
    if protocol == Protocol.LEGACY_V1 and isinstance(exc, Exception):
        print(
            f"{prog}: internal error: {type(exc).__name__}: {printable(exc)}\n"
            f"{prog}: UNVERIFIED: legacy-v1 fails open on an internal error (exit 0); "
            "nothing was certified",
            file=sys.stderr,
        )
        return gate_fault_exit(Protocol.LEGACY_V1)
    if isinstance(exc, OrchestrateError):
        print(f"{prog}: error: {printable(exc)}", file=sys.stderr)
        return int(exc.exit_code)
    if isinstance(exc, BrokenPipeError) and protocol != Protocol.GIT_HOOK:
        return ExitCode.PASS
    if isinstance(exc, Exception):
        print(f"{prog}: internal error: {type(exc).__name__}: {printable(exc)}", file=sys.stderr)
        return ExitCode.INTERNAL
    raise exc


def _stdout_to_devnull() -> None:
    """After a broken pipe, point the process's stdout at os.devnull (the recipe of
    Python's signal docs, "Note on SIGPIPE"): what is still buffered is then flushed
    there when the interpreter exits, instead of failing again with "Exception ignored
    ... BrokenPipeError" and exit 120. Only the real stdout: a stream a caller put in
    its place (a test's capture) is not a file descriptor of ours to replace."""
    if sys.stdout is not sys.__stdout__ or sys.stdout is None:
        return
    try:
        fd = sys.stdout.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
    except (OSError, ValueError):  # no descriptor (closed, or an in-memory stream)
        return
    os.dup2(devnull, fd)
    os.close(devnull)


def guarded(
    fn: Callable[[], int], prog: str = "orchestrate", protocol: Protocol = Protocol.CLI
) -> int:
    """Run a command body; its return value, or the mapped exit code of what it raised
    under `protocol` (exit_for_exception).

    stdout is flushed inside the guard: a pipe whose reader has gone (`| head`) fails
    there, under the same mapping, and not later in the interpreter's own flush at
    exit, which would print a traceback and exit 120 whatever was decided."""
    try:
        code = int(fn())
    except BaseException as exc:  # noqa: BLE001 - the one boundary; see exit_for_exception
        code = exit_for_exception(exc, prog, protocol)
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError as exc:
        # The answer did not reach its reader: a closed pipe's code (0; 4 at a strict
        # gate), not the code of an answer nobody read.
        return exit_for_exception(exc, prog, protocol)
    except (OSError, ValueError):
        pass  # a stdout already closed by the command: nothing is left to write
    return code


def command_protocol(argv: Sequence[str]) -> Protocol:
    """Whose exit protocol a command line follows: a strict gate (`gate EVENT`) the git
    hooks' (`Protocol.GIT_HOOK`), a legacy-v1 gate (`compat legacy-v1 ...`, `gate EVENT
    --protocol legacy-v1`) the old one, everything else the CLI's."""
    words = list(argv)
    first = next((w for w in words if not w.startswith("-")), None)
    legacy = any(w == "legacy-v1" or w.endswith("=legacy-v1") for w in words)
    if first == "compat" and legacy:
        return Protocol.LEGACY_V1
    if first != "gate":
        return Protocol.CLI
    return Protocol.LEGACY_V1 if legacy else Protocol.GIT_HOOK


__all__ = [
    "DEFAULT_LINT_EXIT",
    "FAULT_DECISION",
    "HOST_CONTINUE",
    "HOST_EXIT",
    "HOST_REFUSAL",
    "INVALID_INPUT",
    "LEGACY_BLOCK",
    "NO_COMMAND",
    "UNAVAILABLE_COMMAND",
    "LintExitPolicy",
    "Protocol",
    "baseline_exit",
    "command_protocol",
    "diff_exit",
    "exit_for_exception",
    "gate_blocks",
    "gate_exit",
    "gate_fault_exit",
    "guarded",
    "hygiene_exit",
    "legacy_exit",
    "lint_exit_code",
    "mcp_is_error",
    "most_severe",
    "unknown_base_exit",
    "verify_exit",
]
