"""ESLint fidelity: orchestrate reports what the project's ESLint, run directly, reports.

Each test builds one real-world configuration shape in a temporary git repository,
copies in the packages the shape needs (pinned by lock files in scripts/locks/, fetched
from the npm registry by scripts/fetch into the user cache folder, never the repo),
lints through the checker, runs the same ESLint directly the way a user does
(`eslint -f json .` in the project, `ESLINT_USE_FLAT_CONFIG` as the project needs),
and compares (path, line, column, rule). Every file's bytes and mtime, and
`git status --porcelain --ignored`, must be unchanged by the run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
from helpers import corpus, eslint_path, require_tool
from orchestrate_plugins.eslint_checker import EslintChecker

from orchestrator.deadline import Deadline
from orchestrator.model.checker import FileOutcome, FileTarget, RunContext
from orchestrator.vocab import ScopeStatus

# Items of scripts/corpora.toml: node_modules folders installed from pinned lock files.
PLUGIN = "eslint-plugin-no-only-tests"  # eslint-plugin-no-only-tests 3.4.0
OLD_ESLINT = "eslint-8"  # eslint 8.57.1
NPM_HINT = "install Node.js with npm (Debian: apt-get install npm)"

Key = tuple[str, int | None, int | None, str]


def _project(root: Path, files: dict[str, str], items: Sequence[str] = ()) -> None:
    """A git repository with `files` committed and the fetched `items` in node_modules."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    for item in items:
        modules = corpus(item) / "node_modules"
        shutil.copytree(modules, root / "node_modules", symlinks=True, dirs_exist_ok=True)
    (root / ".gitignore").write_text("node_modules/\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "shape"], cwd=root, check=True)


def _sources(root: Path) -> list[str]:
    """The lintable files of the project (what `orchestrate lint` would select)."""
    out = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        skipped = rel.startswith(("node_modules/", ".git/"))
        if p.is_file() and not skipped and p.suffix in (".js", ".mjs", ".cjs", ".ts"):
            out.append(rel)
    return out


def _footprint(root: Path) -> tuple[dict[str, tuple[bytes, int]], str]:
    files = {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }
    status = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=all"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return files, status


def _lint(root: Path) -> dict[str, FileOutcome]:
    checker = EslintChecker()
    ctx = RunContext(project_root=root, deadline=Deadline.after(120))
    before = _footprint(root)
    plan = checker.plan([FileTarget(path=p, abs_path=root / p) for p in _sources(root)], ctx)
    outs = list(plan.settled)
    for batch in plan.batches:
        outs += checker.run(batch, ctx)
    assert _footprint(root) == before, "the ESLint run changed the project"
    return {o.path: o for o in outs}


def _native(
    root: Path, eslint: str, legacy: bool, extra: Sequence[str] = ()
) -> dict[str, set[Key]]:
    """`eslint -f json .` in the project, as its user runs it: file -> finding keys."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ESLINT_")}
    env["ESLINT_USE_FLAT_CONFIG"] = "false" if legacy else "true"
    res = subprocess.run(
        [eslint, "-f", "json", *extra, "."], cwd=root, env=env, capture_output=True, timeout=120
    )
    assert res.returncode in (0, 1), res.stderr.decode()
    out: dict[str, set[Key]] = {}
    for item in json.loads(res.stdout):
        rel = Path(item["filePath"]).relative_to(root).as_posix()
        out[rel] = {
            (rel, m.get("line"), m.get("column"), m.get("ruleId") or "eslint/parse-error")
            for m in item["messages"]
        }
    return out


def _ours(outs: dict[str, FileOutcome]) -> dict[str, set[Key]]:
    return {
        p: {(f.path, f.line, f.column, f.rule) for f in o.findings}
        for p, o in outs.items()
        if o.status == ScopeStatus.CHECKED
    }


def _agree(outs: dict[str, FileOutcome], native: dict[str, set[Key]]) -> None:
    """Same files checked, same findings, and nothing native ESLint skips is `checked`."""
    ours = _ours(outs)
    assert ours == native
    assert all(o.findings == () for o in outs.values() if o.status != ScopeStatus.CHECKED)


def _reason(out: FileOutcome) -> str:
    assert out.reason, out
    return out.reason


def test_flat_config_with_an_installed_plugin(tmp_path: Path) -> None:
    """A flat config loading the project's plugin, run with our pinned ESLint because
    the project has none installed. Today: findings agree, but the scope does not say
    that the ESLint used (v9) differs from the one package.json declares (^8.57.0)."""
    config = (
        'import noOnly from "eslint-plugin-no-only-tests";\n'
        'export default [{ plugins: { "no-only-tests": noOnly },'
        ' rules: { "no-only-tests/no-only-tests": "error", "no-unused-vars": "error" } }];\n'
    )
    package = {"devDependencies": {"eslint": "^8.57.0", "eslint-plugin-no-only-tests": "3.4.0"}}
    files = {
        "package.json": json.dumps(package),
        "eslint.config.mjs": config,
        "test/a.test.js": 'describe.only("x", () => {});\nconst unused = 1;\n',
    }
    _project(tmp_path, files, [PLUGIN])
    outs = _lint(tmp_path)
    _agree(outs, _native(tmp_path, eslint_path(), legacy=False))
    out = outs["test/a.test.js"]
    assert {f.rule for f in out.findings} == {"no-only-tests/no-only-tests", "no-unused-vars"}
    reason = _reason(out)
    assert "v9.39." in reason and "^8.57.0" in reason and "differ" in reason


def test_legacy_eslintrc_extends_recommended(tmp_path: Path) -> None:
    """`.eslintrc.json` extending `eslint:recommended`, run in legacy mode. Today every
    file is `configuration_required` and no finding is reported."""
    rc = {"root": True, "extends": "eslint:recommended", "env": {"node": True, "es2022": True}}
    files = {
        ".eslintrc.json": json.dumps(rc),
        "src/a.js": "const unused = 1;\nmissing();\n",
        "src/ok.js": "module.exports = 1;\n",
        "src/types.ts": "let n: number = 1;\n",  # legacy ESLint selects .js only
    }
    _project(tmp_path, files)
    outs = _lint(tmp_path)
    _agree(outs, _native(tmp_path, eslint_path(), legacy=True))
    assert {f.rule for f in outs["src/a.js"].findings} == {"no-unused-vars", "no-undef"}
    assert "legacy config" in _reason(outs["src/a.js"])
    ts = outs["src/types.ts"]
    assert ts.status == ScopeStatus.CONFIGURATION_REQUIRED and ts.falls_back


def test_legacy_eslintrc_with_a_plugin(tmp_path: Path) -> None:
    """A legacy config naming the project's installed plugin. Today:
    `configuration_required` for every file."""
    rc = {
        "root": True,
        "plugins": ["no-only-tests"],
        "parserOptions": {"ecmaVersion": 2022},
        "rules": {"no-only-tests/no-only-tests": "error", "no-var": "warn"},
    }
    files = {".eslintrc.json": json.dumps(rc), "a.js": 'var x = 1;\nit.only("t", () => x);\n'}
    _project(tmp_path, files, [PLUGIN])
    outs = _lint(tmp_path)
    _agree(outs, _native(tmp_path, eslint_path(), legacy=True))
    assert {f.rule for f in outs["a.js"].findings} == {"no-only-tests/no-only-tests", "no-var"}


def test_legacy_plugin_not_installed_is_a_bounded_tool_error(tmp_path: Path) -> None:
    """The plugin is named but not installed: ESLint's own reason, on one line, and
    `tool_error` (never `configuration_required`, which would hide that the project's
    lint cannot run). ESLint judged nothing, so the file goes to the syntax fallback."""
    rc = {"root": True, "plugins": ["not-installed-here"], "rules": {}}
    _project(tmp_path, {".eslintrc.json": json.dumps(rc), "a.js": "1;\n"})
    out = _lint(tmp_path)["a.js"]
    assert out.status == ScopeStatus.TOOL_ERROR and out.falls_back
    reason = _reason(out)
    assert "eslint-plugin-not-installed-here" in reason and "\n" not in reason
    assert len(reason) <= 500 and "ESLintRCWarning" not in reason
    assert out.hint and "npm ci" in out.hint


def test_ignores_and_eslintignore_are_not_run(tmp_path: Path) -> None:
    """Flat `ignores` and legacy `.eslintignore`: the ignored files are `not_run` with
    the config named as the reason, never `checked`. Today: the flat reason speaks of
    "ignore patterns", and the legacy project is `configuration_required` throughout."""
    flat = tmp_path / "flat"
    config = 'export default [{ ignores: ["gen/**"] }, { rules: { "no-var": "error" } }];\n'
    files = {"eslint.config.mjs": config, "gen/out.js": "var g;\n", "src/a.js": "var a;\n"}
    _project(flat, files)
    legacy = tmp_path / "legacy"
    rc = {"root": True, "rules": {"no-var": "error"}}
    files = {
        ".eslintrc.json": json.dumps(rc),
        ".eslintignore": "gen/\n",
        "gen/out.js": "var g;\n",
        "src/a.js": "var a;\n",
    }
    _project(legacy, files)
    for root, is_legacy in ((flat, False), (legacy, True)):
        outs = _lint(root)
        native = _native(root, eslint_path(), legacy=is_legacy)
        _agree(outs, native)
        assert "gen/out.js" not in native
        gen = outs["gen/out.js"]
        assert gen.status == ScopeStatus.NOT_RUN and not gen.findings
        assert "ignored by the project's ESLint config" in _reason(gen)
        assert {f.rule for f in outs["src/a.js"].findings} == {"no-var"}


#: Legacy configs whose globs are not `overrides` patterns: rule options, ignorePatterns.
_GLOBS_NOT_OVERRIDES = {
    ".eslintrc.json": json.dumps(
        {
            "root": True,
            "ignorePatterns": ["*.d.ts", "dist/**/*.cjs"],
            "rules": {
                "no-var": "error",
                "no-restricted-imports": ["error", {"patterns": ["*.mjs", "lodash/*.ts"]}],
            },
        }
    ),
    "src/a.js": "var a;\n",
    "src/b.cjs": "var b;\n",
    "src/c.mjs": "var c;\n",
    "src/d.ts": "var d;\n",
    "src/e.d.ts": "var e;\n",
    "dist/f.cjs": "var f;\n",
}
_LEGACY_SHAPES: dict[str, tuple[dict[str, str], tuple[str, ...], set[str]]] = {
    # Before: "ESLint selects .cjs, .d, .js, .mjs, .ts files" and four of them checked.
    "globs-not-overrides": (_GLOBS_NOT_OVERRIDES, (), {"src/a.js"}),
    "overrides-ts": (
        {
            ".eslintrc.json": json.dumps(
                {
                    "root": True,
                    "ignorePatterns": ["legacy/"],
                    "rules": {"no-var": "error"},
                    "overrides": [{"files": ["*.ts"], "rules": {"eqeqeq": "error"}}],
                }
            ),
            "a.js": "var a;\n",
            "b.ts": "var b = 1 == 2;\n",
            "c.cjs": "var c;\n",
            "legacy/d.js": "var d;\n",
            "legacy/e.ts": "var e;\n",
        },
        (),
        {"a.js", "b.ts"},
    ),
    # The project's script gives --ext; a glob elsewhere in the config adds nothing.
    "ext-flag": (
        {
            "package.json": json.dumps({"scripts": {"lint": "eslint --ext .js,.cjs ."}}),
            ".eslintrc.json": json.dumps(
                {"root": True, "ignorePatterns": ["*.ts"], "rules": {"no-var": "error"}}
            ),
            "a.js": "var a;\n",
            "b.cjs": "var b;\n",
            "c.mjs": "var c;\n",
            "d.ts": "var d;\n",
        },
        ("--ext", ".js,.cjs"),
        {"a.js", "b.cjs"},
    ),
}


@pytest.mark.parametrize("shape", sorted(_LEGACY_SHAPES))
def test_legacy_files_are_the_ones_eslint_dot_lints(tmp_path: Path, shape: str) -> None:
    """Which files a legacy project has checked is ESLint's own enumeration of `eslint .`
    (compared with ESLint run directly), never globs read out of the config. Before:
    every `*.ext` in ignorePatterns or rule options counted as a selected extension."""
    files, extra, linted = _LEGACY_SHAPES[shape]
    _project(tmp_path, files)
    outs = _lint(tmp_path)
    native = _native(tmp_path, eslint_path(), legacy=True, extra=extra)
    assert set(native) == linted
    _agree(outs, native)
    for path in set(_sources(tmp_path)) - linted:
        assert outs[path].status in (ScopeStatus.CONFIGURATION_REQUIRED, ScopeStatus.NOT_RUN)
        assert "eslint ." in _reason(outs[path]), outs[path]


def test_legacy_files_under_the_project_eslint_8(tmp_path: Path) -> None:
    """The same question asked of the project's own ESLint 8.57 gives its answer."""
    files = dict(_GLOBS_NOT_OVERRIDES, **{"package.json": '{"devDependencies": {"eslint": "8"}}'})
    _project(tmp_path, files, [OLD_ESLINT])
    outs = _lint(tmp_path)
    native = _native_npx(tmp_path, require_tool("npx", NPM_HINT))
    assert set(native) == {"src/a.js"}
    _agree(outs, native)
    assert outs["src/a.js"].tool is not None and outs["src/a.js"].tool.version == "v8.57.1"


def test_project_local_eslint_8(tmp_path: Path) -> None:
    """The project's own ESLint 8.57 (legacy config, its default mode) is the one run,
    and the scope names it. Today: `configuration_required` for the legacy config."""
    rc = {"root": True, "extends": "eslint:recommended", "env": {"node": True}}
    package = {"devDependencies": {"eslint": "8.57.1"}}
    files = {
        "package.json": json.dumps(package),
        ".eslintrc.json": json.dumps(rc),
        "lib/a.js": "var unused = 1;\n",
    }
    _project(tmp_path, files, [OLD_ESLINT])
    local = tmp_path / "node_modules" / ".bin" / "eslint"
    outs = _lint(tmp_path)
    npx = require_tool("npx", NPM_HINT)
    native = _native_npx(tmp_path, npx)
    _agree(outs, native)
    out = outs["lib/a.js"]
    assert out.tool is not None and out.tool.path == str(local)
    assert out.tool.version == "v8.57.1"
    reason = _reason(out)
    assert "v8.57.1" in reason and "node_modules" in reason and "differ" not in reason


def _native_npx(root: Path, npx: str) -> dict[str, set[Key]]:
    """`npx --no-install eslint -f json .`: the project's own ESLint, as its user runs it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ESLINT_")}
    res = subprocess.run(
        [npx, "--no-install", "eslint", "-f", "json", "."],
        cwd=root,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert res.returncode in (0, 1), res.stderr.decode()
    out: dict[str, set[Key]] = {}
    for item in json.loads(res.stdout):
        rel = Path(item["filePath"]).relative_to(root).as_posix()
        out[rel] = {
            (rel, m.get("line"), m.get("column"), m.get("ruleId") or "eslint/parse-error")
            for m in item["messages"]
        }
    return out


#: A root flat config and a nested one: which governs `sub/` depends on the ESLint major.
_NESTED = {
    "eslint.config.js": 'module.exports = [{ rules: { "no-unused-vars": "error" } }];\n',
    "sub/eslint.config.js": 'module.exports = [{ rules: { "no-undef": "error" } }];\n',
    "sub/x.js": "var a = 1;\nfoo();\n",
    "top.js": "var a = 1;\nfoo();\n",
}


def test_eslint_9_uses_the_root_config_for_every_file(tmp_path: Path) -> None:
    """ESLint 9 looks up one flat config from its working directory (the project root)
    and ignores nested ones. Before: `sub/` was linted with `sub/eslint.config.js`
    (ESLint 10's per-file lookup), reporting no-undef where ESLint 9 reports
    no-unused-vars."""
    _project(tmp_path, _NESTED)
    outs = _lint(tmp_path)
    native = _native(tmp_path, eslint_path(), legacy=False)
    _agree(outs, native)
    assert {f.rule for f in outs["sub/x.js"].findings} == {"no-unused-vars"}
    assert outs["sub/x.js"].config_files == ("eslint.config.js",)


def test_eslint_10_looks_up_the_config_from_each_file(tmp_path: Path) -> None:
    """The project's own ESLint 10 (from the qs corpus) finds the nearest flat config
    for each file, as native `eslint .` does."""
    _project(tmp_path, _NESTED, ["qs"])
    local = tmp_path / "node_modules" / ".bin" / "eslint"
    outs = _lint(tmp_path)
    npx = require_tool("npx", NPM_HINT)
    native = _native_npx(tmp_path, npx)
    _agree(outs, native)
    out = outs["sub/x.js"]
    assert out.tool is not None and out.tool.path == str(local)
    assert (out.tool.version or "").startswith("v10.")
    assert {f.rule for f in out.findings} == {"no-undef"}
    assert {f.rule for f in outs["top.js"].findings} == {"no-unused-vars"}


def test_eslint_9_file_outside_the_root_config_is_not_checked(tmp_path: Path) -> None:
    """Under ESLint 9 a nested config naming `*.ts` does not make `sub/y.ts` lintable:
    the root config covers no `.ts` file, so native `eslint .` skips it and orchestrate
    never calls it checked."""
    root_cfg = (
        'module.exports = [{ files: ["top.js"], rules: { "no-unused-vars": "error" } },'
        ' { ignores: ["eslint.config.js", "sub/eslint.config.js"] }];\n'
    )
    sub_cfg = 'module.exports = [{ files: ["**/*.ts"], rules: { "no-undef": "error" } }];\n'
    files = {
        "eslint.config.js": root_cfg,
        "sub/eslint.config.js": sub_cfg,
        "sub/x.js": "var a = 1;\nfoo();\n",
        "sub/y.ts": "let n = 1;\n",
        "top.js": "var a = 1;\nfoo();\n",
    }
    _project(tmp_path, files)
    outs = _lint(tmp_path)
    native = _native(tmp_path, eslint_path(), legacy=False)
    _agree(outs, native)
    assert "sub/y.ts" not in native
    ts = outs["sub/y.ts"]
    assert ts.status == ScopeStatus.CONFIGURATION_REQUIRED and ts.falls_back
    assert outs["sub/x.js"].status == ScopeStatus.CHECKED and not outs["sub/x.js"].findings
