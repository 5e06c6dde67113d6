"""ESLint: the native JavaScript / TypeScript checker.

Tool, in order: an explicit absolute path from configuration; the project's own
`node_modules/.bin/eslint` nearest to the files (inside the project root); the pinned
managed install (`npm ci --prefix tools/eslint`, or `$ORCHESTRATE_ESLINT_HOME`). A
relative PATH entry is never consulted. Config: the nearest flat config
(`eslint.config.*`) between a file's folder and the project root; a file without one
is `configuration_required` and goes to the syntax fallback.

One ESLint process per batch (files sharing tool and config folder), run with the
config folder as working directory. Staged content goes over stdin, one process each.
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrate_plugins._common import (
    cached_version,
    digest_files,
    find_tool,
    root_configs,
    tool_version,
)

from orchestrator.api import (
    Anchor,
    Batch,
    CheckerPlan,
    Deadline,
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
    one_line,
    outcome_for_all,
    outcome_from,
    run_bounded,
)

NAME = "eslint"
SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
LANGUAGES = frozenset({"javascript", "typescript", "tsx", "jsx"})
CONFIG_NAMES = tuple(f"eslint.config.{e}" for e in ("js", "mjs", "cjs", "ts", "mts", "cts"))
LEGACY_NAMES = (".eslintrc", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.json", ".eslintrc.yml")
HOME_ENV = "ORCHESTRATE_ESLINT_HOME"
#: Environment that would switch ESLint to another config system or lookup mode.
SCRUBBED = ("ESLINT_USE_FLAT_CONFIG", "ESLINT_FLAGS")
CONFIG_HINT = "add eslint.config.js (see https://eslint.org/docs/latest/use/configure/)"
INSTALL_HINT = (
    "install the pinned ESLint: npm ci --prefix tools/eslint "
    "(or add eslint to the project, or set [tool.orchestrate.tools] eslint = '/abs/path')"
)
MAX_MESSAGE = 500
MAX_BATCH = 400
#: Characters ESLint's argument globbing would interpret: such files go over stdin.
_GLOB_CHARS = re.compile(r"[*?\[\]{}()!+@]")
_LINE_BREAK = re.compile(r"\r\n|[\r\n\u2028\u2029]")
#: A probe resolves the tool only; nothing it calls consults the deadline.
_NO_DEADLINE = Deadline.after(0)


def managed_home() -> Path:
    """Folder of the managed ESLint install (`$ORCHESTRATE_ESLINT_HOME` wins)."""
    env = os.environ.get(HOME_ENV)
    if env and os.path.isabs(env):
        return Path(env)
    return Path(__file__).resolve().parent.parent / "tools" / "eslint"


def _executable(p: Path) -> bool:
    return p.is_file() and os.access(p, os.X_OK)


def _ancestors(root: Path, rel_path: str) -> list[Path]:
    """The file's folders from nearest to `root`, all inside `root`."""
    folder = (root / rel_path).parent
    out: list[Path] = []
    while folder.is_relative_to(root):
        out.append(folder)
        if folder == root:
            break
        folder = folder.parent
    return out


def nearest_config(root: Path, rel_path: str) -> Path | None:
    """The nearest flat config between the file's folder and `root` (no listing)."""
    for folder in _ancestors(root, rel_path):
        for name in CONFIG_NAMES:
            if (folder / name).is_file():
                return folder / name
    return None


def _legacy_config(root: Path, rel_path: str) -> Path | None:
    for folder in _ancestors(root, rel_path):
        for name in LEGACY_NAMES:
            if (folder / name).is_file():
                return folder / name
    return None


def resolve_tool(root: Path, rel_path: str, ctx: RunContext) -> str | None:
    """Absolute path of the ESLint to run for `rel_path`, or None (see module docs)."""
    explicit = ctx.tool_overrides.get(NAME)
    if explicit is None:
        tools = ctx.config.get("tools", {})
        cand = tools.get(NAME) if isinstance(tools, dict) else None
        explicit = cand if isinstance(cand, str) and os.path.isabs(cand) else None
    if explicit is not None:
        return find_tool(NAME, override=explicit)
    for folder in _ancestors(root, rel_path):
        cand = folder / "node_modules" / ".bin" / NAME
        if _executable(cand):
            return str(cand)
    managed = managed_home() / "node_modules" / ".bin" / NAME
    return str(managed) if _executable(managed) else None


def managed_env(tool: str, env: dict[str, str]) -> dict[str, str]:
    """Let a project config's bare imports fall back to the managed install's packages.

    Node resolves a config's imports from the config's folder; a project that relies
    on the managed ESLint has no `@eslint/js` or `typescript-eslint` of its own. Only
    for the managed tool: a resolve hook (ESM) and NODE_PATH (CommonJS) retry from it.
    """
    home = managed_home()
    hook = home / "resolve-managed.mjs"
    if not Path(tool).is_relative_to(home) or not hook.is_file():
        return env
    opt = f"--import={hook.as_uri()}"
    opts = env.get("NODE_OPTIONS", "")
    env = dict(env, NODE_OPTIONS=f"{opts} {opt}".strip())
    paths = [str(home / "node_modules"), *filter(None, env.get("NODE_PATH", "").split(os.pathsep))]
    env["NODE_PATH"] = os.pathsep.join(paths)
    return env


@dataclass(frozen=True)
class _Job:
    tool: ToolIdentity
    config: Path
    stdin: bool


def _utf16_index(text: str) -> list[int] | None:
    """Map UTF-16 offsets (ESLint's ranges) to str indexes; None when they coincide."""
    if all(ord(c) < 0x10000 for c in text):
        return None
    table: list[int] = []
    for i, c in enumerate(text):
        table.append(i)
        if ord(c) >= 0x10000:
            table.append(i)
    table.append(len(text))
    return table


class _Text:
    """The judged text as ESLint sees it (BOM stripped), with line/column lookups."""

    def __init__(self, raw: bytes) -> None:
        self.text = raw.decode("utf-8", "replace").removeprefix("\ufeff")
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(self.text)]
        self._u16 = _utf16_index(self.text)

    def index(self, utf16: int) -> int:
        if self._u16 is None:
            return max(0, min(utf16, len(self.text)))
        return self._u16[max(0, min(utf16, len(self._u16) - 1))]

    def line_col(self, index: int) -> tuple[int, int]:
        """1-based line and column (characters) of a str index."""
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= index:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, index - self.starts[lo] + 1

    def line(self, number: int) -> str:
        if not 1 <= number <= len(self.starts):
            return ""
        end = self.starts[number] if number < len(self.starts) else len(self.text)
        return self.text[self.starts[number - 1] : end].strip()


def _edit(fix: object, text: _Text, suggestion: bool) -> dict[str, Any]:
    """One ESLint fix {range, text} as a replace-text exact_edit with its derived tier.

    A rule's `fix` is deterministic and reversible, so it derives to auto. A
    `suggestion` may change behaviour (that is why ESLint does not apply it), so it is
    marked destructive and derives to confirm. A finding carries one edit: only the
    first suggestion is kept.
    """
    if not isinstance(fix, dict):
        return {}
    rng, new = fix.get("range"), fix.get("text")
    if not (isinstance(rng, list) and len(rng) == 2 and isinstance(new, str)):
        return {}
    if not all(isinstance(v, int) for v in rng) or rng[0] > rng[1]:
        return {}
    start, end = text.index(rng[0]), text.index(rng[1])
    (sl, sc), (el, ec) = text.line_col(start), text.line_col(end)
    destructive = suggestion
    return {
        "exact_edit": ReplaceText(
            kind="replace-text",
            anchor=Anchor(start_line=sl, end_line=el),
            match=text.text[start:end],
            replacement=new,
            start_column=sc,
            end_column=ec,
        ),
        "op_type": "deterministic",
        "is_destructive": destructive,
        "is_reversible": True,
        "safety_tier": derive_safety_tier("deterministic", destructive, True),
        "fix_applicability": "suggestion" if suggestion else "fix",
    }


def _pos(value: object) -> int | None:
    return value if isinstance(value, int) and value >= 1 else None


def _ignored(msg: dict[str, Any]) -> str | None:
    """Classify ESLint's 'File ignored ...' notices (no rule, no position)."""
    text = str(msg.get("message", ""))
    if msg.get("ruleId") is None and not msg.get("fatal") and text.startswith("File ignored"):
        return "no-config" if "no matching configuration" in text else "ignored"
    return None


def _cause(stderr: bytes) -> str:
    """The informative line of ESLint's 'Oops! Something went wrong!' banner."""
    for line in stderr.decode("utf-8", "replace").splitlines():
        s = line.strip()
        if s and not s.startswith(("Oops! Something went wrong", "ESLint: ")):
            return one_line(s)
    return ""


class EslintChecker:
    """Native lint and syntax evidence for JavaScript and TypeScript from ESLint."""

    name = NAME
    tier = Tier.NATIVE
    languages = LANGUAGES

    def probe(self, root: Path) -> Probe:
        """The ESLint a run at the root would use, and the root's flat config (ESLint 9
        refuses to run without one: configuration_required)."""
        tool = resolve_tool(root, "probe.js", RunContext(project_root=root, deadline=_NO_DEADLINE))
        configs = root_configs(root, CONFIG_NAMES)
        return Probe(
            found=tool is not None,
            tool_path=tool,
            version=cached_version(tool),
            configured=bool(configs),
            config_files=configs,
            needs_config=True,
            hint=INSTALL_HINT if tool is None else None if configs else CONFIG_HINT,
        )

    def claims(self, target: FileTarget) -> bool:
        # Detection already sniffed shared extensions (a `.ts` Qt translation file is
        # "xml"): trust it when present, the suffix only when nothing was detected.
        if target.language is not None:
            return target.language in LANGUAGES
        return target.path.lower().endswith(SUFFIXES)

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        root = ctx.project_root
        settled: list[FileOutcome] = []
        groups: dict[tuple[str, Path], list[FileTarget]] = defaultdict(list)
        idents: dict[str, ToolIdentity] = {}
        for t in targets:
            cfg = nearest_config(root, t.path)
            if cfg is None:
                legacy = _legacy_config(root, t.path)
                reason = "no ESLint flat config (eslint.config.*) between the file and the root"
                if legacy is not None:
                    reason += f"; legacy {legacy.name} is not read by ESLint 9"
                settled.append(self._settle(t, ScopeStatus.CONFIGURATION_REQUIRED, reason))
                continue
            tool = resolve_tool(root, t.path, ctx)
            if tool is None:
                settled.append(
                    self._settle(t, ScopeStatus.MISSING, "eslint not found", hint=INSTALL_HINT)
                )
                continue
            if tool not in idents:
                idents[tool] = ToolIdentity(path=tool, version=tool_version(tool))
            if idents[tool].version is None:
                settled.append(
                    FileOutcome(
                        path=t.path,
                        checker=NAME,
                        status=ScopeStatus.TOOL_ERROR,
                        reason="eslint --version failed: the tool cannot run",
                        tool=idents[tool],
                        hint=INSTALL_HINT,
                        language=t.language,
                    )
                )
                continue
            groups[(tool, cfg)].append(t)
        batches: list[Batch] = []
        for (tool, cfg), members in sorted(
            groups.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))
        ):
            disk = [t for t in members if t.on_disk and not _GLOB_CHARS.search(t.path)]
            single = [t for t in members if t not in disk]
            for i in range(0, len(disk), MAX_BATCH):
                job = _Job(idents[tool], cfg, stdin=False)
                batches.append(Batch(tuple(disk[i : i + MAX_BATCH]), job, label=f"eslint:{cfg}"))
            for t in single:
                batches.append(Batch((t,), _Job(idents[tool], cfg, stdin=True), f"eslint:{t.path}"))
        return CheckerPlan(batches=tuple(batches), settled=tuple(settled))

    def _settle(
        self, t: FileTarget, status: ScopeStatus, reason: str, hint: str = CONFIG_HINT
    ) -> FileOutcome:
        return FileOutcome(
            path=t.path,
            checker=NAME,
            status=status,
            reason=reason,
            hint=hint,
            falls_back=True,
            language=t.language,
        )

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        job: _Job = batch.data
        root, cwd = ctx.project_root, job.config.parent
        common: dict[str, Any] = {
            "tool": job.tool,
            "config_digest": digest_files([job.config]),
            "config_files": (job.config.relative_to(root).as_posix(),),
        }
        argv = [str(job.tool.path), "--format", "json", "--config", str(job.config)]
        stdin: bytes | None = None
        rel = {t.path: os.path.relpath(root / t.path, cwd) for t in batch.targets}
        if job.stdin:
            t = batch.targets[0]
            try:
                stdin = t.read_bytes()
            except OSError as exc:
                reason = f"cannot read file: {exc.strerror}"
                return outcome_for_all(self, batch.targets, ScopeStatus.TOOL_ERROR, reason)
            argv += ["--stdin", "--stdin-filename", rel[t.path]]
        else:
            argv += [f"./{rel[t.path]}" for t in batch.targets]
        base = dict(ctx.env) if ctx.env is not None else dict(os.environ)
        env = managed_env(str(job.tool.path), {k: v for k, v in base.items() if k not in SCRUBBED})
        res = run_bounded(
            argv,
            deadline=ctx.deadline,
            stdin=stdin,
            cwd=cwd,
            env=env,
            output_budget=ctx.output_budget,
        )
        return outcome_from(
            res,
            batch.targets,
            checker=NAME,
            label=NAME,
            parse=lambda r: self._parse(batch, r, cwd, rel, common),
            cause=_cause,
            **common,
        )

    def _parse(
        self,
        batch: Batch,
        res: ProcResult,
        cwd: Path,
        rel: dict[str, str],
        common: dict[str, Any],
    ) -> list[FileOutcome]:
        """ESLint's JSON results (one per linted file) -> one outcome per target."""
        results = json.loads(res.stdout.decode("utf-8")) if res.stdout.strip() else None
        if not isinstance(results, list):
            raise Unparsable(_cause(res.stderr) or "no JSON result")
        common = dict(common, exit_code=res.returncode, duration_ms=res.duration_ms)
        by_file: dict[str, dict[str, Any]] = {}
        for item in results:
            if isinstance(item, dict) and isinstance(item.get("filePath"), str):
                by_file[os.path.normpath(item["filePath"])] = item
        outcomes: list[FileOutcome] = []
        for t in batch.targets:
            item = by_file.get(os.path.normpath(cwd / rel[t.path]))
            if item is None or not isinstance(item.get("messages"), list):
                reason = f"eslint exit {res.returncode}: no result for this file"
                outcomes.append(
                    FileOutcome(
                        path=t.path,
                        checker=NAME,
                        status=ScopeStatus.TOOL_ERROR,
                        reason=reason,
                        language=t.language,
                        **common,
                    )
                )
                continue
            outcomes.append(self._outcome(t, item["messages"], common))
        return outcomes

    def _outcome(self, t: FileTarget, messages: list[Any], common: dict[str, Any]) -> FileOutcome:
        msgs = [m for m in messages if isinstance(m, dict)]
        kinds = {k for k in (_ignored(m) for m in msgs) if k}
        if "no-config" in kinds:
            return FileOutcome(
                path=t.path,
                checker=NAME,
                status=ScopeStatus.CONFIGURATION_REQUIRED,
                reason="no object of the ESLint config covers this file",
                hint="add a config object whose `files` matches it (TypeScript: typescript-eslint)",
                falls_back=True,
                language=t.language,
                **common,
            )
        if "ignored" in kinds:
            return FileOutcome(
                path=t.path,
                checker=NAME,
                status=ScopeStatus.NOT_RUN,
                reason="ignored by the project's ESLint ignore patterns",
                language=t.language,
                **common,
            )
        try:
            text = _Text(t.read_bytes())
        except OSError:
            text = _Text(b"")
        findings = [self._finding(t, m, text) for m in msgs]
        return FileOutcome(
            path=t.path,
            checker=NAME,
            status=ScopeStatus.CHECKED,
            findings=tuple(findings),
            # A fatal parse error is still a coherent verdict by the native parser:
            # the fallback grammar must not parse these bytes again.
            coherent=True,
            language=t.language,
            **common,
        )

    def _finding(self, t: FileTarget, m: dict[str, Any], text: _Text) -> Finding:
        fatal = bool(m.get("fatal"))
        rule = "eslint/parse-error" if fatal else str(m.get("ruleId") or "eslint/unknown")
        raw = m.get("severity")
        severity = Severity.ERROR if fatal or raw == 2 else Severity.WARNING
        line = _pos(m.get("line"))
        edit = _edit(m.get("fix"), text, suggestion=False)
        if not edit:
            suggestions = m.get("suggestions")
            if isinstance(suggestions, list) and suggestions and isinstance(suggestions[0], dict):
                edit = _edit(suggestions[0].get("fix"), text, suggestion=True)
        return Finding(
            checker=NAME,
            rule=rule,
            severity=severity,
            tool_severity=str(raw) if raw is not None else None,
            path=t.path,
            line=line,
            column=_pos(m.get("column")),
            end_line=_pos(m.get("endLine")),
            end_column=_pos(m.get("endColumn")),
            message=one_line(str(m.get("message", "")), MAX_MESSAGE),
            blocking=severity == Severity.ERROR,
            fingerprint=fingerprint(NAME, rule, t.path, text.line(line or 0)),
            **edit,
        )


@hookimpl
def orchestrate_checkers() -> list[Any]:
    return [EslintChecker()]
