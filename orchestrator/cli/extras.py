"""The optional parts of an install: the commands that need packages `lint` does not.

`orchestrate lsp` needs the `lsp` extra (pygls) and `orchestrate mcp` the `mcp` extra
(the MCP SDK), so a plain install, and the pre-commit lint hook's environment, holds
only what `lint` imports. Without its extra such a command ends with a usage error
naming the extra and the install, never an import traceback.
"""

from __future__ import annotations

import importlib.util

from orchestrator.errors import UsageError

#: extra -> the top-level modules it brings (pyproject.toml's optional dependencies).
EXTRAS: dict[str, tuple[str, ...]] = {"lsp": ("pygls", "lsprotocol"), "mcp": ("mcp",)}


def require_extra(extra: str, command: str) -> None:
    """Return when every module of `extra` is importable; else raise UsageError saying
    that `orchestrate COMMAND` needs the extra and how to install it."""
    missing = [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(
            f"`orchestrate {command}` needs the `{extra}` extra ({', '.join(missing)} not "
            f"installed): pip install 'orchestrate-lint[{extra}] @ <repository URL or wheel>'"
            ' (README, "Installed with pip, pipx or uv")'
        )
