"""Each built-in recipe's findings equal its tool run directly on a real project
(fetched by scripts/fetch): shellcheck on dracut's 215 module scripts (corpus item
`dracut`), hadolint on jupyter-repo2docker's 8 Dockerfiles (item `repo2docker`),
yamllint on ansible-lint's 640 YAML files under its own `.yamllint` (item
`ansible-lint`), codespell on Sphinx's reStructuredText and text files (item
`sphinx-prose`; it has no codespell config: a copy with an empty `[tool.codespell]`
in its pyproject.toml, codespell's defaults), mypy on attrs' 54 Python files under its own
`[tool.mypy]` (item `attrs`; its cache in the user cache folder, never in the project),
cppcheck on 35 of Pillow's C files (item `pillow`; no project has a cppcheck config:
cppcheck's defaults; uWSGI's 246, 17 findings over 5 checks, are measured by
bench/polyglot.py, not here: minutes of cppcheck twice),
go vet on gopher-lua's 39 Go files (item `gopher-lua`, a project needing only the
standard library, from 2017: it predates Go modules, so a copy with a minimal `go.mod`;
25 findings over 6 analyzers),
markdownlint-cli2 on ansible-navigator's 21 Markdown files under its own root
`.markdownlint.yaml` (item `ansible-navigator`; the direct run as a user types it, the
files as globs, its findings on stderr), prettier --check on ansible-lint's 207 Markdown
files under its own `.prettierrc.yaml` and `.prettierignore` (item `ansible-lint`; a
format checker has one rule, `prettier/format`, and no line), biome check on
ansible-lint's 888 files of Biome's suffixes under its own `biome.json` (the same item;
53 findings, `format`, `parse` and one lint rule: a format checker's case),
ruff-format on jupyter-server's 192 Python files under its own `[tool.ruff.format]` (item
`ruff-format-jupyter-server`: a format checker has one rule, `unformatted`, so "at least
5 rules" does not apply; 99 files would be reformatted), sqlfluff on one dataset folder
of Mozilla's bigquery-etl (item `sqlfluff-bigquery-etl`, 43 BigQuery `.sql` files; it
ships no sqlfluff config: a copy with a minimal root `.sqlfluff`, `dialect = bigquery`,
and a nested `.sqlfluff` that drops one rule in one folder), taplo on the 566 Cargo.toml
files of the Rust 1.63 sources (item `taplo-rust-src`; no taplo config: a copy with a
root `taplo.toml` keeping taplo's defaults; a format checker: `not-formatted`, and
`invalid-toml` for a syntax error, so "at least 5 rules" does not apply), stylelint on
the 27 per-component compiled `dist/*.css` files @primer/css publishes (not the four
bundles that repeat them), under its own published `stylelint.config.cjs` (item
`stylelint-primer-css`; the config extends @primer/stylelint-config, installed beside
it from the pinned lock `locks/primer-css`: 4,109 findings over 24 rules), and on its
112 SCSS sources, whose shared config names `postcss-scss` as their custom syntax (the
pinned one beside the managed stylelint; below: equal to the project's own stylelint
too, 417 findings over the 3 rules that fire there).

Same paths, lines, columns and rule ids, file for file; every file `checked`; the
project tree is left as it was. The cases marked `corpus_job` (`JOB`, and SCSS) run in
bench/recipe_fidelity.py instead of `.ci/run` (README "Tests"). The recipe-made
checkers come from `orchestrate_plugins.recipe_checkers`, the built-in recipes' plugin,
as the engine loads them; the direct run uses the very binary the checker found.
"""

from __future__ import annotations

import collections
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from orchestrate_plugins import recipe_checkers

from orchestrator.api import Deadline, FileTarget, RunContext, ScopeStatus
from orchestrator.model.languages import detect_language
from tests.helpers import corpus

#: Real tools against themselves run directly on real projects: the end-to-end tier
#: (each case runs its tool twice over a fetched corpus, seconds to a minute).
pytestmark = pytest.mark.e2e

Key = tuple[str, int | None, int | None, str]


def _shellcheck_keys(stdout: bytes) -> set[Key]:
    return {
        (c["file"], c["line"], c["column"], f"SC{c['code']}")
        for c in json.loads(stdout)["comments"]
    }


def _hadolint_keys(stdout: bytes) -> set[Key]:
    return {(c["file"], c["line"], c["column"], c["code"]) for c in json.loads(stdout)}


_YAMLLINT_LINE = re.compile(r"^(.+?):(\d+):(\d+): \[\w+\] .* \(([\w-]+)\)$")


def _yamllint_keys(stdout: bytes) -> set[Key]:
    keys = set()
    for line in stdout.decode().splitlines():
        m = _YAMLLINT_LINE.match(line)
        assert m is not None, line
        keys.add((m[1], int(m[2]), int(m[3]), m[4]))
    return keys


_CODESPELL_LINE = re.compile(r"^(.+?):(\d+): (\S+) ==> ")


def _codespell_keys(stdout: bytes) -> set[Key]:
    keys = set()
    for line in stdout.decode().splitlines():
        m = _CODESPELL_LINE.match(line)
        assert m is not None, line
        keys.add((m[1], int(m[2]), None, m[3]))
    return keys


_MYPY_LINE = re.compile(
    r"^(.+?):(\d+)(?::(\d+))?: (?:error|warning): .*?(?:  \[([a-z][a-z0-9-]*)\])?$"
)


def _mypy_keys(stdout: bytes) -> set[Key]:
    keys = set()
    for line in stdout.decode().splitlines():
        if re.match(r"^.+?:\d+(?::\d+)?: note: ", line):
            continue  # the context of an error: no finding
        m = _MYPY_LINE.match(line)
        assert m is not None, line
        keys.add((m[1], int(m[2]), int(m[3]) if m[3] else None, m[4] or "mypy"))
    return keys


_CPPCHECK_LINE = re.compile(r"^(.+?):(\d+):(\d+): \w+: .* \[(\w+)\]$")


def _cppcheck_keys(stderr: bytes) -> set[Key]:
    keys = set()
    for line in stderr.decode().splitlines():
        m = _CPPCHECK_LINE.match(line)
        assert m is not None, line
        if m[1] != "nofile":  # a run's note of no file (toomanyconfigs)
            keys.add((m[1], int(m[2]) or None, int(m[3]) or None, m[4]))
    return keys


def _go_vet_keys(stderr: bytes) -> set[Key]:
    """go vet -json: a `# PACKAGE` line, then {PACKAGE: {ANALYZER: [{posn, message}]}}."""
    text = "\n".join(x for x in stderr.decode().splitlines() if not x.startswith("# "))
    keys, at, decoder = set(), 0, json.JSONDecoder()
    while text[at:].strip():
        at += len(text[at:]) - len(text[at:].lstrip())
        doc, at = decoder.raw_decode(text, at)
        for analyzers in doc.values():
            for analyzer, found in analyzers.items():
                for f in found:
                    path, line, column = f["posn"].rsplit(":", 2)
                    keys.add((path, int(line), int(column), analyzer))
    return keys


def _c_files(p: Path) -> bool:
    """Pillow's 14 extension modules (`src/*.c`) and the 21 libImaging files whose names
    start with B, J, P or U: every check cppcheck finds in all 111 files (missingReturn,
    uninitvar, unknownMacro, integerOverflow, preprocessorErrorDirective) at about a
    quarter of the time (cppcheck on all of them twice took about 90 s)."""
    if not p.is_file() or p.suffix != ".c":
        return False
    return p.parent.name == "src" or (p.parent.name == "libImaging" and p.name[0] in "BJPU")


_MARKDOWNLINT_LINE = re.compile(r"^(.+?):(\d+)(?::(\d+))? (?:error|warning) ([^/\s]+)/")


def _markdownlint_keys(stderr: bytes) -> set[Key]:
    keys = set()
    for line in stderr.decode().splitlines():
        m = _MARKDOWNLINT_LINE.match(line)
        assert m is not None, line
        keys.add((m[1], int(m[2]), int(m[3]) if m[3] else None, m[4]))
    return keys


_PRETTIER_NOT_A_FILE = re.compile(r"^\[warn\] (?:Code style issues |Ignored unknown option )")


def _prettier_keys(stderr: bytes) -> set[Key]:
    keys = set()
    for line in stderr.decode().splitlines():
        if _PRETTIER_NOT_A_FILE.match(line):
            continue  # its summary; an option of a plugin the project did not install
        assert line.startswith("[warn] "), line
        keys.add((line.removeprefix("[warn] "), None, None, "prettier/format"))
    return keys


_RUFF_FORMAT_LINE = re.compile(r"^(.+?):(\d+):(\d+): (\S+): ")


def _ruff_format_keys(stdout: bytes) -> set[Key]:
    keys = set()
    for line in stdout.decode().splitlines():
        if re.match(r"^\d+ files? would be reformatted", line):
            continue  # the closing count
        m = _RUFF_FORMAT_LINE.match(line)
        assert m is not None, line
        keys.add((m[1], int(m[2]), int(m[3]), m[4]))
    return keys


def _sqlfluff_keys(stdout: bytes) -> set[Key]:
    return {
        (f["filepath"], v["start_line_no"], v["start_line_pos"], v["code"])
        for f in json.loads(stdout)
        for v in f["violations"]
    }


_TAPLO_WHERE = re.compile(r"^\s*┌─ (.+):(\d+):(\d+)$")


def _taplo_keys(stdout: bytes, stderr: bytes) -> set[Key]:
    """taplo's stdout (`--diff`: a patch per file it would reformat, `diff a/P b/P`,
    `--- a/P`, `+++ b/P`, then the hunks, their context lines as they are), then its
    stderr (diagnostics; its log's `not properly formatted` lines, which it may lose)."""
    keys: set[Key] = set()
    lines = stdout.decode().splitlines()
    for at, line in enumerate(lines):
        m = re.match(r"^diff a/(.+) b/\1$", line)
        if m and lines[at + 1 : at + 3] == [f"--- a/{m[1]}", f"+++ b/{m[1]}"]:
            keys.add((m[1], None, None, "not-formatted"))
    title = ""
    for line in stderr.decode().splitlines():
        if re.match(r'^ERROR the file is not properly formatted path="(.+)"$', line):
            continue  # said by its patch
        elif m := re.match(r"^error: (.+)$", line):
            title = re.sub(r"[^a-z0-9]+", "-", m[1].lower()).strip("-")
        elif m := _TAPLO_WHERE.match(line):
            keys.add((m[1], int(m[2]), int(m[3]), title))
        else:
            assert line.startswith(("ERROR operation failed", " ", "│")) or not line, line
    return keys


def _stylelint_keys(stderr: bytes) -> set[Key]:
    return {
        (f["source"], w["line"], w["column"], w["rule"])
        for f in json.loads(stderr)
        for w in f["warnings"]
    }


def _python_modules(p: Path) -> bool:
    # Its .py files, as `orchestrate lint` gives them (a stub beside its module: never).
    return p.is_file() and p.suffix == ".py"


def _prose(p: Path) -> bool:
    return p.is_file() and p.suffix in (".md", ".rst", ".txt", ".adoc")


def _yaml(p: Path) -> bool:
    # yamllint 1.38 cannot decode this one (a traceback; the crash case below).
    return p.is_file() and p.suffix in (".yml", ".yaml") and p.name != "encoding.yml"


#: recipe -> (corpus item, folder in it, the files, the direct argv, its keys, at least
#: how many findings and rules, the version).
CASES: dict[str, tuple[str, str, Callable[[Path], bool], list[str], Any, int, int, str]] = {
    "shellcheck": (
        "dracut",
        "root",
        lambda p: p.suffix == ".sh",
        ["--format=json1", "--"],
        _shellcheck_keys,
        20,
        5,
        "0.11.0",
    ),
    "hadolint": (
        "repo2docker",
        "src",
        lambda p: p.name == "Dockerfile",
        ["--format", "json", "--no-color", "--"],
        _hadolint_keys,
        20,
        5,
        "2.15.1",
    ),
    "yamllint-recipe": (
        "ansible-lint",
        "src",
        _yaml,
        ["-f", "parsable", "--"],
        _yamllint_keys,
        20,
        5,
        "1.38.0",
    ),
    "codespell": (
        "sphinx-prose",
        "src",
        _prose,
        ["--stdin-single-line", "--"],
        _codespell_keys,
        20,
        5,
        "2.4.3",
    ),
    "mypy": (
        "attrs",
        "src",
        _python_modules,
        [
            "--no-pretty", "--no-color-output", "--no-error-summary", "--hide-error-context",
            "--show-column-numbers", "--hide-error-end", "--show-error-codes",
            "--hide-absolute-path", "--",
        ],
        _mypy_keys,
        20,
        5,
        "2.4.1",
    ),
    "cppcheck": (
        "pillow",
        "src",
        _c_files,
        ["--quiet", "--template={file}:{line}:{column}: {severity}: {message} [{id}]"],
        _cppcheck_keys,
        20,
        5,
        "2.10",
    ),
    "go-vet": (
        "gopher-lua",
        "root/usr/share/gocode/src/github.com/yuin/gopher-lua",
        lambda p: p.is_file() and p.suffix == ".go",
        ["vet", "-json"],
        _go_vet_keys,
        20,
        5,
        "1.19.8",
    ),
    "markdownlint-cli2": (
        "ansible-navigator",
        "src",
        lambda p: p.is_file() and p.suffix == ".md",
        [],
        _markdownlint_keys,
        20,
        5,
        "0.22.1",
    ),
    "prettier": (
        "ansible-lint",
        "src",
        lambda p: p.is_file() and p.suffix == ".md" and "node_modules" not in p.parts,
        ["--check", "--no-color", "--"],
        _prettier_keys,
        20,
        1,  # a format checker: one rule
        "3.10.2",
    ),
    "ruff-format": (
        "ruff-format-jupyter-server",
        "src",
        lambda p: p.is_file() and p.suffix in (".py", ".pyi"),
        ["format", "--check", "--no-cache", "--output-format", "concise", "--"],
        _ruff_format_keys,
        20,
        1,
        "0.17.6",
    ),
    "sqlfluff": (
        "sqlfluff-bigquery-etl",
        "src/sql/moz-fx-data-shared-prod/mozilla_org_derived",
        lambda p: p.is_file() and p.suffix == ".sql",
        ["lint", "--format", "json", "--nocolor", "--"],
        _sqlfluff_keys,
        20,
        5,
        "4.5.0",
    ),
    "taplo": (
        "taplo-rust-src",
        "root/usr/src/rustc-1.63.0",
        lambda p: p.is_file() and p.suffix == ".toml",
        ["fmt", "--check", "--diff", "--colors", "never", "--"],
        _taplo_keys,
        20,
        1,
        "0.9.3",
    ),
    "stylelint": (
        "stylelint-primer-css",
        "src",
        # The per-component files, not the bundles that repeat them (primer.css,
        # color-modes.css, core.css, utilities.css: 2.2 MB, a minute of stylelint twice).
        lambda p: p.is_file() and p.suffix == ".css" and p.parent.name == "dist"
        and p.stat().st_size < 100_000,
        ["--formatter", "json", "--no-color", "--"],
        _stylelint_keys,
        20,
        5,
        "17.16.0",
    ),
}  # fmt: skip

#: A tool that runs only where the project uses it, on a project that does not: the
#: test judges a copy with an empty section added (the tool's defaults; nothing else).
OPT_IN = {
    "codespell": {"pyproject.toml": "\n[tool.codespell]\n"},
    # sqlfluff needs a dialect; the nested config drops a rule in one folder.
    "sqlfluff": {
        ".sqlfluff": "[sqlfluff]\ndialect = bigquery\n",
        "ga_sessions_v2/.sqlfluff": "[sqlfluff]\nexclude_rules = layout.indent\n",
    },
    "taplo": {"taplo.toml": "# taplo's formatter defaults\n"},
    # A module of the project's own import path, at the toolchain's language version.
    "go-vet": {"go.mod": "module github.com/yuin/gopher-lua\n\ngo 1.19\n"},
}

#: A tool whose findings are on both streams (taplo: its patches on stdout, its
#: diagnostics on stderr).
BOTH_STREAMS = {"taplo"}

#: Files of a case the tool's own ignore rules skip (ansible-lint's `.prettierignore`
#: holds `test/local-content`), checked against the tool's own answer below.
SKIPPED = {"prettier": {"test/local-content/README.md"}}

#: The language of the targets (codespell's: each file's own).
LANGUAGES = {
    "shellcheck": "bash",
    "hadolint": "dockerfile",
    "yamllint-recipe": "yaml",
    "mypy": "python",
    "markdownlint-cli2": "markdown",
    "ruff-format": "python",
    "stylelint": "css",
}


def _checker(name: str) -> Any:
    (checker,) = [c for c in recipe_checkers.orchestrate_checkers() if c.name == name]
    return checker


def _footprint(root: Path) -> dict[str, tuple[int, int]]:
    return {
        p.relative_to(root).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in root.rglob("*")
    }


#: The cases that run the tool twice over hundreds of files, and the two whose tools
#: start slowly (go vet builds its packages, mypy checks a typed package): about 140 s of
#: CPU together, not in `.ci/run` but in bench/recipe_fidelity.py, whose stored result
#: the fast tier checks against what they depend on (tests/test_recipe_fidelity_job.py).
JOB = ("cppcheck", "go-vet", "mypy", "prettier", "shellcheck", "sqlfluff", "stylelint")
corpus_job = pytest.mark.corpus_job


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=corpus_job) if n in JOB else n for n in sorted(CASES)]
)
def test_a_builtin_recipe_equals_its_tool_run_directly_on_a_real_project(
    name: str, tmp_path: Path
) -> None:
    item, folder, wanted, direct, keys, least, rules_least, version = CASES[name]
    name = name
    root = corpus(item) / folder
    if name in OPT_IN:
        root = Path(shutil.copytree(root, tmp_path / "copy", symlinks=True))
        for config, section in OPT_IN[name].items():
            with (root / config).open("a", encoding="utf-8") as f:
                f.write(section)
    paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if wanted(p))
    assert len(paths) >= 5
    checker = _checker(name)
    ctx = RunContext(project_root=root, deadline=Deadline.after(900))
    before = _footprint(root)
    targets = [
        FileTarget(
            path=p, abs_path=root / p, language=LANGUAGES.get(name) or detect_language(p).language
        )
        for p in paths
    ]
    plan = checker.plan(targets, ctx)
    assert not plan.settled, [o.reason for o in plan.settled[:3]]
    outs = [o for batch in plan.batches for o in checker.run(batch, ctx)]
    assert _footprint(root) == before, "the recipe run changed the project"
    assert {o.path for o in outs} == set(paths)
    # Every file `checked`, but those the tool's own ignore rules skip (`not_run`, as
    # run directly they are not judged): each of those the tool itself says it ignores.
    skipped = {o.path for o in outs if o.status == ScopeStatus.NOT_RUN}
    assert {o.status for o in outs if o.path not in skipped} == {ScopeStatus.CHECKED}, [
        o.reason for o in outs if o.status != ScopeStatus.CHECKED
    ][:3]
    assert all("ignore rules skip it" in (o.reason or "") for o in outs if o.path in skipped)
    assert skipped == SKIPPED.get(name, set()), skipped
    tool = next(o.tool for o in outs if o.status == ScopeStatus.CHECKED)
    assert tool is not None and tool.version == version
    ours = {(f.path, f.line, f.column, f.rule) for o in outs for f in o.findings}
    for o in outs:
        assert all(f.path == o.path and f.checker == name for f in o.findings)

    if name == "prettier":  # prettier's own answer for each file it skipped
        for path in skipped:
            info = subprocess.run(
                [tool.path, "--file-info", path], cwd=root, capture_output=True, timeout=60
            )
            assert json.loads(info.stdout)["ignored"] is True, path

    # The direct run's caches go to a folder of the test's own too (never the corpus).
    cache = dict.fromkeys(checker.recipe.cache_env, str(tmp_path / "cache"))
    env = {**os.environ, **checker.recipe.env, **cache}  # the recipe's pinned variables too
    named = paths
    if checker.recipe.targets == "folders":  # a package at a time: go vet ./DIR ...
        folders = {Path(p).parent.as_posix() for p in paths}
        named = sorted("." if f == "." else f"./{f}" for f in folders)
    argv = [tool.path, *direct, *named]
    # A bound, not a timing: a large project in one process takes minutes on a busy machine.
    res = subprocess.run(argv, cwd=root, capture_output=True, timeout=900, env=env)
    assert _footprint(root) == before, "the direct run changed the project"
    assert res.returncode in checker.recipe.output.exits, res.stderr
    # A recipe that counts any stderr as an error: the direct run printed none.
    assert not (checker.recipe.output.stderr_is_error and res.stderr), res.stderr
    # The stream the tool reports on; a path it prints absolute is the project's.
    out = res.stderr if checker.recipe.output.stream == "stderr" else res.stdout
    here = str(root).encode() + b"/"
    out = out.replace(here, b"")
    said = keys(res.stdout.replace(here, b""), out) if name in BOTH_STREAMS else keys(out)
    # A project-scope tool's findings in files it was not asked about are theirs.
    native = {k for k in said if k[0] in set(paths)}
    assert ours == native
    rules = collections.Counter(rule for _p, _l, _c, rule in native)
    assert len(native) >= least and len(rules) >= rules_least, rules
    # The tool's severity words follow the recipe's map (its default for a tool without).
    words = {f.tool_severity: f.severity.value for o in outs for f in o.findings}
    severity = checker.recipe.severity
    # (The recipe's map is read in lower case: sqlfluff's `warning` flag is a boolean.)
    assert all(
        severity[w.lower() if w is not None else "default"] == sev for w, sev in words.items()
    )
    if name in ALSO:
        ALSO[name](outs)


@corpus_job
def test_stylelint_on_scss_sources_under_postcss_scss_equals_the_project_s_own_stylelint() -> None:
    """@primer/css's 112 SCSS sources under its own `stylelint.config.cjs`, whose shared
    config (@primer/stylelint-config) names `customSyntax: "postcss-scss"` for `*.scss`:
    every file `checked` (before: all `tool_error`, the managed stylelint could not
    import postcss-scss), with the findings of the managed stylelint run directly and of
    the project's own `node_modules/.bin/stylelint` (what `npx stylelint` runs; it
    imports the project's postcss-scss), file for file; the project is left as it was."""
    root = corpus("stylelint-primer-css") / "src"
    paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.scss"))
    assert len(paths) >= 100
    checker = _checker("stylelint")
    ctx = RunContext(project_root=root, deadline=Deadline.after(900))
    before = _footprint(root)
    targets = [FileTarget(path=p, abs_path=root / p, language="scss") for p in paths]
    plan = checker.plan(targets, ctx)
    assert not plan.settled, [o.reason for o in plan.settled[:3]]
    outs = [o for batch in plan.batches for o in checker.run(batch, ctx)]
    assert _footprint(root) == before, "the recipe run changed the project"
    assert {o.path for o in outs} == set(paths)
    assert {o.status for o in outs} == {ScopeStatus.CHECKED}, [o.reason for o in outs][:3]
    ours = {(f.path, f.line, f.column, f.rule) for o in outs for f in o.findings}
    tool = outs[0].tool
    assert tool is not None and tool.version == "17.16.0"
    own = root.parent / "node_modules" / ".bin" / "stylelint"
    here = str(root).encode() + b"/"
    env = {**os.environ, **checker.recipe.env}
    for binary in (tool.path, str(own)):
        argv = [binary, "--formatter", "json", "--no-color", "--", *paths]
        res = subprocess.run(argv, cwd=root, capture_output=True, timeout=900, env=env)
        assert res.returncode in checker.recipe.output.exits, res.stderr[-2000:]
        said = _stylelint_keys(res.stderr.replace(here, b""))
        assert ours == said, binary
    assert _footprint(root) == before, "the direct runs changed the project"
    assert "CssSyntaxError" not in {k[3] for k in ours}  # SCSS parsed as SCSS
    rules = collections.Counter(rule for _p, _l, _c, rule in ours)
    assert len(ours) >= 20 and len(rules) >= 3, rules


def _biome_keys(stdout: bytes) -> set[Key]:
    # Biome's JSON report: a `format` finding has line and column 0 (none); `fs/...`
    # is a file it could not read (`tool_error` in the recipe, no finding).
    return {
        (loc["path"], loc["start"]["line"] or None, loc["start"]["column"] or None, d["category"])
        for d in json.loads(stdout)["diagnostics"]
        if not d["category"].startswith("fs/") and (loc := d["location"])
    }


def test_biome_equals_biome_check_run_directly_on_ansible_lint() -> None:
    """ansible-lint (item `ansible-lint`) ships its own biome.json (Biome 2: its
    `files.includes` leaves out its schemas and a stylesheet; the VCS ignore file on):
    the recipe over its 888 files of Biome's suffixes gives, file for file, the keys of
    Biome's own JSON report run directly on the same files with the very binary (41
    `format`, 10 `parse`, 2 `lint/a11y/noSvgWithoutTitle` findings with Biome 2.6.9: a
    format checker's case, so "at least 5 rules" does not apply); every file Biome
    processed is `checked` (its JSON summary counts them), those it skipped `not_run`,
    the one it cannot read as UTF-8 `tool_error`; the project is left as it was."""
    root = corpus("ansible-lint") / "src"
    checker = _checker("biome")
    suffixes = set(checker.recipe.extensions)
    paths = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and p.suffix in suffixes
    )
    assert len(paths) >= 500
    ctx = RunContext(project_root=root, deadline=Deadline.after(900))
    before = _footprint(root)
    plan = checker.plan([FileTarget(path=p, abs_path=root / p) for p in paths], ctx)
    assert not plan.settled, [o.reason for o in plan.settled[:3]]
    outs = [o for batch in plan.batches for o in checker.run(batch, ctx)]
    assert _footprint(root) == before, "the recipe run changed the project"
    assert {o.path for o in outs} == set(paths)
    status = collections.Counter(o.status for o in outs)
    errors = {o.path for o in outs if o.status == ScopeStatus.TOOL_ERROR}
    assert errors == {"examples/broken/encoding.yml"}, [o.reason for o in outs if o.path in errors]
    skipped = [o for o in outs if o.status == ScopeStatus.NOT_RUN]
    assert all("ignore rules skip it" in (o.reason or "") for o in skipped)
    assert "docs/_static/theme_overrides.css" in {o.path for o in skipped}
    assert "package-lock.json" in {o.path for o in skipped}  # "handled by another tool"
    tool = next(o.tool for o in outs if o.status == ScopeStatus.CHECKED)
    assert tool is not None and tool.version == "2.6.9"
    ours = {(f.path, f.line, f.column, f.rule) for o in outs for f in o.findings}
    env = {k: v for k, v in os.environ.items() if k not in checker.recipe.scrub_env}
    argv = [
        tool.path, "check", "--reporter=json", "--max-diagnostics=none",
        "--files-ignore-unknown=true", "--no-errors-on-unmatched", "--", *paths,
    ]  # fmt: skip
    res = subprocess.run(argv, cwd=root, capture_output=True, timeout=900, env=env)
    assert _footprint(root) == before, "the direct run changed the project"
    assert res.returncode in checker.recipe.output.exits, res.stderr[-2000:]
    assert ours == _biome_keys(res.stdout)
    summary = json.loads(res.stdout)["summary"]
    # Biome's count of the files it processed: the checked ones and the unreadable one.
    assert summary["unchanged"] + summary["changed"] == status[ScopeStatus.CHECKED] + 1
    rules = collections.Counter(rule for _p, _l, _c, rule in ours)
    assert len(ours) >= 20 and {"format", "parse"} <= set(rules), rules


def test_go_vet_on_a_module_whose_dependencies_are_not_there_is_a_tool_error(
    tmp_path: Path,
) -> None:
    """prometheus client_golang (item `client-golang`) needs a dozen modules; with an
    empty module cache and GOPROXY=off go vet cannot load its packages: every file is
    `tool_error` saying so (never `checked` clean), and the project is left as it was."""
    root = corpus("client-golang") / "root/usr/share/gocode/src/github.com/prometheus/client_golang"
    paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.go"))
    assert len(paths) >= 50
    checker = _checker("go-vet")
    empty = tmp_path / "modules"
    env = {**os.environ, "GOMODCACHE": str(empty), "GOPATH": str(tmp_path / "gopath")}
    ctx = RunContext(project_root=root, deadline=Deadline.after(300), env=env)
    before = _footprint(root)
    targets = [FileTarget(path=p, abs_path=root / p) for p in paths]
    assert all(checker.claims(t) for t in targets)
    plan = checker.plan(targets, ctx)
    outs = [*plan.settled, *(o for batch in plan.batches for o in checker.run(batch, ctx))]
    assert _footprint(root) == before, "the recipe run changed the project"
    assert {o.path for o in outs} == set(paths)
    assert {o.status for o in outs} == {ScopeStatus.TOOL_ERROR}
    assert all("GOPROXY=off" in (o.reason or "") for o in outs), outs[0].reason
    assert all(o.falls_back for o in outs)  # still judged by the syntax fallback (gofmt)


def test_ruff_format_finds_the_files_ruff_format_check_finds_walking_the_project() -> None:
    """`ruff format --check .` run directly (Ruff's own walk, its excludes) would
    reformat exactly the files the recipe reports, with the same binary and config."""
    checker = _checker("ruff-format")
    root = corpus("ruff-format-jupyter-server") / "src"
    ctx = RunContext(project_root=root, deadline=Deadline.after(300))
    paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))
    targets = [FileTarget(path=p, abs_path=root / p, language="python") for p in paths]
    plan = checker.plan(targets, ctx)
    outs = [o for batch in plan.batches for o in checker.run(batch, ctx)]
    ours = {o.path for o in outs if o.findings}
    tool = outs[0].tool
    assert tool is not None
    argv = [tool.path, "format", "--check", "--no-cache", "--output-format", "concise", "."]
    res = subprocess.run(argv, cwd=root, capture_output=True, timeout=300)
    assert res.returncode == 1, res.stderr
    assert ours == {k[0] for k in _ruff_format_keys(res.stdout)} and len(ours) >= 20


def _sqlfluffs_nested_config_holds_in_its_folder_only(outs: list[Any]) -> None:
    """The nested `.sqlfluff` of the fidelity case drops `layout.indent` (LT02) in its
    folder: no LT02 there, LT02 elsewhere (sqlfluff resolves it; the recipe passes no
    `--config`). Read from the fidelity case's own recipe run (`ALSO`)."""
    lt02 = {o.path.split("/")[0] for o in outs for f in o.findings if f.rule == "LT02"}
    assert "ga_sessions_v2" not in lt02 and len(lt02) >= 5
    assert any(o.path.startswith("ga_sessions_v2/") and o.findings for o in outs)


#: What else a case's recipe run must show, read from the same run (a second sqlfluff
#: run over the same copy cost as much as the first).
ALSO: dict[str, Callable[[list[Any]], None]] = {
    "sqlfluff": _sqlfluffs_nested_config_holds_in_its_folder_only,
}
