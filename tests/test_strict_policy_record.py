"""The strict policy is one record, complete before the first run and never written
after it: what only the runs tell (the changes since the base, the allowlist entries the
surface adds) comes back beside the report as a `SurfaceCheck`, and the verdict reads
both (usecases/gate.py)."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest
from helpers import new_repo, stage

from orchestrator.gates.strict_policy import Change
from orchestrator.model.report import Report, ScanInfo
from orchestrator.usecases import gate as gate_uc
from orchestrator.vocab import BASELINE_FILE


def _empty() -> Report:
    return Report(scan=ScanInfo(project_root="/p"))


def test_a_built_policy_cannot_be_written() -> None:
    policy = gate_uc.StrictPolicy(None, {}, {}, None)  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        policy.notes = ("late",)  # type: ignore[misc]
    assert not hasattr(policy, "changes") and not hasattr(policy, "allowlist_reasons")


def test_the_verdict_names_what_the_check_found_beside_the_policy() -> None:
    policy = gate_uc.StrictPolicy(None, {}, {}, None)  # type: ignore[arg-type]
    checked = gate_uc.SurfaceCheck(
        _empty(), (Change("ruff.toml", "ruff.toml differs from the base"),), ("allow: added",)
    )
    reasons = gate_uc._evaluated(checked, policy).reasons
    assert "changed since the base (see the notes): ruff.toml" in reasons
    assert reasons[-1] == "allow: added"


def test_checking_a_surface_leaves_the_policy_as_built(tmp_path: Path, homes: dict) -> None:  # type: ignore[type-arg]
    repo = new_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    stage(repo, {"a.py": "import os\n", BASELINE_FILE: "not a baseline\n"})
    git = gate_uc._open_strict(60.0, repo)
    surface = gate_uc.read_surface(git, "commit", None, None, b"")
    policy = gate_uc.strict_policy(git, "commit", surface)
    before = (copy.deepcopy(policy.config), policy.notes, dict(policy.native))
    checked = gate_uc.check_surface(git, "commit", surface, 60.0, policy=policy)
    assert (policy.config, policy.notes, policy.native) == before
    assert [c.name for c in checked.changes] == [BASELINE_FILE]
    assert any(BASELINE_FILE in n for n in checked.report.notes)
