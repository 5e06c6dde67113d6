"""`lint --new-from-rev REV`: which findings the change introduces.

A finding is `unchanged` only when its fingerprint (checker, rule, path after rename
detection, the flagged line's normalised text, its occurrence among identical ones:
tasks/baseline.fingerprints) is held both at the merge-base of REV and HEAD and at
REV's tip, and the checker's two sides can be compared (its configuration is the same
on every side and its runs there were complete). Everything else is `new`: a branch
forked before a fix that still carries the fixed finding re-introduces it.
"""

from __future__ import annotations

from orchestrator.vocab import BaselineState


def baseline_state(at_base: bool, at_tip: bool, comparable: bool) -> BaselineState:
    """`unchanged` when the finding is at the merge-base and at REV's tip and its
    checker's sides compare; else `new`."""
    if comparable and at_base and at_tip:
        return BaselineState.UNCHANGED
    return BaselineState.NEW


__all__ = ["baseline_state"]
