"""Git has one home: only `orchestrator/git/` builds a git command line, and that
package stands on the foundation (plus the file-target records its surfaces fill)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GIT_PACKAGE = ROOT / "orchestrator" / "git"
#: What orchestrator.git may import: the foundation, and the core records a surface
#: is made of (FileTarget, language detection, refused Scope rows).
ALLOWED = (
    "orchestrator.git",
    "orchestrator.vocab",
    "orchestrator.errors",
    "orchestrator.deadline",
    "orchestrator.procs",
    "orchestrator.model.languages",
    "orchestrator.model.checker",
    "orchestrator.model.report",
    # Pure path rules (the depth bound the surfaces apply); standard library only.
    "orchestrator.model.paths",
    "orchestrator.statmemo",
)


def _sources() -> list[Path]:
    return sorted([*(ROOT / "orchestrator").rglob("*.py"), *(ROOT / "plugins").rglob("*.py")])


def _builds_git_argv(tree: ast.AST) -> list[int]:
    """Lines where a list or tuple literal starts with the string "git"."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.List | ast.Tuple)
        and node.elts
        and isinstance(node.elts[0], ast.Constant)
        and node.elts[0].value == "git"
    ]


def test_only_the_git_package_builds_git_command_lines() -> None:
    offenders = []
    for path in _sources():
        if path.is_relative_to(GIT_PACKAGE):
            continue
        lines = _builds_git_argv(ast.parse(path.read_text(encoding="utf-8")))
        offenders += [f"{path.relative_to(ROOT)}:{n}" for n in lines]
    assert offenders == [], "run git through orchestrator.git.runner.Git"


def test_the_git_runner_is_found_by_this_check() -> None:
    source = (GIT_PACKAGE / "runner.py").read_text(encoding="utf-8")
    assert _builds_git_argv(ast.parse(source))


def test_the_git_package_imports_only_the_foundation() -> None:
    bad = []
    for path in sorted(GIT_PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [f"{node.module}.{a.name}" for a in node.names]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                if name.startswith("orchestrator") and not name.startswith(ALLOWED):
                    bad.append(f"{path.name}: {name}")
    assert bad == []
