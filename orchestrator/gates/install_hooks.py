"""`orchestrate install-hooks` / `uninstall-hooks`: git pre-commit, pre-merge-commit,
commit-msg and pre-push hooks (a clean `git merge` runs pre-merge-commit, not
pre-commit: both run the commit gate; commit-msg scans the message for secrets).

Each protocol installs its own hooks only. legacy-v1 installs pre-commit,
pre-merge-commit and pre-push, each running the fail-open legacy gate; it has no
commit-msg event (the old protocol judges a message as delivered content at its
pre-push gate), so it installs no commit-msg hook and removes a strict one of ours
left by an earlier install: no strict gate rides along with a legacy install.

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
#: Every hook orchestrate may install (hook name -> gate event): what uninstall removes.
HOOKS = {
    "pre-commit": "commit",
    "pre-merge-commit": "commit",
    "commit-msg": "commit-msg",
    "pre-push": "push",
}
LEGACY = "legacy-v1"
#: The hooks each protocol installs. legacy-v1 has no commit-msg event.
PROTOCOL_HOOKS = {
    "strict": HOOKS,
    LEGACY: {name: event for name, event in HOOKS.items() if event != "commit-msg"},
}


def hook_script(event: str, protocol: str, python: str | None = None) -> str:
    """The text of a hook that runs the `event` gate of `protocol` with this interpreter.

    ValueError for an event the protocol has no gate for (legacy-v1 and commit-msg).
    """
    py = shlex.quote(python or sys.executable)
    if event not in PROTOCOL_HOOKS[protocol].values():
        raise ValueError(f"the {protocol} protocol has no {event} gate")
    head = (
        "#!/bin/sh\n"
        f"{MARKER}\n"
        f"# protocol: {protocol}. Installed by `orchestrate install-hooks`; "
        "remove with `orchestrate uninstall-hooks`.\n"
    )
    if protocol != LEGACY:
        # Strict: any non-zero exit blocks, a crash of the interpreter included.
        return head + f'exec {py} -m orchestrator.cli.main gate {event} "$@"\n'
    # legacy-v1 blocks only with exit 2 and fails open on everything else, even a
    # gate that could not start (a missing interpreter, an import error): said, never
    # a certified pass.
    return head + (
        f'{py} -m orchestrator.cli.main compat legacy-v1 gate {event} "$@"\n'
        "rc=$?\n"
        'if [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ]; then exit "$rc"; fi\n'
        f'echo "orchestrate legacy-v1 gate {event}: UNVERIFIED: the gate failed (exit $rc);'
        ' legacy-v1 fails open, nothing was certified" >&2\n'
        "exit 0\n"
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
    """Write the hooks of `protocol` into `hooks`; refuse a foreign hook among them unless
    `force`. A hook of ours the protocol does not install (a strict commit-msg under
    legacy-v1) is removed; a foreign one is never touched. Returns messages."""
    wanted = PROTOCOL_HOOKS[protocol]
    foreign = [n for n in wanted if (hooks / n).exists() and not is_ours(hooks / n)]
    if foreign and not force:
        raise UsageError(
            f"refusing to overwrite existing hook(s) not installed by orchestrate: "
            f"{', '.join(str(hooks / n) for n in foreign)} (use --force to replace them)"
        )
    done = []
    for name, event in wanted.items():
        atomic_write(hooks / name, hook_script(event, protocol).encode(), mode=0o755)
        done.append(f"installed {hooks / name} ({protocol})")
    for name in HOOKS.keys() - wanted.keys():
        path = hooks / name
        if path.exists() and is_ours(path):
            path.unlink()
            done.append(f"removed {path}: the {protocol} protocol has no {HOOKS[name]} gate")
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
    p.add_argument(
        "--protocol",
        choices=tuple(PROTOCOL_HOOKS),
        default="strict",
        help="strict (default) or the fail-open legacy-v1 (no commit-msg hook)",
    )
    p.set_defaults(func=cmd_install)
    u = subparsers.add_parser("uninstall-hooks", help="remove the hooks orchestrate installed")
    u.set_defaults(func=cmd_uninstall)
