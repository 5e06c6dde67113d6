"""An orchestrate checker plugin that wraps yamllint (example of a third-party plugin).

Registered through the ``orchestrate`` entry-point group in this package's
pyproject.toml. One yamllint process per batch of files (`-f parsable`), staged
content over stdin, everything under the run's deadline and output budget.
"""

from __future__ import annotations

import importlib.metadata
import re
import sys
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any

from orchestrator.core.checker import (
    Batch,
    CheckerPlan,
    FileOutcome,
    FileTarget,
    RunContext,
    one_line,
    outcome_for_all,
)
from orchestrator.core.hookspecs import hookimpl
from orchestrator.core.report import Finding, ToolIdentity, fingerprint
from orchestrator.procs import run_bounded
from orchestrator.vocab import ScopeStatus, Severity, Tier

NAME = "yamllint"
SUFFIXES = (".yaml", ".yml")
MAX_BATCH = 400
# path:line:column: [level] message (rule)
_LINE = re.compile(r"^(?P<path>.*):(?P<line>\d+):(?P<col>\d+): \[(?P<level>\w+)\] (?P<msg>.*)$")
_RULE = re.compile(r"\s\((?P<rule>[\w-]+)\)$")


def _version() -> str | None:
    try:
        return importlib.metadata.version("yamllint")
    except importlib.metadata.PackageNotFoundError:
        return None


class YamllintChecker:
    """Native YAML lint evidence from yamllint."""

    name = NAME
    tier = Tier.NATIVE

    def claims(self, target: FileTarget) -> bool:
        return target.language == "yaml" or PurePosixPath(target.path).suffix in SUFFIXES

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        version = _version()
        if version is None:
            settled = outcome_for_all(
                self,
                targets,
                ScopeStatus.MISSING,
                "yamllint is not installed in orchestrate's environment",
                hint="pip install yamllint",
                falls_back=True,
            )
            return CheckerPlan(settled=tuple(settled))
        ident = ToolIdentity(path=f"{sys.executable} -m yamllint", version=version)
        disk = [t for t in targets if t.on_disk]
        batches = [
            Batch(tuple(disk[i : i + MAX_BATCH]), ident, label="yamllint")
            for i in range(0, len(disk), MAX_BATCH)
        ]
        # Staged or committed bytes are not on disk: one stdin process each.
        batches += [
            Batch((t,), ident, label=f"yamllint:{t.path}") for t in targets if not t.on_disk
        ]
        return CheckerPlan(batches=tuple(batches))

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        ident: ToolIdentity = batch.data
        argv = [sys.executable, "-m", "yamllint", "-f", "parsable"]
        stdin = None
        if len(batch.targets) == 1 and not batch.targets[0].on_disk:
            stdin = batch.targets[0].content or b""
            argv.append("-")
        else:
            argv += ["--", *(t.path for t in batch.targets)]
        res = run_bounded(
            argv,
            deadline=ctx.deadline,
            stdin=stdin,
            cwd=ctx.project_root,
            env=ctx.env,
            output_budget=ctx.output_budget,
        )
        common: dict[str, Any] = {
            "tool": ident,
            "exit_code": res.returncode,
            "duration_ms": res.duration_ms,
        }
        if res.timed_out:
            return outcome_for_all(
                self, batch.targets, ScopeStatus.TIMED_OUT, "deadline reached", **common
            )
        if not res.ok or res.returncode not in (0, 1, 2):
            why = res.spawn_error or ("output over budget" if res.over_budget else "")
            why = why or f"yamllint exit {res.returncode}: {one_line(res.stderr)}"
            return outcome_for_all(self, batch.targets, ScopeStatus.TOOL_ERROR, why, **common)
        per_path: dict[str, list[Finding]] = {t.path: [] for t in batch.targets}
        for raw in res.stdout.decode("utf-8", "replace").splitlines():
            m = _LINE.match(raw)
            if m is None:
                continue
            path = batch.targets[0].path if stdin is not None else m["path"]
            if path not in per_path:
                continue
            per_path[path].append(self._finding(path, m))
        return [
            FileOutcome(
                path=t.path,
                checker=NAME,
                status=ScopeStatus.CHECKED,
                findings=tuple(per_path[t.path]),
                coherent=True,
                language=t.language,
                **common,
            )
            for t in batch.targets
        ]

    def _finding(self, path: str, m: re.Match[str]) -> Finding:
        msg = m["msg"]
        rule_m = _RULE.search(msg)
        rule = rule_m["rule"] if rule_m else "syntax"
        if rule_m:
            msg = msg[: rule_m.start()]
        severity = Severity.ERROR if m["level"] == "error" else Severity.WARNING
        return Finding(
            checker=NAME,
            rule=rule,
            severity=severity,
            tool_severity=m["level"],
            path=path,
            line=int(m["line"]) or None,
            column=int(m["col"]) or None,
            message=one_line(msg, 300),
            blocking=severity == Severity.ERROR,
            fingerprint=fingerprint(NAME, rule, path, msg.strip()),
        )


@hookimpl
def orchestrate_checkers() -> list[Any]:
    """The entry point's hook: this plugin provides one checker."""
    return [YamllintChecker()]
