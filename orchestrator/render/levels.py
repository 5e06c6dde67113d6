"""How loud a finding is shown: the one mapping from our severity to a display level.

Every format with levels (SARIF, GitHub annotations, the concise lines, the human view)
takes it from `level`: a blocking-capable error is `error`, a warning `warning`, an
info `note`; a syntax candidate (an unconfirmed parse, never a native verdict) is
always `note`, whatever severity its checker gave it.
"""

from __future__ import annotations

from typing import Literal

from orchestrator.model.report import Finding
from orchestrator.vocab import Severity

Level = Literal["error", "warning", "note"]
_BY_SEVERITY: dict[Severity, Level] = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "note",
}


def level(f: Finding) -> Level:
    """The display level of `f`: from its severity, `note` for a syntax candidate."""
    return "note" if f.candidate else _BY_SEVERITY[f.severity]


def word(f: Finding) -> str:
    """The severity word people and problem matchers read: error, warning or info."""
    lv = level(f)
    return "info" if lv == "note" else lv


__all__ = ["Level", "level", "word"]
