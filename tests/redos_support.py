"""Adversarial inputs for a regular expression, built from its own pieces.

Catastrophic backtracking needs a prefix that reaches a quantified part and a body that
the quantified parts can split in many ways, then a byte that makes the match fail.
`adversarial_inputs` walks a compiled pattern's parse tree into a flat list of pieces
(literal runs, a few members of each character class, the contents of groups, branches
and look-arounds), and for every position builds: the pieces before it (the prefix
that reaches it), a window of up to six pieces from there repeated until the input is
long, and a byte that matches nothing after it. `worst_time` runs every input and
returns the slowest; it runs in a child process in the tests, so an exponential rule
makes the child overrun its time limit instead of hanging the suite.

Run as a script (`python redos_support.py RULE_ID [BODY_BYTES]`) it prints `seconds<TAB>input-repr`
of the slowest input over every pattern of that rule.
"""

from __future__ import annotations

import itertools
import re
import sys
import time
from collections.abc import Iterator

try:  # Python 3.11+: the parser moved under re
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - older Pythons
    import sre_parse  # type: ignore[no-redef]

#: Bytes tried as members of each character class: letters, digits, blanks, line
#: breaks, the escapes and punctuation the rules use as separators.
POOL = b"aA0zZ9 \t\r\n\\:-_./+=\"',;|!#@$%&*?()[]{}<>~^`"
#: How long each repeated body grows (bytes). An exponential rule is hopeless long
#: before this; a linear one scans it in microseconds.
BODY_BYTES = 4096
WINDOW = 6
MAX_CHOICES = 3
#: Wide windows try fewer members per piece (a letter and a blank), to stay fast.
WIDE = 3


def _category(cat: object, byte: int) -> bool:
    name = str(cat)
    ch = chr(byte)
    if "DIGIT" in name:
        hit = ch.isdigit()
    elif "SPACE" in name:
        hit = ch in " \t\n\r\f\v"
    elif "WORD" in name:
        hit = ch.isalnum() or ch == "_"
    else:
        hit = False
    return not hit if "NOT" in name else hit


def _in_class(items: list[tuple[object, object]], byte: int) -> bool:
    negate = False
    hit = False
    for op, av in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            hit = hit or av == byte
        elif name == "RANGE":
            lo, hi = av  # type: ignore[misc]
            hit = hit or lo <= byte <= hi
        elif name == "CATEGORY":
            hit = hit or _category(av, byte)
    return hit != negate


def _members(items: list[tuple[object, object]]) -> list[bytes]:
    named = bytearray()  # the class's own literals and range ends come first
    for op, av in items:
        if str(op) == "LITERAL":
            named.append(av)  # type: ignore[arg-type]
        elif str(op) == "RANGE":
            named += bytes(av)  # type: ignore[arg-type]
    candidates = bytes(dict.fromkeys(bytes(named) + POOL))
    found = [bytes([b]) for b in candidates if b < 256 and _in_class(items, b)]
    # A letter, a blank and a separator are the interesting spellings: keep a spread.
    return found[:MAX_CHOICES] + [b for b in found if b in (b" ", b"\n", b"\\")][:2]


def pieces(tree: object) -> list[list[bytes]]:
    """The pattern's pieces in order: each a list of byte strings it can match."""
    out: list[list[bytes]] = []
    run = bytearray()

    def flush() -> None:
        if run:
            out.append([bytes(run)])
            run.clear()

    for op, av in tree:  # type: ignore[attr-defined]
        name = str(op)
        if name == "LITERAL":
            run.append(av)
            continue
        flush()
        if name == "IN":
            out.append(list(dict.fromkeys(_members(av))) or [b"a"])
        elif name == "NOT_LITERAL":
            out.append([b for b in (b"a", b" ", b"\n") if b[0] != av])
        elif name == "ANY":
            out.append([b"a", b"\n"])
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            out += pieces(av[2])
        elif name in ("SUBPATTERN", "ATOMIC_GROUP"):
            out += pieces(av[-1])
        elif name == "BRANCH":
            for alt in av[1]:
                out += pieces(alt)
        elif name in ("ASSERT", "ASSERT_NOT"):
            out += pieces(av[1])
        elif name == "CATEGORY":
            out.append([b for b in (b"a", b"0", b" ") if _category(av, b[0])] or [b"!"])
    flush()
    return out


def _narrow(choices: list[bytes]) -> list[bytes]:
    blank = [c for c in choices if c in (b" ", b"\n")]
    return list(dict.fromkeys(choices[:1] + blank[:1]))


def adversarial_inputs(pattern: re.Pattern[bytes], size: int = BODY_BYTES) -> Iterator[bytes]:
    """Inputs meant to make `pattern` backtrack: prefix, repeated window, failing byte."""
    parts = pieces(sre_parse.parse(pattern.pattern, pattern.flags))
    for start in range(len(parts)):
        prefix = b"".join(p[0] for p in parts[:start])
        for width in range(1, WINDOW + 1):
            window = parts[start : start + width]
            if len(window) < width:
                break
            if width > WIDE:
                window = [_narrow(p) for p in window]
            for choice in itertools.product(*window):
                body = b"".join(choice)
                reps = max(1, size // max(1, len(body)))
                for tail in (b"\x00", b"\n") if width <= WIDE else (b"\x00",):
                    yield prefix + body * reps + tail


def worst_time(rule_id: str, size: int = BODY_BYTES) -> tuple[float, bytes]:
    """The slowest (seconds, input) over every pattern of `rule_id`, scanned in full."""
    from orchestrate_plugins.secrets_rules import RULES

    [rule] = [r for r in RULES if r.id == rule_id]
    worst = (0.0, b"")
    for pattern in rule.patterns:
        for data in adversarial_inputs(pattern, size):
            t0 = time.perf_counter()
            for _ in pattern.finditer(data):
                pass
            took = time.perf_counter() - t0
            if took > worst[0]:
                worst = (took, data)
    return worst


if __name__ == "__main__":
    seconds, data = worst_time(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else BODY_BYTES)
    print(f"{seconds:.6f}\t{data[:80]!r} ({len(data)} bytes)")
