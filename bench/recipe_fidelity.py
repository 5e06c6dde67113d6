"""The slow recipe fidelity cases: run them, record that they passed, and on what.

`python bench/recipe_fidelity.py [--write]`

tests/test_recipe_fidelity.py compares each built-in recipe with its tool run directly
on a fetched real project. Most cases take a few seconds and run in `.ci/run`'s
end-to-end tier. The ones marked `corpus_job` (`JOB` there: sqlfluff, cppcheck,
stylelint on CSS and on SCSS, shellcheck, prettier, which run the tool twice over hundreds
of files, and go vet and mypy, whose tools start slowly): about 140 s of CPU together, a
fifth of the end-to-end tier. This script runs
those (pytest `-m corpus_job`, under `CI=true` so a missing corpus or tool fails), and
with `--write` stores bench/recipe_fidelity_results.json: the cases that passed, how long
each took, and the key of what they depend on (`key()`: all of orchestrate's code and
plugins, the cases, the pins of the tools and corpora). tests/test_recipe_fidelity_job.py,
in the fast tier, fails when the stored key is not the current one or a case is missing:
a change to any of those files is not done until this script has run on it again. The
stored file is a record like a golden file: the fast test trusts that it was written by
this script, which writes it only when every case passed on the key's files as they are.

Fetch the corpora first (`scripts/fetch`; `./run test` does it). Exit 0 when every case
passed (the file is written only then), 1 otherwise, with pytest's output.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "recipe_fidelity_results.json"
TESTS = "tests/test_recipe_fidelity.py"
#: What the slow cases' outcome depends on, as globs from the repository root: the
#: cases, their conftests and helpers, and this script; all of orchestrate's own code
#: and plugins (the cases load the recipe machinery, and it reaches the process runner,
#: the tool lookup, git and the models); the pins of the tools (the test extra, the npm
#: sets) and of the corpora (the manifest and its locks). The tools' own versions are
#: what the cases assert when they run.
KEY_GLOBS = (
    TESTS,
    "conftest.py",
    "tests/conftest.py",
    "tests/helpers.py",
    "bench/recipe_fidelity.py",
    "orchestrator/**/*.py",
    "plugins/**/*.py",
    "plugins/**/*.toml",
    "pyproject.toml",
    "tools/prettier/package-lock.json",
    "tools/stylelint/package-lock.json",
    "scripts/corpora.toml",
    "scripts/locks/*/package-lock.json",
)


def key_files(root: Path = REPO) -> list[Path]:
    """The files `key()` reads, sorted by their path from `root`."""
    found = {p for pattern in KEY_GLOBS for p in root.glob(pattern) if p.is_file()}
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def key(root: Path = REPO) -> str:
    """A SHA-256 over the path and the bytes of every file of `key_files()`: it changes
    when any of them does, or when one is added or removed."""
    digest = hashlib.sha256()
    for path in key_files(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).hexdigest().encode() + b"\n")
    return digest.hexdigest()


def _cases(junit: Path) -> tuple[dict[str, float], list[str]]:
    """(passed node id -> seconds, the node ids that did not pass) from pytest's report."""
    passed: dict[str, float] = {}
    other: list[str] = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        module = case.get("classname", "").replace(".", "/") + ".py"
        nodeid = f"{module}::{case.get('name')}"
        if any(child.tag in {"failure", "error", "skipped"} for child in case):
            other.append(nodeid)
        else:
            passed[nodeid] = round(float(case.get("time", "0")), 1)
    return passed, other


def main(argv: list[str] | None = None) -> int:
    """Run the `corpus_job` cases; with `--write`, store the result when all passed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"store {RESULTS.name}")
    parser.add_argument("--workers", type=int, default=2, help="pytest workers (default 2)")
    args = parser.parse_args(argv)
    before = key()
    with tempfile.TemporaryDirectory(prefix="recipe-fidelity-") as tmp:
        junit = Path(tmp) / "junit.xml"
        cmd = [sys.executable, "-m", "pytest", "-m", "corpus_job", "-p", "no:cacheprovider"]
        cmd += ["-n", str(args.workers), "--junitxml", str(junit), "-q", TESTS]
        start = time.monotonic()
        proc = subprocess.run(cmd, cwd=REPO, env={**os.environ, "CI": "true"}, check=False)
        took = time.monotonic() - start
        passed, other = _cases(junit) if junit.is_file() else ({}, [])
    print(f"{len(passed)} passed, {len(other)} not, in {took:.0f} s", file=sys.stderr)
    if proc.returncode != 0 or other or not passed:
        print("not recorded: every case must pass", file=sys.stderr)
        return 1
    if key() != before:
        print("not recorded: a file of the key changed during the run", file=sys.stderr)
        return 1
    if args.write:
        record = {
            "key": before,
            "passed": dict(sorted(passed.items())),
            "seconds": round(took),
            "workers": args.workers,
            "when": time.strftime("%Y-%m-%d", time.gmtime()),
        }
        tmp_path = RESULTS.with_suffix(".json.part")
        tmp_path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        tmp_path.replace(RESULTS)
        print(f"wrote {RESULTS.relative_to(REPO)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
