"""One result shape from plugin outcome to report scope, and through the reuse cache.

`FileOutcome.to_scope` reads every Scope field from the outcome by name, and the
reuse cache stores an outcome through the Scope model: no field-by-field copy exists
that a new field could be forgotten in.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from orchestrator.core import reuse
from orchestrator.model import checker as checker_mod
from orchestrator.model.checker import FileOutcome
from orchestrator.model.report import Finding, Scope, ToolIdentity
from orchestrator.vocab import ScopeStatus, Severity, SyntaxEvidence, SyntaxStatus, Tier

#: Scope fields the outcome cannot know: set when the scope is built (`detected_by`
#: comes from the file's target, by core/assemble.scopes_of).
SCOPE_ONLY = {"tier", "reused", "detected_by"}
#: A sample value per shared field, by field name (a new field needs one here).
SAMPLES: dict[str, object] = {
    "path": "a.py",
    "checker": "ruff",
    "language": "python",
    "status": ScopeStatus.CHECKED,
    "reason": "a reason",
    "syntax": SyntaxStatus.CLEAN,
    "syntax_evidence": SyntaxEvidence.REFUTED,
    "syntax_parser": ToolIdentity(path="/usr/bin/gofmt", version="gofmt 1.19.8"),
    "tool": ToolIdentity(path="/t", version="1"),
    "config_digest": "c0ffee",
    "config_files": ("ruff.toml",),
    "exit_code": 1,
    "duration_ms": 12,
    "hint": "a hint",
}


def _parts() -> reuse.KeyParts:
    return reuse.KeyParts(
        source_digest="s",
        config_digest="c",
        tool_path="/t",
        tool_version="1",
        rules="r",
        path="a.py",
        checker="ruff",
        purpose="feedback",
    )


def test_every_scope_field_but_tier_and_reused_is_an_outcome_field() -> None:
    outcome_fields = {f.name for f in dataclasses.fields(FileOutcome)}
    assert set(Scope.model_fields) - SCOPE_ONLY <= outcome_fields


def test_to_scope_carries_every_shared_field_and_sets_tier_and_reused() -> None:
    shared = set(Scope.model_fields) - SCOPE_ONLY
    assert shared == set(SAMPLES), "add a sample value for the new field"
    outcome = FileOutcome(**SAMPLES)  # type: ignore[arg-type]
    scope = outcome.to_scope(Tier.NATIVE, "identity equal")
    for name in shared:
        want = SAMPLES[name]
        assert getattr(scope, name) == (list(want) if isinstance(want, tuple) else want), name
    assert (scope.tier, scope.reused) == (Tier.NATIVE, "identity equal")
    assert FileOutcome.from_scope(scope) == outcome


def test_every_shared_field_survives_the_reuse_cache(tmp_path: Path) -> None:
    finding = Finding(checker="ruff", rule="F401", severity=Severity.ERROR, path="a.py", line=1)
    outcome = FileOutcome(**SAMPLES, findings=(finding,), coherent=True)  # type: ignore[arg-type]
    assert reuse.store(tmp_path, _parts(), outcome)
    hit = reuse.lookup(tmp_path, _parts())
    assert hit is not None
    # duration_ms is of the run that produced the result, not of the reuse.
    assert hit.outcome == outcome.with_(duration_ms=0)


def test_a_new_scope_field_travels_through_reuse_without_touching_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class WiderScope(Scope):
        rules_version: str | None = None

    @dataclasses.dataclass(frozen=True)
    class WiderOutcome(FileOutcome):
        rules_version: str | None = None

    # The model and record gain a field; reuse.py's code is the same code.
    monkeypatch.setattr(checker_mod, "Scope", WiderScope)
    monkeypatch.setattr(reuse, "Scope", WiderScope)
    monkeypatch.setattr(reuse, "FileOutcome", WiderOutcome)
    outcome = WiderOutcome(**SAMPLES, rules_version="r7")  # type: ignore[arg-type]
    assert outcome.to_scope(None).rules_version == "r7"  # type: ignore[attr-defined]
    assert reuse.store(tmp_path, _parts(), outcome)
    hit = reuse.lookup(tmp_path, _parts())
    assert hit is not None and hit.outcome.rules_version == "r7"  # type: ignore[attr-defined]


def test_old_cache_entries_are_misses(tmp_path: Path) -> None:
    outcome = FileOutcome(**SAMPLES)  # type: ignore[arg-type]
    assert reuse.store(tmp_path, _parts(), outcome)
    index = reuse.index_path(tmp_path)
    index.write_text(index.read_text().replace(reuse.INDEX_SCHEMA, "orchestrate.reuse/2"))
    assert reuse.lookup(tmp_path, _parts()) is None
