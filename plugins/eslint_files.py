"""Which files `eslint .` lints under a legacy config, asked of the ESLint that runs.

Legacy ESLint (`.eslintrc*`) lints, when it walks a folder, `.js` files, the `--ext`
values it is given, and files an `overrides[].files` pattern names, minus its ignores.
Which files those are is never read from the config text: `eslint_files.cjs` walks each
working folder with the ESLint package's own legacy `FileEnumerator` (the code
`eslint .` runs) and answers per candidate `lint`, `not_target` or `ignored`. One Node
process per ESLint package in a run, never one per folder.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from orchestrate_plugins.eslint_warm import node_for, package_root

from orchestrator.api import Deadline, one_line, run_bounded

HELPER_JS = Path(__file__).with_name("eslint_files.cjs")
LINT = "lint"
NOT_TARGET = "not_target"
IGNORED = "ignored"
VERDICTS = frozenset({LINT, NOT_TARGET, IGNORED})
#: The answer holds one short verdict per candidate path.
PER_FILE_BUDGET = 64


@dataclass(frozen=True)
class Walk:
    """One `eslint .` walk: its working folder, the `--ext` values given (empty: none),
    and the candidate files (absolute) whose verdicts are wanted."""

    cwd: Path
    ext_flag: tuple[str, ...]
    files: tuple[Path, ...]


#: Per walk: absolute path -> verdict, or why ESLint could not be asked.
Answer = dict[Path, str] | str


def legacy_verdicts(
    tool: str,
    walks: Sequence[Walk],
    *,
    env: Mapping[str, str],
    deadline: Deadline,
) -> list[Answer]:
    """Ask the ESLint package `tool` runs which candidates each walk lints, in one Node
    process: per walk a verdict for every candidate, or a one-line reason (the whole
    request's, when the process cannot answer). Never raises; writes nothing."""
    if not walks:
        return []
    pkg = package_root(tool)
    node = node_for(env)
    if pkg is None:
        return _all(walks, f"{tool} is not an ESLint package's bin/eslint.js")
    if node is None:
        return _all(walks, "node not found on PATH")
    request = {
        "eslint": str(pkg),
        "jobs": [
            {
                "cwd": str(w.cwd),
                "extensions": list(w.ext_flag) or None,
                "files": [str(f) for f in w.files],
            }
            for w in walks
        ],
    }
    budget = 4096 + PER_FILE_BUDGET * sum(len(str(f)) for w in walks for f in w.files)
    res = run_bounded(
        [node, str(HELPER_JS)],
        deadline=deadline,
        stdin=json.dumps(request).encode("utf-8"),
        cwd=walks[0].cwd,
        env=dict(env),
        output_budget=budget,
    )
    if res.timed_out or res.over_budget or res.returncode != 0:
        why = one_line(res.stderr) or f"exit {res.returncode}"
        if res.timed_out:
            why = "timed out"
        elif res.over_budget:
            why = "answer over its budget"
        return _all(walks, f"ESLint's file enumeration failed: {why}")
    return _parse(res.stdout, walks)


def _all(walks: Sequence[Walk], why: str) -> list[Answer]:
    return [why for _ in walks]


def _parse(stdout: bytes, walks: Sequence[Walk]) -> list[Answer]:
    """The helper's JSON, checked: each walk's verdicts name exactly its candidates."""
    try:
        jobs = json.loads(stdout.decode("utf-8"))["jobs"]
    except (ValueError, KeyError, TypeError):
        return _all(walks, "ESLint's file enumeration answered no JSON")
    if not isinstance(jobs, list) or len(jobs) != len(walks):
        return _all(walks, "ESLint's file enumeration answered another number of walks")
    out: list[Answer] = []
    for walk, job in zip(walks, jobs, strict=True):
        if isinstance(job, dict) and isinstance(job.get("error"), str):
            out.append(one_line(job["error"]))
            continue
        verdicts = job.get("verdicts") if isinstance(job, dict) else None
        if not isinstance(verdicts, dict) or any(
            verdicts.get(str(f)) not in VERDICTS for f in walk.files
        ):
            out.append("ESLint's file enumeration answered malformed verdicts")
            continue
        out.append({f: str(verdicts[str(f)]) for f in walk.files})
    return out
