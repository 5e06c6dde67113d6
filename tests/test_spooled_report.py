"""A big run keeps its report rows on disk (core/assemble.Streamed, model/rows.py):
the same bytes in every format as the run held in memory, nothing left on disk, and
the memory the run keeps does not grow with the files it checked."""

from __future__ import annotations

import gc
import re
import threading
import time
import tracemalloc
from pathlib import Path

import pytest
from helpers import VENV_BIN, new_repo, require_tool
from hypothesis import given
from hypothesis import strategies as st

from orchestrator.core import engine
from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.deadline import Deadline
from orchestrator.model.checker import Batch, CheckerPlan, FileOutcome, FileTarget, RunContext
from orchestrator.model.report import Finding, Report
from orchestrator.model.rows import SpooledRows, sort_bytes
from orchestrator.render.formats import BUILTIN
from orchestrator.render.output import emit_report
from orchestrator.tasks.baseline import write_baseline
from orchestrator.usecases.lint import NO_TASKS, lint
from orchestrator.vocab import ScopeStatus, Severity, Tier
from orchestrator.workspace import user_cache_dir

PY = "import os\nimport sys\n\n\ndef f(a, b):\n    x = 1\n    return a == None\n"


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("ORCHESTRATE_REUSE", "0")  # both runs check afresh: same rows


def _ruff() -> None:
    require_tool("ruff", "pip install -e '.[test]'", str(VENV_BIN / "ruff"))


def _tree(root: Path, n: int) -> Path:
    """`n` Python files with findings (one a syntax error), YAML, JSON, Go and an
    unsupported file: checked, syntax-only, unqualified and unsupported scopes."""
    files = {f"pkg{i % 7}/m{i}.py": PY for i in range(n)}
    files |= {"bad.py": "def (\n", "c.yaml": "k: [1\n", "d.json": '{"a": 1,}\n'}
    files |= {"e.go": "package main\nfunc main() {}\n", "f.xyz": "blob\n", "##[x].py": PY}
    new_repo(root, files)
    return root


def _rendered(report: Report, out: Path) -> dict[str, bytes]:
    report.generated_at = "2026-12-01T00:00:00Z"
    got = {}
    for name in BUILTIN:
        emit_report(report, name, str(out / name))
        # Times differ between runs (a scope's, and each checker's in `timings`).
        got[name] = re.sub(rb'"(duration_ms|ms)": ?[0-9]+', b"", (out / name).read_bytes())
    return got


def test_a_spooled_run_gives_every_format_byte_for_byte(tmp_path: Path) -> None:
    _ruff()
    root = _tree(tmp_path / "repo", 30)
    # The findings of pkg0/ are in the project's baseline: both runs hide the same ones.
    part = lint(LintRequest(project_root=root, paths=("pkg0",), cwd=root), NO_TASKS)
    assert write_baseline(part.report, root)[1] > 0
    outs = []
    for spool_over in (None, 0):
        req = LintRequest(project_root=root, paths=(".",), cwd=root, spool_over=spool_over)
        result = lint(req, NO_TASKS)
        held = (tmp_path / f"out{spool_over}").resolve()
        held.mkdir()
        outs.append((result, _rendered(result.report, held)))
    (memory, expected), (spooled, got) = outs
    assert isinstance(spooled.report.findings, SpooledRows)
    assert isinstance(memory.report.findings, list)
    assert len(spooled.report.findings) == len(memory.report.findings) > 30
    assert spooled.exit_code == memory.exit_code == 1
    for name in BUILTIN:
        assert got[name] == expected[name], name
    assert b"##[" not in got["json"] and b"##[" not in got["sarif"]
    assert any(n.startswith("baseline: ") for n in spooled.report.notes)
    assert not any(f.path.startswith("pkg0/") for f in spooled.report.findings)


def test_the_spool_has_no_name_on_disk_while_the_run_reads_it(tmp_path: Path) -> None:
    """The spool file is unlinked once open: a run that ends, fails or is killed
    leaves nothing in the cache folder."""
    _ruff()
    root = _tree(tmp_path / "repo", 5)
    report = run_lint(LintRequest(project_root=root, paths=(".",), cwd=root, spool_over=0))
    assert isinstance(report.scopes, SpooledRows)
    folder = user_cache_dir(root.resolve(), engine.SPOOL_DIR, create=False)
    assert folder.is_dir() and not any(folder.iterdir())
    rows = list(report.scopes)
    assert len(rows) == len(report.scopes) and rows[0] == report.scopes[0]
    assert report.scopes[-1] == rows[-1] and report.scopes[1:3] == rows[1:3]
    assert [s.path for s in rows] == sorted(s.path for s in rows)


def _retained(root: Path, spool_over: int | None) -> tuple[int, Report]:
    """Python memory (bytes) a run still holds once it returned, its report alive."""
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    report = run_lint(LintRequest(project_root=root, paths=(".",), cwd=root, spool_over=spool_over))
    gc.collect()
    return tracemalloc.get_traced_memory()[0] - before, report


def test_a_spooled_run_keeps_no_memory_per_file(tmp_path: Path) -> None:
    """What a run still holds after it returned is its report: about 5 KB per file in
    memory; with the rows on disk, no more than a few hundred bytes for the whole run
    per file checked, whatever the count (measured in Python allocations, no timing)."""
    _ruff()
    root = _tree(tmp_path / "repo", 600)
    files = 606
    tracemalloc.start()
    try:
        _retained(root, 0)  # warm: imports, grammars, caches
        spooled, spooled_report = _retained(root, 0)
        held, held_report = _retained(root, None)
    finally:
        tracemalloc.stop()
    assert len(spooled_report.findings) == len(held_report.findings) >= 3 * 600
    assert held > 2000 * files, held  # the test can tell: rows held in memory
    assert spooled < 200 * files, (spooled, held)


def _ctx(timeout: float) -> RunContext:
    return RunContext(project_root=Path("/nowhere"), deadline=Deadline.after(timeout))


class _FakeChecker:
    """A fake checker: batch 0 returns at once, batch 1 hangs past the deadline."""

    name = "fake"
    tier = Tier.NATIVE
    languages: frozenset[str] = frozenset()
    config_names = ()
    column_unit = "codepoint"

    def __init__(self) -> None:
        self.release = threading.Event()

    def claims(self, target: FileTarget) -> bool:
        return True

    def plan(self, targets: object, ctx: RunContext) -> CheckerPlan:
        return CheckerPlan()

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        if batch.targets[0].path == "slow.py":
            self.release.wait(10)
        finding = Finding(checker="fake", rule="R", severity=Severity.ERROR, path="x")
        return [
            FileOutcome(path=t.path, checker="fake", status=ScopeStatus.CHECKED, findings=[finding])
            for t in batch.targets
        ]


def test_a_streamed_run_hands_each_batch_once_and_a_hung_one_as_timed_out() -> None:
    from orchestrator.core.run import run_batches
    from orchestrator.model.declared import declare

    fake = _FakeChecker()
    checker = declare(fake)
    work = [
        (checker, Batch((FileTarget(path=p, abs_path=Path("/nowhere") / p),)))
        for p in ("fast.py", "slow.py")
    ]
    got: list[tuple[int, list[FileOutcome]]] = []
    assert run_batches(work, _ctx(0.5), 2, lambda i, outs: got.append((i, outs))) == []  # type: ignore[arg-type]
    fake.release.set()
    time.sleep(0.3)  # the hung batch returns now: too late, it is not handed again
    assert sorted((i, [o.status for o in outs]) for i, outs in got) == [
        (0, [ScopeStatus.CHECKED]),
        (1, [ScopeStatus.TIMED_OUT]),
    ]


@given(st.lists(st.tuples(st.text(max_size=5), st.integers(0, 9), st.text(max_size=5))))
def test_sort_bytes_orders_as_the_tuples_do(keys: list[tuple[str, int, str]]) -> None:
    assert sorted(keys, key=sort_bytes) == sorted(keys)


@given(st.text(), st.text())
def test_sort_bytes_orders_strings_with_nul_and_surrogates(a: str, b: str) -> None:
    a += "\udc80" if len(a) % 3 == 0 else "\x00"
    assert (sort_bytes((a, 1)) < sort_bytes((b, 1))) == ((a, 1) < (b, 1))


def test_a_spooled_run_records_the_same_tasks_with_their_tool(tmp_path: Path) -> None:
    """Under the task budget, a big run's tasks are the in-memory run's, each with the
    identity of the tool that found it (read from the spooled scope)."""
    from orchestrator.tasks.store import load_task
    from orchestrator.usecases.lint import CLI_TASKS

    _ruff()
    files = {f"ok{i}.py": "X = 1\n" for i in range(20)} | {"a.py": PY, "b/c.py": PY}
    got = []
    for spool_over in (None, 0):
        root = new_repo(tmp_path / f"repo{spool_over}", files)
        req = LintRequest(project_root=root, paths=(".",), cwd=root, spool_over=spool_over)
        result = lint(req, CLI_TASKS)
        assert result.task_ids and not result.task_error
        records = [load_task(root, tid) for tid in result.task_ids]
        got.append([(r.id, r.identity.tool) for r in records if r is not None])
    assert got[0] == got[1] and all(tool is not None for _id, tool in got[1])


def test_a_spooled_run_over_a_warm_reuse_cache_holds_no_decoded_hit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second run over an unchanged tree reuses every Ruff result; streamed, each
    batch's hits go to the spool as they are decoded (a warm cache of 100,000 files
    held them all at once: 430 MiB), and the report is the in-memory run's."""
    _ruff()
    monkeypatch.setenv("ORCHESTRATE_REUSE", "1")
    root = _tree(tmp_path / "repo", 40)
    plans: list[object] = []
    consult = engine.reuse.consult

    def watched(*args: object, **kwargs: object) -> object:
        plan = consult(*args, **kwargs)  # type: ignore[arg-type]
        plans.append(plan)
        return plan

    monkeypatch.setattr(engine.reuse, "consult", watched)
    req = LintRequest(project_root=root, paths=(".",), cwd=root)
    run_lint(req)  # fills the reuse cache
    held = run_lint(req)
    spooled = run_lint(LintRequest(project_root=root, paths=(".",), cwd=root, spool_over=0))
    assert isinstance(spooled.scopes, SpooledRows)
    assert plans[-1].reused == [] and plans[-1].reused_keys  # type: ignore[attr-defined]
    reused = [s for s in spooled.scopes if s.checker == "ruff" and s.reused]
    assert len(reused) == 42  # every Python file, the syntax error's included
    out = tmp_path / "out"
    (out / "held").mkdir(parents=True)
    (out / "spooled").mkdir()
    assert _rendered(spooled, out / "spooled") == _rendered(held, out / "held")
