"""Benchmark: `orchestrate lint` against the native tools run directly and against peers.

Builds a generated corpus (never committed) under bench/.work/, then times, side by
side in one run, with the median of several repetitions:

1. one edited Python file: `orchestrate lint FILE` vs `pre-commit run ruff --files FILE`
   (and lintrunner with the same Ruff check);
2. a 2,000-file mixed corpus: `orchestrate lint .` vs running the native tools
   directly (`ruff check` on the Python files, then a plain tree-sitter parse loop on
   the rest) vs `pre-commit run --all-files` vs `lintrunner --all-files`.

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
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work"
BIN = Path(sys.executable).parent
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@b.invalid",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@b.invalid",
}

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


def build_corpus(root: Path, files: int = 2000) -> None:
    """A deterministic mixed corpus: 60% Python, the rest Go, JSON, YAML, TypeScript."""
    if (root / ".done").exists():
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
    (root / ".done").write_text("ok\n")


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


def timed(argv: list[str], cwd: Path, reps: int) -> float:
    """Median wall seconds of `reps` runs (after one warm-up)."""
    subprocess.run(argv, cwd=cwd, capture_output=True, env=ENV, check=False)
    samples = []
    for _ in range(reps):
        t = time.perf_counter()
        subprocess.run(argv, cwd=cwd, capture_output=True, env=ENV, check=False)
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--files", type=int, default=2000)
    args = ap.parse_args()
    corpus = WORK / f"corpus{args.files}"
    build_corpus(corpus, args.files)
    lintrunner = shutil.which("lintrunner", path=str(BIN)) or shutil.which("lintrunner")
    orch = str(BIN / "orchestrate")
    precommit = str(BIN / "pre-commit")
    one = "pkg0/m0.py"
    (corpus / one).write_text((corpus / one).read_text() + "\nimport re\n")  # the edit

    rows: list[tuple[str, str, float]] = []
    rows.append(
        (
            "one file",
            "orchestrate lint FILE",
            timed([orch, "lint", one, "--format", "json"], corpus, args.reps),
        )
    )
    rows.append(
        (
            "one file",
            "pre-commit run ruff --files FILE",
            timed([precommit, "run", "ruff", "--files", one], corpus, args.reps),
        )
    )
    if lintrunner:
        rows.append(
            (
                "one file",
                "lintrunner --paths FILE",
                timed([lintrunner, "--force-color", one], corpus, args.reps),
            )
        )

    py = sorted(
        str(p.relative_to(corpus)) for p in corpus.rglob("*.py") if p.name != "ruff_adapter.py"
    )
    rest = sorted(
        str(p.relative_to(corpus))
        for p in corpus.rglob("*")
        if p.suffix in {".go", ".json", ".yaml", ".ts"}
    )
    (WORK / "py.txt").write_text("\n".join(py))
    (WORK / "rest.txt").write_text("\n".join(str(corpus / r) for r in rest))
    (WORK / "parse_loop.py").write_text(PARSE_LOOP)
    t_ruff = timed(
        [str(BIN / "ruff"), "check", "--no-cache", "--output-format", "json", *py],
        corpus,
        args.reps,
    )
    t_parse = timed(
        [sys.executable, str(WORK / "parse_loop.py"), str(WORK / "rest.txt")], corpus, args.reps
    )
    rows.append(("corpus", "native direct: ruff check (py)", t_ruff))
    rows.append(("corpus", "native direct: tree-sitter loop (rest)", t_parse))
    rows.append(("corpus", "native direct: sum", t_ruff + t_parse))
    rows.append(
        (
            "corpus",
            "orchestrate lint .",
            timed([orch, "lint", ".", "--format", "json"], corpus, args.reps),
        )
    )
    rows.append(
        (
            "corpus",
            "pre-commit run --all-files",
            timed([precommit, "run", "--all-files"], corpus, args.reps),
        )
    )
    if lintrunner:
        rows.append(
            (
                "corpus",
                "lintrunner --all-files",
                timed([lintrunner, "--all-files"], corpus, args.reps),
            )
        )

    (corpus / one).write_text((corpus / one).read_text().replace("\nimport re\n", ""))
    print(
        f"files: {args.files} ({len(py)} Python, {len(rest)} other); median of {args.reps} runs; {os.cpu_count()} CPUs"
    )
    for group, name, secs in rows:
        print(f"{group:<9} {name:<42} {secs:8.3f} s")
    get = {name: secs for _, name, secs in rows}
    print()
    print(
        f"one file:  orchestrate / pre-commit ruff       = {get['orchestrate lint FILE'] / get['pre-commit run ruff --files FILE']:.2f}x (aim <= 0.5x)"
    )
    print(
        f"corpus:    orchestrate / native tools direct   = {get['orchestrate lint .'] / get['native direct: sum']:.2f}x (aim <= 1.3x)"
    )
    print(
        f"corpus:    orchestrate / pre-commit --all-files = {get['orchestrate lint .'] / get['pre-commit run --all-files']:.2f}x"
    )
    if lintrunner:
        print(
            f"corpus:    orchestrate / lintrunner            = {get['orchestrate lint .'] / get['lintrunner --all-files']:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
