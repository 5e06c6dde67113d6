"""`orchestrate doctor` and `orchestrate init`: what the project has and what it gets.

The doctor asks every loaded checker's side-effect-free `probe` for its tool (path,
version) and configuration, then lints the project once (no tasks, no baseline) and
says per language what its files got from that run: native evidence, syntax only, or
none, with the reason the report gives. It answers from the same core result as
`lint`, not from a table of its own. `init` writes a starter `orchestrate.toml` from
that answer.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.checkers.tools import probe_version
from orchestrator.core import plugin_host
from orchestrator.core.config import CONFIG_FILES, load_config
from orchestrator.core.engine import LintRequest
from orchestrator.deadline import Deadline
from orchestrator.decisions.coverage import is_checked
from orchestrator.decisions.required import level_for
from orchestrator.errors import UsageError
from orchestrator.model.report import Report, Scope
from orchestrator.safetext import printable
from orchestrator.usecases.lint import NO_TASKS, lint
from orchestrator.vocab import BASELINE_FILE, Tier

INIT_FILE = "orchestrate.toml"
#: Longest wait for a `TOOL --version` the run did not already answer.
VERSION_SECONDS = 5.0


@dataclass(frozen=True)
class ToolRow:
    """One checker: its tier, languages, tool found (path, version) and configuration."""

    checker: str
    tier: str
    languages: tuple[str, ...]
    found: bool | None
    tool_path: str | None
    version: str | None
    configured: bool
    config_files: tuple[str, ...]
    hint: str | None

    @property
    def state(self) -> str:
        """What the doctor says of the tool: `found V at P`, `not found`, `built in` (an
        in-process checker), or `not in use: WHY` when the checker said it applies to
        nothing here (RuboCop without a .rubocop.yml)."""
        if self.found is None:
            return f"not in use: {self.hint}" if self.hint else "built in"
        if self.found:
            return f"found {self.version or '(version unknown)'} at {self.tool_path}"
        return "not found"


@dataclass(frozen=True)
class LanguageRow:
    """One language in the tree: how many files got native, syntax-only or no evidence,
    the level the gates require of it, and why its files got less than native."""

    language: str
    files: int
    native: int
    syntax: int
    none: int
    required: str
    why: tuple[str, ...] = ()

    @property
    def met(self) -> str:
        """The strongest level every one of its files meets now: native only when the
        native checker checked them all, syntax when each got at least syntax."""
        if self.native == self.files:
            return "native"
        return "syntax" if self.none == 0 else "none"

    @property
    def proposed(self) -> str:
        """What `init` writes: the required level, lowered to what every file meets now
        (a level no file can meet would block the first commit the gates judge)."""
        order = ("none", "syntax", "native")
        if self.required not in order:
            return self.required
        return min(self.required, self.met, key=order.index)

    @property
    def gets(self) -> str:
        """native, syntax or none: what most of its files got (the weakest when tied)."""
        counts = {"native": self.native, "syntax": self.syntax, "none": self.none}
        return max(("none", "syntax", "native"), key=lambda k: counts[k])


@dataclass
class DoctorResult:
    tools: list[ToolRow] = field(default_factory=list)
    config_files: list[str] = field(default_factory=list)
    languages: list[LanguageRow] = field(default_factory=list)
    report: Report | None = None


def _tools(root: Path, plugins: plugin_host.PluginSet) -> list[ToolRow]:
    rows = []
    for c in plugins.checkers():
        p = c.probe(root)
        rows.append(
            ToolRow(
                checker=c.name,
                tier=str(c.tier),
                languages=tuple(sorted(c.languages)),
                found=p.found,
                tool_path=p.tool_path,
                version=p.version,
                configured=p.configured,
                config_files=tuple(p.config_files),
                hint=p.hint,
            )
        )
    return sorted(rows, key=lambda r: r.checker)


def ask_version(tool: str, root: Path) -> str | None:
    """The first line `TOOL --version` prints (as the checkers ask it), within
    VERSION_SECONDS, run from `root`; None when it fails. Through the checkers' own
    probe, so a tool asked once in this process (path and stamp unchanged) is not
    started again."""
    probe = probe_version(tool, Deadline.after(VERSION_SECONDS), cap=VERSION_SECONDS, cwd=root)
    return probe.version


def _why(scope: Scope) -> str:
    reason = scope.reason or ""
    hint = f" ({scope.hint})" if scope.hint else ""
    return f"{scope.checker} {scope.status}{': ' + reason if reason else ''}{hint}"


def _languages(report: Report, required: dict[str, str], native: set[str]) -> list[LanguageRow]:
    by_file: dict[str, list[Scope]] = {}
    for s in report.scopes:
        if s.tier != Tier.POLICY:
            by_file.setdefault(s.path, []).append(s)
    stats: dict[str, Counter[str]] = {}
    whys: dict[str, Counter[str]] = {}
    for scopes in by_file.values():
        lang = next((s.language for s in scopes if s.language), None) or "unrecognised"
        checked = {s.tier for s in scopes if is_checked(s)}
        got = "native" if Tier.NATIVE in checked else "syntax" if checked else "none"
        stats.setdefault(lang, Counter())[got] += 1
        if got != "native":
            for s in scopes:
                if not is_checked(s):
                    whys.setdefault(lang, Counter())[_why(s)] += 1
    rows = []
    for lang, c in sorted(stats.items()):
        why = tuple(f"{w} [{n} file(s)]" for w, n in whys.get(lang, Counter()).most_common(3))
        level = level_for(None if lang == "unrecognised" else lang, required, native)
        rows.append(
            LanguageRow(lang, sum(c.values()), c["native"], c["syntax"], c["none"], level, why)
        )
    return rows


def doctor(root: Path, timeout: float = 600.0) -> DoctorResult:
    """Probe every loaded checker and lint `root` once (no tasks, no baseline): the
    tools, the configuration files found, and per language what its files got."""
    root = root.resolve()
    plugins = plugin_host.load()
    tools = _tools(root, plugins)
    configs = sorted({f for t in tools for f in t.config_files} | _own_configs(root))
    req = LintRequest(project_root=root, cwd=root, plugins=plugins, timeout=timeout)
    report = lint(req, NO_TASKS, baseline=False).report
    required = dict(load_config(root).get("required", {}))
    # What the gates require: a checker that counts only under its config (yamllint,
    # a recipe) counts where the project has one at the root, as the gates count it.
    present = {n for n in plugins.config_names() if (root / n).is_file()}
    native = set(plugins.native_languages(present))
    # A probe that does not ask the tool its version: the run's scopes name it.
    ran = {s.checker: s.tool.version for s in report.scopes if s.tool and s.tool.version}
    tools = [
        dataclasses.replace(t, version=ran[t.checker]) if not t.version and t.checker in ran else t
        for t in tools
    ]
    # A tool the run did not start (ESLint without its config) is asked directly.
    tools = [
        dataclasses.replace(t, version=ask_version(t.tool_path, root))
        if t.found and t.tool_path and not t.version
        else t
        for t in tools
    ]
    return DoctorResult(tools, configs, _languages(report, required, native), report)


def _own_configs(root: Path) -> set[str]:
    out = set()
    for name in CONFIG_FILES:
        path = root / name
        if path.is_file() and (
            name != "pyproject.toml" or b"[tool.orchestrate" in path.read_bytes()
        ):
            out.add(name)
    if (root / BASELINE_FILE).is_file():
        out.add(BASELINE_FILE)
    return out


def starter_config(result: DoctorResult) -> str:
    """A starter `orchestrate.toml` for what the doctor found: the level each language
    in the tree can meet now (`LanguageRow.proposed`: the default, or lower where its
    native checker is not configured or runnable for every file), with a comment per
    language saying what its files get now, what is missing and how to raise it."""
    lines = [
        '# orchestrate configuration (README, "Configuration"), written by `orchestrate init`',
        "# from what it found. Edit freely; `orchestrate doctor` shows what each language gets.",
        "",
        "# Coverage the delivery gates require per language: native | syntax | none.",
        "[required]",
    ]
    for row in result.languages:
        if row.language == "unrecognised":
            continue
        now = f"{row.files} file(s): {row.native} native, {row.syntax} syntax only, {row.none} none"
        # Reasons carry tool and file text: escaped, so no line break leaves the comment.
        lines.append(printable(f"# {row.language}: {now}"))
        lines += [printable(f"#   not native: {why}") for why in row.why[:2]]
        if row.proposed != row.required:
            lines.append(f"#   {raise_hint(row)}")
        lines.append(f"{json.dumps(row.language)} = {json.dumps(row.proposed)}")
    return "\n".join(lines) + "\n"


def raise_hint(row: LanguageRow) -> str:
    """How to raise a language `init` proposed below its default."""
    return (
        f'raise to "{row.required}" once every {row.language} file gets it (the reasons'
        " above say what is missing; `orchestrate doctor` re-checks)"
    )


def init(root: Path, timeout: float = 600.0) -> tuple[Path, DoctorResult]:
    """Write a starter `orchestrate.toml` at `root`; UsageError when the project already
    has orchestrate configuration (never overwritten). The file appears whole or not
    at all, and never replaces one created meanwhile."""
    root = root.resolve()
    existing = _own_configs(root) - {BASELINE_FILE}
    if existing:
        raise UsageError(
            f"init: {', '.join(sorted(existing))} already configures orchestrate; not overwritten"
        )
    result = doctor(root, timeout)
    target = root / INIT_FILE
    fd, tmp = tempfile.mkstemp(prefix=".orchestrate-init-", dir=root)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(starter_config(result).encode())
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, target)  # fails when the target exists: never overwrites
        except FileExistsError:
            raise UsageError(f"init: {INIT_FILE} exists; not overwritten") from None
    finally:
        os.unlink(tmp)
    return target, result


__all__ = [
    "DoctorResult",
    "LanguageRow",
    "ToolRow",
    "doctor",
    "init",
    "raise_hint",
    "starter_config",
]
