"""The `lint` options for fixing (`--fix`, `--diff`, `--unsafe-fixes`), changed files
(`--since REV`, read by usecases/requests.py), the baseline (`--no-baseline`) and the progress count (`--progress`, `--statistics`,
`--no-progress`); cli/main.py registers them."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from orchestrator.errors import UsageError
from orchestrator.safetext import printable


def add_lint_options(p: argparse.ArgumentParser) -> None:
    """Add the fix, since, progress and baseline options to the `lint` parser."""
    p.add_argument(
        "--fix",
        action="store_true",
        help="apply the auto-tier fixes and re-lint until stable (undo: clean --undo RUN_ID)",
    )
    p.add_argument(
        "--diff", action="store_true", help="print the fixes --fix would apply; write nothing"
    )
    p.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix / --diff, also apply the confirm-tier fixes (may change behaviour)",
    )
    p.add_argument(
        "--since",
        metavar="REV",
        help="lint only files changed against the merge-base with REV, plus untracked files",
    )
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a progress count on stderr during a long run when it is a terminal "
        "(default: on, off under CI; --no-progress turns it off)",
    )
    p.add_argument(
        "--no-baseline",
        action="store_true",
        help="show the findings .orchestrate-baseline.json records too",
    )
    p.add_argument(
        "--new-from-rev",
        metavar="REV",
        help="judge each finding new or unchanged against REV (its merge-base with HEAD "
        "and its tip): only new ones fail",
    )
    p.add_argument(
        "--statistics",
        action="store_true",
        help="also print the time each checker took (on stderr unless --format human)",
    )


def fix_run(args: argparse.Namespace, req: Any) -> Any:
    """Run `--fix` (or plan `--diff`) for `req`; the outcome (usecases/lint_fix.py)."""
    from orchestrator.usecases.lint_fix import fix

    if args.unsafe_fixes and not (args.fix or args.diff):
        raise UsageError("--unsafe-fixes goes with --fix or --diff")
    if args.fix and args.diff:
        raise UsageError("--fix and --diff exclude each other: --diff writes nothing")
    return fix(req, write=bool(args.fix), unsafe=bool(args.unsafe_fixes))


def print_diff(outcome: Any) -> int:
    """Print `--diff`'s unified diff and its notes; the exit code `decisions/exits.diff_exit`
    gives (1 when something would change)."""
    # File content is untrusted: each diff line is escaped like any other text we print.
    for line in outcome.diff.splitlines():
        print(printable(line))
    for note in outcome.notes():
        print(printable(f"orchestrate: {note}"), file=sys.stderr)
    from orchestrator.decisions.exits import diff_exit

    return diff_exit(changes=bool(outcome.applied))
