"""Where a corpus lint's time goes, when the machine is too busy for wall-clock ratios.

Runs `orchestrate lint . --format json` on bench/run_bench.py's generated corpus, in a
child process that calls the CLI in process, cold (the reuse cache cleared before each
sample) and again unchanged (reuse, no warm engine), `--reps` times each, interleaved.
Per sample: the wall time, orchestrate's own CPU seconds (user + system), its tools'
(every process it waited for: Ruff, gofmt, ...), and how many processes it started,
by program name. CPU seconds and process counts depend far less on the machine's load
than wall time does; the medians are printed, with the load average before and after.

    .venv/bin/python bench/corpus_profile.py --files 2000 --reps 5 [--cprofile DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path

from run_bench import BIN, ENV, WORK, build_corpus, foreign_plugins, load

#: `orchestrate ARGS` in this process; its CPU, its children's, and what it started.
PROBE = r"""
import collections, json, os, resource, subprocess, sys, time
started = collections.Counter()
real_init = subprocess.Popen.__init__
def counting(self, args, *a, **kw):
    first = args[0] if isinstance(args, (list, tuple)) else str(args).split()[0]
    started[os.path.basename(str(first))] += 1
    real_init(self, args, *a, **kw)
subprocess.Popen.__init__ = counting
t0 = time.perf_counter()
out = os.environ.pop("CORPUS_PROFILE_OUT", "")
if out:
    import cProfile
    prof = cProfile.Profile()
    prof.enable()
from orchestrator.cli.main import main
code = main(sys.argv[1:])
wall = time.perf_counter() - t0
if out:
    prof.disable()
    prof.dump_stats(out)
sys.stdout.flush()
own = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print("PROFILE=" + json.dumps({
    "code": code, "wall": wall, "own_cpu": own.ru_utime + own.ru_stime,
    "tools_cpu": kids.ru_utime + kids.ru_stime, "started": dict(started),
}), file=sys.stderr)
"""


def sample(corpus: Path, env: dict[str, str], prof: Path | None = None) -> dict[str, object]:
    """One profiled lint of the corpus (with `prof`, also under cProfile, written there)."""
    if prof is not None:
        env = {**env, "CORPUS_PROFILE_OUT": str(prof)}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, "lint", ".", "--format", "json"],
        cwd=corpus,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("PROFILE="))
    data = json.loads(line.removeprefix("PROFILE="))
    report = json.loads(proc.stdout)
    scopes = report["scopes"]
    data["scopes"] = len(scopes)
    data["reused"] = sum(1 for s in scopes if s.get("reused"))
    return data


def _median(rows: list[dict[str, object]], key: str) -> float:
    return statistics.median(float(r[key]) for r in rows)  # type: ignore[arg-type]


def main() -> int:
    """Profile the corpus cold and re-run; print the medians."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument(
        "--cprofile",
        metavar="DIR",
        help="after the samples, one cold and one re-run under cProfile: DIR/cold.prof, "
        "DIR/rerun.prof (main thread only; the batches' threads wait there)",
    )
    args = ap.parse_args()
    corpus = WORK / f"corpus{args.files}"
    build_corpus(corpus, args.files)
    xdg = WORK / "xdg-profile"
    shutil.rmtree(xdg, ignore_errors=True)
    env = {
        **ENV,
        "ORCHESTRATE_DISABLE_PLUGINS": ",".join(foreign_plugins()),
        "XDG_CACHE_HOME": str(xdg),
        "ORCHESTRATE_SERVER": "0",
        "PATH": f"{BIN}{os.pathsep}{ENV.get('PATH', '')}",
    }
    before = load()
    cold: list[dict[str, object]] = []
    again: list[dict[str, object]] = []
    for _ in range(args.reps):
        shutil.rmtree(xdg / "orchestrate", ignore_errors=True)
        cold.append(sample(corpus, env))
        again.append(sample(corpus, env))
    if args.cprofile:
        where = Path(args.cprofile)
        where.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(xdg / "orchestrate", ignore_errors=True)
        sample(corpus, env, where / "cold.prof")
        sample(corpus, env, where / "rerun.prof")
    after = load()
    print(f"corpus: {args.files} files; median of {args.reps}; load before {before}, after {after}")
    for name, rows in (("cold", cold), ("re-run, unchanged", again)):
        started: Counter[str] = Counter()
        for r in rows:
            started.update(r["started"])  # type: ignore[arg-type]
        per_run = {k: v / len(rows) for k, v in started.most_common()}
        print(
            f"{name:18} wall {_median(rows, 'wall'):.3f} s  own CPU {_median(rows, 'own_cpu'):.3f} s"
            f"  tools CPU {_median(rows, 'tools_cpu'):.3f} s  scopes {rows[0]['scopes']}"
            f" (reused {rows[0]['reused']})  processes per run {per_run}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
