"""Git has one home: only `orchestrator/git/` builds a git command line, and that
package stands on the foundation (plus the file-target records its surfaces fill)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import parsed

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


#: The calls that start a program: their first argument is the command line.
SPAWNS = frozenset(
    {"run", "Popen", "check_output", "check_call", "call", "run_bounded"}
    | {"create_subprocess_exec", "execv", "execvp", "execve", "execvpe", "spawnv", "spawnvp"}
)
GIT_NAMES = frozenset({"git", "git.exe"})
#: Modules outside git/ that still hand git a command line through its runner
#: (`orchestrator.git.runner.Git`). Each is to move into a function of git/; the list
#: only shrinks (a module that stops needing the runner must leave it).
RUNNER_USERS = frozenset(
    {
        "orchestrator/core/run_memo.py",
        "orchestrator/core/selection.py",
        "orchestrator/gates/amend.py",
        "orchestrator/gates/legacy.py",
        "orchestrator/gates/materialise.py",
        "orchestrator/gates/strict_policy.py",
        "orchestrator/usecases/changed_paths.py",
        "orchestrator/hygiene/gitstate.py",
        "orchestrator/usecases/gate.py",
        "orchestrator/usecases/pretool.py",
    }
)


def _sources() -> list[Path]:
    return sorted([*(ROOT / "orchestrator").rglob("*.py"), *(ROOT / "plugins").rglob("*.py")])


def _assigned(tree: ast.AST) -> dict[str, list[ast.expr]]:
    """Every value bound to a name or attribute name anywhere in the module."""
    out: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
            targets, value = [node.target], node.value
        for target in targets:
            name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)
            if name is not None:
                out.setdefault(name, []).append(value)
    return out


def _is_git(node: ast.expr, bound: dict[str, list[ast.expr]], seen: frozenset[str]) -> bool:
    """Whether the program of a command line is git, however it is spelled: a string, a
    name or constant bound to one, `shutil.which("git")`, a list or tuple (also one
    built elsewhere in the module, or joined with `+`) whose first word is git."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and Path(node.value).name.lower() in GIT_NAMES
    if isinstance(node, ast.List | ast.Tuple):
        return bool(node.elts) and _is_git(node.elts[0], bound, seen)
    if isinstance(node, ast.Starred):
        return _is_git(node.value, bound, seen)
    if isinstance(node, ast.BinOp):
        return _is_git(node.left, bound, seen)
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "which" and node.args:
            return _is_git(node.args[0], bound, seen)
        if name in {"list", "tuple"} and node.args:
            return _is_git(node.args[0], bound, seen)
        return False
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    if name is None or name in seen:
        return False
    return any(_is_git(v, bound, seen | {name}) for v in bound.get(name, []))


def _builds_git_argv(tree: ast.AST) -> list[int]:
    """Lines that start git: a list or tuple literal starting with the program git, or
    a process-starting call whose command line's program is git in any spelling."""
    bound = _assigned(tree)
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.List | ast.Tuple) and _is_git(node, bound, frozenset()):
            lines.append(node.lineno)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in SPAWNS and _is_git(node.args[0], bound, frozenset()):
                lines.append(node.lineno)
    return sorted(set(lines))


def _uses_the_runner(tree: ast.AST) -> bool:
    """Whether the module imports one of git's runners (`Git`, `GitQuery`), so builds
    git arguments itself."""
    return any(
        isinstance(node, ast.ImportFrom)
        and node.module == "orchestrator.git.runner"
        and any(a.name in RUNNERS for a in node.names)
        for node in ast.walk(tree)
    )


#: The runner classes of orchestrator/git/runner.py.
RUNNERS = frozenset({"Git", "GitQuery"})


def test_the_runners_named_here_are_every_runner_class() -> None:
    from orchestrator.git import runner

    classes = {
        name
        for name, value in vars(runner).items()
        if isinstance(value, type) and issubclass(value, runner.Git)
    }
    assert classes == RUNNERS


def test_only_the_git_package_builds_git_command_lines() -> None:
    offenders = []
    for path in _sources():
        if path.is_relative_to(GIT_PACKAGE):
            continue
        lines = _builds_git_argv(parsed(path))
        offenders += [f"{path.relative_to(ROOT)}:{n}" for n in lines]
    assert offenders == [], "run git through a function of orchestrator/git/"


def test_no_new_module_hands_git_a_command_line_through_its_runner() -> None:
    users = {
        path.relative_to(ROOT).as_posix()
        for path in _sources()
        if not path.is_relative_to(GIT_PACKAGE) and _uses_the_runner(parsed(path))
    }
    assert users - RUNNER_USERS == set(), "add a function to orchestrator/git/ instead"
    assert RUNNER_USERS - users == set(), "this module no longer needs the runner: drop it"


def test_the_git_runner_is_found_by_this_check() -> None:
    source = (GIT_PACKAGE / "runner.py").read_text(encoding="utf-8")
    assert _builds_git_argv(ast.parse(source))


@pytest.mark.parametrize(
    "source",
    [
        'subprocess.run(["git", "status"])',
        'subprocess.run(("git", "status"))',
        'GIT = "git"\nsubprocess.run([GIT, "status"])',
        'exe = shutil.which("git")\nsubprocess.check_output([exe, "log"])',
        'procs.run_bounded(["/usr/bin/git", *args], deadline)',
        'argv = ["git"] + list(args)\nprocs.run_bounded(argv, deadline)',
        'def f():\n    return ["git", *a]\n',
        'self.git = shutil.which("git")\nsubprocess.Popen([self.git, "x"])',
        'cmd = list(("git", "x"))\nos.execvp("git", cmd)',
    ],
)
def test_every_spelling_of_git_is_found(source: str) -> None:
    """The spellings a list-literal check missed: a constant, a variable, `which`, a
    tuple, an absolute path, a list built elsewhere, and the spawning call itself."""
    assert _builds_git_argv(ast.parse(source))


def test_a_command_line_of_another_program_is_not_git() -> None:
    assert not _builds_git_argv(ast.parse('subprocess.run([sys.executable, "-m", "gitx"])'))


def test_the_git_package_imports_only_the_foundation() -> None:
    bad = []
    for path in sorted(GIT_PACKAGE.glob("*.py")):
        for node in ast.walk(parsed(path)):
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
