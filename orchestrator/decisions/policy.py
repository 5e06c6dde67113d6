"""The policy a strict gate applies: the stricter of the base's and the judged surface's.

A strict gate reads orchestrate's settings twice, from the base (what is already
committed: HEAD, the remote's commit, a revision's parent) and from the surface it
judges, and never from the working tree. Neither side may weaken the other: a plugin
stays switched off only when both switch it off, and every language needs the higher
of the two levels. Settings that are not policy (`jobs`, ...) come from the base, the
tool paths from the machine (see `usecases/gate`). Which settings differ is named in
the gate output.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from orchestrator.decisions.required import (
    LEVELS,
    NATIVE_LANGUAGES,
    NONE,
    level_for,
    required_coverage,
)

#: Settings that are policy: what runs and what a gate requires.
POLICY_KEYS = ("disable_plugins", "required")
#: Settings that belong to the machine, never to a surface (absolute tool paths).
MACHINE_KEYS = ("tools",)
#: Strictness order of the required levels, weakest first.
_RANK = {level: i for i, level in enumerate(reversed(LEVELS))}


def _disabled(config: Mapping[str, Any]) -> list[str]:
    raw = config.get("disable_plugins", []) or []
    return [str(x) for x in raw] if isinstance(raw, list | tuple) else []


def stricter_disabled(base: Mapping[str, Any], surface: Mapping[str, Any]) -> list[str]:
    """The plugins a strict gate leaves off: only those both sides switch off."""
    theirs = set(_disabled(surface))
    return sorted(name for name in set(_disabled(base)) if name in theirs)


def _higher(a: str, b: str) -> str:
    return a if _RANK[a] >= _RANK[b] else b


def stricter_required(
    base: Mapping[str, Any], surface: Mapping[str, Any], native: Collection[str] = ()
) -> dict[str, str]:
    """A `required` table under which every language needs the higher of the levels the
    two configs give it (`decisions.required.level_for`, defaults included).

    Usage error when either table is malformed. Languages either side names, and those
    the default policy or a loaded native checker holds to native, are named
    explicitly; the rest follow a `default` only when it does not lower the built-in
    level: `default = "none"` on one side leaves the other side's levels standing.
    """
    a, b = required_coverage(base), required_coverage(surface)
    named = (set(a) | set(b) | set(NATIVE_LANGUAGES) | set(native)) - {"default"}
    out = {
        lang: _higher(level_for(lang, a, native), level_for(lang, b, native))
        for lang in sorted(named)
    }
    defaults = [t["default"] for t in (a, b) if "default" in t]
    if len(defaults) == 2:
        # Both set the level of the rest: the higher one holds.
        out["default"] = _higher(*defaults)
    elif defaults and defaults[0] != NONE:
        # One side raises the unnamed languages (to syntax or native): raising is stricter
        # than every built-in level of a language that is not native by default.
        out["default"] = defaults[0]
    return out


def effective_config(
    base: Mapping[str, Any], surface: Mapping[str, Any], native: Collection[str] = ()
) -> dict[str, Any]:
    """The settings a strict gate runs with: the base's, with the stricter policy of both
    (`stricter_disabled`, `stricter_required`) and without machine-local keys."""
    out = {k: v for k, v in base.items() if k not in POLICY_KEYS and k not in MACHINE_KEYS}
    out["disable_plugins"] = stricter_disabled(base, surface)
    out["required"] = stricter_required(base, surface, native)
    return out


def changed_settings(base: Mapping[str, Any], surface: Mapping[str, Any]) -> list[str]:
    """The names of the top-level settings whose values differ between the two configs
    (sorted), for the gate output; the values themselves are not repeated."""
    keys = set(base) | set(surface)
    return sorted(str(k) for k in keys if base.get(k) != surface.get(k))


__all__ = [
    "MACHINE_KEYS",
    "POLICY_KEYS",
    "changed_settings",
    "effective_config",
    "stricter_disabled",
    "stricter_required",
]
