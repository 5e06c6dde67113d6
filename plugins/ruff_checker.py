"""Ruff: the native Python checker.

One `ruff check --output-format json` process per batch (files sharing their nearest
Ruff config), never one per file, except for staged/committed content, which goes
over stdin with `--stdin-filename`. Config discovery follows CG-30: only the selected
files' ancestor folders inside the project root are looked at, nearest config wins,
nothing is enumerated.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections import defaultdict
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from orchestrate_plugins._common import (
    cached_version,
    digest_files,
    find_tool,
    interpreter_bin_dir,
    line_starts,
    offset_of,
    tool_version,
)

from orchestrator.api import (
    Anchor,
    Batch,
    CheckerPlan,
    FileOutcome,
    FileTarget,
    Finding,
    Probe,
    ProcResult,
    ReplaceText,
    RunContext,
    ScopeStatus,
    Severity,
    Tier,
    ToolIdentity,
    Unparsable,
    derive_safety_tier,
    fingerprint,
    hookimpl,
    outcome_for_all,
    outcome_from,
    run_bounded,
)

NAME = "ruff"
CONFIG_NAMES = ("ruff.toml", ".ruff.toml", "pyproject.toml")
PY_SUFFIXES = (".py", ".pyi")
INSTALL_HINT = "install Ruff (pip install ruff) or set [tool.orchestrate.tools] ruff = '/abs/path'"


def _has_ruff_section(path: Path) -> bool | None:
    """True/False for a pyproject.toml with/without [tool.ruff]; None when unreadable."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return isinstance(data.get("tool", {}).get("ruff"), dict)


class ConfigProblem(Exception):
    pass


def nearest_config(root: Path, rel_path: str, cache: dict[Path, Path | None]) -> Path | None:
    """The nearest Ruff config among the file's ancestors inside `root` (CG-30).

    Looks only at the three candidate names in each ancestor folder: no listing. A
    candidate that exists but cannot be read raises ConfigProblem (reported, not hidden).
    """
    folder = (root / rel_path).parent
    chain: list[Path] = []
    while True:
        if folder in cache:
            found = cache[folder]
            break
        chain.append(folder)
        found = None
        for name in CONFIG_NAMES:
            cand = folder / name
            if not cand.is_file():
                continue
            try:
                real = cand.resolve(strict=True)
            except OSError as exc:
                raise ConfigProblem(f"config {cand.relative_to(root)}: cannot resolve") from exc
            if not real.is_relative_to(root):
                raise ConfigProblem(f"config {cand.relative_to(root)} links outside the root")
            if name == "pyproject.toml":
                has = _has_ruff_section(cand)
                if has is None:
                    raise ConfigProblem(f"config {cand.relative_to(root)} is unreadable")
                if not has:
                    continue
            else:
                try:
                    cand.read_bytes()
                except OSError as exc:
                    raise ConfigProblem(f"config {cand.relative_to(root)} is unreadable") from exc
            found = cand
            break
        if found is not None or folder == root or not folder.is_relative_to(root):
            break
        folder = folder.parent
    for f in chain:
        cache[f] = found
    return found


def _severity(item: dict[str, Any]) -> tuple[Severity, str | None]:
    raw = item.get("severity")
    raw_s = str(raw).lower() if raw is not None else None
    if raw_s == "warning":
        return Severity.WARNING, raw_s
    if raw_s == "info":
        return Severity.INFO, raw_s
    return Severity.ERROR, raw_s


def _fix_edit(
    item: dict[str, Any], text: str | None, starts: list[int] | None = None
) -> dict[str, Any]:
    """Map Ruff's fix to one replace-text exact_edit plus its derived tier.

    `starts` are the text's line starts when the caller already has them (one
    computation per file, not per finding)."""
    fix = item.get("fix")
    if not isinstance(fix, dict) or not fix.get("edits") or text is None:
        return {}
    edits = sorted(fix["edits"], key=lambda e: (e["location"]["row"], e["location"]["column"]))
    if starts is None:
        starts = line_starts(text)
    first, last = (
        edits[0]["location"],
        max((e["end_location"] for e in edits), key=lambda p: (p["row"], p["column"])),
    )
    begin = offset_of(starts, text, first["row"], first["column"])
    end = offset_of(starts, text, last["row"], last["column"])
    pieces: list[str] = []
    cursor = begin
    for e in edits:
        s = offset_of(starts, text, e["location"]["row"], e["location"]["column"])
        t = offset_of(starts, text, e["end_location"]["row"], e["end_location"]["column"])
        if s < cursor:  # overlapping edits: not one exact edit
            return {}
        pieces.append(text[cursor:s])
        pieces.append(e.get("content") or "")
        cursor = t
    pieces.append(text[cursor:end])
    applicability = str(fix.get("applicability") or "unspecified")
    # A fix that is not "safe" may change behaviour: that loses the program's current
    # behaviour, which is kept nowhere else, so it counts as destructive.
    destructive = applicability != "safe"
    end_row = max(
        first["row"], last["row"] - (1 if last["column"] == 1 and last["row"] > first["row"] else 0)
    )
    return {
        "exact_edit": ReplaceText(
            kind="replace-text",
            anchor=Anchor(start_line=first["row"], end_line=end_row),
            match=text[begin:end],
            replacement="".join(pieces),
            start_column=first["column"],
            end_column=last["column"],
        ),
        "op_type": "deterministic",
        "is_destructive": destructive,
        "is_reversible": True,
        "safety_tier": derive_safety_tier("deterministic", destructive, True),
        "fix_applicability": applicability,
    }


def _wheel_version(tool: str) -> str | None:
    """The wheel's metadata version when `tool` is the Ruff installed beside us."""
    if Path(tool) == interpreter_bin_dir() / NAME:
        try:
            return f"ruff {metadata.version('ruff')}"
        except metadata.PackageNotFoundError:
            pass
    return None


def _ruff_version(tool: str, ctx: RunContext) -> str | None:
    """Ruff's version; the wheel's metadata when the tool is the one installed beside us
    (saves a process on the save-feedback path), else `ruff --version`."""
    return _wheel_version(tool) or tool_version(tool, deadline=ctx.deadline)


def _root_configured(root: Path) -> tuple[str, ...]:
    """Ruff config files directly in `root` (a pyproject.toml only with [tool.ruff])."""
    found = []
    for name in CONFIG_NAMES:
        cand = root / name
        if cand.is_file() and (name != "pyproject.toml" or _has_ruff_section(cand)):
            found.append(name)
    return tuple(found)


#: Ruff spreads one invocation over every core itself, so fewer, larger batches beat
#: several processes competing for the same cores. Limits: the argv stays far below
#: the platform limit (ARG_MAX), and a batch shares one output budget (8 MiB by
#: default: about 4 KiB of JSON findings per file at 2,000 files).
ARGV_BUDGET = 128 * 1024
MAX_BATCH_FILES = 2000


def _argv_chunks(targets: Sequence[FileTarget]) -> list[tuple[FileTarget, ...]]:
    """Consecutive chunks of `targets` whose paths fit in ARGV_BUDGET bytes."""
    chunks: list[tuple[FileTarget, ...]] = []
    current: list[FileTarget] = []
    used = 0
    for t in targets:
        size = len(t.path.encode("utf-8", "surrogateescape")) + 1
        if current and (used + size > ARGV_BUDGET or len(current) >= MAX_BATCH_FILES):
            chunks.append(tuple(current))
            current, used = [], 0
        current.append(t)
        used += size
    if current:
        chunks.append(tuple(current))
    return chunks


class RuffChecker:
    """Native Python lint and syntax evidence from Ruff."""

    name = NAME
    tier = Tier.NATIVE
    languages = frozenset({"python"})

    def claims(self, target: FileTarget) -> bool:
        return target.language == "python" or target.path.endswith(PY_SUFFIXES)

    def probe(self, root: Path) -> Probe:
        """The Ruff a run would use (no override known here) and the root's config."""
        tool = find_tool(NAME, extra_dirs=[interpreter_bin_dir()])
        configs = _root_configured(root)
        return Probe(
            found=tool is not None,
            tool_path=tool,
            version=(_wheel_version(tool) or cached_version(tool)) if tool else None,
            configured=bool(configs),
            config_files=configs,
            hint=None if tool else INSTALL_HINT,
        )

    def _tool(self, ctx: RunContext) -> str | None:
        override = ctx.tool_overrides.get(NAME)
        if override is not None:
            return find_tool(NAME, override=override)
        return find_tool(NAME, extra_dirs=[interpreter_bin_dir()])

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        if not targets:
            return CheckerPlan()
        tool = self._tool(ctx)
        if tool is None:
            return CheckerPlan(
                settled=tuple(
                    outcome_for_all(
                        self,
                        targets,
                        ScopeStatus.MISSING,
                        "ruff not found",
                        hint=INSTALL_HINT,
                        falls_back=True,
                    )
                )
            )
        ident = ToolIdentity(path=tool, version=_ruff_version(tool, ctx))
        root = ctx.project_root
        cache: dict[Path, Path | None] = {}
        groups: dict[Path | None, list[FileTarget]] = defaultdict(list)
        settled: list[FileOutcome] = []
        for t in targets:
            try:
                cfg = nearest_config(root, t.path, cache)
            except ConfigProblem as exc:
                settled.append(
                    FileOutcome(
                        path=t.path,
                        checker=NAME,
                        status=ScopeStatus.TOOL_ERROR,
                        reason=str(exc),
                        tool=ident,
                        language=t.language,
                    )
                )
                continue
            groups[cfg].append(t)
        batches: list[Batch] = []
        for cfg, members in sorted(groups.items(), key=lambda kv: str(kv[0])):
            disk = [t for t in members if t.on_disk]
            staged = [t for t in members if not t.on_disk]
            data = {"tool": tool, "ident": ident, "config": cfg}
            for chunk in _argv_chunks(disk):
                batches.append(Batch(chunk, data, label=f"ruff:{cfg}"))
            for t in staged:
                batches.append(Batch((t,), data, label=f"ruff-stdin:{t.path}"))
        return CheckerPlan(batches=tuple(batches), settled=tuple(settled))

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        tool: str = batch.data["tool"]
        ident: ToolIdentity = batch.data["ident"]
        cfg: Path | None = batch.data["config"]
        root = ctx.project_root
        argv = [tool, "check", "--output-format", "json", "--no-cache", "--exit-zero"]
        argv += ["--config", str(cfg)] if cfg is not None else ["--isolated"]
        cfg_digest = digest_files([cfg] if cfg else [])
        cfg_files = (cfg.relative_to(root).as_posix(),) if cfg else ()
        common = {"tool": ident, "config_digest": cfg_digest, "config_files": cfg_files}
        stdin = None
        if len(batch.targets) == 1 and not batch.targets[0].on_disk:
            t = batch.targets[0]
            argv += ["--stdin-filename", t.path, "-"]
            stdin = t.content or b""
        else:
            argv += ["--", *[t.path for t in batch.targets]]
        res = run_bounded(
            argv,
            deadline=ctx.deadline,
            stdin=stdin,
            cwd=root,
            output_budget=ctx.output_budget,
            env=ctx.env,
        )
        return outcome_from(
            res,
            batch.targets,
            checker=NAME,
            label=NAME,
            parse=lambda r: self._parse(batch, r, root, common),
            **common,
        )

    def _parse(
        self, batch: Batch, res: ProcResult, root: Path, common: dict[str, Any]
    ) -> list[FileOutcome]:
        """Ruff's JSON list (always printed, `[]` when clean) -> one outcome per target."""
        items = json.loads(res.stdout.decode("utf-8"))
        if not isinstance(items, list):
            raise Unparsable("unparsable output: not a JSON list")
        by_path: dict[str, list[dict[str, Any]]] = defaultdict(list)
        # A string prefix test (as lexical as Path.relative_to) instead of pathlib per
        # item: a batch can hold thousands of findings.
        prefix = str(root).rstrip(os.sep) + os.sep
        for item in items:
            if not isinstance(item, dict):
                continue
            fname = str(item.get("filename", ""))
            rel = fname[len(prefix) :].replace(os.sep, "/") if fname.startswith(prefix) else fname
            by_path[rel].append(item)
        outcomes: list[FileOutcome] = []
        for t in batch.targets:
            findings = self._findings(t, by_path.get(t.path, []))
            outcomes.append(
                FileOutcome(
                    path=t.path,
                    checker=NAME,
                    status=ScopeStatus.CHECKED,
                    findings=tuple(findings),
                    exit_code=res.returncode,
                    duration_ms=res.duration_ms,
                    coherent=True,
                    language=t.language,
                    **common,
                )
            )
        return outcomes

    def _findings(self, target: FileTarget, items: list[dict[str, Any]]) -> list[Finding]:
        if not items:
            return []
        try:
            text: str | None = target.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            text = None
        # Split and index the text once per file, not once per finding.
        lines = text.splitlines() if text is not None else []
        starts = line_starts(text) if text is not None else None
        out: list[Finding] = []
        for item in items:
            loc = item.get("location") or {}
            end = item.get("end_location") or {}
            code = item.get("code") or "invalid-syntax"
            sev, raw = _severity(item)
            line = loc.get("row") or 1
            anchor = ""
            if text is not None:
                anchor = lines[line - 1].strip() if 0 < line <= len(lines) else ""
            out.append(
                Finding(
                    checker=NAME,
                    rule=str(code),
                    severity=sev,
                    tool_severity=raw,
                    path=target.path,
                    line=line,
                    column=loc.get("column") or None,
                    end_line=end.get("row") or None,
                    end_column=end.get("column") or None,
                    message=str(item.get("message", "")),
                    blocking=True,
                    fingerprint=fingerprint(NAME, str(code), target.path, anchor),
                    **_fix_edit(item, text, starts),
                )
            )
        return out


@hookimpl
def orchestrate_checkers() -> list[Any]:
    return [RuffChecker()]
