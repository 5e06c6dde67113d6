"""The built-in checker recipes (`plugins/recipes/*.toml`): shellcheck, hadolint, yamllint,
codespell, mypy, cppcheck, go-vet, markdownlint-cli2, prettier, ruff-format, sqlfluff,
stylelint, taplo.

Each recipe is data (orchestrator/checkers/recipe_format); `recipe_hook` turns every
one into a `CommandChecker` through the one factory, so they run, time out, are killed,
bounded, reused and versioned like every command checker. What data cannot say:
ruff-format's tool, the very Ruff the native Ruff checker runs (`RuffFormatChecker`),
and taplo's report, diagnostics that span lines (`TaploChecker`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace

from orchestrate_plugins import _ruff_format, _taplo_files
from orchestrate_plugins._ruff_tool import INSTALL_HINT, select_tool
from orchestrate_plugins._taplo_files import glob_literal
from orchestrate_plugins._taplo_output import project_root, taplo_findings

from orchestrator.api import (
    Batch,
    CommandTool,
    FileOutcome,
    FileTarget,
    Finding,
    ProcResult,
    RecipeChecker,
    RunContext,
    ScopeStatus,
    ToolIdentity,
    outcome_from,
    recipe_hook,
    run_bounded,
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

    def unjudged(
        self, res: ProcResult, targets: Sequence[FileTarget], from_stdin: bool
    ) -> Mapping[str, tuple[ScopeStatus, str]]:
        """The files Ruff's `-v` log says it did not format: its config excludes them
        (plugins/_ruff_format.py): `not_run`."""
        skipped = _ruff_format.left_out(res, targets, project_root(targets))
        return {path: (ScopeStatus.NOT_RUN, why) for path, why in skipped.items()}

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        """The recipe's run; then, of the files it checked under a config that sets
        `include`, those Ruff's listing of their folders leaves out are `not_run`, as
        `ruff format --check .` skips them (plugins/_ruff_format.py)."""
        outs = super().run(batch, ctx)
        checked = {o.path for o in outs if o.status == ScopeStatus.CHECKED}
        asked = [t for t in batch.targets if t.path in checked]
        narrowed = _ruff_format.narrowed(asked, ctx.project_root)
        if not narrowed:
            return outs
        tool: CommandTool = batch.data.tool
        ident = next(o.tool for o in outs if o.path == narrowed[0].path) or tool.identity
        env = self.tool_env(ctx)
        listed = _ruff_format.not_included(tool.argv[0], narrowed, ctx, env, ident)
        settled = {o.path: o for o in listed}
        return [settled.get(o.path, o) for o in outs]


class TaploChecker(RecipeChecker):
    """The taplo recipe, whose report plugins/_taplo_output.py reads, and whose files
    are those taplo itself judges (plugins/_taplo_files.py)."""

    def path_words(self, targets: Sequence[FileTarget]) -> list[str]:
        """Each path as the glob pattern that matches that file only: taplo reads its
        arguments as patterns."""
        return [glob_literal(p) for p in super().path_words(targets)]

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        """The recipe's run over the files taplo judges; where the root config sets
        `include`/`exclude`, those it leaves out (taplo's own count) are `not_run`, and
        still get their syntax verdict from the fallback (TOML's exact parser)."""
        tool: CommandTool = batch.data.tool
        patterns = _taplo_files.walk_patterns(ctx.project_root)
        unfound = [
            self._not_run(t, _taplo_files.NOT_FOUND, tool)
            for t in batch.targets
            if patterns is not None and not _taplo_files.walk_finds(t.path, patterns)
        ]
        if unfound:
            said = {o.path for o in unfound}
            batch = replace(batch, targets=tuple(t for t in batch.targets if t.path not in said))
            return unfound + (self.run(batch, ctx) if batch.targets else [])
        if not _taplo_files.selects(ctx.project_root):
            return super().run(batch, ctx)
        env = {**(self.tool_env(ctx) or os.environ), "RUST_LOG": "info"}
        failed: list[FileOutcome] = []

        def count(targets: Sequence[FileTarget]) -> int | None:
            for _ in range(_taplo_files.ATTEMPTS):
                res = run_bounded(
                    self.command(tool, targets, False),
                    deadline=ctx.deadline,
                    cwd=ctx.project_root,
                    env=env,
                    output_budget=ctx.output_budget,
                )
                if not _taplo_files.count_lost(res):
                    break
            said: list[int] = []

            def parse(r: ProcResult) -> list[FileOutcome]:
                said.append(_taplo_files.excluded_count(r, len(targets)))
                return []

            failed.extend(
                outcome_from(
                    res, batch.targets, checker=self.name, label=f"{self.name} (its file count)",
                    parse=parse, exits=self.exits, quiet_ok=False, tool=tool.identity,
                )
            )  # fmt: skip
            return said[0] if said else None

        skipped = _taplo_files.excluded(batch.targets, count)
        if skipped is None:
            return failed[: len(batch.targets)]
        kept = tuple(t for t in batch.targets if t.path not in skipped)
        outs = super().run(replace(batch, targets=kept), ctx) if kept else []
        return outs + [
            self._not_run(t, _taplo_files.EXCLUDED, tool)
            for t in batch.targets
            if t.path in skipped
        ]

    def _not_run(self, t: FileTarget, reason: str, tool: CommandTool) -> FileOutcome:
        """A file taplo run from the root would not judge: `not_run`, and the fallback
        (TOML's exact parser) still gives its syntax verdict."""
        return FileOutcome(
            path=t.path,
            checker=self.name,
            status=ScopeStatus.NOT_RUN,
            reason=reason,
            language=t.language,
            tool=tool.identity,
            falls_back=True,
        )

    def parse(
        self, res: ProcResult, targets: Sequence[FileTarget], from_stdin: bool
    ) -> Mapping[str, Sequence[Finding]]:
        """`taplo fmt --check`'s findings per file (plugins/_taplo_output.py)."""
        return taplo_findings(res, project_root(targets), targets)


orchestrate_checkers = recipe_hook(
    "orchestrate_plugins.recipes",
    bases={"ruff-format": RuffFormatChecker, "taplo": TaploChecker},
)
