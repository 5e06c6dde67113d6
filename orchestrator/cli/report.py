"""CLI: `orchestrate report merge A.json B.json ...`, the reports of sharded runs as one.

Exit codes as for `orchestrate lint` (decisions/exits.py): 0 pass, 1 blocking findings,
3 incomplete (a shard missing or given twice, shards of different N or file lists, a
failed check), 2 for a usage error or a report that is not a valid shard's report.
This module is imported to build the parser: it imports nothing heavy at the top.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def cmd_merge(args: argparse.Namespace) -> int:
    """Merge the named shard reports and print the result in `--format`."""
    from orchestrator.render.output import emit_report
    from orchestrator.usecases.merge import merge

    result = merge([Path(p) for p in args.reports])
    emit_report(result.report, args.format, args.output)
    return result.exit_code


def add_merge_parser(report_subparsers: Any) -> None:
    """Register `merge` under the `orchestrate report` subcommands."""
    from orchestrator.cli.main import add_output_options

    p = report_subparsers.add_parser(
        "merge",
        help="merge the reports of `lint --shard I/N` runs into one report",
        description="Union the scopes, findings and coverage of shard reports (JSON, "
        "from `orchestrate lint --shard I/N --format json`) into one report that names "
        "every shard; a missing or repeated shard makes it incomplete (exit 3).",
    )
    p.add_argument("reports", nargs="+", metavar="REPORT", help="a shard's JSON report")
    add_output_options(p)
    p.set_defaults(func=cmd_merge)
