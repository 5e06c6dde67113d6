"""How many examples a property test tries, in one place.

The fast tier runs each property on a bounded, derandomised budget: the same examples on
every run and every machine, so a failure reproduces and the tier's time is stable. With
`ORCHESTRATE_PROPERTY_EXAMPLES=full` in the environment each property runs its thorough
budget instead, on fresh random examples (hypothesis' own seed, printed on a failure):
run that before changing the host adapters or the shell analyser, e.g.

    ORCHESTRATE_PROPERTY_EXAMPLES=full .venv/bin/python -m pytest tests/test_hosts_property.py
"""

from __future__ import annotations

import os

#: True when the thorough budgets are asked for.
FULL = os.environ.get("ORCHESTRATE_PROPERTY_EXAMPLES", "").strip().lower() == "full"


def examples(fast: int, full: int) -> int:
    """The number of examples to try: `full` under ORCHESTRATE_PROPERTY_EXAMPLES=full,
    else `fast`."""
    return full if FULL else fast


def derandomize() -> bool:
    """Whether hypothesis draws the same examples on every run: yes on the fast budget
    (reproducible), no on the thorough one (it explores)."""
    return not FULL
