"""`orchestrate install-hooks` / `uninstall-hooks`: git pre-commit, pre-merge-commit,
commit-msg and pre-push hooks (a clean `git merge` runs pre-merge-commit, not
pre-commit: both run the commit gate; commit-msg scans the message for secrets, under
either protocol, since the secret scan is never skipped).

The hooks go where git looks for them (`git rev-parse --git-path hooks`, which
honours ``core.hooksPath``). A marker line identifies our hooks: a foreign hook is
never overwritten without ``--force`` and never removed. The scripts call the very
interpreter that installed them (an absolute path), so a hook does not depend on
whatever ``orchestrate`` happens to be first on PATH when git runs it.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.errors import UsageError
from orchestrator.git.repo import hooks_path, open_repo
from orchestrator.workspace import atomic_write

MARKER = "# orchestrate-managed-hook v1"
HOOKS = {
    "pre-commit": "commit",
    "pre-merge-commit": "commit",
    "commit-msg": "commit-msg",
    "pre-push": "push",
}


def hook_script(event: str, protocol: str, python: str | None = None) -> str:
    """The text of a hook that runs the `event` gate with this interpreter."""
    py = shlex.quote(python or sys.executable)
    if protocol == "legacy-v1" and event != "commit-msg":
        cmd = f"{py} -m orchestrator.cli.main compat legacy-v1 gate {event}"
    else:
        cmd = f"{py} -m orchestrator.cli.main gate {event}"
    return (
        "#!/bin/sh\n"
        f"{MARKER}\n"
        f"# protocol: {protocol}. Installed by `orchestrate install-hooks`; "
        "remove with `orchestrate uninstall-hooks`.\n"
        f'exec {cmd} "$@"\n'
    )


def hooks_dir(deadline: Deadline, cwd: Path | None = None) -> Path:
    """The folder git runs hooks from for the repository around `cwd`."""
    return hooks_path(open_repo(deadline, cwd))


def is_ours(path: Path) -> bool:
    """True when the hook at `path` carries our marker line."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return MARKER.encode() in head


def install(hooks: Path, protocol: str, force: bool) -> list[str]:
    """Write our hooks into `hooks`; refuse a foreign hook unless `force`. Returns messages."""
    foreign = [n for n in HOOKS if (hooks / n).exists() and not is_ours(hooks / n)]
    if foreign and not force:
        raise UsageError(
            f"refusing to overwrite existing hook(s) not installed by orchestrate: "
            f"{', '.join(str(hooks / n) for n in foreign)} (use --force to replace them)"
        )
    done = []
    for name, event in HOOKS.items():
        atomic_write(hooks / name, hook_script(event, protocol).encode(), mode=0o755)
        done.append(f"installed {hooks / name} ({protocol})")
    return done


def uninstall(hooks: Path) -> list[str]:
    """Remove our hooks from `hooks`; foreign hooks stay. Returns messages."""
    done = []
    for name in HOOKS:
        path = hooks / name
        if not path.exists():
            continue
        if is_ours(path):
            path.unlink()
            done.append(f"removed {path}")
        else:
            done.append(f"left {path} in place: not installed by orchestrate")
    return done


def cmd_install(args: argparse.Namespace) -> int:
    """`orchestrate install-hooks [--force] [--protocol strict|legacy-v1]`."""
    for line in install(hooks_dir(Deadline.after(30)), args.protocol, args.force):
        print(line)
    return 0


def cmd_uninstall(args: argparse.Namespace) -> int:
    """`orchestrate uninstall-hooks`: remove only the hooks orchestrate installed."""
    lines = uninstall(hooks_dir(Deadline.after(30)))
    for line in lines or ["no orchestrate hooks installed"]:
        print(line)
    return 0


def add_install_parsers(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register `install-hooks` and `uninstall-hooks`."""
    p = subparsers.add_parser(
        "install-hooks",
        help="install git pre-commit, pre-merge-commit, commit-msg and pre-push gates",
    )
    p.add_argument(
        "--force", action="store_true", help="replace hooks not installed by orchestrate"
    )
    p.add_argument("--protocol", choices=("strict", "legacy-v1"), default="strict")
    p.set_defaults(func=cmd_install)
    u = subparsers.add_parser("uninstall-hooks", help="remove the hooks orchestrate installed")
    u.set_defaults(func=cmd_uninstall)
