"""Benchmark: `orchestrate lint` against the native tools run directly and against peers.

Builds a generated corpus (never committed) under bench/.work/, then times, side by
side in one run, with the median of several repetitions:

1. one edited Python file: `orchestrate lint FILE` vs `pre-commit run ruff --files FILE`
   vs lintrunner with the same Ruff check. Before every timed sample the file gets a
   new edit (outside the timed window), so no tool can answer from a cache of the
   previous sample;
2. a 2,000-file mixed corpus: `orchestrate lint .` vs running the native tools
   directly (`ruff check` on the Python files, then a plain tree-sitter parse loop on
   the rest) vs `pre-commit run --all-files` vs `lintrunner --all-files`.

Every tool sees the same Ruff configuration (a `ruff.toml` at the corpus root).
Plugins installed from outside this distribution are disabled for the orchestrate
runs, so orchestrate runs exactly the tools the native baseline runs.

It prints ratios, not a verdict. Usage: .venv/bin/python bench/run_bench.py [--reps N]
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
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work"
BIN = Path(sys.executable).parent
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


def timed(
    argv: list[str],
    cwd: Path,
    reps: int,
    env: dict[str, str] | None = None,
    prepare: Callable[[], None] | None = None,
) -> list[float]:
    """Wall seconds of `reps` runs (after one warm-up); `prepare` runs before each,
    outside the timed window."""
    env = env or ENV
    if prepare:
        prepare()
    subprocess.run(argv, cwd=cwd, capture_output=True, env=env, check=False)
    samples = []
    for _ in range(reps):
        if prepare:
            prepare()
        t = time.perf_counter()
        subprocess.run(argv, cwd=cwd, capture_output=True, env=env, check=False)
        samples.append(time.perf_counter() - t)
    return samples


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


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


def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--json", metavar="PATH", help="also write the raw samples here")
    args = ap.parse_args()
    precommit, lintrunner = require_tools()
    corpus = WORK / f"corpus{args.files}"
    build_corpus(corpus, args.files)
    # Start without state from earlier bench runs (reuse cache, recorded tasks).
    shutil.rmtree(corpus / ".orchestrate", ignore_errors=True)
    orch = str(BIN / "orchestrate")
    foreign = foreign_plugins()
    cold = {**ENV, "ORCHESTRATE_DISABLE_PLUGINS": ",".join(foreign), "ORCHESTRATE_REUSE": "0"}
    default = {**ENV, "ORCHESTRATE_DISABLE_PLUGINS": ",".join(foreign)}
    load_before = load()

    one = "pkg0/m0.py"
    pristine = (corpus / one).read_text()
    counter = [0]

    def edit() -> None:
        # A new edit before every sample: an unused import plus a changing comment.
        counter[0] += 1
        (corpus / one).write_text(f"{pristine}\nimport re  # edit {counter[0]}\n")

    rows: list[tuple[str, str, list[float]]] = []

    def add(group: str, name: str, samples: list[float]) -> None:
        rows.append((group, name, samples))

    try:
        add(
            "one file",
            "orchestrate lint FILE",
            timed([orch, "lint", one, "--format", "json"], corpus, args.reps, default, edit),
        )
        add(
            "one file",
            "orchestrate lint FILE --no-tasks",
            timed(
                [orch, "lint", one, "--format", "json", "--no-tasks"],
                corpus,
                args.reps,
                default,
                edit,
            ),
        )
        add(
            "one file",
            "orchestrate lint FILE --no-tasks, reuse off",
            timed(
                [orch, "lint", one, "--format", "json", "--no-tasks"], corpus, args.reps, cold, edit
            ),
        )
        add(
            "one file",
            "orchestrate lint FILE (same bytes again)",
            timed([orch, "lint", one, "--format", "json"], corpus, args.reps, default),
        )
        add(
            "one file",
            "pre-commit run ruff --files FILE",
            timed([precommit, "run", "ruff", "--files", one], corpus, args.reps, prepare=edit),
        )
        add(
            "one file",
            "lintrunner FILE",
            timed([lintrunner, one], corpus, args.reps, prepare=edit),
        )
        add(
            "one file",
            "native direct: ruff check FILE",
            timed(
                [str(BIN / "ruff"), "check", "--no-cache", "--output-format", "json", one],
                corpus,
                args.reps,
                prepare=edit,
            ),
        )
    finally:
        (corpus / one).write_text(pristine)

    # The generated files only (pkg*/): not the tools' own state under dot-folders.
    py = sorted(str(p.relative_to(corpus)) for p in corpus.glob("pkg*/*.py"))
    rest = sorted(
        str(p.relative_to(corpus))
        for p in corpus.glob("pkg*/*")
        if p.suffix in {".go", ".json", ".yaml", ".ts"}
    )
    (WORK / "rest.txt").write_text("\n".join(str(corpus / r) for r in rest))
    (WORK / "parse_loop.py").write_text(PARSE_LOOP)
    ruff_s = timed(
        [str(BIN / "ruff"), "check", "--no-cache", "--output-format", "json", *py],
        corpus,
        args.reps,
    )
    parse_s = timed(
        [sys.executable, str(WORK / "parse_loop.py"), str(WORK / "rest.txt")], corpus, args.reps
    )
    add("corpus", "native direct: ruff check (py)", ruff_s)
    add("corpus", "native direct: tree-sitter loop (rest)", parse_s)
    add("corpus", "native direct: sum", [a + b for a, b in zip(ruff_s, parse_s, strict=True)])
    add(
        "corpus",
        "orchestrate lint .",
        timed([orch, "lint", ".", "--format", "json"], corpus, args.reps, default),
    )
    add(
        "corpus",
        "orchestrate lint . --no-tasks",
        timed([orch, "lint", ".", "--format", "json", "--no-tasks"], corpus, args.reps, default),
    )
    add(
        "corpus",
        "pre-commit run --all-files",
        timed([precommit, "run", "--all-files"], corpus, args.reps),
    )
    add(
        "corpus",
        "lintrunner --all-files",
        timed([lintrunner, "--all-files"], corpus, args.reps),
    )

    med = {name: statistics.median(s) for _, name, s in rows}
    print(
        f"files: {args.files} ({len(py)} Python, {len(rest)} other); median of {args.reps} runs;"
        f" {os.cpu_count()} CPUs; load average before {load_before}, after {load()}"
    )
    print(
        f"versions: ruff {_version('ruff')}, pre-commit {_version('pre-commit')},"
        f" lintrunner {_version('lintrunner')},"
        f" tree-sitter {_version('tree-sitter')},"
        f" tree-sitter-language-pack {_version('tree-sitter-language-pack')},"
        f" python {sys.version.split()[0]}; plugins disabled for the runs: {foreign or 'none'}"
    )
    for group, name, s in rows:
        print(f"{group:<9} {name:<46} {med[name]:8.3f} s  (min {min(s):.3f}, max {max(s):.3f})")
    print()
    pc = med["pre-commit run ruff --files FILE"]
    native = med["native direct: sum"]
    print(
        f"one file:  orchestrate / pre-commit ruff       = {med['orchestrate lint FILE'] / pc:.2f}x"
        f" (--no-tasks {med['orchestrate lint FILE --no-tasks'] / pc:.2f}x; aim <= 0.5x)"
    )
    print(
        f"one file:  orchestrate / lintrunner           = {med['orchestrate lint FILE'] / med['lintrunner FILE']:.2f}x"
    )
    print(
        f"corpus:    orchestrate / native tools direct   = {med['orchestrate lint .'] / native:.2f}x"
        f" (--no-tasks {med['orchestrate lint . --no-tasks'] / native:.2f}x; aim <= 1.3x)"
    )
    print(
        f"corpus:    orchestrate / pre-commit --all-files = {med['orchestrate lint .'] / med['pre-commit run --all-files']:.2f}x"
    )
    print(
        f"corpus:    orchestrate / lintrunner            = {med['orchestrate lint .'] / med['lintrunner --all-files']:.2f}x"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps({"load_before": load_before, "load_after": load(), "rows": rows}, indent=2)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
