"""What each checker cost a run (issue 31, per-checker time): `Report.timings` in JSON,
the SARIF invocation's `checkerTimes`, and `lint --statistics` in human output.

Each batch's wall time is heard once from the run (a batch still running at the
deadline: the time until then); per checker the report holds its files, how many
were reused, the batches it ran and their summed time. A replayed or reused run
spends nothing; a gate's rounds and a merge's shards add up.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.core.run import run_batches
from orchestrator.deadline import Deadline
from orchestrator.model.checker import Batch, CheckerPlan, FileOutcome, FileTarget, RunContext
from orchestrator.model.declared import declare
from orchestrator.model.report import CheckerTime, Scope, checker_times, summed_times
from orchestrator.render.human import statistics
from orchestrator.render.sarif import to_sarif
from orchestrator.vocab import SELECTION_CHECKER, ScopeStatus, Tier


def _scope(path: str, checker: str, reused: str | None = None) -> Scope:
    return Scope(path=path, checker=checker, status=ScopeStatus.CHECKED, reused=reused)


def test_rows_count_files_reused_batches_and_time() -> None:
    scopes = [
        _scope("a.py", "ruff"),
        _scope("b.py", "ruff", reused="identity unchanged"),
        _scope("c.js", "eslint"),
        _scope("bin", SELECTION_CHECKER),
        _scope("x", "selection"),
    ]
    rows = checker_times([("ruff", 0.25), ("eslint", 1.5), ("ruff", 0.0005)], scopes)
    assert rows == [
        CheckerTime(checker="eslint", files=1, reused=0, batches=1, ms=1500),
        CheckerTime(checker="ruff", files=2, reused=1, batches=2, ms=250),
    ]


def test_a_checker_that_ran_nothing_shows_zero() -> None:
    rows = checker_times([], [_scope("a.py", "ruff", reused="r")])
    assert rows == [CheckerTime(checker="ruff", files=1, reused=1, batches=0, ms=0)]


def test_parts_add_up() -> None:
    a = [CheckerTime(checker="ruff", files=2, reused=1, batches=1, ms=10)]
    b = [
        CheckerTime(checker="ruff", files=3, batches=2, ms=30),
        CheckerTime(checker="eslint", files=1, batches=1, ms=5),
    ]
    assert summed_times(a, b) == [
        CheckerTime(checker="eslint", files=1, batches=1, ms=5),
        CheckerTime(checker="ruff", files=5, reused=1, batches=3, ms=40),
    ]


class _FakeChecker:
    """A fake checker: `slow.py` waits on `release`, every other batch returns at once."""

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
        else:
            time.sleep(0.05)
        return [
            FileOutcome(path=t.path, checker="fake", status=ScopeStatus.CHECKED)
            for t in batch.targets
        ]


def test_each_batch_is_timed_once_a_hung_one_until_the_deadline() -> None:
    fake = _FakeChecker()
    checker = declare(fake)
    work = [
        (checker, Batch((FileTarget(path=p, abs_path=Path("/nowhere") / p),)))
        for p in ("fast.py", "slow.py", "other.py")
    ]
    heard: list[tuple[str, float]] = []
    ctx = RunContext(
        project_root=Path("/nowhere"),
        deadline=Deadline.after(0.6),
        on_batch_time=lambda name, spent: heard.append((name, spent)),
    )
    run_batches(work, ctx, 2)  # type: ignore[arg-type]
    fake.release.set()
    time.sleep(0.2)  # the hung batch returns now: it is not timed again
    assert [name for name, _ in heard] == ["fake"] * 3
    spent = sorted(s for _, s in heard)
    assert spent[0] >= 0.04 and spent[1] >= 0.04  # the fast ones slept 50 ms each
    assert spent[2] >= 0.5  # waited on until the deadline


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\n")
    (tmp_path / "a.py").write_text("import os\n")
    (tmp_path / "b.json").write_text('{"a": 1}\n')
    return tmp_path


def test_a_lint_reports_each_checker_it_ran(project: Path) -> None:
    report = run_lint(LintRequest(project_root=project, cwd=project, timeout=120))
    by_name = {t.checker: t for t in report.timings}
    assert by_name["ruff"].files == 1 and by_name["ruff"].batches >= 1
    assert all(t.ms >= 0 for t in report.timings)
    assert {s.checker for s in report.scopes} - {SELECTION_CHECKER} <= set(by_name)
    data = json.loads(report.model_dump_json())
    assert data["schema_version"] == "1.3"
    assert data["timings"][0].keys() == {"checker", "files", "reused", "batches", "ms"}
    sarif = to_sarif(report)
    times = sarif["runs"][0]["invocations"][0]["properties"]["checkerTimes"]
    assert times == data["timings"]


def test_statistics_print_every_checker_escaped() -> None:
    from io import StringIO

    from rich.console import Console

    from orchestrator.model.report import Report, ScanInfo

    report = Report(
        scan=ScanInfo(project_root="/p"),
        timings=[CheckerTime(checker="evil\x1b[31m", files=2, reused=1, batches=1, ms=12)],
    )
    buf = StringIO()
    statistics(report, Console(file=buf, width=100, no_color=True))
    text = buf.getvalue()
    assert "\x1b" not in text and "12 ms" in text and "time by checker" in text
