"""The `orchestrate` console script: a `lint` goes to the warm engine before the CLI loads.

`orchestrator.cli.main` imports argparse and the exit decisions (dataclasses, and with
it inspect): more than the whole warm client. So the console script asks the engine
first (server/client.try_warm, standard library and platformdirs only) and imports the
CLI only when the check must run in-process, telling it the engine was already asked.
`hook HOST` goes straight to the outer guard of the host entries (hosts/guard.py), so
that a fault anywhere, the CLI's own loading included, still ends in the host's refusal.
`lsp` goes to the language server's front door (lsp/front.py), which answers the
editor's `initialize` before argparse or the server load. Every other command, and a
command line from a hook, goes straight to the CLI.
"""

from __future__ import annotations

import sys


def main() -> int:
    """Entry point of the console script. Returns the process exit code."""
    argv = sys.argv[1:]
    if len(argv) == 2 and argv[0] == "hook":
        from orchestrator.hosts.guard import REFUSALS, answer

        if argv[1] in REFUSALS:
            return answer(argv[1])
    if argv[:1] == ["lsp"] and set(argv[1:]) <= {"--stdio"}:
        from orchestrator.cli.lsp import front_door

        served = front_door()
        if served is not None:
            return served
    if argv[:1] == ["lint"] and "--from-hook" not in argv:
        from orchestrator.server import client

        code = client.try_warm(argv)
        if code is not None:
            return code
        client.ASKED = True  # the CLI below must not ask (and say why) a second time
    from orchestrator.cli.main import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
