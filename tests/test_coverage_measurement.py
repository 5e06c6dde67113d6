"""What keeps the fast tier's line coverage (`./run coverage`) true.

- The fault-injection trace hooks (tests/fault_injection.py) give back the hooks that
  were installed before them: a line-coverage tracer switched off by a sweep measured
  nothing for the rest of that test process (`usecases/merge.py` read 28% in the whole
  run, 90% alone).
- No test imports a plugin module as `plugins.x`: the folder is the package
  `orchestrate_plugins`, and a second name loads the same file as a second module,
  which the tests of the first never see.
"""

from __future__ import annotations

import ast
import sys
import threading
from pathlib import Path

from fault_injection import raising, reachable
from helpers import parsed

from orchestrator.cli.progress import under_ci

REPO = Path(__file__).resolve().parent.parent


def _sentinel(frame: object, event: str, arg: object) -> None:
    return None


def _thread_sentinel(frame: object, event: str, arg: object) -> None:
    return None


def test_a_sweep_gives_back_the_trace_hooks_that_were_there_before() -> None:
    before, before_threads = sys.gettrace(), threading.gettrace()
    try:
        sys.settrace(_sentinel)
        threading.settrace(_thread_sentinel)
        codes = reachable(lambda: under_ci({"CI": "true"}))
        assert sys.gettrace() is _sentinel
        assert threading.gettrace() is _thread_sentinel
        assert any(code.co_name == "under_ci" for code in codes)
        # Inside, the fault is armed by patching the code or, where that cannot be done,
        # by a trace hook of its own: either way the hooks before come back after.
        with raising(codes[0]) as armed:
            pass
        assert not armed.fired
        assert sys.gettrace() is _sentinel
        assert threading.gettrace() is _thread_sentinel
    finally:
        threading.settrace(before_threads)  # type: ignore[arg-type]
        sys.settrace(before)


def _plugin_imports(path: Path) -> list[str]:
    """The `plugins` / `plugins.x` modules `path` imports, anywhere in it."""
    out = []
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        out += [n for n in names if n == "plugins" or n.startswith("plugins.")]
    return out


def test_no_test_imports_a_plugin_module_under_its_folder_name() -> None:
    files = [*sorted((REPO / "tests").rglob("*.py")), *sorted((REPO / "conformance").rglob("*.py"))]
    bad = {
        str(p.relative_to(REPO)): names
        for p in files
        if "fixtures" not in p.parts and (names := _plugin_imports(p))
    }
    assert bad == {}, f"import orchestrate_plugins.x instead: {bad}"
