"""The built-in checker recipes (`plugins/recipes/*.toml`): shellcheck, hadolint, yamllint,
codespell, mypy, cppcheck, go-vet, markdownlint-cli2, prettier, ruff-format, sqlfluff,
taplo.

Each recipe is data (orchestrator/checkers/recipe_format); `recipe_hook` turns every
one into a `CommandChecker` through the one factory, so they run, time out, are killed,
bounded, reused and versioned like every command checker. What data cannot say:
ruff-format's tool, the very Ruff the native Ruff checker runs (`RuffFormatChecker`),
and taplo's report, diagnostics that span lines (`TaploChecker`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from orchestrate_plugins._ruff_tool import INSTALL_HINT, select_tool
from orchestrate_plugins._taplo_output import project_root, taplo_findings

from orchestrator.api import (
    CommandTool,
    FileTarget,
    Finding,
    ProcResult,
    RecipeChecker,
    RunContext,
    ToolIdentity,
    recipe_hook,
)


class RuffFormatChecker(RecipeChecker):
    """The ruff-format recipe, run by the Ruff the native Ruff checker selects (its
    `[tools] ruff` path, the project's own `.venv/bin/ruff` outside strict gates, the
    one beside orchestrate, PATH): never a second Ruff."""

    def _locate(self, ctx: RunContext) -> tuple[CommandTool | None, str]:
        """(the Ruff to run, where it came from) or (None, why it is missing)."""
        tool = select_tool(ctx.project_root, self._explicit(ctx), ctx)
        if tool is None:
            return None, "ruff not found (the Ruff checker's lookup)"
        return CommandTool((tool,), ToolIdentity(path=tool), "the Ruff checker's Ruff"), ""

    def _install_hint(self) -> str:
        """Ruff's own install hint: ruff-format installs nothing of its own."""
        return INSTALL_HINT


class TaploChecker(RecipeChecker):
    """The taplo recipe, whose report plugins/_taplo_output.py reads."""

    def parse(
        self, res: ProcResult, targets: Sequence[FileTarget], from_stdin: bool
    ) -> Mapping[str, Sequence[Finding]]:
        """`taplo fmt --check`'s findings per file (plugins/_taplo_output.py)."""
        return taplo_findings(res, project_root(targets))


orchestrate_checkers = recipe_hook(
    "orchestrate_plugins.recipes",
    bases={"ruff-format": RuffFormatChecker, "taplo": TaploChecker},
)
