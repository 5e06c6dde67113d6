"""An orchestrate checker plugin that wraps yamllint (example of a third-party plugin).

Registered through the ``orchestrate`` entry-point group in this package's
pyproject.toml. One yamllint process per batch of files (`-f parsable`), staged
content over stdin, everything under the run's deadline and output budget.

yamllint runs only under the project's own configuration (`.yamllint`,
`.yamllint.yaml` or `.yamllint.yml` at the project root): its built-in defaults are
not the project's rules (a line-length limit on every generated YAML file), so a
project without one gets `configuration_required` and the syntax fallback.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import re
import sys
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

# The one module a plugin imports from: it stays put when orchestrate's internals move.
from orchestrator.api import (
    Batch,
    CheckerPlan,
    FileOutcome,
    FileTarget,
    Finding,
    Probe,
    ProcResult,
    ReuseIdentity,
    RunContext,
    ScopeStatus,
    Severity,
    Tier,
    ToolIdentity,
    Unparsable,
    fingerprint,
    hookimpl,
    one_line,
    outcome_for_all,
    outcome_from,
    run_bounded,
)

NAME = "yamllint"
SUFFIXES = (".yaml", ".yml")
CONFIG_NAMES = (".yamllint", ".yamllint.yaml", ".yamllint.yml")
MAX_BATCH = 400
NO_CONFIG = "no yamllint config (.yamllint, .yamllint.yaml or .yamllint.yml) at the project root"
CONFIG_HINT = "add .yamllint.yaml with the project's rules (extends: default, or relaxed)"
# path:line:column: [level] message (rule)
_LINE = re.compile(r"^(?P<path>.*):(?P<line>\d+):(?P<col>\d+): \[(?P<level>\w+)\] (?P<msg>.*)$")
_RULE = re.compile(r"\s\((?P<rule>[\w-]+)\)$")
#: A config line that makes yamllint read another file (a local `extends`, ignores
#: from a file): the reuse identity would not hold those bytes.
_READS_OTHER = re.compile(
    r"^[ \t]*(?:extends[ \t]*:[ \t]*+(?!['\"]?(?:default|relaxed)['\"]?[ \t]*(?:#.*)?$)"
    r"|ignore-from-file[ \t]*:)",
    re.MULTILINE,
)


def project_config(root: Path) -> Path | None:
    """The project's yamllint config at `root`, or None when it has none."""
    return next((root / n for n in CONFIG_NAMES if (root / n).is_file()), None)


def _version() -> str | None:
    try:
        return importlib.metadata.version("yamllint")
    except importlib.metadata.PackageNotFoundError:
        return None


class YamllintChecker:
    """Native YAML lint evidence from yamllint."""

    name = NAME
    tier = Tier.NATIVE
    languages = frozenset({"yaml"})
    #: The files that say the project uses yamllint: a strict gate copies them from the
    #: judged surface into its private tree, so the gate runs under the same rules.
    config_names = CONFIG_NAMES
    #: It runs only under one of those files at the project root (its built-in
    #: defaults are not the project's rules): without one, YAML asks no yamllint
    #: evidence of a gate and the syntax fallback judges it.
    config_required = True
    #: yamllint counts columns in characters (Python `str` indices).
    column_unit = "codepoint"

    def probe(self, root: Path) -> Probe:
        """yamllint installed beside orchestrate? a project config at the root (without
        one it does not run: configuration_required)?"""
        version = _version()
        configs = tuple(n for n in CONFIG_NAMES if (root / n).is_file())
        return Probe(
            found=version is not None,
            tool_path=f"{sys.executable} -m yamllint" if version else None,
            version=version,
            configured=bool(configs),
            config_files=configs,
            needs_config=True,
            hint="pip install yamllint" if not version else None if configs else CONFIG_HINT,
        )

    def claims(self, target: FileTarget) -> bool:
        if target.language is not None:  # detection by content (MiniYAML is not YAML)
            return target.language == "yaml"
        return PurePosixPath(target.path).suffix in SUFFIXES

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        """No project config: configuration_required; no yamllint: missing (both fall
        back to the syntax check); else one batch of files on disk, one stdin run per
        staged file."""
        if project_config(ctx.project_root) is None:
            settled = outcome_for_all(
                self,
                targets,
                ScopeStatus.CONFIGURATION_REQUIRED,
                NO_CONFIG,
                hint=CONFIG_HINT,
                falls_back=True,
            )
            return CheckerPlan(settled=tuple(settled))
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

    def reuse_identity(self, batch: Batch, ctx: RunContext) -> ReuseIdentity | None:
        """yamllint's version and the bytes of every config name at the project root (it
        reads the first of them); None (never reused) when the config reads another file."""
        digest = hashlib.sha256()
        for name in CONFIG_NAMES:
            try:
                data = (ctx.project_root / name).read_bytes()
            except FileNotFoundError:
                data = b"<none>"
            except OSError:
                return None
            if _READS_OTHER.search(data.decode("utf-8", "replace")):
                return None
            digest.update(name.encode() + b"\0" + data + b"\0")
        return ReuseIdentity(tool=batch.data, config_digest=digest.hexdigest()[:16])

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
        return outcome_from(
            res,
            batch.targets,
            checker=NAME,
            label=NAME,
            parse=lambda r: self._parse(batch, r, ident, stdin is not None),
            # 1: errors found, 2: warnings under --strict; exit 0 and silence is clean.
            exits=(0, 1, 2),
            quiet_ok=True,
            tool=ident,
        )

    def _parse(
        self, batch: Batch, res: ProcResult, ident: ToolIdentity, from_stdin: bool
    ) -> list[FileOutcome]:
        """`-f parsable` lines -> findings; any other line, or a finding exit code
        without a finding, is not yamllint's promised output."""
        per_path: dict[str, list[Finding]] = {t.path: [] for t in batch.targets}
        for raw in res.stdout.decode("utf-8").splitlines():
            m = _LINE.match(raw)
            if m is None:
                if raw.strip():
                    raise Unparsable(f"unparsable output line: {one_line(raw, 80)}")
                continue
            path = batch.targets[0].path if from_stdin else m["path"]
            if path in per_path:
                per_path[path].append(self._finding(path, m))
        if res.returncode != 0 and not any(per_path.values()):
            raise Unparsable("a finding exit code without any finding")
        return [
            FileOutcome(
                path=t.path,
                checker=NAME,
                status=ScopeStatus.CHECKED,
                findings=tuple(per_path[t.path]),
                coherent=True,
                language=t.language,
                tool=ident,
                exit_code=res.returncode,
                duration_ms=res.duration_ms,
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
