"""CLI: `orchestrate init` (a starter orchestrate.toml for what the project holds) and
`orchestrate doctor` (tools found with versions, configuration files, and what each
language in the tree gets). Exit codes: 0 done, 2 usage (init refuses to overwrite)."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from orchestrator.vocab import ExitCode


def _root(args: argparse.Namespace) -> Path:
    from orchestrator.usecases.requests import project_root

    return project_root(args.root, Path.cwd())


def _doctor_lines(result: Any) -> list[str]:
    lines = ["tools"]
    for t in result.tools:
        conf = "; " + (", ".join(t.config_files) if t.config_files else "no config (defaults)")
        if t.found and not t.configured and t.hint:
            conf += f" - {t.hint}"
        if t.found is None and t.hint:
            conf = ""  # not in use: the state says why
        langs = ",".join(t.languages) if len(t.languages) <= 4 else f"{len(t.languages)} languages"
        langs = langs or "-"
        lines.append(f"  {t.checker:<11} {t.tier:<8} {langs:<28} {t.state}{conf}")
    lines.append("configuration files")
    lines += [f"  {c}" for c in result.config_files] or ["  none"]
    lines.append("languages in the tree (what their files get; gates require)")
    for row in result.languages:
        lines.append(
            f"  {row.language:<14} {row.files:>5} file(s)  {row.gets:<6} "
            f"(native {row.native}, syntax {row.syntax}, none {row.none}; "
            f"required {row.required})"
        )
        lines += [f"      why: {w}" for w in row.why]
    return lines


def cmd_doctor(args: argparse.Namespace) -> int:
    """Print what the project has and what each language gets (lints the tree once)."""
    from orchestrator.safetext import printable
    from orchestrator.usecases.doctor import doctor

    result = doctor(_root(args))
    if args.format == "json":
        data = {
            "tools": [asdict(t) for t in result.tools],
            "config_files": result.config_files,
            "languages": [asdict(r) | {"gets": r.gets} for r in result.languages],
        }
        print(json.dumps(data, indent=2))
    else:
        for line in _doctor_lines(result):
            print(printable(line))
    return ExitCode.PASS


def cmd_init(args: argparse.Namespace) -> int:
    """Write the starter configuration; a usage error when one exists."""
    from orchestrator.safetext import printable
    from orchestrator.usecases.doctor import init, raise_hint

    path, result = init(_root(args))
    print(printable(f"wrote {path.name}:"))
    for row in result.languages:
        if row.language == "unrecognised":
            continue  # not written: no level can be asked of it
        tail = f"; {raise_hint(row)}" if row.proposed != row.required else ""
        print(
            printable(
                f"  {row.language}: {row.files} file(s), {row.gets} (required {row.proposed}{tail})"
            )
        )
    if any(r.proposed != r.required for r in result.languages if r.language != "unrecognised"):
        # The gates apply the stricter of the base's policy and the committed one
        # (docs/gates.md): a lowered level counts once orchestrate.toml is in the base.
        print(
            printable(
                f"note: a level above is below the default; the gates apply it once {path.name}"
                f" is committed: commit it on its own first (`git add {path.name} &&"
                ' git commit -m "orchestrate policy"`)'
            )
        )
    print(
        "next: `orchestrate doctor` for tools and reasons, `orchestrate install-hooks` for the gates"
    )
    return ExitCode.PASS


def add_parser(subparsers: Any) -> None:
    """Register `init` and `doctor` on an argparse subparsers object."""
    p = subparsers.add_parser("init", help="write a starter orchestrate.toml (never overwrites)")
    p.add_argument("--root", help="project root (default: git top level, else cwd)")
    p.set_defaults(func=cmd_init)
    p = subparsers.add_parser(
        "doctor", help="tools found (with versions), configs, what each language gets"
    )
    p.add_argument("--root", help="project root (default: git top level, else cwd)")
    p.add_argument("--format", choices=("human", "json"), default="human")
    p.set_defaults(func=cmd_doctor)
