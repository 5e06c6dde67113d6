"""scripts/coverage_floor.py on small synthetic coverage.py JSON reports."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "coverage_floor", REPO / "scripts/coverage_floor.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


floor = _script()


def _report(files: dict[str, tuple[int, int]]) -> dict[str, object]:
    return {
        "files": {
            path: {"summary": {"covered_lines": c, "num_statements": s}}
            for path, (c, s) in files.items()
        }
    }


GOOD = {
    "orchestrator/decisions/a.py": (90, 100),
    "orchestrator/decisions/__init__.py": (0, 0),
    "orchestrator/usecases/b.py": (9, 10),
    "orchestrator/model/c.py": (10, 10),
    "plugins/d.py": (5, 10),
    "orchestrator/cli/__main__.py": (0, 3),  # run end to end only: no module floor
}


def test_a_report_meeting_every_floor_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cov.json"
    path.write_text(json.dumps(_report(GOOD)))
    assert floor.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "orchestrator/decisions" in out and "90.0%" in out
    assert "plugins/d.py" in out and "50.0%" in out
    assert "all floors met" in out


def test_a_package_and_a_module_under_their_floors_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = dict(GOOD)
    files["orchestrator/usecases/b.py"] = (8, 10)  # package at (8 / 10) = 80%
    files["plugins/d.py"] = (4, 10)
    path = tmp_path / "cov.json"
    path.write_text(json.dumps(_report(files)))
    assert floor.main([str(path)]) == 1
    out = capsys.readouterr().out
    assert "package orchestrator/usecases: 80.0% < 85%" in out
    assert "module plugins/d.py: 40.0% < 50%" in out
    assert "orchestrator/decisions:" not in out


def test_absolute_paths_are_read_relative_and_a_missing_package_fails() -> None:
    modules = floor.module_lines(_report({"/w/tree/orchestrator/model/c.py": (1, 1)}))
    assert set(modules) == {"orchestrator/model/c.py"}
    assert floor.failures(modules) == [
        "package orchestrator/decisions: not in the report",
        "package orchestrator/usecases: not in the report",
    ]


def test_an_unreadable_report_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert floor.main([str(bad)]) == 2
    assert floor.main([]) == 2
