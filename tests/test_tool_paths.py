"""Tool paths are machine-local: no committed or work-tree file picks what runs.

Written as an adversary (issue 24, class 1): a change that sets `[tools]` in any
spelling of the project config, or commits an executable where a tool is looked up (a
project `.venv/bin/ruff`, `node_modules/.bin/eslint`, `bin/rubocop`), gets nothing of
its own run, by `lint`, by the language server's check (the same use case) or by
`gate ci`. Each planted tool is a fake that leaves a mark when it runs; the real Ruff
judges the files.
"""

from __future__ import annotations

import itertools
import stat
from pathlib import Path

import pytest
from helpers import git, new_repo

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.usecases.gate import gate
from orchestrator.vocab import GateDecision, Purpose

BAD_PY = "import os\n"  # F401


@pytest.fixture(autouse=True)
def _private_homes(homes: dict[str, str]) -> None:
    """Every test here has its own user config and cache folders."""


def _evil(folder: Path, name: str, mark: Path) -> Path:
    """A fake tool that marks it ran and answers like a clean Ruff."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\necho ran >> '{mark}'\necho '[]'\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


#: Every place a project config can hold orchestrate's `[tools]` table.
SPELLINGS = [
    ("orchestrate.toml", '[tools]\n{key} = "{path}"\n'),
    ("orchestrate.toml", '[tool.orchestrate.tools]\n{key} = "{path}"\n'),
    ("orchestrate.toml", 'tools = {{ {key} = "{path}" }}\n'),
    ("pyproject.toml", '[tool.orchestrate.tools]\n{key} = "{path}"\n'),
    ("pyproject.toml", '[tool.orchestrate]\ntools = {{ {key} = "{path}" }}\n'),
]
#: The ways a committed path can name the change's own script.
PATHS = ["{root}/check", "/proc/self/cwd/check", "{root}/sub/../check"]


@pytest.mark.parametrize(
    ("spelling", "path"), list(itertools.product(SPELLINGS, PATHS)), ids=lambda v: str(v)[:40]
)
def test_a_committed_tools_table_never_picks_the_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spelling: tuple[str, str], path: str
) -> None:
    root = new_repo(tmp_path / "r", {"a.py": BAD_PY})
    mark = tmp_path / "mark"
    _evil(root, "check", mark)
    (root / "sub").mkdir()
    name, template = spelling
    (root / name).write_text(template.format(key="ruff", path=path.format(root=root)))
    monkeypatch.chdir(root)  # /proc/self/cwd names the project for this process
    report = run_lint(LintRequest(project_root=root, cwd=root, paths=["a.py"]))
    assert not mark.exists(), "the committed tool path ran"
    assert [f.rule for f in report.findings] == ["F401"], "the real Ruff judged the file"
    assert any("tools is ignored" in n and "ORCHESTRATE_TOOL_RUFF" in n for n in report.notes)


@pytest.mark.parametrize("key", ["ruff", "eslint", "ruby", "rubocop", "gofmt"])
def test_no_checker_reads_a_committed_tool_path(tmp_path: Path, key: str) -> None:
    root = new_repo(tmp_path / "r", {"a.py": "x = 1\n", "a.js": "x;\n", "a.rb": "x\n"})
    (root / "a.go").write_text("package a\n")
    mark = tmp_path / "mark"
    _evil(root, "check", mark)
    (root / "orchestrate.toml").write_text(f'[tools]\n{key} = "{root}/check"\n')
    run_lint(LintRequest(project_root=root, cwd=root, paths=["."], timeout=60))
    assert not mark.exists()


def test_a_machine_tool_path_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's settings still name a tool: the environment, the user config."""
    from orchestrator.core import tool_paths

    root = new_repo(tmp_path / "r", {"a.py": BAD_PY})
    mark = tmp_path / "mark"
    fake = _evil(tmp_path / "machine", "ruff", mark)
    monkeypatch.setenv("ORCHESTRATE_TOOL_RUFF", str(fake))
    run_lint(LintRequest(project_root=root, cwd=root, paths=["a.py"]))
    assert mark.exists()
    mark.unlink()
    monkeypatch.delenv("ORCHESTRATE_TOOL_RUFF")
    user = tool_paths.user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(f'[tools]\nruff = "{fake}"\n')
    run_lint(LintRequest(project_root=root, cwd=root, paths=["a.py"]))
    assert mark.exists()


def test_machine_tools_reads_the_user_config_and_the_environment(tmp_path: Path) -> None:
    from orchestrator.core import tool_paths

    user = tool_paths.user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('jobs = 2\n[tools]\nruff = "/u/ruff"\neslint = "rel/eslint"\n')
    env = {"ORCHESTRATE_TOOL_RUFF": "/e/ruff", "ORCHESTRATE_TOOL_TERRAFORM_LS": "/e/tf"}
    tools, notes = tool_paths.machine_tools(env)
    assert tools["ruff"] == "/e/ruff"  # the environment wins
    assert tools["terraform-ls"] == "/e/tf"
    assert "eslint" not in tools
    assert any("only [tools] is read" in n for n in notes)
    assert any("tools.eslint" in n for n in notes)


def _venv_ruff(root: Path, mark: Path) -> Path:
    return _evil(root / ".venv" / "bin", "ruff", mark)


def test_a_tracked_project_venv_ruff_never_runs(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"a.py": BAD_PY})
    mark = tmp_path / "mark"
    _venv_ruff(root, mark)
    git(root, "add", "-f", ".venv/bin/ruff")
    report = run_lint(LintRequest(project_root=root, cwd=root, paths=["a.py"]))
    assert not mark.exists()
    assert [f.rule for f in report.findings] == ["F401"], (report.scopes, report.notes)


def test_an_untracked_project_venv_ruff_runs_outside_strict_gates(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "r", {"a.py": BAD_PY})
    mark = tmp_path / "mark"
    _venv_ruff(root, mark)
    run_lint(LintRequest(project_root=root, cwd=root, paths=["a.py"]))
    assert mark.exists()
    mark.unlink()
    run_lint(LintRequest(project_root=root, cwd=root, paths=["a.py"], purpose=Purpose.DELIVERY))
    assert not mark.exists()


def test_tool_refusal_at_a_strict_gate_covers_every_path_into_the_repository(
    tmp_path: Path,
) -> None:
    from orchestrator.core import tool_paths

    root = tmp_path / "tree"
    repo = tmp_path / "repo"
    for folder in (root, repo):
        folder.mkdir()
    outside = tmp_path / "elsewhere" / "ruff"
    outside.parent.mkdir()
    outside.write_text("")
    link = tmp_path / "elsewhere" / "link"
    link.symlink_to(repo / "ruff")
    inside = [root / "ruff", repo / "ruff", repo / "x" / ".." / "ruff", link]
    for tool in inside:
        why = tool_paths.tool_refusal(str(tool), root, Purpose.DELIVERY, [repo])
        assert why is not None, tool
    assert tool_paths.tool_refusal("/proc/self/cwd/ruff", root, Purpose.FEEDBACK) is not None
    assert tool_paths.tool_refusal(str(outside), root, Purpose.DELIVERY, [repo]) is None
    assert tool_paths.tool_refusal(str(root / "ruff"), root, Purpose.FEEDBACK) is None


def test_a_project_node_modules_eslint_never_runs_at_a_strict_gate(tmp_path: Path) -> None:
    from orchestrate_plugins.eslint_tool import resolve_tool

    from orchestrator.api import Deadline, RunContext

    root = tmp_path / "r"
    mark = tmp_path / "mark"
    own = _evil(root / "node_modules" / ".bin", "eslint", mark)
    feedback = RunContext(project_root=root, deadline=Deadline.after(5))
    assert resolve_tool(root, "a.js", feedback) == str(own)
    delivery = RunContext(project_root=root, deadline=Deadline.after(5), purpose=Purpose.DELIVERY)
    assert resolve_tool(root, "a.js", delivery) != str(own)


@pytest.mark.parametrize(
    "plant",
    [
        pytest.param({"orchestrate.toml": '[tools]\nruff = "{root}/check"\n'}, id="orchestrate"),
        pytest.param(
            {"pyproject.toml": '[tool.orchestrate.tools]\nruff = "{root}/check"\n'}, id="pyproject"
        ),
        pytest.param({"orchestrate.toml": '[tools]\nruff = "/proc/self/cwd/check"\n'}, id="proc"),
        pytest.param({".venv/bin/ruff": None}, id="tracked-venv"),
    ],
)
def test_gate_ci_runs_no_tool_the_pull_request_plants(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plant: dict
) -> None:  # type: ignore[type-arg]
    """A pull request whose first commit plants the tool and whose second adds an F401:
    `gate ci` on the second runs nothing of the change's and blocks the F401."""
    root = new_repo(tmp_path / "r")
    mark = tmp_path / "mark"
    _evil(root, "check", mark)
    for rel, text in plant.items():
        if text is None:
            _evil((root / rel).parent, Path(rel).name, mark)
        else:
            (root / rel).write_text(text.format(root=root))
    git(root, "add", "-f", "check", *plant)
    git(root, "commit", "-q", "--no-verify", "-m", "plant")
    (root / "a.py").write_text(BAD_PY)
    git(root, "add", "a.py")
    git(root, "commit", "-q", "--no-verify", "-m", "use")
    monkeypatch.chdir(root)
    result = gate("ci", timeout=120, cwd=root, rev="HEAD")
    assert not mark.exists(), "gate ci ran the change's tool"
    assert result.report.gate is not None
    assert result.report.gate.decision == GateDecision.DENY
    assert "F401" in {f.rule for f in result.report.findings}


def test_an_untracked_venv_ruff_never_runs_at_gate_ci(tmp_path: Path) -> None:
    """The private tree links the project's untracked `.venv`: a strict gate runs
    nothing from it either (it lives in the repository)."""
    root = new_repo(tmp_path / "r", {".gitignore": ".venv/\n", "a.py": BAD_PY})
    git(root, "commit", "-q", "--no-verify", "-m", "a")
    mark = tmp_path / "mark"
    _venv_ruff(root, mark)
    result = gate("ci", timeout=120, cwd=root, rev="HEAD")
    assert not mark.exists()
    assert "F401" in {f.rule for f in result.report.findings}
