"""Fault injection for the strict paths: every function a strict entry reaches, raising.

`reachable(run)` runs `run()` once under a trace hook and returns the code objects of
orchestrate's own functions it entered (orchestrator/ and plugins/, every thread): the
list is generated from the code as it runs, never picked by hand. `raising(code)` makes
the first call of `code` (in any thread) raise `InjectedFault` before its first line
runs; `fired` says whether it did.

How `raising` reaches every caller (a function, bound method, closure, comprehension
and generator alike, whatever name imported it): on CPython 3.11 it gives `code` a
copy with a two-instruction prologue that calls the fault (tests/code_patch.py), and
puts that copy into every live function running `code` and, for a nested function,
into the code of the functions that create it; elsewhere it arms a trace hook. The
copy costs nothing where it is not called; a trace hook is called on every call in the
process, which roughly doubles a run's CPU time (a sweep of 500 runs: a minute).

Only for tests.
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, FrameType, FunctionType
from typing import Any

import code_patch

REPO = Path(__file__).resolve().parent.parent
ROOTS = (str(REPO / "orchestrator") + "/", str(REPO / "plugins") + "/")


class InjectedFault(RuntimeError):
    """The fault a test injected (never raised by orchestrate itself)."""


def label(code: CodeType) -> str:
    """`path:line name` of a code object, for failure messages and ids."""
    path = Path(code.co_filename).resolve()
    rel = path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else str(path)
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


class _Fault:
    """What a patched prologue calls: raises InjectedFault on its first call while
    armed, and is a no-op otherwise (after it fired, and once disarmed)."""

    def __init__(self) -> None:
        self.armed: Armed | None = None
        self.lock = threading.Lock()

    def __call__(self) -> None:
        armed = self.armed
        if armed is None or armed.fired:
            return
        with self.lock:
            if armed.fired:
                return
            armed.fired = True
            armed.thread = threading.current_thread().name
        raise InjectedFault(label(armed.code))


class _Functions:
    """Which live functions run which code, and which code creates a nested one.

    Built from the garbage collector's list of functions, so it
    knows every function that exists; a function created later from a code already
    listed (a closure, a comprehension) is created by its parent, which the patch of a
    nested code replaces too. Rebuilt when asked for a code it does not know, and after a
    fault that never fired (something may run `code` that it did not see)."""

    def __init__(self) -> None:
        self.holders: dict[CodeType, list[FunctionType]] = {}
        self.parent: dict[CodeType, CodeType] = {}
        for obj in gc.get_objects():
            if type(obj) is FunctionType:
                code = _ORIGINAL.get(obj.__code__, obj.__code__)
                self.holders.setdefault(code, []).append(obj)
        todo = list(self.holders)
        while todo:
            code = todo.pop()
            for const in code.co_consts:
                if type(const) is CodeType and const not in self.parent:
                    self.parent[const] = code
                    todo.append(const)

    def knows(self, code: CodeType) -> bool:
        return code in self.holders or code in self.parent


#: Every patched copy -> the code it copies (so a function left holding a copy is
#: still found as running the original).
_ORIGINAL: dict[CodeType, CodeType] = {}
#: Per code armed before: its fault and its patched copies, innermost first (reused, so a
#: closure created from a copy in an earlier run is armed again with it).
_PATCHES: dict[CodeType, tuple[_Fault, list[tuple[CodeType, CodeType]]]] = {}
_INDEX: list[_Functions] = []


def _functions(code: CodeType) -> _Functions:
    if not _INDEX or not _INDEX[0].knows(code):
        _INDEX[:] = [_Functions()]
    return _INDEX[0]


def _patches(code: CodeType, index: _Functions) -> tuple[_Fault, list[tuple[CodeType, CodeType]]]:
    """The fault of `code` and the (original, copy) pairs from `code` out to the
    outermost function code that creates it."""
    if code not in _PATCHES:
        fault = _Fault()
        inner, copy = code, code_patch.with_prologue_call(code, fault)
        levels = [(inner, copy)]
        while inner in index.parent:
            outer = index.parent[inner]
            consts = tuple(copy if c is inner else c for c in outer.co_consts)
            inner, copy = outer, outer.replace(co_consts=consts)
            levels.append((inner, copy))
        for original, patched in levels:
            _ORIGINAL[patched] = original
        _PATCHES[code] = (fault, levels)
    return _PATCHES[code]


@contextmanager
def _patched(code: CodeType, armed: Armed) -> Iterator[bool]:
    """Arms `code` by patching; yields False (nothing armed) when no live function
    leads to it."""
    index = _functions(code)
    fault, levels = _patches(code, index)
    swapped: list[tuple[FunctionType, CodeType]] = []
    for original, copy in levels:
        for fn in index.holders.get(original, ()):
            swapped.append((fn, fn.__code__))
            fn.__code__ = copy
    if not swapped:
        yield False
        return
    fault.armed = armed
    try:
        yield True
    finally:
        fault.armed = None
        for fn, before in swapped:
            fn.__code__ = before
        if not armed.fired:
            _INDEX.clear()


@contextmanager
def _traced(code: CodeType, armed: Armed) -> Iterator[None]:
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
        yield


@contextmanager
def raising(code: CodeType) -> Iterator[Armed]:
    """While inside, the first call of `code` in any thread raises InjectedFault."""
    armed = Armed(code)
    if code_patch.SUPPORTED:
        with _patched(code, armed) as patched:
            if patched:
                yield armed
                return
    with _traced(code, armed):
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
