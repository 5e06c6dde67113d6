"""The reviewed escape hatch: a committed allowlist of secret-finding fingerprints.

`.orchestrate-secrets-allow` in the project root holds one fingerprint per line (16
hex digits, as the report prints it), by convention followed by the rule, the path
and why the match is not a secret; `#` starts a comment line. A finding whose
fingerprint is listed is not reported as blocking; the report notes name every use.

A fingerprint is (rule, path, n-th match of that rule in that file), never the value:
an entry allows at most one match, so a file cannot carry more secrets of a rule
than it has entries for it. Strict gates read the allowlist from the judged surface
(`RunContext.surface_files`), never from the working tree: an untracked or unstaged
allowlist does not open a gate. The allowlist is reviewed policy: the local strict
gates (commit, push) apply only the entries the base holds too (`reviewed_allowlist`),
so an allowlist written together with the secret it allows does not clear it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The allowlist's file name, in the project root.
ALLOWLIST_FILE = ".orchestrate-secrets-allow"
#: An allowlist larger than this is not applied at all (blocking stays the default).
MAX_ALLOWLIST_BYTES = 256 * 1024
_ENTRY = re.compile(r"[0-9a-f]{16}")


@dataclass(frozen=True)
class Allowlist:
    """Allowed fingerprints, and the lines that were ignored (by number, never text)."""

    fingerprints: frozenset[str] = frozenset()
    problems: tuple[str, ...] = ()


def parse_allowlist(data: bytes | None) -> Allowlist:
    """The allowlist in `data` (the file's bytes; None: there is no allowlist).

    A line that is not a fingerprint is ignored and named by its number (its text may
    hold a pasted secret, so it is never echoed). Over `MAX_ALLOWLIST_BYTES` nothing
    is applied. Never raises.
    """
    if data is None:
        return Allowlist()
    if len(data) > MAX_ALLOWLIST_BYTES:
        return Allowlist(
            problems=(f"{ALLOWLIST_FILE} is over {MAX_ALLOWLIST_BYTES} bytes: not applied",)
        )
    allowed: set[str] = set()
    bad: list[int] = []
    for n, raw in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head = line.split(maxsplit=1)[0]
        if _ENTRY.fullmatch(head):
            allowed.add(head)
        else:
            bad.append(n)
    problems = ()
    if bad:
        shown = ", ".join(str(n) for n in bad[:10]) + (" ..." if len(bad) > 10 else "")
        problems = (
            f"{ALLOWLIST_FILE}: line(s) {shown} ignored (each entry starts with a "
            "16-hex-digit finding fingerprint)",
        )
    return Allowlist(frozenset(allowed), problems)


def reviewed_allowlist(
    base: bytes | None, surface: bytes | None
) -> tuple[bytes | None, tuple[str, ...]]:
    """The surface's allowlist reduced to the entries the `base` copy holds too (the
    stricter of the two), and the fingerprints the surface adds, sorted (each a
    16-hex-digit entry, safe to print). An entry the base lacks becomes a `#` line, so
    the lines keep their numbers; None when the surface has no allowlist.
    """
    if surface is None or len(surface) > MAX_ALLOWLIST_BYTES:
        return surface, ()  # none, or not applied at all: nothing it adds can count
    held = parse_allowlist(base).fingerprints
    added: set[str] = set()
    lines: list[str] = []
    for raw in surface.decode("utf-8", errors="replace").splitlines():
        words = raw.split(maxsplit=1)
        if words and _ENTRY.fullmatch(words[0]) and words[0] not in held:
            added.add(words[0])
            raw = "#"
        lines.append(raw + "\n")
    return "".join(lines).encode(), tuple(sorted(added))
