"""CLI: `orchestrate baseline`: record the project's current findings in the committed
`.orchestrate-baseline.json`, so `lint` shows only new ones (tasks/baseline.py)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def cmd_baseline(args: argparse.Namespace) -> int:
    """Lint the whole project (baseline not applied, no tasks) and write its baseline;
    exit 3 without writing when a planned check did not finish (the baseline would
    miss what it did not see)."""
    from orchestrator.decisions.coverage import failed_checks
    from orchestrator.decisions.exits import baseline_exit
    from orchestrator.safetext import printable
    from orchestrator.tasks.baseline import write_baseline
    from orchestrator.usecases.lint import NO_TASKS, lint
    from orchestrator.usecases.requests import baseline_request, project_root

    root = project_root(args.root, Path.cwd())
    result = lint(baseline_request(root), NO_TASKS, baseline=False)
    failed = failed_checks(result.report)
    if failed:
        print(printable(f"orchestrate baseline: not written: {failed[0]} did not finish"))
        return baseline_exit(written=False)
    path, count = write_baseline(result.report, root)
    print(printable(f"baseline: {count} finding(s) recorded in {path.name}; commit it"))
    return baseline_exit(written=True)


def add_parser(subparsers: Any) -> None:
    """Register `baseline` on an argparse subparsers object."""
    p = subparsers.add_parser(
        "baseline", help="record the current findings so lint shows only new ones"
    )
    p.add_argument("--root", help="project root (default: git top level, else cwd)")
    p.set_defaults(func=cmd_baseline)
