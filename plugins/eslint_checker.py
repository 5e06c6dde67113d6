"""ESLint: the native JavaScript / TypeScript checker.

Tool: see `eslint_tool` (explicit path, the project's own, else the pinned install).
Config (see `eslint_config`): a flat config
(`eslint.config.*`), the one the ESLint that runs would find (>= 10: the nearest to the
file; < 10: the outermost, as `eslint .` at the root finds), run with its folder as
working directory; else a legacy
config (`.eslintrc*`, `eslintConfig` in package.json), run in legacy mode
(`ESLINT_USE_FLAT_CONFIG=false`, ESLint <= 9 only) from the cascade's outermost folder
so ESLint resolves the cascade, `.eslintignore` and the project's plugins itself. A file
with neither is `configuration_required` and goes to the syntax fallback.

One ESLint process per batch (files sharing tool and configuration), never with
`--fix` or `--cache`: ESLint writes nothing in the project. Staged content goes over
stdin, one process each. Inside the warm engine a persistent worker running the same
ESLint package's CLI code answers instead (`eslint_warm`), falling back to the spawn
whenever it cannot. A checked scope's reason names the ESLint that ran and, when
package.json declares another, that they differ.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrate_plugins._common import doc_url, rule_description
from orchestrate_plugins.eslint_config import (
    CONFIG_NAMES,
    IGNORE_FILE,
    LAST_LEGACY_MAJOR,
    LEGACY_NAMES,
    Setup,
    declared_eslint,
    find_setup,
    legacy_in,
    looks_up_from_file,
    major,
)
from orchestrate_plugins.eslint_files import IGNORED, LINT, NOT_TARGET, Walk, legacy_verdicts
from orchestrate_plugins.eslint_text import Text, edit, pos
from orchestrate_plugins.eslint_tool import (
    install_hint,
    resolve_tool,
    run_env,
    version_note,
)
from orchestrate_plugins.eslint_warm import run_warm

from orchestrator.api import (
    Batch,
    CheckerPlan,
    Deadline,
    FileOutcome,
    FileTarget,
    Finding,
    Probe,
    ProcResult,
    RunContext,
    ScopeStatus,
    Severity,
    Tier,
    ToolIdentity,
    Unparsable,
    bounded_message,
    cached_version,
    digest_files,
    fingerprint,
    hookimpl,
    one_line,
    outcome_for_all,
    outcome_from,
    root_configs,
    run_bounded,
    tool_version,
)

NAME = "eslint"
SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
LANGUAGES = frozenset({"javascript", "typescript", "tsx", "jsx"})
CONFIG_HINT = "add eslint.config.js (see https://eslint.org/docs/latest/use/configure/)"
MIGRATE_HINT = (
    "migrate to eslint.config.js (npx @eslint/migrate-config .eslintrc.json), "
    "or run ESLint 9 for the legacy config"
)
EXTENSION_HINT = "name the extension in an `overrides` entry (or --ext), or add eslint.config.js"
NO_CONFIG = "no ESLint config (eslint.config.* or .eslintrc*) between the file and the root"
MAX_MESSAGE = 500
MAX_BATCH = 400
#: Characters ESLint's argument globbing would interpret: such files go over stdin.
_GLOB_CHARS = re.compile(r"[*?\[\]{}()!+@]")
_Key = tuple[str, Setup, tuple[str, Path] | None]
#: A probe resolves the tool only; nothing it calls consults the deadline.
_NO_DEADLINE = Deadline.after(0)


@dataclass(frozen=True)
class _Job:
    tool: ToolIdentity
    setup: Setup
    stdin: bool
    #: The checked scope's reason: config system, ESLint used, declared version.
    note: str


def _ignored(msg: dict[str, Any]) -> str | None:
    """Classify ESLint's 'File ignored ...' notices (no rule, no position)."""
    text = str(msg.get("message", ""))
    if msg.get("ruleId") is None and not msg.get("fatal") and text.startswith("File ignored"):
        return "no-config" if "no matching configuration" in text else "ignored"
    return None


_NOT_CAUSE = ("Oops! Something went wrong", "ESLint: ", "(node:", "(Use `node --trace-warnings")


def _cause(stderr: bytes) -> str:
    """The informative line of ESLint's 'Oops! Something went wrong!' banner."""
    for line in stderr.decode("utf-8", "replace").splitlines():
        s = line.strip()
        # Node's process warnings (ESLint 9's eslintrc deprecation) are not the cause.
        if s and not s.startswith(_NOT_CAUSE):
            return one_line(s)
    return ""


_NOT_INSTALLED = ("couldn't find the plugin", "Cannot find package", "Cannot find module")


def _with_install_hint(out: FileOutcome, root: Path, cwd: Path) -> FileOutcome:
    """A config whose plugin or import the project has not installed: point at the
    project's own install (never fetch it for the project). ESLint judged nothing, as
    with a missing tool, so the file still gets the fallback's syntax verdict; the scope
    stays `tool_error` (the project configures ESLint and it could not run)."""
    if out.status != ScopeStatus.TOOL_ERROR or out.hint or not out.reason:
        return out
    if not any(needle in out.reason for needle in _NOT_INSTALLED):
        return out
    where = cwd.relative_to(root).as_posix()
    return out.with_(
        hint=f"install the project's dependencies in {where}/ (npm ci)", falls_back=True
    )


class EslintChecker:
    """Native lint and syntax evidence for JavaScript and TypeScript from ESLint."""

    name = NAME
    tier = Tier.NATIVE
    languages = LANGUAGES
    #: Files a strict gate materialises from the judged surface at every folder of a file.
    config_names = (*CONFIG_NAMES, *LEGACY_NAMES, IGNORE_FILE, "package.json")
    #: ESLint counts columns in UTF-16 code units (JavaScript string indices).
    column_unit = "utf16"

    def probe(self, root: Path) -> Probe:
        """The ESLint a run at the root would use, and the root's config: flat, or legacy
        (`.eslintrc*`, `eslintConfig`); with neither, ESLint refuses to run
        (configuration_required)."""
        tool = resolve_tool(root, "probe.js", RunContext(project_root=root, deadline=_NO_DEADLINE))
        configs = root_configs(root, CONFIG_NAMES) or root_configs(root, LEGACY_NAMES)
        if not configs and legacy_in(root) is not None:
            configs = ("package.json",)
        return Probe(
            found=tool is not None,
            tool_path=tool,
            version=cached_version(tool),
            configured=bool(configs),
            config_files=configs,
            needs_config=True,
            hint=install_hint() if tool is None else None if configs else CONFIG_HINT,
        )

    def claims(self, target: FileTarget) -> bool:
        # Detection already sniffed shared extensions (a `.ts` Qt translation file is
        # "xml"): trust it when present, the suffix only when nothing was detected.
        if target.language is not None:
            return target.language in LANGUAGES
        return target.path.lower().endswith(SUFFIXES)

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        """Settle what cannot run (no config, no tool, legacy config without an ESLint
        that has legacy mode); batch the rest by tool, configuration and declared range."""
        root = ctx.project_root
        settled: list[FileOutcome] = []
        groups: dict[_Key, list[FileTarget]] = defaultdict(list)
        idents: dict[str, ToolIdentity] = {}
        # What each lookup finds depends on the file's folder only: asked once per folder.
        folders: dict[tuple[Any, ...], Any] = {}

        def per_folder(find: Callable[..., Any], path: str, *extra: Any) -> Any:
            key = (find, posixpath.dirname(path), *map(id, extra))  # extra: this run's own
            if key not in folders:
                folders[key] = find(root, path, *extra)
            return folders[key]

        # Legacy files wait for ESLint's own answer to which of them `eslint .` lints.
        legacy: list[tuple[FileTarget, _Key]] = []
        for t in targets:
            setup = per_folder(find_setup, t.path)
            if setup is None:
                settled.append(self._settle(t, ScopeStatus.CONFIGURATION_REQUIRED, NO_CONFIG))
                continue
            tool = per_folder(resolve_tool, t.path, ctx)
            if tool is None:
                # The project's config asks for ESLint: naming it makes the gap count
                # (decisions/coverage.is_configured_gap).
                missing = self._settle(t, ScopeStatus.MISSING, "eslint not found", install_hint())
                settled.append(missing.with_(config_files=_labels(root, setup)))
                continue
            if tool not in idents:
                idents[tool] = ToolIdentity(path=tool, version=tool_version(tool))
            ident = idents[tool]
            if not setup.legacy and not looks_up_from_file(ident.version):
                setup = per_folder(find_setup, t.path, False) or setup
            broken = self._unrunnable(t, setup, ident)
            if broken is not None:
                settled.append(broken.with_(config_files=_labels(root, setup)))
                continue
            declared = per_folder(declared_eslint, t.path)
            if setup.legacy:
                legacy.append((t, (tool, setup, declared)))
            else:
                groups[(tool, setup, declared)].append(t)
        for t, key, verdict in self._legacy_selection(legacy, ctx):
            if verdict == LINT:
                groups[key].append(t)
            else:
                settled.append(self._unselected(t, key[1], verdict).with_(tool=idents[key[0]]))
        batches: list[Batch] = []
        for key in sorted(groups, key=lambda k: (k[0], str(k[1].config), str(k[2]))):
            tool, setup, declared = key
            members = groups[key]
            note = version_note(root, setup, idents[tool], declared)
            disk = [t for t in members if t.on_disk and not _GLOB_CHARS.search(t.path)]
            label = f"eslint:{setup.config}"
            for i in range(0, len(disk), MAX_BATCH):
                job = _Job(idents[tool], setup, stdin=False, note=note)
                batches.append(Batch(tuple(disk[i : i + MAX_BATCH]), job, label=label))
            for t in (t for t in members if t not in disk):
                job = _Job(idents[tool], setup, stdin=True, note=note)
                batches.append(Batch((t,), job, f"eslint:{t.path}"))
        return CheckerPlan(batches=tuple(batches), settled=tuple(settled))

    def _legacy_selection(
        self, legacy: Sequence[tuple[FileTarget, _Key]], ctx: RunContext
    ) -> list[tuple[FileTarget, _Key, str]]:
        """Each legacy file with ESLint's verdict on whether `eslint .` lints it
        (`eslint_files`: one Node process per tool for the whole run). When ESLint
        cannot be asked, the verdict is the reason: a `.js` file (ESLint's default target
        when no `--ext` is given) still goes to ESLint, whose run reports its ignores and
        config errors itself."""
        by_tool: dict[str, dict[tuple[Path, tuple[str, ...]], list[tuple[FileTarget, _Key]]]]
        by_tool = defaultdict(lambda: defaultdict(list))
        for t, key in legacy:
            by_tool[key[0]][(key[1].cwd, key[1].ext_flag)].append((t, key))
        base = dict(ctx.env) if ctx.env is not None else dict(os.environ)
        out: list[tuple[FileTarget, _Key, str]] = []
        for tool, walks_of in by_tool.items():
            walks = [
                Walk(cwd, ext, tuple(ctx.project_root / t.path for t, _ in members))
                for (cwd, ext), members in walks_of.items()
            ]
            setup = next(iter(walks_of.values()))[0][1][1]
            env = run_env(base, tool, setup, None)
            answers = legacy_verdicts(tool, walks, env=env, deadline=ctx.deadline)
            for (members, walk), answer in zip(
                zip(walks_of.values(), walks, strict=True), answers, strict=True
            ):
                for t, key in members:
                    if isinstance(answer, dict):
                        out.append((t, key, answer[ctx.project_root / t.path]))
                    elif not walk.ext_flag and t.path.endswith(".js"):
                        out.append((t, key, LINT))
                    else:
                        out.append((t, key, answer))
        return out

    def _unselected(self, t: FileTarget, setup: Setup, verdict: str) -> FileOutcome:
        """A file `eslint .` would not lint under the legacy config, by ESLint's own
        enumeration (or why ESLint could not be asked)."""
        where = f"legacy config {setup.config.name}"
        if verdict == IGNORED:
            reason = (
                "ignored by the project's ESLint config (.eslintignore, ignorePatterns):"
                f" `eslint .` under {where} skips this file"
            )
            return self._settle(t, ScopeStatus.NOT_RUN, reason).with_(hint=None, falls_back=False)
        if verdict == NOT_TARGET:
            reason = (
                f"{where}: `eslint .` lints .js files, --ext values and files an overrides"
                " pattern names (ESLint's own enumeration); this file is not among them"
            )
            return self._settle(t, ScopeStatus.CONFIGURATION_REQUIRED, reason, EXTENSION_HINT)
        reason = f"{where}: cannot ask ESLint whether `eslint .` lints this file: {verdict}"
        return self._settle(t, ScopeStatus.TOOL_ERROR, reason, install_hint())

    def _unrunnable(self, t: FileTarget, setup: Setup, ident: ToolIdentity) -> FileOutcome | None:
        """The tool cannot run, or has no legacy mode for a legacy config."""
        if ident.version is None:
            reason = "eslint --version failed: the tool cannot run"
            return FileOutcome(
                path=t.path,
                checker=NAME,
                status=ScopeStatus.TOOL_ERROR,
                reason=reason,
                tool=ident,
                hint=install_hint(),
                language=t.language,
            )
        if setup.legacy and (major(ident.version) or 0) > LAST_LEGACY_MAJOR:
            reason = (
                f"legacy config {setup.config.name} needs ESLint <= {LAST_LEGACY_MAJOR};"
                f" the ESLint found is {ident.version} (no legacy mode)"
            )
            out = self._settle(t, ScopeStatus.CONFIGURATION_REQUIRED, reason, MIGRATE_HINT)
            return out.with_(tool=ident)
        return None

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
        """One ESLint CLI run for the batch (never --fix, never --cache): a spawned
        process, or in a resident process the warm worker answering as it would."""
        job: _Job = batch.data
        root, cwd = ctx.project_root, job.setup.cwd
        common: dict[str, Any] = {
            "tool": job.tool,
            "config_digest": digest_files(job.setup.files),
            "config_files": tuple(p.relative_to(root).as_posix() for p in job.setup.files),
        }
        argv = [str(job.tool.path), "--format", _output_format(job.tool.version)]
        if not job.setup.legacy:
            argv += ["--config", str(job.setup.config)]
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
        env = run_env(base, str(job.tool.path), job.setup, job.tool.version)
        # Inside a long-lived process a warm worker answers as the CLI would; it falls
        # back to the CLI spawn whenever it cannot (eslint_warm).
        res = run_warm(
            argv,
            cwd=cwd,
            env=env,
            stdin=stdin,
            deadline=ctx.deadline,
            output_budget=ctx.output_budget,
            version=job.tool.version,
            config_digest=common["config_digest"],
            root=root,
        ) or run_bounded(
            argv,
            deadline=ctx.deadline,
            stdin=stdin,
            cwd=cwd,
            env=env,
            output_budget=ctx.output_budget,
        )
        outs = outcome_from(
            res,
            batch.targets,
            checker=NAME,
            label=NAME,
            parse=lambda r: self._parse(batch, r, rel, common),
            cause=_cause,
            **common,
        )
        return [_with_install_hint(o, root, cwd) for o in outs]

    def _parse(
        self,
        batch: Batch,
        res: ProcResult,
        rel: dict[str, str],
        common: dict[str, Any],
    ) -> list[FileOutcome]:
        """ESLint's JSON results (one per linted file) -> one outcome per target."""
        job: _Job = batch.data
        cwd = job.setup.cwd
        results = json.loads(res.stdout.decode("utf-8")) if res.stdout.strip() else None
        meta: dict[str, Any] = {}
        if isinstance(results, dict):  # json-with-metadata: {"results": [...], "metadata": ...}
            metadata = results.get("metadata")
            rules_meta = metadata.get("rulesMeta") if isinstance(metadata, dict) else None
            meta = rules_meta if isinstance(rules_meta, dict) else {}
            results = results.get("results")
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
            outcomes.append(self._outcome(t, item["messages"], job, common, meta))
        return outcomes

    def _outcome(
        self,
        t: FileTarget,
        messages: list[Any],
        job: _Job,
        common: dict[str, Any],
        meta: dict[str, Any],
    ) -> FileOutcome:
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
                reason="ignored by the project's ESLint config"
                + (" (.eslintignore, ignorePatterns)" if job.setup.legacy else " (ignores)"),
                language=t.language,
                **common,
            )
        try:
            text = Text(t.read_bytes())
        except OSError:
            text = Text(b"")
        findings = [self._finding(t, m, text, meta) for m in msgs]
        return FileOutcome(
            path=t.path,
            checker=NAME,
            status=ScopeStatus.CHECKED,
            reason=job.note,
            findings=tuple(findings),
            # A fatal parse error is still a coherent verdict by the native parser:
            # the fallback grammar must not parse these bytes again.
            coherent=True,
            language=t.language,
            **common,
        )

    def _finding(
        self, t: FileTarget, m: dict[str, Any], text: Text, meta: dict[str, Any]
    ) -> Finding:
        fatal = bool(m.get("fatal"))
        rule = "eslint/parse-error" if fatal else str(m.get("ruleId") or "eslint/unknown")
        docs = _rule_docs(meta, m.get("ruleId"))
        raw = m.get("severity")
        severity = Severity.ERROR if fatal or raw == 2 else Severity.WARNING
        line = pos(m.get("line"))
        change = edit(m.get("fix"), text, suggestion=False)
        if not change:
            suggestions = m.get("suggestions")
            if isinstance(suggestions, list) and suggestions and isinstance(suggestions[0], dict):
                change = edit(suggestions[0].get("fix"), text, suggestion=True)
        return Finding(
            checker=NAME,
            rule=rule,
            severity=severity,
            tool_severity=str(raw) if raw is not None else None,
            path=t.path,
            line=line,
            column=pos(m.get("column")),
            end_line=pos(m.get("endLine")),
            end_column=pos(m.get("endColumn")),
            message=bounded_message(str(m.get("message", "")), MAX_MESSAGE),
            blocking=severity == Severity.ERROR,
            fingerprint=fingerprint(NAME, rule, t.path, text.line(line or 0)),
            help_uri=doc_url(docs.get("url")),
            rule_description=rule_description(docs.get("description")),
            **change,
        )


#: ESLint's formatter with rule metadata (`rulesMeta`: each rule's docs URL and
#: description) exists from ESLint 8 on; older ones get the plain JSON formatter.
METADATA_FORMAT_MAJOR = 8


def _labels(root: Path, setup: Setup) -> tuple[str, ...]:
    """The project's ESLint config of a file as the report names it (root-relative)."""
    config = setup.config
    return (config.relative_to(root).as_posix() if config.is_relative_to(root) else str(config),)


def _output_format(version: str | None) -> str:
    """`json-with-metadata` when the ESLint used has it, else `json`."""
    return "json-with-metadata" if (major(version) or 0) >= METADATA_FORMAT_MAJOR else "json"


def _rule_docs(meta: dict[str, Any], rule_id: object) -> dict[str, Any]:
    """The `meta.docs` ESLint gave for `rule_id` ({} when it gave none)."""
    entry = meta.get(rule_id) if isinstance(rule_id, str) else None
    docs = entry.get("docs") if isinstance(entry, dict) else None
    return docs if isinstance(docs, dict) else {}


@hookimpl
def orchestrate_checkers() -> list[Any]:
    return [EslintChecker()]
