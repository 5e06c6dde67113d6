"""Root conftest, loaded for tests/ and conformance/.

- Makes tests/helpers.py (and the other test modules in tests/) importable from
  conformance/ too.
- Guards the session: no test may read a sibling of the checkout (see
  tests/sibling_guard.py). A refused read raises PermissionError where it happens and is
  recorded, so the test that made it fails by name even if it caught the error.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Generator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent
sys.path.insert(0, str(REPO / "tests"))

import sibling_guard  # noqa: E402 - needs tests/ on sys.path first
import tier_guard  # noqa: E402 - likewise

#: Appends the id of each unmarked test that spawns orchestrate here instead of failing.
TIER_AUDIT = os.environ.get("ORCHESTRATE_TIER_AUDIT")


def pytest_configure(config: pytest.Config) -> None:
    """Install and arm the guard before collection, so test modules are covered too."""
    basetemp = config.getoption("basetemp", None)
    extra = [str(Path(basetemp).resolve())] if basetemp else []
    sibling_guard.configure(REPO, extra_allowed=extra)
    sibling_guard.install()
    sibling_guard.STATE.armed = True
    tier_guard.install()
    # Edit feedback starts a warm engine by default (README "Warm engine"): no test
    # may leave one behind, or be answered by another's. The tests of the engine opt
    # in (ORCHESTRATE_SERVER=1 and CI unset in their clients' environment).
    os.environ["ORCHESTRATE_SERVER"] = "0"


@pytest.fixture(autouse=True)
def _signal_mask_restored() -> Generator[None, None, None]:
    """Each test ends with the signal mask it started with. The host guard holds SIGTERM /
    SIGINT off once it answers a fault (until its process exits: hosts/guard.py); called
    in process it would hold them off for the rest of the worker, and every child spawned
    after (which inherits the mask) would ignore them: a later signal test then hangs."""
    saved = signal.pthread_sigmask(signal.SIG_BLOCK, ())
    yield
    signal.pthread_sigmask(signal.SIG_SETMASK, saved)


#: The test files whose single tests run longest (property tests over real gates,
#: fault sweeps, wheel builds and installs, real tools over real projects: 4-40 s each
#: on two cores): collected first, so they start early and
#: no worker idles while the other runs one of them last. With ./run's `--dist
#: worksteal` an idle worker takes queued tests from the other (with the default
#: `--dist load` the first worker would be handed all of them). Order within a file,
#: and between the rest, is kept.
LONG_FIRST = (
    "tests/test_hosts_shell_property.py",
    "tests/test_strict_guard.py",
    "tests/test_decisions_single.py",
    "tests/test_treesitter_memory.py",
    "tests/test_spooled_report.py",
    "tests/test_wheel_install.py",
    "tests/test_recipe_fidelity.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move the tests of `LONG_FIRST` to the front (a stable sort: the same order on
    every worker)."""
    items.sort(key=lambda item: not item.nodeid.startswith(LONG_FIRST))


def pytest_unconfigure(config: pytest.Config) -> None:
    """Disarm: reports pytest writes after the session (e.g. --junitxml) may go anywhere."""
    sibling_guard.STATE.armed = False


def _fail_on_sibling_reads(report: pytest.TestReport | pytest.CollectReport, nodeid: str) -> None:
    """Mark `report` failed, naming what was read, when a sibling of the checkout was read."""
    seen = sibling_guard.take_violations()
    if seen:
        report.outcome = "failed"
        report.longrepr = f"{nodeid} read outside the repository:\n" + "\n".join(seen)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, None]:
    """Fail the phase (setup, call, teardown) of `item` in which a sibling read happened."""
    outcome = yield
    _fail_on_sibling_reads(outcome.get_result(), item.nodeid)
    _fail_on_e2e_spawns(outcome.get_result(), item)


def _fail_on_e2e_spawns(report: pytest.TestReport, item: pytest.Item) -> None:
    """Fail the phase of a test not marked `e2e` that spawned orchestrate (tests/tier_guard.py)."""
    spawned = tier_guard.take()
    if not spawned or item.get_closest_marker("e2e") is not None:
        return
    if TIER_AUDIT:
        with open(TIER_AUDIT, "a", encoding="utf-8") as fh:
            fh.write(f"{item.nodeid}\t{sorted(set(spawned))}\n")
        return
    report.outcome = "failed"
    report.longrepr = (
        f"{item.nodeid} spawned {', '.join(sorted(set(spawned)))}: that is an end-to-end "
        'test; mark it @pytest.mark.e2e, or call the use case in process (README "Tests")'
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, None]:
    """Fail the collection of `collector` if importing it read a sibling of the checkout."""
    outcome = yield
    _fail_on_sibling_reads(outcome.get_result(), collector.nodeid)
