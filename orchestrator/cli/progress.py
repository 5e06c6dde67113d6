"""The progress count of a long `lint` on a terminal: `checking 120/300 file checks`.

It is drawn on stderr only, only when stderr is a terminal (not a dumb one), never under
CI (`CI` set to anything but `0` / `false`) unless `--progress` asks for it, never with
`--no-progress` or `progress = false` in the configuration. It appears once the run
has taken SHOW_AFTER_S seconds, or at once when it has MANY file checks to do; it is
transient (erased when the run ends), so what the run prints afterwards, on stdout or
stderr, is the same with and without it. Nothing is drawn on stdout, whatever the
format.

The count comes from the core's batch callback (`RunContext.on_progress`): a file
counts once per checker that checks it. Drawing happens on rich's refresh thread; the
callback only stores two numbers, so the run is not slowed.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from orchestrator.vocab import under_ci

#: Seconds after which a run shows its progress.
SHOW_AFTER_S = 1.0
#: File checks from which the progress shows at once.
MANY = 200

R = TypeVar("R")


def wanted(flag: bool | None, config: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    """Whether to show progress, before looking at the terminal: `--progress` (True)
    forces it, `--no-progress` (False) refuses it; otherwise the configuration's
    `progress` (default true), and never under CI."""
    if flag is not None:
        return flag
    return bool(config.get("progress", True)) and not under_ci(env)


class Counter:
    """The running count over the core's batch sets: each set reports (0, total) when
    it starts and (done, total) after each batch; a later set (the late syntax
    fallback) adds to the earlier ones. `update` never raises."""

    def __init__(self, show: Callable[[int, int], None]) -> None:
        self._show = show
        self._base_done = 0
        self._base_total = 0
        self._total = 0
        self._lock = threading.Lock()

    def update(self, done: int, total: int) -> None:
        """Record (done, total) of the current batch set and show the whole count."""
        try:
            with self._lock:
                if done == 0:  # a new set of batches starts
                    self._base_done += self._total
                    self._base_total += self._total
                    self._total = total
                self._show(self._base_done + done, self._base_total + total)
        except Exception:  # noqa: BLE001 - a display fault must never touch the run
            return


class Display:
    """A transient rich progress line on stderr, started after SHOW_AFTER_S (or at the
    first count of at least MANY file checks) and erased when the run ends."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("orchestrate: checking"),
            MofNCompleteColumn(),
            TextColumn("file checks"),
            console=Console(stderr=True, highlight=False),
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._task = self._progress.add_task("lint", total=None)
        self._lock = threading.Lock()
        self._started = False
        self._ended = False
        self._timer = threading.Timer(SHOW_AFTER_S, self._start)
        self._timer.daemon = True
        self.counter = Counter(self._update)

    @property
    def usable(self) -> bool:
        """The console is a real (not dumb) terminal."""
        console = self._progress.console
        return console.is_terminal and not console.is_dumb_terminal

    def _start(self) -> None:
        with self._lock:
            if not (self._started or self._ended):
                self._started = True
                self._progress.start()

    def _update(self, done: int, total: int) -> None:
        self._progress.update(self._task, completed=done, total=total)
        if total >= MANY and not self._started:
            self._start()

    def __enter__(self) -> Display:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        with self._lock:
            self._ended = True
            if self._started:
                self._progress.stop()


def run_with_progress(req: Any, run: Callable[[Any], R], show: bool) -> R:
    """`run(req)`, with the progress count on stderr when `show` and stderr is a
    terminal; otherwise `run(req)` untouched."""
    if not show or not sys.stderr.isatty():
        return run(req)
    display = Display()
    if not display.usable:
        return run(req)
    with display:
        return run(dataclasses.replace(req, on_progress=display.counter.update))


def show_progress(flag: bool | None, root: Any) -> bool:
    """Whether this `lint` may show progress (see `wanted`), reading the project's
    configuration only when stderr is a terminal."""
    if flag is False or not sys.stderr.isatty():
        return False
    from orchestrator.usecases.settings import project_settings

    return wanted(flag, project_settings(root), os.environ)


__all__ = ["MANY", "SHOW_AFTER_S", "Counter", "run_with_progress", "show_progress", "under_ci"]
