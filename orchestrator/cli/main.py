"""The `orchestrate` command line: one function per subcommand, each returning an exit code.

Exit codes (DESIGN.md): 0 pass, 1 blocking findings, 2 usage error, 3 incomplete (a
planned check failed, or required coverage is missing), 4 internal fault, 130 cancelled.
The codes come from decisions/exits.py.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator import __version__
from orchestrator.decisions.exits import NO_COMMAND, command_protocol, guarded
from orchestrator.errors import UsageError
from orchestrator.vocab import ExitCode

if TYPE_CHECKING:  # annotations only: `--version` and `--help` must start without them
    from orchestrator.render.formats import ReportFormat

#: Every subcommand: the module whose `add_parser(subparsers)` registers it, and its
#: one-line help for the command list. Only the module of the command being run is
#: imported; `--help` and a usage error list the others from this table alone, so a
#: start imports no subcommand's dependencies. A new subcommand is one line here
#: (tests/test_cli_startup.py holds this table equal to what the modules register).
COMMANDS: dict[str, tuple[str, str]] = {
    "lint": (__name__, "check files and directories, print the report"),
    "plugins": (__name__, "list loaded plugins, their source and version"),
    "schema": (__name__, "print the JSON Schema of the report"),
    "check": (
        "orchestrator.cli.hygiene",
        "find repository hygiene candidates (plans, scratch, leftovers)",
    ),
    "clean": ("orchestrator.cli.hygiene", "apply a hygiene report: auto ops, approved confirm ops"),
    "fix": (
        "orchestrator.cli.hygiene",
        "apply the fixes of a lint report (same engine and tiers as clean)",
    ),
    "report": ("orchestrator.cli.hygiene", "work with report files"),
    "task": ("orchestrator.cli.tasks", "tasks with stable ids from blocking findings"),
    "next": ("orchestrator.cli.tasks", "bounded next-step summary from local task facts"),
    "gate": ("orchestrator.cli.gate", "strict delivery gate on the real git surface"),
    "compat": ("orchestrator.cli.gate", "old protocols kept for existing installs"),
    "install-hooks": (
        "orchestrator.cli.gate",
        "install git pre-commit, pre-merge-commit, commit-msg and pre-push gates",
    ),
    "uninstall-hooks": ("orchestrator.cli.gate", "remove the hooks orchestrate installed"),
    "hook": (
        "orchestrator.cli.hosts",
        "answer one agent-host hook event (JSON on stdin, host protocol on stdout)",
    ),
    "mcp": ("orchestrator.cli.hosts", "serve lint / gate / task tools over MCP (stdio)"),
    "tools": ("orchestrator.cli.tools", "the managed (pinned) tools: install, status"),
    "server": (
        "orchestrator.cli.server",
        "the optional warm engine of this project: start, stop, status",
    ),
    "baseline": (
        "orchestrator.cli.baseline",
        "record the current findings so lint shows only new ones",
    ),
    "trust": (
        "orchestrator.cli.trust",
        "trust the project's recipes (their digests) so lint runs them",
    ),
    "init": ("orchestrator.cli.init_doctor", "write a starter orchestrate.toml (never overwrites)"),
    "doctor": (
        "orchestrator.cli.init_doctor",
        "tools found (with versions), configs, what each language gets",
    ),
    "lsp": (
        "orchestrator.cli.lsp",
        "language server over stdio: diagnostics and fixes in the editor",
    ),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"orchestrate: error: {message}", file=sys.stderr)
        raise SystemExit(ExitCode.USAGE)


def _report_format(name: str) -> str | ReportFormat:
    """A built-in format name as is (no plugin is loaded); any other name resolved now
    through the plugins, so an unknown one is a usage error before any work runs."""
    from orchestrator.render.formats import resolve
    from orchestrator.render.output import FORMATS

    if name in FORMATS:
        return name

    try:
        return resolve(name)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_output_options(p: argparse.ArgumentParser) -> None:
    """--format and --output, shared by every command that prints a report."""
    from orchestrator.render.output import FORMATS

    p.add_argument(
        "--format",
        type=_report_format,
        default="human",
        metavar="NAME",
        help=f"output format: {', '.join(FORMATS)}, or one a plugin adds",
    )
    p.add_argument("--output", "-o", metavar="PATH", help="write the report here (atomically)")


def cmd_lint(args: argparse.Namespace) -> int:
    from orchestrator.decisions.exits import LintExitPolicy, unknown_base_exit
    from orchestrator.decisions.findings import FailOn
    from orchestrator.render.output import emit_report
    from orchestrator.safetext import printable
    from orchestrator.usecases.lint import CLI_TASKS, NO_TASKS, lint, missing_paths
    from orchestrator.usecases.requests import lint_request, project_root, since_paths, spooled

    if args.jobs is not None and not 1 <= args.jobs <= 64:
        raise UsageError("--jobs must be between 1 and 64")
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    cwd = Path.cwd()
    root = project_root(args.root, cwd)
    if not root.is_dir():
        raise UsageError(f"project root {root} is not a directory")
    missing = missing_paths(cwd, args.paths)
    if missing:
        raise UsageError(f"path does not exist: {missing[0]}")
    paths = list(args.paths)
    new_from = None
    if args.new_from_rev:
        from orchestrator.usecases.new_from_rev import revisions

        if args.since:
            raise UsageError("--new-from-rev and --since exclude each other")
        found = revisions(root, args.new_from_rev)
        if isinstance(found, str):
            print(
                printable(f"orchestrate: --new-from-rev {args.new_from_rev}: {found}"),
                file=sys.stderr,
            )
            return unknown_base_exit()
        new_from = found
    if args.since:
        changed = since_paths(root, args.since, paths, cwd)
        if changed.problem:
            print(
                printable(f"orchestrate: --since {args.since}: {changed.problem}"), file=sys.stderr
            )
            return unknown_base_exit()
        paths = changed.paths
    req = lint_request(
        root,
        cwd,
        paths,
        feedback=args.feedback,
        timeout=args.timeout,
        jobs=args.jobs,
        only=args.only,
        require=args.require,
        allow_gaps=args.allow_gap,
        since=bool(args.since),
        from_hook=args.from_hook,
        include_generated=args.include_generated,
        shard=args.shard,
    )
    fixed = None
    if args.fix or args.diff or args.unsafe_fixes:
        from orchestrator.cli.lint_options import fix_run, print_diff

        fixed = fix_run(args, req)
        if args.diff:
            return print_diff(fixed)
    from orchestrator.cli.progress import run_with_progress, show_progress

    show = show_progress(args.progress, root)
    result = lint(
        # A big run's rows stay on disk, unless each finding is judged against a revision.
        spooled(req) if new_from is None else req,
        NO_TASKS if args.no_tasks else CLI_TASKS,
        around=lambda r, run: run_with_progress(r, run, show),
        exit_policy=LintExitPolicy(FailOn(args.fail_on), args.exit_zero),
        baseline=not args.no_baseline,
        new_from=new_from,
    )
    if fixed is not None:
        result.report.notes += fixed.notes()
    emit_report(result.report, args.format, args.output)
    if args.statistics:
        from orchestrator.render.output import emit_statistics

        emit_statistics(result.report, args.format)
    return result.exit_code


def cmd_plugins(args: argparse.Namespace) -> int:
    import json

    from orchestrator.safetext import printable
    from orchestrator.usecases.plugins import plugin_rows

    rows = plugin_rows()
    if args.format == "json":
        print(json.dumps(rows, indent=2))
    else:
        for r in rows:
            extra = (
                f"{r.get('display')} {r.get('version') or ''} checkers={','.join(r['checkers'])}"
                if r["status"] == "loaded"
                else r.get("reason", "")
            )
            line = f"{r['name']:<14} {r['status']:<8} {r.get('source', '')}  {extra}"
            print(printable(line.rstrip()))
    return ExitCode.PASS


def cmd_schema(args: argparse.Namespace) -> int:
    import json

    from orchestrator.model.report import json_schema

    print(json.dumps(json_schema(), indent=2))
    return ExitCode.PASS


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `lint`, `plugins` and `schema` (this module's own commands)."""
    lint = sub.add_parser("lint", help=COMMANDS["lint"][1])
    lint.add_argument("paths", nargs="*", help="files or directories (default: the project)")
    lint.add_argument("--root", help="project root (default: git top level, else cwd)")
    lint.add_argument("--timeout", type=float, help="one overall deadline in seconds")
    lint.add_argument("--jobs", type=int, help="parallel batches, 1..64 (default min(4, CPUs))")
    lint.add_argument(
        "--require",
        action="append",
        choices=("native", "syntax", "complete"),
        help="coverage the caller needs (README: what --require covers); exit 3 when missing",
    )
    lint.add_argument(
        "--only",
        action="append",
        metavar="CHECKER",
        help="run only this checker (repeatable); an unknown name is a usage error",
    )
    lint.add_argument(
        "--allow-gap",
        action="append",
        metavar="CHECKER",
        help="accept that this checker, which the project configures, cannot run (missing "
        "tool, unmet required-version): exit 0 for it instead of 3; recorded in the report "
        "(repeatable)",
    )
    lint.add_argument(
        "--fail-on",
        choices=("error", "warning", "candidate"),
        default="error",
        help="findings that exit 1: blocking errors (default), also warnings, "
        "also syntax candidates",
    )
    lint.add_argument(
        "--exit-zero",
        action="store_true",
        help="report and exit 0 (usage errors and internal faults still exit 2 / 4)",
    )
    lint.add_argument(
        "--include-generated",
        action="store_true",
        help="lint generated files too (lock files, minified bundles, marked files); "
        "the secret scan always covers them",
    )
    lint.add_argument(
        "--from-hook",
        action="store_true",
        help="the paths are handed over by a hook (pre-commit), not named by the user: "
        "generated files among them are not linted",
    )
    lint.add_argument(
        "--feedback", action="store_true", help="fast save-feedback route (short deadline)"
    )
    lint.add_argument(
        "--no-tasks", action="store_true", help="do not record findings as tasks in .orchestrate/"
    )
    lint.add_argument(
        "--shard",
        metavar="I/N",
        help="check only share I of N of the files (CI matrix); merge with `report merge`",
    )
    from orchestrator.cli.lint_options import add_lint_options

    add_lint_options(lint)
    add_output_options(lint)
    lint.set_defaults(func=cmd_lint)

    plugins = sub.add_parser("plugins", help=COMMANDS["plugins"][1])
    plugins.add_argument("--format", choices=("human", "json"), default="human")
    plugins.set_defaults(func=cmd_plugins)

    schema = sub.add_parser("schema", help=COMMANDS["schema"][1])
    schema.set_defaults(func=cmd_schema)


def _not_loaded(args: argparse.Namespace) -> int:
    """A listed command whose module could not be imported (the warning said why)."""
    from orchestrator.decisions.exits import UNAVAILABLE_COMMAND

    print(f"orchestrate: {args.command} is unavailable in this installation", file=sys.stderr)
    return UNAVAILABLE_COMMAND


def build_parser(command: str | None = None, full: bool = False) -> argparse.ArgumentParser:
    """The parser: the module that defines `command` (every module when `full`) adds
    its real subparsers; every other command is listed by name and help only, so
    nothing of it is imported (the save-feedback path and `--version` start fast)."""
    parser = _Parser(prog="orchestrate", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"orchestrate {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    wanted = COMMANDS.get(command or "", ("", ""))[0]
    tried: set[str] = set()
    for name, (module, help_text) in COMMANDS.items():
        if (full or module == wanted) and module not in tried:
            tried.add(module)
            try:
                importlib.import_module(module).add_parser(sub)
            except Exception as exc:  # noqa: BLE001 - one broken part must not take the CLI down
                print(
                    f"orchestrate: warning: commands of {module} unavailable: "
                    f"{type(exc).__name__}: {exc}",
                    file=sys.stderr,
                )
        if name not in sub.choices:
            sub.add_parser(name, help=help_text, add_help=False).set_defaults(func=_not_loaded)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script. Returns the process exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--from-hook" in argv:  # file names a hook appends are never read as options
        from orchestrator.cli.hook_paths import shielded

        argv = shielded(argv)
    if argv[:1] == ["lint"]:  # the warm engine answers when it runs (README "Warm engine")
        from orchestrator.server.client import try_warm

        warm = try_warm(argv)
        if warm is not None:
            return warm
    first = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(first)

    def run() -> int:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return NO_COMMAND
        # SIGTERM / SIGINT end every tool child and what it spawned (setsid helpers
        # included) before the process exits 143 / 130.
        from orchestrator.procs import signals_end_children

        with signals_end_children():
            return int(args.func(args))

    return guarded(run, protocol=command_protocol(argv))


if __name__ == "__main__":
    sys.exit(main())
