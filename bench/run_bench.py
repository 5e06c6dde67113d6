"""Benchmark: `orchestrate` against the native tools run directly and against peers.

One run prints, side by side, medians and the ratios issue 14 asks for (reported, never
judged here; bench/RESULTS.md says which aims are met):

1. one freshly edited Python file, cold: `orchestrate lint FILE` vs `pre-commit run ruff
   --files FILE` vs lintrunner vs `ruff check FILE`. Before every sample the file gets
   a new edit (outside the timed window), so no tool answers from a cache;
2. one file warm: through the warm engine (`orchestrate server`) when this build has
   one ("warm engine: not available in this build" otherwise), and the reuse hit of
   the same bytes again; lintrunner has no warm mode, so its figure is its cold one;
3. one edited JavaScript file: `orchestrate lint` vs cold `eslint` vs `eslint_d`
   (pinned, installed by npm into a bench-only prefix in the user's cache folder);
4. the 2,000-file corpus cold (reuse cache and Ruff cache cleared before each sample)
   and re-run unchanged: `orchestrate lint .` vs the native tools run directly, vs
   `pre-commit run --all-files`, vs `lintrunner --all-files`, vs Ruff with its cache;
5. what task recording costs on the corpus (every blocking finding recorded, the CLI's
   budget lifted; the records exist from the warm-up) against the same run without;
6. peak RSS of orchestrate's own process at 10,000 files (resource.getrusage of that
   process; the tools it runs are measured apart);
7. `orchestrate --version` vs `python -c pass`;
8. the editor (bench/lsp_probe.py): `orchestrate lsp` and `ruff server` side by side,
   start -> `initialize` answered, a Python change -> its diagnostics, and a
   JavaScript change -> its diagnostics against a cold `eslint FILE`;
9. the pre-commit lint hook's environment (bench/hook_env.py): this checkout's wheel
   installed into a fresh venv, megabytes beyond the grammar pack (`--no-hook-env`
   leaves it out: it builds the wheel and installs two venvs from the registry).

Cases of one section run interleaved (one sample of each in turn), so a change of the
machine's load hits all of them alike. Every tool sees the same Ruff configuration.
Plugins from outside this distribution are disabled for the orchestrate runs.
Usage: .venv/bin/python bench/run_bench.py [--reps N] [--rss-files N,...]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import hook_env  # bench/hook_env.py, beside this script
import lsp_probe  # bench/lsp_probe.py, beside this script

from orchestrator.core.reuse import RACY_NS

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work"
BIN = Path(sys.executable).parent
RACY_S = RACY_NS / 1e9  # the racy-write window of run reuse, in seconds
CORPUS_VERSION = "2"  # bump when the generated corpus changes
RUFF_TOML = 'lint.select = ["E", "F", "W", "I", "B", "UP"]\n'
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@b.invalid",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@b.invalid",
}
INSTALL_HINT = "install the bench extras: .venv/bin/pip install -e '.[bench]'"

PARSE_LOOP = r"""
import sys, time
from pathlib import Path
from tree_sitter_language_pack import get_parser
EXT = {".go": "go", ".json": "json", ".yaml": "yaml", ".toml": "toml", ".rs": "rust",
       ".ts": "typescript", ".js": "javascript", ".c": "c", ".java": "java", ".sh": "bash"}
parsers = {}
bad = 0
for line in Path(sys.argv[1]).read_text().splitlines():
    p = Path(line)
    lang = EXT.get(p.suffix)
    if lang is None:
        continue
    parser = parsers.get(lang) or parsers.setdefault(lang, get_parser(lang))
    tree = parser.parse(p.read_bytes())
    bad += tree.root_node.has_error
print(bad)
"""


def _py(i: int, rng: random.Random) -> str:
    body = [f'"""Generated module {i}."""', "", "import os", "import sys", ""]
    if rng.random() < 0.3:
        body.insert(3, "import json")  # unused import, on purpose
    for j in range(rng.randint(3, 12)):
        body += [
            f"def func_{j}(a: int, b: int = {j}) -> int:",
            f'    """Return a combination number {j}."""',
            f"    total = a * {j} + b",
            "    for k in range(3):",
            "        total += k if k % 2 else -k",
            "    return total",
            "",
            "",
        ]
    body += ["print(os.name, sys.argv, func_0(1))", ""]
    return "\n".join(body)


def _go(i: int, rng: random.Random) -> str:
    funcs = "\n".join(
        f"func f{j}(a int) int {{\n\treturn a * {j}\n}}\n" for j in range(rng.randint(2, 8))
    )
    return f'package p{i}\n\nimport "fmt"\n\n{funcs}\nfunc Show() {{ fmt.Println(f0(1)) }}\n'


def _json(i: int, rng: random.Random) -> str:
    return json.dumps({"id": i, "items": [rng.randint(0, 99) for _ in range(20)]}, indent=2)


def _yaml(i: int, rng: random.Random) -> str:
    return f"name: item{i}\nvalues:\n" + "".join(f"  - {rng.randint(0, 9)}\n" for _ in range(10))


def _ts(i: int, rng: random.Random) -> str:
    return f"export function f{i}(a: number): number {{\n  return a * {rng.randint(1, 9)};\n}}\n"


RUFF_ADAPTER = r"""
import json, subprocess, sys
paths = open(sys.argv[1][1:]).read().split()
out = subprocess.run(["RUFF", "check", "--no-cache", "--output-format", "json", "--exit-zero", *paths],
                     capture_output=True, text=True).stdout
for item in json.loads(out or "[]"):
    print(json.dumps({"path": item["filename"], "line": item["location"]["row"],
        "char": item["location"]["column"], "code": "RUFF", "severity": "error",
        "name": item["code"] or "syntax", "original": None, "replacement": None,
        "description": item["message"]}))
"""


def build_corpus(root: Path, files: int = 2000) -> None:
    """A deterministic mixed corpus: 60% Python, the rest Go, JSON, YAML, TypeScript."""
    done = root / ".done"
    if done.exists() and done.read_text().strip() == CORPUS_VERSION:
        return
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    rng = random.Random(20261130)
    makers = (
        [(".py", _py)] * 12
        + [(".go", _go)] * 3
        + [(".json", _json)] * 2
        + [(".yaml", _yaml)] * 2
        + [(".ts", _ts)]
    )
    for i in range(files):
        ext, make = makers[i % len(makers)]
        d = root / f"pkg{i % 40}"
        d.mkdir(exist_ok=True)
        (d / f"m{i}{ext}").write_text(make(i, rng))
    # One Ruff configuration for every tool (without it, a bare `ruff check` would
    # climb out of the corpus and pick up the enclosing repository's settings).
    (root / "ruff.toml").write_text(RUFF_TOML)
    ruff = BIN / "ruff"
    (root / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n  - id: ruff\n    name: ruff\n"
        f"    entry: {ruff} check --no-cache\n    language: system\n    types: [python]\n"
    )
    (root / "ruff_adapter.py").write_text(RUFF_ADAPTER.replace("RUFF", str(ruff)))
    (root / ".lintrunner.toml").write_text(
        "[[linter]]\ncode = 'RUFF'\ninclude_patterns = ['**/*.py']\nexclude_patterns = ['ruff_adapter.py']\n"
        f"command = ['{sys.executable}', 'ruff_adapter.py', '@{{{{PATHSFILE}}}}']\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "corpus"], cwd=root, check=True, env=ENV)
    done.write_text(CORPUS_VERSION + "\n")


ESLINT_D_VERSION = "15.0.3"  # the eslint_d the bench installs (npm), pinned
REPO = HERE.parent
JS_CONFIG = 'import js from "@eslint/js";\nexport default [js.configs.recommended];\n'
JS_FILE = "const unused = 1;\nfunction f(x) {\n  return x + 1;\n}\nexport default f;\n"

#: The lint use case with every blocking finding recorded (the CLI's budget of 256
#: lifted) or none, printing the JSON report like the CLI: what task recording costs.
TASKS_PROBE = r"""
import sys
from pathlib import Path
from orchestrator.core.engine import LintRequest
from orchestrator.render.output import emit_report
from orchestrator.usecases.lint import NO_TASKS, TaskPolicy, lint
root = Path.cwd()
req = LintRequest(project_root=root, paths=(".",), cwd=root, paths_named=True)
result = lint(req, TaskPolicy(budget=None) if sys.argv[1] == "tasks" else NO_TASKS)
emit_report(result.report, "json", None)
"""

#: `orchestrate ARGS` in this process, then its own peak RSS and its children's, in KiB.
RSS_PROBE = r"""
import json, resource, sys
from orchestrator.cli.main import main
code = main(sys.argv[1:])
sys.stdout.flush()
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tools = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"code": code, "own_kib": own, "tools_kib": tools}), file=sys.stderr)
"""


@dataclass
class Case:
    """One timed command of a section."""

    group: str
    name: str
    argv: list[str]
    cwd: Path
    env: dict[str, str] | None = None
    prepare: Callable[[], None] | None = None
    samples: list[float] = field(default_factory=list)
    #: Its stdout is a pseudo-terminal, as in a person's shell (where `orchestrate lint`
    #: starts and uses the warm engine: README "Warm engine").
    tty: bool = False


def _run(case: Case) -> float:
    if case.prepare:
        case.prepare()
    if case.tty:
        return _run_on_a_terminal(case)
    t = time.perf_counter()
    subprocess.run(case.argv, cwd=case.cwd, env=case.env or ENV, capture_output=True, check=False)
    return time.perf_counter() - t


def _run_on_a_terminal(case: Case) -> float:
    """Seconds `case.argv` took with its stdout on a pseudo-terminal (drained as it
    writes, as a terminal would)."""
    import pty

    leader, follower = pty.openpty()
    t = time.perf_counter()
    proc = subprocess.Popen(
        case.argv,
        cwd=case.cwd,
        env=case.env or ENV,
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=subprocess.DEVNULL,
    )
    os.close(follower)
    try:
        while True:
            try:
                if not os.read(leader, 65536):
                    break
            except OSError:  # EIO: the child closed its end
                break
        proc.wait()
    finally:
        os.close(leader)
    return time.perf_counter() - t


def run_interleaved(cases: list[Case], reps: int) -> list[Case]:
    """One warm-up of each case, then `reps` rounds of one sample of each in turn
    (`prepare` runs before each sample, outside the timed window)."""
    for case in cases:
        _run(case)
    for _ in range(reps):
        for case in cases:
            case.samples.append(_run(case))
    return cases


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _tool_version(argv: list[str]) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    except OSError:
        return "?"
    return (out.stdout or out.stderr).strip().splitlines()[0] if out.stdout or out.stderr else "?"


def foreign_plugins() -> list[str]:
    """Names of `orchestrate` entry points that do not come from this distribution."""
    names = set()
    for ep in metadata.entry_points(group="orchestrate"):
        dist = getattr(ep, "dist", None)
        if dist is None or dist.metadata["Name"] != "orchestrate-lint":
            names.add(ep.name)
    return sorted(names)


def require_tools() -> tuple[str, str]:
    """pre-commit and lintrunner, next to this interpreter or on PATH; exit 2 when absent."""
    found = {}
    for name in ("pre-commit", "lintrunner"):
        path = shutil.which(name, path=str(BIN)) or shutil.which(name)
        if path is None:
            print(f"run_bench: {name} not found; {INSTALL_HINT}", file=sys.stderr)
            raise SystemExit(2)
        found[name] = path
    return found["pre-commit"], found["lintrunner"]


def eslint_d() -> Path:
    """The pinned eslint_d, installed by npm into a bench-only prefix in the user's
    cache folder on first use; exit 2 when npm is missing or the install fails."""
    from orchestrator.workspace import user_cache_root

    prefix = user_cache_root() / "bench" / f"eslint_d-{ESLINT_D_VERSION}"
    exe = prefix / "node_modules" / ".bin" / "eslint_d"
    if exe.exists():
        return exe
    npm = shutil.which("npm")
    if npm is None:
        print("run_bench: npm not found; install Node.js and npm", file=sys.stderr)
        raise SystemExit(2)
    prefix.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
         f"eslint_d@{ESLINT_D_VERSION}"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0 or not exe.exists():
        print(f"run_bench: npm install eslint_d failed: {done.stderr[-500:]}", file=sys.stderr)
        raise SystemExit(2)
    return exe


def js_project(root: Path) -> Path:
    """A one-file JavaScript project with a flat config, using the pinned ESLint of
    tools/eslint (exit 2 when it is not installed)."""
    modules = REPO / "tools" / "eslint" / "node_modules"
    if not (modules / ".bin" / "eslint").exists():
        print("run_bench: ESLint missing; run npm ci --prefix tools/eslint", file=sys.stderr)
        raise SystemExit(2)
    root.mkdir(parents=True, exist_ok=True)
    link = root / "node_modules"
    if not link.is_symlink():
        link.symlink_to(modules)
    (root / "eslint.config.mjs").write_text(JS_CONFIG)
    (root / "app.js").write_text(JS_FILE)
    if not (root / ".git").exists():
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def warm_engine_available(orch: str, env: dict[str, str]) -> bool:
    """True when this build has the warm engine (`orchestrate server --help` works)."""
    done = subprocess.run([orch, "server", "--help"], capture_output=True, env=env, check=False)
    return done.returncode == 0


def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def peak_rss(corpus: Path, env: dict[str, str]) -> dict[str, float]:
    """orchestrate's own peak RSS and its tools' (MiB) for a default lint of `corpus`."""
    t = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", RSS_PROBE, "lint", ".", "--format", "json"],
        cwd=corpus, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - t
    data = json.loads(done.stderr.strip().splitlines()[-1])
    return {"own_mib": data["own_kib"] / 1024, "tools_mib": data["tools_kib"] / 1024, "wall": wall}


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument(
        "--rss-files", default="10000", help="corpus sizes for the peak RSS, comma-separated"
    )
    ap.add_argument("--json", metavar="PATH", help="also write the raw samples here")
    ap.add_argument("--lsp-changes", type=int, default=20, help="changes timed per server")
    ap.add_argument(
        "--no-hook-env", action="store_true", help="leave out the hook environment's size"
    )
    args = ap.parse_args()
    precommit, lintrunner = require_tools()
    # An installed wheel has its bytecode compiled by pip; an editable install compiles
    # it at the first import, and never when PYTHONDONTWRITEBYTECODE is set: without
    # this, every timed start would compile orchestrate's sources again.
    compile_all = [sys.executable, "-m", "compileall", "-q"]
    subprocess.run([*compile_all, str(REPO / "orchestrator"), str(REPO / "plugins")], check=True)
    # The grammars package itself, not its corpus (which holds broken files on purpose).
    subprocess.run([*compile_all, "-l", str(REPO / "grammars")], check=True)
    eslintd = eslint_d()
    corpus = WORK / f"corpus{args.files}"
    build_corpus(corpus, args.files)
    js = js_project(WORK / "js")
    # Start without state from earlier bench runs (reuse cache, recorded tasks).
    shutil.rmtree(corpus / ".orchestrate", ignore_errors=True)
    xdg = WORK / "xdg"
    shutil.rmtree(xdg, ignore_errors=True)
    orch = str(BIN / "orchestrate")
    foreign = foreign_plugins()
    default = {
        **ENV,
        "ORCHESTRATE_DISABLE_PLUGINS": ",".join(foreign),
        "XDG_CACHE_HOME": str(xdg),
    }
    # A running engine answers a project's feedback and terminal lints (and any lint
    # with ORCHESTRATE_SERVER=1): the cold rows measured while one runs keep it off.
    cold = {**default, "ORCHESTRATE_SERVER": "0"}
    load_before = load()
    warm = warm_engine_available(orch, default)

    def clear_reuse() -> None:
        shutil.rmtree(xdg / "orchestrate", ignore_errors=True)

    one = "pkg0/m0.py"
    pristine = (corpus / one).read_text()
    counter = [0]

    def edit() -> None:
        # A new edit before every sample: an unused import plus a changing comment.
        counter[0] += 1
        (corpus / one).write_text(f"{pristine}\nimport re  # edit {counter[0]}\n")

    def edit_js() -> None:
        counter[0] += 1
        (js / "app.js").write_text(f"{JS_FILE}// edit {counter[0]}\n")

    ruff = str(BIN / "ruff")
    eslint = str(js / "node_modules" / ".bin" / "eslint")
    cases: list[Case] = []
    try:
        cases += run_interleaved(
            [
                Case("py file", "orchestrate lint FILE (cold)", [orch, "lint", one, "--format", "json"], corpus, default, edit),
                Case("py file", "orchestrate lint FILE --no-tasks", [orch, "lint", one, "--format", "json", "--no-tasks"], corpus, default, edit),
                Case("py file", "pre-commit run ruff --files FILE", [precommit, "run", "ruff", "--files", one], corpus, None, edit),
                Case("py file", "lintrunner FILE", [lintrunner, one], corpus, None, edit),
                Case("py file", "ruff check FILE (direct)", [ruff, "check", "--no-cache", "--output-format", "json", one], corpus, None, edit),
                # The default, as a person runs it twice: the warm-up's run on a terminal
                # starts the engine, every sample after it is served by that engine.
                Case("py file", "orchestrate lint FILE (defaults, terminal, again)", [orch, "lint", one], corpus, default, edit, tty=True),
            ],
            args.reps,
        )  # fmt: skip
        subprocess.run([orch, "server", "stop"], cwd=corpus, env=default, check=False)
        warm_cases = [
            Case("py warm", "orchestrate lint FILE (same bytes again: reuse)", [orch, "lint", one, "--format", "json"], corpus, cold),
        ]  # fmt: skip
        if warm:
            subprocess.run([orch, "server", "start"], cwd=corpus, env=default, check=False)
            warm_cases.append(
                Case("py warm", "orchestrate lint --feedback FILE (warm engine)", [orch, "lint", "--feedback", one, "--format", "json"], corpus, default, edit),
            )  # fmt: skip
        cases += run_interleaved(warm_cases, args.reps)
    finally:
        if warm:
            subprocess.run([orch, "server", "stop"], cwd=corpus, env=default, check=False)
        (corpus / one).write_text(pristine)

    try:
        js_cases = [
            Case("js file", "orchestrate lint app.js (cold)", [orch, "lint", "app.js", "--format", "json"], js, cold, edit_js),
            Case("js file", "eslint app.js (cold)", [eslint, "app.js"], js, None, edit_js),
            Case("js file", f"eslint_d {ESLINT_D_VERSION} app.js (warm)", [str(eslintd), "app.js"], js, None, edit_js),
        ]  # fmt: skip
        if warm:
            subprocess.run([orch, "server", "start"], cwd=js, env=default, check=False)
            js_cases.append(
                Case("js file", "orchestrate lint --feedback app.js (warm engine)", [orch, "lint", "--feedback", "app.js", "--format", "json"], js, default, edit_js),
            )  # fmt: skip
        cases += run_interleaved(js_cases, args.reps)
    finally:
        subprocess.run([str(eslintd), "stop"], cwd=js, check=False, capture_output=True)
        if warm:
            subprocess.run([orch, "server", "stop"], cwd=js, env=default, check=False)

    # The generated files only (pkg*/): not the tools' own state under dot-folders.
    py = sorted(str(p.relative_to(corpus)) for p in corpus.glob("pkg*/*.py"))
    rest = sorted(
        str(p.relative_to(corpus))
        for p in corpus.glob("pkg*/*")
        if p.suffix in {".go", ".json", ".yaml", ".ts"}
    )
    (WORK / "rest.txt").write_text("\n".join(str(corpus / r) for r in rest))
    (WORK / "parse_loop.py").write_text(PARSE_LOOP)

    def clear_ruff_cache() -> None:
        shutil.rmtree(corpus / ".ruff_cache", ignore_errors=True)

    corpus_cases = run_interleaved(
        [
            Case("corpus", "ruff check (py, direct, no cache)", [ruff, "check", "--no-cache", "--output-format", "json", *py], corpus),
            Case("corpus", "tree-sitter parse loop (rest, direct)", [sys.executable, str(WORK / "parse_loop.py"), str(WORK / "rest.txt")], corpus),
            Case("corpus", "orchestrate lint . (cold)", [orch, "lint", ".", "--format", "json"], corpus, default, clear_reuse),
            Case("corpus", "orchestrate lint . (re-run, unchanged)", [orch, "lint", ".", "--format", "json"], corpus, default),
            Case("corpus", "pre-commit run --all-files", [precommit, "run", "--all-files"], corpus),
            Case("corpus", "lintrunner --all-files", [lintrunner, "--all-files"], corpus),
            Case("corpus", "ruff check (py, cache cleared)", [ruff, "check", "--output-format", "json", *py], corpus, None, clear_ruff_cache),
            Case("corpus", "ruff check (py, re-run with its cache)", [ruff, "check", "--output-format", "json", *py], corpus),
        ],
        args.reps,
    )  # fmt: skip
    clear_ruff_cache()
    native = [a + b for a, b in zip(corpus_cases[0].samples, corpus_cases[1].samples, strict=True)]
    cases += corpus_cases
    if warm:  # the warm engine answers an unchanged tree from the run it kept
        subprocess.run([orch, "server", "start"], cwd=corpus, env=default, check=False)
        # clear_ruff_cache() just changed the corpus root: a run that starts within
        # reuse.RACY_NS of the newest change is never kept (it may have read a file
        # before a write in the same timestamp tick), so without this wait the first
        # samples all ran cold. A person's tree is not edited in the second before a
        # re-run; a test of the racy rule is in tests/test_run_memo.py.
        time.sleep(RACY_S + 0.5)
        try:
            warm_corpus = [orch, "lint", ".", "--format", "json"]
            # Off a terminal a plain lint stays cold unless ORCHESTRATE_SERVER=1 says to
            # use the running engine (README "Warm engine").
            served = {**default, "ORCHESTRATE_SERVER": "1"}
            _run(Case("corpus", "warm-up", warm_corpus, corpus, served))  # the run kept
            cases += run_interleaved(
                [Case("corpus", "orchestrate lint . (re-run, unchanged, warm engine)", warm_corpus, corpus, served)],
                args.reps,
            )  # fmt: skip
        finally:
            subprocess.run([orch, "server", "stop"], cwd=corpus, env=default, check=False)
    cases.append(Case("corpus", "native direct: sum of the two", [], corpus, samples=native))

    def clear_tasks() -> None:
        shutil.rmtree(corpus / ".orchestrate" / "tasks", ignore_errors=True)

    probe = [sys.executable, "-c", TASKS_PROBE]
    cases += run_interleaved(
        [
            Case("tasks", "lint . recording every task (records exist)", [*probe, "tasks"], corpus, default),
            Case("tasks", "lint . recording no task", [*probe, "none"], corpus, default),
        ],
        args.reps,
    )  # fmt: skip
    cases += run_interleaved(
        [Case("tasks", "lint . recording every task (all new)", [*probe, "tasks"], corpus, default, clear_tasks)],
        max(1, args.reps // 2),
    )  # fmt: skip
    clear_tasks()

    cases += run_interleaved(
        [
            Case("start", "orchestrate --version", [orch, "--version"], corpus, default),
            Case("start", "python -c pass", [sys.executable, "-c", "pass"], corpus, default),
        ],
        args.reps * 3,
    )  # fmt: skip

    rss: dict[int, dict[str, float]] = {}
    for n in (int(x) for x in args.rss_files.split(",") if x.strip()):
        big = WORK / f"corpus{n}"
        build_corpus(big, n)
        shutil.rmtree(big / ".orchestrate", ignore_errors=True)
        rss[n] = peak_rss(big, default)

    lsp_rows = lsp_probe.probe(WORK / "lsp", args.lsp_changes, max(args.reps, 5))
    # Sizes, not times: measured after every timed case so its build load hits none.
    installs = {} if args.no_hook_env else hook_env.measure_installs(WORK / "hook-env")
    med = {c.name: statistics.median(c.samples) for c in cases}
    print(
        f"corpus: {args.files} files ({len(py)} Python, {len(rest)} other); median of"
        f" {args.reps} interleaved runs; {os.cpu_count()} CPUs;"
        f" load average before {load_before}, after {load()}"
    )
    print(
        f"versions: ruff {_version('ruff')}, pre-commit {_version('pre-commit')},"
        f" lintrunner {_version('lintrunner')}, eslint {_tool_version([eslint, '--version'])},"
        f" eslint_d {ESLINT_D_VERSION}, node {_tool_version(['node', '--version'])},"
        f" tree-sitter {_version('tree-sitter')}, python {sys.version.split()[0]};"
        f" plugins disabled for the runs: {foreign or 'none'}"
    )
    if not warm:
        print("warm engine: not available in this build")
    for c in cases:
        s = c.samples
        print(
            f"{c.group:<8} {c.name:<52} {med[c.name]:8.3f} s  (min {min(s):.3f}, max {max(s):.3f})"
        )
    lsp_med = lsp_probe.print_rows(lsp_rows)
    for n, r in rss.items():
        print(
            f"rss      orchestrate lint . at {n} files: own process {r['own_mib']:.1f} MiB peak,"
            f" its tools {r['tools_mib']:.1f} MiB (largest child), {r['wall']:.2f} s"
        )
    print()

    def ratio(a: str, b: str) -> str:
        return f"{med[a] / med[b]:.2f}x" if a in med and b in med else "n/a"

    warm_py = "orchestrate lint --feedback FILE (warm engine)"
    warm_js = "orchestrate lint --feedback app.js (warm engine)"
    na = "n/a (warm engine: not available in this build)"
    no_tasks = med["lint . recording no task"]
    lines = [
        ("one py file cold: orchestrate / pre-commit ruff --files", ratio("orchestrate lint FILE (cold)", "pre-commit run ruff --files FILE"), "<= 0.5x"),
        ("  --no-tasks / pre-commit ruff --files", ratio("orchestrate lint FILE --no-tasks", "pre-commit run ruff --files FILE"), ""),
        ("default second lint FILE (terminal) / pre-commit ruff --files", ratio("orchestrate lint FILE (defaults, terminal, again)", "pre-commit run ruff --files FILE"), "<= 1.0x (aim 0.5x)"),
        ("  orchestrate / lintrunner", ratio("orchestrate lint FILE (cold)", "lintrunner FILE"), ""),
        ("one py file warm: orchestrate warm engine / lintrunner", ratio(warm_py, "lintrunner FILE") if warm else na, "<= 1.0x"),
        ("  reuse hit (same bytes) / lintrunner", ratio("orchestrate lint FILE (same bytes again: reuse)", "lintrunner FILE"), ""),
        ("one js file warm: orchestrate warm engine / cold eslint", ratio(warm_js, "eslint app.js (cold)") if warm else na, "<= 0.25x"),
        ("  eslint_d / cold eslint", ratio(f"eslint_d {ESLINT_D_VERSION} app.js (warm)", "eslint app.js (cold)"), ""),
        ("  orchestrate cold / cold eslint", ratio("orchestrate lint app.js (cold)", "eslint app.js (cold)"), ""),
        ("corpus cold: orchestrate / pre-commit --all-files", ratio("orchestrate lint . (cold)", "pre-commit run --all-files"), "<= 1.0x"),
        ("  orchestrate / lintrunner --all-files", ratio("orchestrate lint . (cold)", "lintrunner --all-files"), ""),
        ("  orchestrate / native tools direct", ratio("orchestrate lint . (cold)", "native direct: sum of the two"), ""),
        ("corpus unchanged re-run: cold / re-run (speed-up)", ratio("orchestrate lint . (cold)", "orchestrate lint . (re-run, unchanged)"), ">= 10x"),
        ("  cold / warm engine re-run (speed-up)", ratio("orchestrate lint . (cold)", "orchestrate lint . (re-run, unchanged, warm engine)") if warm else na, ">= 10x"),
        ("  ruff: cache cleared / cached re-run", ratio("ruff check (py, cache cleared)", "ruff check (py, re-run with its cache)"), ""),
        ("task recording: extra time over no recording", f"{(med['lint . recording every task (records exist)'] - no_tasks) / no_tasks:+.0%}", "<= 10%"),
        ("  first recording (all records new)", f"{(med['lint . recording every task (all new)'] - no_tasks) / no_tasks:+.0%}", ""),
        ("orchestrate --version / python -c pass", ratio("orchestrate --version", "python -c pass"), "<= 3x"),
    ]  # fmt: skip
    lines += lsp_probe.ratios(lsp_med)
    for n, r in rss.items():
        aim = "< 100 MB" if n <= 10_000 else "< 150 MB"
        lines.append(
            (f"peak RSS, own process, {n} files", f"{r['own_mib'] * 1.048576:.0f} MB", aim)
        )
    for label, m in installs.items():
        lines.append(
            (
                f"install, {label}: MB beyond the grammar pack",
                f"{m['beyond']:.0f} MB",
                "<= 40 MB" if label.startswith("plain") else "",
            )
        )
    for label, value, aim in lines:
        print(f"{label:<58} {value:>12}   {('aim ' + aim) if aim else ''}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "load_before": load_before,
                    "load_after": load(),
                    "rows": [(c.group, c.name, c.samples) for c in cases],
                    "rss": rss,
                    "lsp": lsp_rows,
                    "installs": installs,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
