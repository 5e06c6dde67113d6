"""The built-in shellcheck recipe's findings equal shellcheck run directly on a real
project: dracut's 215 module scripts (corpus item `dracut`, fetched by scripts/fetch).

Same paths, lines, columns and rule ids, file for file; the project tree is left as it
was. The recipe-made checker runs through `orchestrate_plugins.recipe_checkers`, the
built-in recipes' plugin, as the engine loads it.
"""

from __future__ import annotations

import collections
import json
import subprocess
from pathlib import Path

from orchestrate_plugins import recipe_checkers

from orchestrator.api import Deadline, FileTarget, RunContext, ScopeStatus
from tests.helpers import corpus

Key = tuple[str, int | None, int | None, str]


def _shellcheck() -> object:
    (checker,) = [c for c in recipe_checkers.orchestrate_checkers() if c.name == "shellcheck"]
    return checker


def _scripts(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.sh") if p.is_file())


def _footprint(root: Path) -> dict[str, tuple[int, int]]:
    return {
        p.relative_to(root).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in root.rglob("*")
    }


def test_shellcheck_recipe_equals_shellcheck_run_directly_on_dracut() -> None:
    root = corpus("dracut") / "root"
    paths = _scripts(root)
    assert len(paths) >= 200
    checker = _shellcheck()
    ctx = RunContext(project_root=root, deadline=Deadline.after(300))
    before = _footprint(root)
    targets = [FileTarget(path=p, abs_path=root / p, language="bash") for p in paths]
    plan = checker.plan(targets, ctx)
    assert not plan.settled, [o.reason for o in plan.settled[:3]]
    outs = [o for batch in plan.batches for o in checker.run(batch, ctx)]
    assert _footprint(root) == before, "the recipe run changed the project"
    assert {o.path for o in outs} == set(paths)
    assert {o.status for o in outs} == {ScopeStatus.CHECKED}
    tool = outs[0].tool
    assert tool is not None and tool.version == "0.11.0"
    ours = {(f.path, f.line, f.column, f.rule) for o in outs for f in o.findings}

    res = subprocess.run(
        [tool.path, "--format=json1", "--", *paths], cwd=root, capture_output=True, timeout=300
    )
    assert res.returncode in (0, 1), res.stderr.decode()
    native: set[Key] = {
        (c["file"], c["line"], c["column"], f"SC{c['code']}")
        for c in json.loads(res.stdout)["comments"]
    }
    assert ours == native
    rules = collections.Counter(rule for _p, _l, _c, rule in native)
    assert len(native) >= 20 and len(rules) >= 5, rules
    # Every finding is on the file it names, and the severities follow the recipe's map.
    for o in outs:
        assert all(f.path == o.path and f.checker == "shellcheck" for f in o.findings)
    words = {f.tool_severity: f.severity.value for o in outs for f in o.findings}
    assert words == {"error": "error", "warning": "warning", "info": "info", "style": "info"}
