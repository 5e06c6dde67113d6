"""The ESLint checker against the real, pinned ESLint; fakes only for fault injection."""

from __future__ import annotations

import os
import shlex
import stat
from collections.abc import Sequence
from pathlib import Path

import pytest
from helpers import deadline_passes_at, eslint_path, hang_marker
from orchestrate_plugins.eslint_checker import EslintChecker, resolve_tool
from orchestrate_plugins.eslint_config import range_differs

from orchestrator.deadline import Deadline
from orchestrator.model.checker import FileOutcome, FileTarget, RunContext
from orchestrator.vocab import ScopeStatus, Severity

CONFIG = (
    'export default [{ rules: { "no-unused-vars": "error", "no-var": "warn",'
    ' "no-useless-escape": "error" } }];\n'
)


def _ctx(root: Path, timeout: float = 60, **kw: object) -> RunContext:
    return RunContext(project_root=root, deadline=Deadline.after(timeout), **kw)  # type: ignore[arg-type]


def _targets(root: Path, paths: Sequence[str]) -> list[FileTarget]:
    return [FileTarget(path=p, abs_path=root / p) for p in paths]


def _lint(
    root: Path, paths: Sequence[str], ctx: RunContext | None = None
) -> dict[str, FileOutcome]:
    checker, ctx = EslintChecker(), ctx or _ctx(root)
    plan = checker.plan(_targets(root, paths), ctx)
    outs = list(plan.settled)
    for batch in plan.batches:
        outs += checker.run(batch, ctx)
    return {o.path: o for o in outs}


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def _fake(path: Path, body: str) -> str:
    """A fake ESLint (fault injection) that answers --version, then does `body`."""
    path.write_text(
        '#!/bin/sh\nif [ "$1" = "--version" ]; then echo v0.0.0-fake; exit 0; fi\n' + body + "\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.fixture(autouse=True)
def _managed_eslint() -> None:
    eslint_path()


def test_findings_fix_is_auto_and_suggestion_is_confirm(tmp_path: Path) -> None:
    _write(tmp_path, {"eslint.config.js": CONFIG, "a.js": 'var x = 1;\nconsole.log("hi");\n'})
    out = _lint(tmp_path, ["a.js"])["a.js"]
    assert out.status == ScopeStatus.CHECKED and out.coherent
    assert out.tool is not None and out.tool.path and os.path.isabs(out.tool.path)
    assert out.tool.version and out.tool.version.startswith("v9.39.")
    assert out.config_files == ("eslint.config.js",) and out.config_digest
    by_rule = {f.rule: f for f in out.findings}
    fix = by_rule["no-var"]
    assert fix.severity == Severity.WARNING and (fix.line, fix.column) == (1, 1)
    assert fix.safety_tier == "auto" and fix.fix_applicability == "fix"
    assert fix.exact_edit is not None and fix.exact_edit.kind == "replace-text"
    assert (fix.exact_edit.match, fix.exact_edit.replacement) == ("var", "let")
    sug = by_rule["no-unused-vars"]
    assert sug.severity == Severity.ERROR and sug.blocking
    assert sug.safety_tier == "confirm" and sug.fix_applicability == "suggestion"
    assert sug.is_destructive is True and sug.op_type == "deterministic"
    assert sug.message  # kept in the report (hosts decide what to forward)


def test_fix_edit_applies_exactly(tmp_path: Path) -> None:
    # Astral characters: ESLint's ranges count UTF-16 units, our columns count characters.
    src = 'const s = "😀";\nvar y = 2;\nconsole.log(s, y);\n'
    _write(tmp_path, {"eslint.config.js": CONFIG, "b.js": src})
    out = _lint(tmp_path, ["b.js"])["b.js"]
    edit = next(f.exact_edit for f in out.findings if f.rule == "no-var")
    assert edit is not None and edit.kind == "replace-text"
    lines = src.splitlines(keepends=True)
    assert edit.anchor.start_line == edit.anchor.end_line == 2
    line = lines[1]
    assert edit.start_column is not None and edit.end_column is not None
    assert line[edit.start_column - 1 : edit.end_column - 1] == edit.match == "var"
    fixed = line[: edit.start_column - 1] + edit.replacement + line[edit.end_column - 1 :]
    assert fixed == "let y = 2;\n"


def test_parse_error_is_a_coherent_syntax_finding(tmp_path: Path) -> None:
    _write(tmp_path, {"eslint.config.js": CONFIG, "bad.js": "function (\n", "ok.js": "1;\n"})
    outs = _lint(tmp_path, ["bad.js", "ok.js"])
    bad = outs["bad.js"]
    assert bad.status == ScopeStatus.CHECKED and bad.coherent and not bad.falls_back
    (f,) = bad.findings
    assert f.rule == "eslint/parse-error" and f.severity == Severity.ERROR and f.line == 1
    assert outs["ok.js"].status == ScopeStatus.CHECKED and outs["ok.js"].findings == ()


def test_one_process_per_config_folder(tmp_path: Path) -> None:
    # Two packages, no root config: each package's outermost config governs it. The
    # pinned ESLint 9 looks up from its working directory, so a nested config is ignored.
    _write(
        tmp_path,
        {
            "app/eslint.config.js": CONFIG,
            "app/a.js": "1;\n",
            "app/lib/eslint.config.mjs": "export default [];\n",
            "app/lib/b.js": "var b = 2;\n",
            "pkg/eslint.config.mjs": "export default [];\n",
            "pkg/c.js": "var z = 3;\n",
        },
    )
    paths = ["app/a.js", "app/lib/b.js", "pkg/c.js"]
    plan = EslintChecker().plan(_targets(tmp_path, paths), _ctx(tmp_path))
    groups = sorted(sorted(t.path for t in b.targets) for b in plan.batches)
    assert groups == [["app/a.js", "app/lib/b.js"], ["pkg/c.js"]]
    outs = _lint(tmp_path, paths)
    assert outs["pkg/c.js"].config_files == ("pkg/eslint.config.mjs",)
    assert outs["pkg/c.js"].findings == ()  # its package's config (no rules)
    assert outs["app/lib/b.js"].config_files == ("app/eslint.config.js",)
    assert {f.rule for f in outs["app/lib/b.js"].findings} == {"no-unused-vars", "no-var"}


def test_no_config_is_configuration_required_and_falls_back(tmp_path: Path) -> None:
    _write(tmp_path, {"src/app.ts": "let a: number = 1;\n", "src/b.js": "1;\n"})
    outs = _lint(tmp_path, ["src/app.ts", "src/b.js"])
    for out in outs.values():
        assert out.status == ScopeStatus.CONFIGURATION_REQUIRED and out.falls_back
        assert out.hint and "eslint.config.js" in out.hint and "\n" not in out.hint
        assert out.reason and ".eslintrc" in out.reason


def test_legacy_cascade_runs_in_legacy_mode(tmp_path: Path) -> None:
    # Root config, a nested one adding a rule, an eslintConfig in a package.json: ESLint
    # resolves the cascade itself; a .ts file only when an override pattern names it.
    _write(
        tmp_path,
        {
            ".eslintrc.json": '{"root": true, "rules": {"no-var": "error"}}',
            "a.js": "var a;\n",
            "sub/.eslintrc.yml": "rules:\n  no-debugger: error\n",
            "sub/b.js": "var b;\ndebugger;\n",
            "sub/c.ts": "var c;\n",
            "pkg/package.json": '{"eslintConfig": {"root": true, "rules": {"eqeqeq": "error"}}}',
            "pkg/d.js": "var d = 1 == 2;\n",
        },
    )
    # A user's ESLINT_USE_FLAT_CONFIG=true must not turn the legacy project into "no config".
    ctx = _ctx(tmp_path, env={**os.environ, "ESLINT_USE_FLAT_CONFIG": "true"})
    outs = _lint(tmp_path, ["a.js", "sub/b.js", "sub/c.ts", "pkg/d.js"], ctx)
    rules = {p: {f.rule for f in o.findings} for p, o in outs.items()}
    assert rules["a.js"] == {"no-var"}
    assert rules["sub/b.js"] == {"no-var", "no-debugger"}
    assert rules["pkg/d.js"] == {"eqeqeq"}
    assert outs["sub/b.js"].reason and "legacy config sub/.eslintrc.yml" in outs["sub/b.js"].reason
    assert set(outs["sub/b.js"].config_files) == {".eslintrc.json", "sub/.eslintrc.yml"}
    ts = outs["sub/c.ts"]
    assert ts.status == ScopeStatus.CONFIGURATION_REQUIRED and ts.falls_back and ts.hint
    assert ts.reason and "not among them" in ts.reason


def test_legacy_override_pattern_selects_its_extension(tmp_path: Path) -> None:
    rc = '{"root": true, "overrides": [{"files": ["*.mjs"], "rules": {"no-var": "error"}}]}'
    _write(tmp_path, {".eslintrc.json": rc, "m.mjs": "var m;\n"})
    out = _lint(tmp_path, ["m.mjs"])["m.mjs"]
    assert out.status == ScopeStatus.CHECKED and {f.rule for f in out.findings} == {"no-var"}


def test_legacy_config_with_eslint_10_has_no_legacy_mode(tmp_path: Path) -> None:
    fake = _fake(tmp_path / "fake-eslint", "exit 0")
    Path(fake).write_text(Path(fake).read_text().replace("v0.0.0-fake", "v10.0.0"))
    _write(tmp_path, {".eslintrc.json": "{}", "a.js": "1;\n"})
    out = _lint(tmp_path, ["a.js"], _ctx(tmp_path, tool_overrides={"eslint": fake}))["a.js"]
    assert out.status == ScopeStatus.CONFIGURATION_REQUIRED and out.falls_back
    assert out.reason and "ESLint <= 9" in out.reason and "v10.0.0" in out.reason
    assert out.hint and "eslint.config.js" in out.hint


@pytest.mark.parametrize(
    ("declared", "used", "differs"),
    [
        ("^9.0.0", "v9.39.5", False),
        ("^8.57.0", "v9.39.5", True),
        ("~8.1", "v8.57.1", False),
        ("8.x", "v9.0.0", True),
        (">=8", "v9.1.0", False),
        (">=10", "v9.1.0", True),
        ("^8 || ^9", "v9.1.0", False),
        ("latest", "v9.1.0", None),
        ("workspace:*", "v9.1.0", None),
    ],
)
def test_declared_range_by_major(declared: str, used: str, differs: bool | None) -> None:
    assert range_differs(declared, used) is differs


def test_scope_says_the_declared_version_differs(tmp_path: Path) -> None:
    pkg = '{"devDependencies": {"eslint": "^8.57.0"}}'
    _write(tmp_path, {"eslint.config.js": CONFIG, "package.json": pkg, "a.js": "1;\n"})
    out = _lint(tmp_path, ["a.js"])["a.js"]
    assert out.status == ScopeStatus.CHECKED and out.reason
    assert "orchestrate's pinned install" in out.reason
    assert "package.json declares eslint ^8.57.0: the majors differ" in out.reason


def test_config_not_covering_typescript(tmp_path: Path) -> None:
    _write(tmp_path, {"eslint.config.js": CONFIG, "t.ts": "let a: number = 1;\n"})
    out = _lint(tmp_path, ["t.ts"])["t.ts"]
    assert out.status == ScopeStatus.CONFIGURATION_REQUIRED and out.falls_back


def test_ignored_file_is_not_run(tmp_path: Path) -> None:
    cfg = 'export default [{ ignores: ["gen/**"] }, { rules: { "no-var": "error" } }];\n'
    _write(tmp_path, {"eslint.config.js": cfg, "gen/x.js": "var a;\n"})
    out = _lint(tmp_path, ["gen/x.js"])["gen/x.js"]
    assert out.status == ScopeStatus.NOT_RUN and not out.falls_back and not out.findings


def test_staged_content_goes_over_stdin(tmp_path: Path) -> None:
    _write(tmp_path, {"eslint.config.js": CONFIG, "s.js": "console.log(1);\n"})
    staged = FileTarget(path="s.js", abs_path=tmp_path / "s.js", content=b"var q = 1;\n")
    checker, ctx = EslintChecker(), _ctx(tmp_path)
    plan = checker.plan([staged], ctx)
    (out,) = checker.run(plan.batches[0], ctx)
    assert {f.rule for f in out.findings} == {"no-var", "no-unused-vars"}


def test_project_eslint_then_explicit_override(tmp_path: Path) -> None:
    managed = eslint_path()
    _write(tmp_path, {"eslint.config.js": CONFIG, "web/a.js": "1;\n"})
    local = tmp_path / "node_modules" / ".bin"
    local.mkdir(parents=True)
    (local / "eslint").symlink_to(managed)
    ctx = _ctx(tmp_path)
    assert resolve_tool(tmp_path, "web/a.js", ctx) == str(local / "eslint")
    out = _lint(tmp_path, ["web/a.js"], ctx)["web/a.js"]
    assert out.status == ScopeStatus.CHECKED and out.tool and out.tool.path == str(local / "eslint")
    explicit = _ctx(tmp_path, tool_overrides={"eslint": managed})
    assert resolve_tool(tmp_path, "web/a.js", explicit) == managed


def test_missing_tool_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORCHESTRATE_ESLINT_HOME", str(tmp_path / "nowhere"))
    _write(tmp_path, {"eslint.config.js": CONFIG, "a.js": "1;\n"})
    out = _lint(tmp_path, ["a.js"])["a.js"]
    assert out.status == ScopeStatus.MISSING and out.falls_back
    # The folder the user pointed orchestrate at is where the pinned install goes.
    assert out.hint and f"npm ci --prefix {tmp_path / 'nowhere'}" in out.hint


def test_config_that_throws_is_tool_error(tmp_path: Path) -> None:
    cfg = 'throw new Error("config exploded");\n'
    _write(tmp_path, {"eslint.config.js": cfg, "a.js": "1;\n", "b.js": "2;\n"})
    outs = _lint(tmp_path, ["a.js", "b.js"])
    for out in outs.values():
        assert out.status == ScopeStatus.TOOL_ERROR and not out.falls_back
        assert out.reason and "config exploded" in out.reason and "\n" not in out.reason


def test_config_importing_an_uninstalled_package_is_tool_error_and_falls_back(
    tmp_path: Path,
) -> None:
    # node-gyp 13.1.0 as published: its eslint.config.js imports `neostandard`, a
    # devDependency a fresh checkout has not installed. ESLint judged nothing, so the
    # fallback still gives the file its syntax verdict; the scope says what to install.
    cfg = 'import neostandard from "neostandard";\nexport default neostandard({});\n'
    _write(tmp_path, {"eslint.config.js": cfg, "a.js": "1;\n"})
    out = _lint(tmp_path, ["a.js"])["a.js"]
    assert out.status == ScopeStatus.TOOL_ERROR and out.falls_back
    assert out.reason and "neostandard" in out.reason
    assert out.hint and "npm ci" in out.hint


def test_unloadable_plugin_is_tool_error(tmp_path: Path) -> None:
    cfg = 'export default [{ rules: { "nope/rule": "error" } }];\n'
    _write(tmp_path, {"eslint.config.js": cfg, "a.js": "1;\n"})
    out = _lint(tmp_path, ["a.js"])["a.js"]
    assert out.status == ScopeStatus.TOOL_ERROR and out.exit_code == 2
    assert out.reason and "nope" in out.reason


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        ("touch {marker}; sleep 30", ScopeStatus.TIMED_OUT, "deadline"),
        (
            'echo "Oops! Something went wrong! :(" >&2; echo "boom: crash" >&2; exit 2',
            ScopeStatus.TOOL_ERROR,
            "boom: crash",
        ),
        ("echo 'this is not json'; exit 1", ScopeStatus.TOOL_ERROR, "unparsable"),
        ("kill -SEGV $$", ScopeStatus.TOOL_ERROR, "exit"),
    ],
    ids=["hang", "crash", "garbage", "signal"],
)
def test_faults_are_outcomes_without_fallback(
    tmp_path: Path, body: str, status: ScopeStatus, needle: str
) -> None:
    marker = hang_marker(tmp_path)  # the hanging fake says it runs: the deadline passes
    fake = _fake(tmp_path / "fake_eslint", body.format(marker=shlex.quote(str(marker))))
    _write(tmp_path, {"eslint.config.js": CONFIG, "a.js": "1;\n", "b.js": "2;\n"})
    ctx = _ctx(tmp_path, timeout=3, tool_overrides={"eslint": fake})
    with deadline_passes_at(marker):
        outs = _lint(tmp_path, ["a.js", "b.js"], ctx)
    for out in outs.values():
        assert out.status == status and not out.falls_back
        assert out.reason and needle in out.reason
        assert out.tool and out.tool.path == fake


def test_output_over_budget_is_tool_error(tmp_path: Path) -> None:
    fake = _fake(tmp_path / "fake_eslint", "head -c 200000 /dev/zero | tr '\\0' x")
    _write(tmp_path, {"eslint.config.js": CONFIG, "a.js": "1;\n"})
    ctx = _ctx(tmp_path, output_budget=1000, tool_overrides={"eslint": fake})
    out = _lint(tmp_path, ["a.js"], ctx)["a.js"]
    assert out.status == ScopeStatus.TOOL_ERROR and out.reason and "budget" in out.reason


def test_typescript_config_imports_resolve_from_the_managed_install(tmp_path: Path) -> None:
    # No node_modules in the project: the config's imports come from tools/eslint.
    cfg = (
        'import js from "@eslint/js";\nimport tseslint from "typescript-eslint";\n'
        "export default tseslint.config(js.configs.recommended, ...tseslint.configs.recommended);\n"
    )
    cjs = 'const js = require("@eslint/js");\nmodule.exports = [js.configs.recommended];\n'
    _write(
        tmp_path,
        {
            "ts/eslint.config.mjs": cfg,
            "ts/a.ts": "const unused: number = 1;\nexport const f = (x: any) => x;\n",
            "ts/b.tsx": "export const C = () => <div />;\n",
            "legacy/eslint.config.cjs": cjs,
            "legacy/c.js": "let q = 1;\n",
        },
    )
    outs = _lint(tmp_path, ["ts/a.ts", "ts/b.tsx", "legacy/c.js"])
    assert all(o.status == ScopeStatus.CHECKED for o in outs.values()), outs
    rules = {f.rule for f in outs["ts/a.ts"].findings}
    assert rules == {"@typescript-eslint/no-unused-vars", "@typescript-eslint/no-explicit-any"}
    assert outs["ts/b.tsx"].findings == ()
    assert {f.rule for f in outs["legacy/c.js"].findings} == {"no-unused-vars"}


@pytest.mark.parametrize("legacy", [False, True], ids=["flat", "legacy"])
def test_eslint_is_never_asked_to_write(tmp_path: Path, legacy: bool) -> None:
    # Fault injection: a fake ESLint records its arguments and answers an empty result.
    log = tmp_path / "argv.log"
    fake = _fake(tmp_path / "fake-eslint", f'echo "$@" >> {log}; echo "[]"')
    project = tmp_path / "p"
    config = {".eslintrc.json": "{}"} if legacy else {"eslint.config.js": CONFIG}
    _write(project, {**config, "a.js": "1;\n"})
    staged = FileTarget(path="s.js", abs_path=project / "s.js", content=b"2;\n")
    ctx = _ctx(project, tool_overrides={"eslint": fake})
    checker = EslintChecker()
    plan = checker.plan([*_targets(project, ["a.js"]), staged], ctx)
    for batch in plan.batches:
        checker.run(batch, ctx)
    calls = log.read_text().splitlines()
    assert len(calls) == 2 and all("--format json" in c for c in calls)
    assert not any(flag in c for c in calls for flag in ("--fix", "--cache"))
    assert ("--config" in calls[0]) is not legacy


def test_staged_content_in_legacy_mode(tmp_path: Path) -> None:
    rc = '{"root": true, "rules": {"no-var": "error"}}'
    _write(tmp_path, {".eslintrc.json": rc, ".eslintignore": "gen/\n", "s.js": "let q;\n"})
    staged = FileTarget(path="s.js", abs_path=tmp_path / "s.js", content=b"var q;\n")
    ignored = FileTarget(path="gen/g.js", abs_path=tmp_path / "gen/g.js", content=b"var g;\n")
    checker, ctx = EslintChecker(), _ctx(tmp_path)
    plan = checker.plan([staged, ignored], ctx)
    outs = {o.path: o for b in plan.batches for o in checker.run(b, ctx)}
    outs |= {o.path: o for o in plan.settled}
    assert {f.rule for f in outs["s.js"].findings} == {"no-var"}
    assert outs["gen/g.js"].status == ScopeStatus.NOT_RUN
