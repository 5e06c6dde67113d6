"""The built-in checker recipes (`plugins/recipes/*.toml`): shellcheck, hadolint, yamllint,
codespell, mypy, cppcheck, go-vet, markdownlint-cli2, prettier.

Each recipe is data (orchestrator/checkers/recipe_format); `recipe_hook` turns every
one into a `CommandChecker` through the one factory, so they run, time out, are killed,
bounded, reused and versioned like every command checker.
"""

from __future__ import annotations

from orchestrator.api import recipe_hook

orchestrate_checkers = recipe_hook("orchestrate_plugins.recipes")
