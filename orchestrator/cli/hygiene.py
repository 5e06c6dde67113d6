"""CLI: `orchestrate check`, `orchestrate clean`, `orchestrate report validate` (and the
`report merge` of cli/report.py).

Exit codes: check 0 nothing to clean, 1 entries found; clean 0 every op applied (or
nothing to do), 1 some op pending approval, skipped or not applied; report validate 0
valid, 2 invalid; 2 for usage errors and invalid reports or rulebooks; 4 internal.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from orchestrator.decisions.exits import INVALID_INPUT, hygiene_exit
from orchestrator.hygiene import apply as engine
from orchestrator.hygiene import render, service, validate
from orchestrator.hygiene.rulebook import RulebookError
from orchestrator.safetext import printable
from orchestrator.usecases import hygiene as usecase
from orchestrator.vocab import ExitCode


def _root(args: argparse.Namespace) -> Path:
    from orchestrator.usecases.requests import project_root

    return project_root(args.root, Path.cwd())


def cmd_check(args: argparse.Namespace) -> int:
    """Scan the project, write the report, print what clean would do."""
    root = _root(args)
    try:
        res = usecase.check(root)
    except RulebookError as exc:
        print(printable(f"orchestrate check: {exc}"), file=sys.stderr)
        return INVALID_INPUT
    out = Path(args.output) if args.output else service.default_report_path(root)
    service.write_report(res.report, out)
    if args.format == "json":
        print(json.dumps(service.report_json(res.report), indent=2))
    else:
        print(render.check_text(res.report, out, res.notes))
    return hygiene_exit(pending=bool(res.report.entries))


def _prompt(entry: Any, why: str) -> bool:
    print(render.prompt_line(entry, why), end="", flush=True)
    try:
        return sys.stdin.readline().strip().lower() in ("y", "yes")
    except (OSError, KeyboardInterrupt):
        return False


def cmd_clean(args: argparse.Namespace) -> int:
    """Apply a hygiene report (or undo a run)."""
    root = _root(args)
    if args.undo:
        try:
            rows = usecase.undo(root, args.undo)
        except (FileNotFoundError, json.JSONDecodeError):
            print(printable(f"orchestrate clean: no journal for run {args.undo}"), file=sys.stderr)
            return INVALID_INPUT
        print(render.undo_text(rows))
        return hygiene_exit(pending=any(r[2].startswith("not restored") for r in rows))
    report_path = Path(args.report) if args.report else service.default_report_path(root)
    interactive = sys.stdin.isatty() and not args.dry_run and not args.no_input

    def announce(rows: list[Any]) -> None:  # before anything is applied or asked
        text = render.summary_text(rows, args.dry_run)
        if text:
            print(text, flush=True)

    opts = engine.Options(
        approve=frozenset(args.approve or ()),
        approve_all_confirm=args.approve_all_confirm,
        dry_run=args.dry_run,
        prompt=_prompt if interactive else None,
        announce=announce if args.format != "json" else None,
    )
    res = usecase.clean(root, report_path, opts)
    if res.outcome is None:
        print(
            printable(f"orchestrate clean: refusing an invalid report {report_path}:"),
            file=sys.stderr,
        )
        for reason in res.reasons[:50]:
            print(f"  - {printable(reason)}", file=sys.stderr)
        return INVALID_INPUT
    if args.format == "json":
        print(json.dumps(render.clean_json(res.outcome, res.summary), indent=2))
    else:
        hint = render.ApproveHint(
            command=getattr(args, "command", None) or "clean",
            report=args.report,
            lint_report=res.lint_report,
            root=root,
            cwd=Path.cwd(),
            root_arg=args.root,
        )
        print(render.clean_text(res.outcome, args.dry_run, hint))
    done = {"applied", "would_apply"}
    return hygiene_exit(pending=not all(r.status in done for r in res.outcome.results))


def cmd_validate(args: argparse.Namespace) -> int:
    """Validate a hygiene or lint report; print the reasons it is invalid."""
    data, reasons = validate.read_json(Path(args.file))
    if not reasons:
        _report, reasons = validate.validate_any(data)
    if reasons:
        print(f"invalid: {printable(args.file)}")
        for reason in reasons[:100]:
            print(f"  - {printable(reason)}")
        return INVALID_INPUT
    print(f"valid: {printable(args.file)}")
    return ExitCode.PASS


def add_parser(subparsers: Any) -> None:
    """Register `check`, `clean`, `fix` and `report validate` on an argparse subparsers object."""
    p = subparsers.add_parser(
        "check", help="find repository hygiene candidates (plans, scratch, leftovers)"
    )
    p.add_argument("--root", help="project root (default: the git top level of the cwd)")
    p.add_argument(
        "--output", "-o", help="report path (default: .orchestrate/runs/hygiene-report.json)"
    )
    p.add_argument("--format", choices=("human", "json"), default="human")
    p.set_defaults(func=cmd_check)

    for name, help_text in (
        ("clean", "apply a hygiene report: auto ops, approved confirm ops"),
        ("fix", "apply the fixes of a lint report (same engine and tiers as clean)"),
    ):
        p = subparsers.add_parser(name, help=help_text)
        p.add_argument(
            "report",
            nargs="?" if name == "clean" else None,
            help="report file" + (" (default: the last check's report)" if name == "clean" else ""),
        )
        p.add_argument("--root", help="project root (default: the git top level of the cwd)")
        p.add_argument(
            "--dry-run",
            action="store_true",
            help="print the edits as a unified diff, change nothing",
        )
        p.add_argument(
            "--approve",
            nargs="+",
            action="extend",
            metavar="ID",
            help="approve these confirm-tier entries (after REPORT)",
        )
        p.add_argument(
            "--approve-all-confirm", action="store_true", help="approve every confirm-tier entry"
        )
        p.add_argument("--no-input", action="store_true", help="never prompt, even on a terminal")
        p.add_argument(
            "--undo", metavar="RUN_ID", help="restore every change of a previous clean run"
        )
        p.add_argument("--format", choices=("human", "json"), default="human")
        p.set_defaults(func=cmd_clean)

    p = subparsers.add_parser("report", help="work with report files")
    sub = p.add_subparsers(dest="report_command", required=True)
    v = sub.add_parser("validate", help="validate a hygiene or lint report")
    v.add_argument("file")
    v.set_defaults(func=cmd_validate)
    from orchestrator.cli.report import add_merge_parser

    add_merge_parser(sub)
