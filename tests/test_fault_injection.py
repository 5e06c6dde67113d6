"""The fault injection the strict sweeps rely on (tests/fault_injection.py) raises where
it says: on the first call of the armed code, in every shape of function, in any
thread, once; and the patched copies it uses (tests/code_patch.py) run like the
original in everything else (instructions, line numbers, exception handlers).
"""

from __future__ import annotations

import dis
import threading
import traceback
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import code_patch
import pytest
from fault_injection import REPO, InjectedFault, raising

patching = pytest.mark.skipif(not code_patch.SUPPORTED, reason="code patching is CPython 3.11's")


def plain(x: int) -> object:
    try:
        return 1 / x
    except ZeroDivisionError:
        return "zero"


def outer(n: int) -> tuple[list[int], int]:
    k = 2

    def inner(v: int) -> int:
        return v * k

    return [inner(i) for i in range(n)], sum(i for i in range(n))


def counting(n: int) -> Iterator[int]:
    yield from range(n)


class Holder:
    def method(self) -> int:
        return 5

    @staticmethod
    def static() -> int:
        return 6


def looping() -> int:
    while True:
        return 7


def _nested(name: str) -> types.CodeType:
    (code,) = [
        c for c in outer.__code__.co_consts if isinstance(c, types.CodeType) and c.co_name == name
    ]
    return code


CASES: dict[str, tuple[Callable[[], object], types.CodeType]] = {
    "function": (lambda: plain(0), plain.__code__),
    "closure": (lambda: outer(3), _nested("inner")),
    "list comprehension": (lambda: outer(3), _nested("<listcomp>")),
    "generator expression": (lambda: outer(3), _nested("<genexpr>")),
    "generator": (lambda: list(counting(3)), counting.__code__),
    "method": (lambda: Holder().method(), Holder.method.__code__),
    "static method": (lambda: Holder.static(), Holder.static.__code__),
    "loop at the start": (looping, looping.__code__),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_first_call_raises_then_the_code_runs_as_before(case: str) -> None:
    call, code = CASES[case]
    expected = call()
    with raising(code) as armed:
        with pytest.raises(InjectedFault):
            call()
        assert armed.fired
        assert call() == expected  # once only
    assert call() == expected
    assert plain.__code__ is CASES["function"][1]  # put back


def test_a_generator_raises_at_its_first_step_not_when_created() -> None:
    with raising(counting.__code__) as armed:
        steps = counting(2)
        assert not armed.fired
        with pytest.raises(InjectedFault):
            next(steps)


def test_a_fault_fires_in_the_thread_that_calls_the_code() -> None:
    seen: list[object] = []

    def work() -> None:
        try:
            seen.append(plain(2))
        except InjectedFault as exc:
            seen.append(exc)

    with raising(plain.__code__) as armed:
        worker = threading.Thread(target=work, name="worker-1")
        worker.start()
        worker.join()
    assert isinstance(seen[0], InjectedFault) and armed.thread == "worker-1"


def test_a_code_no_function_runs_yet_is_still_armed() -> None:
    """A function made from a code at run time (nothing live holds the code): the
    trace hook arms it instead."""
    module = compile("def made():\n    return 3\n", str(REPO / "made.py"), "exec")
    (code,) = [c for c in module.co_consts if isinstance(c, types.CodeType)]
    with raising(code) as armed, pytest.raises(InjectedFault):
        types.FunctionType(code, {})()
    assert armed.fired


def test_unarmed_the_code_never_raises() -> None:
    with raising(plain.__code__) as armed:
        pass
    assert not armed.fired and plain(0) == "zero"


# --- the patched copy runs like the original ----------------------------------------

TRICKY = """
import contextlib

def handlers(x):
    try:
        with contextlib.suppress(KeyError):
            if x:
                raise ValueError(x)
    except ValueError as exc:
        return [str(exc)]
    finally:
        x = None
    return []

async def coroutine(a):
    async with a as b:
        async for c in b:
            yield c

def matching(v):
    match v:
        case {"k": [1, *rest]}:
            return rest
        case _:
            return None

def many_constants():
    return (CONSTANTS)

class Outer:
    def method(self):
        return super().method()

lam = lambda q: [(lambda r: r + q)(i) for i in q if i]
""".replace("CONSTANTS", ", ".join(f"'{i}'" for i in range(300)))


def _codes(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _sources() -> Iterator[tuple[str, str]]:
    yield "tricky", TRICKY
    for rel in ("orchestrator/hosts/router.py", "orchestrator/procs.py", "plugins/ruff_checker.py"):
        yield rel, (REPO / rel).read_text()


@patching
@pytest.mark.parametrize(("name", "source"), list(_sources()), ids=[n for n, _ in _sources()])
def test_a_patched_copy_differs_only_by_its_prologue(name: str, source: str) -> None:
    """Every code object of the sources: the copy's instructions are the original's
    with the prologue after RESUME, its positions and exception handlers the original's
    moved past it."""
    for code in _codes(compile(source, name, "exec")):
        copy = code_patch.with_prologue_call(code, print)
        at = code_patch._body_start(code)
        units = (len(copy.co_code) - len(code.co_code)) // 2
        original = [(i.opname, i.arg) for i in dis.get_instructions(code)]
        patched = [(i.opname, i.arg) for i in dis.get_instructions(copy)]
        head = sum(1 for i in dis.get_instructions(code) if i.offset < at * 2)
        assert patched[:head] == original[:head]
        assert patched[head + 5 :] == original[head:], code.co_qualname
        assert [op for op, _ in patched[head : head + 5]] == [
            "PUSH_NULL",
            "LOAD_CONST",
            "PRECALL",
            "CALL",
            "POP_TOP",
        ]
        positions, moved = list(code.co_positions()), list(copy.co_positions())
        assert moved[:at] + moved[at + units :] == positions, code.co_qualname
        assert all(p[0] == moved[at - 1][0] for p in moved[at : at + units])
        shift = units * 2
        expected = [
            (
                e.start + shift if e.start >= at * 2 else e.start,
                e.end + shift if e.end > at * 2 else e.end,
                e.target + shift if e.target >= at * 2 else e.target,
                e.depth,
                e.lasti,
            )
            for e in dis._parse_exception_table(code)  # type: ignore[attr-defined]
        ]
        got = [
            (e.start, e.end, e.target, e.depth, e.lasti)
            for e in dis._parse_exception_table(copy)  # type: ignore[attr-defined]
        ]
        assert got == expected, code.co_qualname


@patching
def test_a_patched_copy_keeps_its_handlers_and_line_numbers() -> None:
    namespace: dict[str, object] = {}
    exec(compile(TRICKY, "tricky.py", "exec"), namespace)
    handlers = namespace["handlers"]
    assert isinstance(handlers, types.FunctionType)
    calls: list[int] = []
    handlers.__code__ = code_patch.with_prologue_call(handlers.__code__, lambda: calls.append(1))
    assert handlers(0) == [] and handlers("x") == ["x"] and calls == [1, 1]

    def broken() -> None:
        raise KeyError("line")

    line = broken.__code__.co_firstlineno + 1
    broken.__code__ = code_patch.with_prologue_call(broken.__code__, lambda: None)
    with pytest.raises(KeyError) as caught:
        broken()
    assert traceback.extract_tb(caught.value.__traceback__)[-1].lineno == line


def test_fault_labels_name_the_file_and_line() -> None:
    from fault_injection import label

    assert label(plain.__code__) == (
        f"{Path(__file__).relative_to(REPO).as_posix()}:{plain.__code__.co_firstlineno} plain"
    )
