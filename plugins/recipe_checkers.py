"""The built-in checker recipes (`plugins/recipes/*.toml`): shellcheck, hadolint, yamllint,
codespell, mypy, ruff-format, sqlfluff.

Each recipe is data (orchestrator/checkers/recipe_format); `recipe_hook` turns every
one into a `CommandChecker` through the one factory, so they run, time out, are killed,
bounded, reused and versioned like every command checker. The one thing data cannot
say is ruff-format's tool: the very Ruff the native Ruff checker runs
(`RuffFormatChecker`).
"""

from __future__ import annotations

from orchestrate_plugins._ruff_tool import INSTALL_HINT, select_tool

from orchestrator.api import CommandTool, RecipeChecker, RunContext, ToolIdentity, recipe_hook


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


orchestrate_checkers = recipe_hook(
    "orchestrate_plugins.recipes", bases={"ruff-format": RuffFormatChecker}
)
