"""The warm engine's idle exit, on an injected clock: no real waiting.

`Engine._loop` serves queued requests in the main thread and returns once
`idle_timeout` seconds of its clock passed since the last request ended. The end-to-end
case (tests/test_warm_engine.py) shows a real engine exits on its own; these show the
arithmetic without sleeping through it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.server.engine import Engine, Job
from orchestrator.server.protocol import runtime_paths


class Clock:
    """A fake monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _engine(tmp_path: Path, clock: Clock, served: list[Any]) -> Engine:
    def run_main(argv: list[str]) -> int:
        served.append(argv)
        return 0

    engine = Engine(tmp_path, runtime_paths(tmp_path), run_main, idle_timeout=20, clock=clock)
    engine._run = lambda job: served.append(job.request) or {"status": "ok"}  # type: ignore[method-assign]
    return engine


def test_an_idle_engine_ends_its_loop_once_the_timeout_passed(tmp_path: Path) -> None:
    clock, served = Clock(), []
    engine = _engine(tmp_path, clock, served)
    clock.now += 20.5
    engine._loop()  # returns at once: 20.5 s of its clock without a request
    assert served == []


def test_a_request_restarts_the_idle_time(tmp_path: Path) -> None:
    clock, served = Clock(), []
    engine = _engine(tmp_path, clock, served)
    clock.now += 15  # 5 s left
    engine.jobs.put(Job({"kind": "run"}, expires=float("inf")))
    real_get = engine.jobs.get

    def get(timeout: float) -> Job | None:
        item = real_get(timeout=0)  # the queued job first, then "nothing came"
        clock.now += 19.0  # the request ran: 19 s later, still 1 s short of idle
        engine.jobs.get = lambda timeout: _pass_time(clock, engine, timeout)  # type: ignore[method-assign]
        return item

    engine.jobs.get = get  # type: ignore[method-assign]
    engine._loop()
    assert served == [{"kind": "run"}]
    # The loop waited on from the request's end (clock 1034), not from the start.
    assert engine.last_active == 1034.0


def _pass_time(clock: Clock, engine: Engine, timeout: float) -> Job | None:
    """The queue stays empty: `timeout` seconds of the fake clock go by."""
    import queue

    assert timeout <= 20
    clock.now += timeout
    raise queue.Empty
