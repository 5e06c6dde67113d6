"""Fault injection for the strict paths: every function a strict entry reaches, raising.

`reachable(run)` runs `run()` once under a trace hook and returns the code objects of
orchestrate's own functions it entered (orchestrator/ and plugins/, every thread): the
list is generated from the code as it runs, never picked by hand. `raising(code)` arms
a trace hook that makes the first call of `code` (in any thread) raise
`InjectedFault` before its first line runs; `fired` says whether it did.

Only for tests: a trace hook is how a raise reaches every caller of a function, bound
method, closure and generator alike, whatever name imported it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
ROOTS = (str(REPO / "orchestrator") + "/", str(REPO / "plugins") + "/")


class InjectedFault(RuntimeError):
    """The fault a test injected (never raised by orchestrate itself)."""


def label(code: CodeType) -> str:
    """`path:line name` of a code object, for failure messages and ids."""
    rel = Path(code.co_filename).resolve().relative_to(REPO).as_posix()
    return f"{rel}:{code.co_firstlineno} {code.co_qualname}"


@contextmanager
def _tracing(tracer: Callable[..., Any]) -> Iterator[None]:
    """`tracer` in this thread and new threads while inside; then the hooks that were
    there before (a line-coverage tracer's among them: leaving None would switch the
    measurement off for the rest of the process)."""
    before, before_threads = sys.gettrace(), threading.gettrace()
    threading.settrace(tracer)  # type: ignore[arg-type]
    sys.settrace(tracer)
    try:
        yield
    finally:
        threading.settrace(before_threads)  # type: ignore[arg-type]
        sys.settrace(before)


def reachable(
    run: Callable[[], object], exclude: tuple[Callable[..., Any], ...] = ()
) -> list[CodeType]:
    """The code objects of orchestrate's functions entered while `run()` ran, in the
    order first entered (`exclude`: functions left out, the guard itself)."""
    skip = {fn.__code__ for fn in exclude}
    seen: dict[CodeType, None] = {}

    def tracer(frame: FrameType, event: str, arg: object) -> None:
        code = frame.f_code
        if code not in seen and code not in skip and code.co_filename.startswith(ROOTS):
            seen[code] = None

    with _tracing(tracer):
        run()
    return list(seen)


@dataclass
class Armed:
    """One armed fault: whether it fired, and in which thread."""

    code: CodeType
    fired: bool = False
    thread: str = ""


@contextmanager
def raising(code: CodeType) -> Iterator[Armed]:
    """While inside, the first call of `code` in any thread raises InjectedFault."""
    armed = Armed(code)
    lock = threading.Lock()

    def tracer(frame: FrameType, event: str, arg: object) -> None:
        if frame.f_code is code:
            with lock:
                if armed.fired:
                    return
                armed.fired = True
                armed.thread = threading.current_thread().name
            raise InjectedFault(label(code))

    with _tracing(tracer):
        yield armed


def sitecustomize_fault(folder: Path, module: str, attribute: str) -> dict[str, str]:
    """A `sitecustomize.py` in `folder` that makes `module.attribute` (dotted below the
    module, e.g. `RouteResult.bounded`) raise in every Python process started with the
    returned environment (PYTHONPATH=folder): fault injection across a process boundary,
    for end-to-end cases (a fake, written by the test)."""
    folder.mkdir(parents=True, exist_ok=True)
    owner, _, name = attribute.rpartition(".")
    (folder / "sitecustomize.py").write_text(
        "# FAKE: fault injection written by a test (tests/fault_injection.py).\n"
        "import importlib\n"
        f"_mod = importlib.import_module({module!r})\n"
        f"_owner = _mod\n"
        f"for _part in {owner!r}.split('.') if {owner!r} else ():\n"
        "    _owner = getattr(_owner, _part)\n"
        "def _injected(*args, **kwargs):\n"
        f"    raise RuntimeError('injected fault: {module}.{attribute}')\n"
        f"setattr(_owner, {name!r}, _injected)\n"
    )
    return {"PYTHONPATH": str(folder)}
