"""A copy of a code object that calls a function before its first line (CPython 3.11).

`with_prologue_call(code, fn)` returns `code` with `fn()` called (its result dropped)
right after the `RESUME` that starts every code object's body: after the frame set-up
and, for a generator, at its first resumption, the same point where a trace hook sees
the call. An exception `fn` raises is raised inside the code, as if by its first line.
Everything else (names, arguments, cells, constants, line numbers, exception handlers)
is the original's, so the copy can replace `code` in a function (`fn.__code__`) or in
the constants of the code that creates it.

Only for tests (tests/fault_injection.py). `SUPPORTED` is False on other versions,
whose bytecode differs: callers fall back to a trace hook.
"""

from __future__ import annotations

import dis
import opcode
import sys
from types import CodeType

SUPPORTED = sys.implementation.name == "cpython" and sys.version_info[:2] == (3, 11)

_OP = opcode.opmap
_CACHES = getattr(opcode, "_inline_cache_entries", [0] * 256)


def _ins(name: str, arg: int = 0) -> bytes:
    """One instruction with its inline cache entries (zeroed), EXTENDED_ARG as needed."""
    out = b""
    for shift in (24, 16, 8):
        if arg >> shift:
            out += bytes([_OP["EXTENDED_ARG"], (arg >> shift) & 0xFF])
    out += bytes([_OP[name], arg & 0xFF])
    return out + b"\x00\x00" * _CACHES[_OP[name]]


def _call_const(index: int) -> bytes:
    """`co_consts[index]()`, result dropped: stack effect 0, peak +2."""
    return (
        _ins("PUSH_NULL")
        + _ins("LOAD_CONST", index)
        + _ins("PRECALL", 0)
        + _ins("CALL", 0)
        + _ins("POP_TOP")
    )


def _body_start(code: CodeType) -> int:
    """The code unit just after the first RESUME (the end of the frame set-up)."""
    for ins in dis.get_instructions(code):
        if ins.opname == "RESUME":
            return ins.offset // 2 + 1
    raise ValueError(f"no RESUME in {code!r}")


# --- the exception table: (start, size, target, depth_lasti) in code units -----------


def _exception_entries(table: bytes) -> list[list[int]]:
    entries: list[list[int]] = []
    pos = 0
    while pos < len(table):
        entry = []
        for _ in range(4):
            byte = table[pos]
            pos += 1
            value = byte & 63
            while byte & 64:
                byte = table[pos]
                pos += 1
                value = (value << 6) | (byte & 63)
            entry.append(value)
        entries.append(entry)
    return entries


def _exception_item(value: int, first: bool) -> bytes:
    groups = [value & 63]
    value >>= 6
    while value:
        groups.append(value & 63)
        value >>= 6
    groups.reverse()
    out = bytearray(g | (64 if i < len(groups) - 1 else 0) for i, g in enumerate(groups))
    if first:
        out[0] |= 128
    return bytes(out)


def _shifted_exceptions(table: bytes, at: int, units: int) -> bytes:
    """The table with `units` code units inserted at `at`: a handler range that starts
    there or later moves, one that spans `at` grows, targets at or after it move."""
    out = b""
    for start, size, target, depth_lasti in _exception_entries(table):
        end = start + size
        start2 = start + units if start >= at else start
        end2 = end + units if end > at else end
        target2 = target + units if target >= at else target
        out += _exception_item(start2, True) + _exception_item(end2 - start2, False)
        out += _exception_item(target2, False) + _exception_item(depth_lasti, False)
    return out


# --- the location table (Objects/locations.md): entries of 1..8 code units ------------


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 63) << shift
        shift += 6
        if not byte & 64:
            return value, pos


def _write_varint(value: int) -> bytes:
    out = bytearray()
    while value >= 64:
        out.append(64 | (value & 63))
        value >>= 6
    out.append(value)
    return bytes(out)


def _location_entries(table: bytes) -> list[tuple[int, int, bytes]]:
    """(kind, length in code units, the entry's bytes after its first)."""
    entries = []
    pos = 0
    while pos < len(table):
        first = table[pos]
        kind, length = (first >> 3) & 15, (first & 7) + 1
        start = pos + 1
        pos = start
        if kind == 14:
            for _ in range(4):
                _, pos = _varint(table, pos)
        elif kind == 13:
            _, pos = _varint(table, pos)
        elif kind in (10, 11, 12):
            pos += 2
        elif kind < 10:
            pos += 1
        entries.append((kind, length, table[start:pos]))
    return entries


def _entry(kind: int, length: int, rest: bytes) -> bytes:
    return bytes([128 | (kind << 3) | (length - 1)]) + rest


def _same_line(kind: int, rest: bytes) -> tuple[int, bytes]:
    """The entry's location with a line delta of 0 (for the second half of a split)."""
    if kind in (10, 11, 12):
        return 10, rest
    if kind == 13:
        return 13, _write_varint(0)
    if kind == 14:
        _, pos = _varint(rest, 0)
        return 14, _write_varint(0) + rest[pos:]
    return kind, rest  # short forms (line delta 0) and "no location"


def _inserted_locations(table: bytes, at: int, units: int) -> bytes:
    """The table with `units` code units at `at` on the line of what precedes them."""
    out = b""
    done = 0
    inserted = False
    for kind, length, rest in _location_entries(table):
        if not inserted and done + length > at:
            head = at - done
            if head:
                out += _entry(kind, head, rest)
                kind, rest = _same_line(kind, rest)
            left = units
            while left:
                out += _entry(13, min(left, 8), _write_varint(0))
                left -= min(left, 8)
            inserted = True
            length -= head
            done = at
        out += _entry(kind, length, rest)
        done += length
    if not inserted:
        raise ValueError("location table shorter than the code")
    return out


def with_prologue_call(code: CodeType, fn: object) -> CodeType:
    """A copy of `code` that calls `fn()` after its frame set-up (module docstring)."""
    if not SUPPORTED:
        raise RuntimeError("code_patch needs CPython 3.11")
    at = _body_start(code)
    consts = (*code.co_consts, fn)
    prologue = _call_const(len(consts) - 1)
    units = len(prologue) // 2
    raw = code.co_code
    return code.replace(
        co_code=raw[: at * 2] + prologue + raw[at * 2 :],
        co_consts=consts,
        co_stacksize=max(code.co_stacksize, 2),
        co_linetable=_inserted_locations(code.co_linetable, at, units),
        co_exceptiontable=_shifted_exceptions(code.co_exceptiontable, at, units),
    )
