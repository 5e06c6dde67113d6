"""Which Ruff runs: the one lookup the native Ruff checker and the ruff-format recipe
share (an explicit machine `[tools] ruff` path, the project's own untracked
`.venv/bin/ruff` outside strict gates, the Ruff installed beside orchestrate, PATH), so
both judge a project with the very same binary.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from orchestrator.api import RunContext, find_tool, interpreter_bin_dir, tool_refusal

NAME = "ruff"
INSTALL_HINT = "install Ruff (pip install ruff) or set ORCHESTRATE_TOOL_RUFF=/abs/path"
#: Where a project keeps its own Ruff: its virtualenv under the project root.
PROJECT_RUFF = Path(".venv") / "bin" / NAME


def project_ruff(root: Path, ctx: RunContext | None = None) -> str | None:
    """The project's own Ruff (`.venv/bin/ruff` under the root) when it is executable
    and, for a run, `tool_refusal` allows it (never tracked, never at a strict gate)."""
    cand = root / PROJECT_RUFF
    if not (cand.is_file() and os.access(cand, os.X_OK)):
        return None
    return str(cand) if ctx is None or tool_refusal(str(cand), ctx) is None else None


def select_tool(root: Path, override: str | None, ctx: RunContext | None = None) -> str | None:
    """The Ruff to run: an explicit machine `[tools] ruff` path, else the project's own
    (its untracked `.venv`, not at a strict gate), else the one installed beside
    orchestrate, else PATH's; for a run (`ctx`) only one `tool_refusal` allows."""
    refuse = None if ctx is None else functools.partial(tool_refusal, ctx=ctx)
    if override is not None:
        return find_tool(NAME, override=override, refuse=refuse)
    own = project_ruff(root, ctx)
    return own or find_tool(NAME, extra_dirs=[interpreter_bin_dir()], refuse=refuse)
