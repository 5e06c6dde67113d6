"""`orchestrate task list|show|verify|close` and `orchestrate next`.

Exit codes (DESIGN.md): `task verify` gives 1 when the finding is still present,
0 when it is absent (an unverified observation: the task stays open until `task
close`), 3 when the recheck is incomplete. An unknown task id is a usage error (2).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from orchestrator.decisions.exits import verify_exit
from orchestrator.errors import UsageError
from orchestrator.safetext import printable
from orchestrator.tasks import nextstep, verify
from orchestrator.tasks import store as tasks
from orchestrator.usecases import tasks as usecase
from orchestrator.vocab import ExitCode


def _root(args: argparse.Namespace) -> Path:
    from orchestrator.usecases.requests import project_root

    root = project_root(args.root, Path.cwd())
    if not root.is_dir():
        raise UsageError(f"project root {root} is not a directory")
    return root


def _task_id(raw: str) -> str:
    if not tasks.is_safe_task_id(raw):
        # Never echo a malformed id: it is caller text.
        raise UsageError("malformed task id (expected T- followed by 12 hex digits)")
    return raw


def _line(rec: tasks.TaskRecord) -> str:
    b = rec.basis
    where = f"{b.path}:{b.line}" if b.line else b.path
    status = rec.status + (f" ({rec.resolution})" if rec.resolution else "")
    return printable(f"{rec.id}  {status:<24} {b.checker} {b.rule}  {where}")


def cmd_list(args: argparse.Namespace) -> int:
    listing = tasks.list_tasks(_root(args))
    shown = [t for t in listing.tasks if args.all or t.is_open()]
    if args.format == "json":
        out = {
            "tasks": [tasks.record_summary(t) for t in shown],
            "quarantined": [{"name": q.name, "reason": q.reason} for q in listing.quarantined],
        }
        print(json.dumps(out, indent=2))
        return ExitCode.PASS
    for t in shown:
        print(_line(t))
    if not shown:
        print("no open tasks in local facts (not a pass: run `orchestrate lint` for a fresh check)")
    for q in listing.quarantined:
        print(printable(f"quarantined: .orchestrate/quarantine/{q.name}: {q.reason}"))
    return ExitCode.PASS


def cmd_show(args: argparse.Namespace) -> int:
    tid = _task_id(args.task_id)
    rec = tasks.load_task(_root(args), tid)
    if rec is None:
        raise UsageError("no such task (see `orchestrate task list`)")
    if args.format == "json":
        print(json.dumps(rec.model_dump(mode="json", by_alias=True), indent=2))
        return ExitCode.PASS
    print(_line(rec))
    tool = rec.identity.tool
    tool_line = f"  tool: {tool.path if tool else '?'} {tool.version if tool else ''}".rstrip()
    print(printable(tool_line))
    print(printable(f"  config digest: {rec.identity.config_digest or '?'}"))
    print(printable(f"  re-verify: {' '.join(rec.verify_command)}"))
    print(f"  original recheck: {json.dumps(rec.recheck_argv)}")
    for a in rec.attempts[-10:]:
        tail = f" ({a.reason})" if a.reason else ""
        print(printable(f"  {a.at} {a.kind}: {a.outcome}{tail}"))
    if args.show_message:
        # Tool free text, escaped so it cannot drive a terminal; labelled as untrusted.
        print(f"  untrusted tool message: {json.dumps(rec.message.text)}")
    return ExitCode.PASS


def cmd_verify(args: argparse.Namespace) -> int:
    tid = _task_id(args.task_id)
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    result = usecase.verify(_root(args), tid, timeout=args.timeout)
    if args.format == "json":
        print(verify.result_json(result))
    else:
        print(printable(f"{result.task_id or 'task'}: {result.outcome}"))
        if result.reason:
            detail = f" ({result.detail})" if result.detail else ""
            print(printable(f"  reason: {result.reason}{detail}"))
        if result.outcome == verify.ABSENT_UNVERIFIED:
            print(
                "  the original checker no longer reports it; the task is not closed: "
                f"confirm, then `orchestrate task close {tid} --resolution fixed`"
            )
        if result.status:
            print(printable(f"  task status: {result.status}"))
    return verify_exit(result.outcome, result.reason)


def cmd_close(args: argparse.Namespace) -> int:
    tid = _task_id(args.task_id)
    rec = tasks.close_task(_root(args), tid, args.resolution)
    if rec is None:
        raise UsageError("no such task (see `orchestrate task list`)")
    print(f"{rec.id}: closed ({rec.resolution})")
    return ExitCode.PASS


def cmd_next(args: argparse.Namespace) -> int:
    summary = usecase.next_summary(
        _root(args), max_entries=args.max_entries, max_bytes=args.max_bytes
    )
    if args.format == "json":
        print(json.dumps(summary.to_dict(), indent=2))
    else:
        sys.stdout.write(nextstep.render_text(summary, limit_chars=args.limit_chars) + "\n")
    return ExitCode.PASS


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--root", help="project root (default: git top level, else cwd)")
    p.add_argument("--format", choices=("human", "json"), default="human")


def add_parser(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `task` (list, show, verify, close) and `next`."""
    task = subparsers.add_parser("task", help="tasks with stable ids from blocking findings")
    actions = task.add_subparsers(dest="task_action", metavar="ACTION")

    p = actions.add_parser("list", help="open tasks (and quarantined records)")
    _common(p)
    p.add_argument("--all", action="store_true", help="include closed tasks")
    p.set_defaults(func=cmd_list)

    p = actions.add_parser("show", help="one task record")
    _common(p)
    p.add_argument("task_id", metavar="ID")
    p.add_argument("--show-message", action="store_true", help="print the untrusted tool text")
    p.set_defaults(func=cmd_show)

    p = actions.add_parser("verify", help="re-run the task's original checker on its file")
    _common(p)
    p.add_argument("task_id", metavar="ID")
    p.add_argument("--timeout", type=float, default=verify.DEFAULT_TIMEOUT_S)
    p.set_defaults(func=cmd_verify)

    p = actions.add_parser("close", help="close a task with a resolution kind")
    _common(p)
    p.add_argument("task_id", metavar="ID")
    p.add_argument("--resolution", required=True, choices=tasks.RESOLUTIONS)
    p.set_defaults(func=cmd_close)

    nxt = subparsers.add_parser("next", help="bounded next-step summary from local task facts")
    _common(nxt)
    nxt.add_argument("--max-entries", type=int, default=nextstep.DEFAULT_MAX_ENTRIES)
    nxt.add_argument("--max-bytes", type=int, default=nextstep.DEFAULT_MAX_BYTES)
    nxt.add_argument("--limit-chars", type=int, default=4000)
    nxt.set_defaults(func=cmd_next)
