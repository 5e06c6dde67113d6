"""Every loaded checker, the built-ins and the example plugin, through `lint` and
`gate commit`, in process, on a real repository with the real tool.

A checker that works in `lint` must work at a strict gate too: the gate judges the
staged blobs in a private tree, which holds only the files the checkers declare they
are governed by (`config_names`). The example yamllint plugin once declared none, so its
`.yamllint.yaml` was missing from the gate's tree: `configuration_required`, and the
commit was blocked as incomplete while `lint` was clean.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import eslint_path, git, new_repo, stage

from orchestrator.core import plugin_host
from orchestrator.core.engine import LintRequest
from orchestrator.usecases.gate import gate
from orchestrator.usecases.lint import lint
from orchestrator.vocab import GateDecision, ScopeStatus

#: checker -> (files of a clean project that checker judges, the file it must check).
PROJECTS: dict[str, tuple[dict[str, str], str]] = {
    "ruff": ({"pyproject.toml": "[tool.ruff]\n", "a.py": "x = 1\n"}, "a.py"),
    "eslint": (
        {
            "eslint.config.js": 'export default [{ rules: { "no-undef": "error" } }];\n',
            "a.js": "export const x = 1;\n",
        },
        "a.js",
    ),
    "ruby": ({"a.rb": "x = 1\nputs x\n"}, "a.rb"),
    "rubocop": (
        {
            ".rubocop.yml": "AllCops:\n  NewCops: disable\n  SuggestedExtensions: false\n",
            "a.rb": "# frozen_string_literal: true\n\nputs 1\n",
        },
        "a.rb",
    ),
    "yamllint": ({".yamllint.yaml": "extends: relaxed\n", "c.yml": "a: 1\n"}, "c.yml"),
    "yamllint-recipe": ({".yamllint.yaml": "extends: relaxed\n", "c.yml": "a: 1\n"}, "c.yml"),
    "codespell": (
        {".codespellrc": "[codespell]\n", "notes.md": "# Notes\n\nAll good.\n"},
        "notes.md",
    ),
    "mypy": ({"mypy.ini": "[mypy]\n", "a.py": "x: int = 1\n"}, "a.py"),
    "shellcheck": ({"run.sh": '#!/bin/sh\necho "$1"\n'}, "run.sh"),
    "hadolint": ({"Dockerfile": 'FROM debian:12.8\nCMD ["true"]\n'}, "Dockerfile"),
    "cppcheck": ({"a.c": "int main(void) { return 0; }\n"}, "a.c"),
    "go-vet": (
        {"go.mod": "module example.com/m\n\ngo 1.19\n", "a.go": "package m\n\nfunc F() {}\n"},
        "a.go",
    ),
    "markdownlint-cli2": ({".markdownlint.yaml": "default: true\n", "a.md": "# A\n"}, "a.md"),
    "prettier": ({".prettierrc.json": "{}\n", "a.md": "# A\n"}, "a.md"),
    "biome": ({"biome.json": "{}\n", "a.js": "export const x = 1;\n"}, "a.js"),
    "ruff-format": ({"pyproject.toml": "[tool.ruff.format]\n", "a.py": "x = 1\n"}, "a.py"),
    "sqlfluff": (
        {".sqlfluff": "[sqlfluff]\ndialect = ansi\n", "a.sql": "SELECT a FROM t\n"},
        "a.sql",
    ),
    "taplo": (
        {"taplo.toml": "[formatting]\nalign_entries = false\n", "a.toml": "a = 1\n"},
        "a.toml",
    ),
    "stylelint": (
        {".stylelintrc.json": '{"rules": {"block-no-empty": true}}\n', "a.css": "a { b: c; }\n"},
        "a.css",
    ),
    "treesitter": ({"m.go": "package main\n\nfunc main() {}\n"}, "m.go"),
    "secrets": ({"notes.txt": "nothing to hide\n"}, "notes.txt"),
}


#: Checkers whose config may load project code (prettier: any config may name
#: `plugins`): a strict gate never runs them (`not_run`), and still allows, judging the
#: file with the language's own evidence.
NOT_AT_GATES = frozenset({"prettier"})


def test_every_loaded_checker_has_a_project_here() -> None:
    """A new checker gets a row above: this test names every loaded one."""
    assert {c.name for c in plugin_host.load().checkers()} == set(PROJECTS)


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_a_checker_checks_its_file_in_lint_and_at_gate_commit(
    name: str, tmp_path: Path, homes: dict[str, str]
) -> None:
    if name == "eslint":
        eslint_path()  # the managed ESLint of the set-up, or a failure naming it
    files, judged = PROJECTS[name]
    repo = new_repo(tmp_path / "r", files)
    # `only_checkers` also runs a policy checker, which plain `lint` leaves to the gates.
    result = lint(LintRequest(project_root=repo, only_checkers=frozenset({name})))
    mine = [s for s in result.report.scopes if s.checker == name and s.path == judged]
    assert [s.status for s in mine] == [ScopeStatus.CHECKED], mine
    gated = gate("commit", timeout=120, cwd=repo)
    scopes = [s for s in gated.report.scopes if s.checker == name and s.path == judged]
    want = ScopeStatus.NOT_RUN if name in NOT_AT_GATES else ScopeStatus.CHECKED
    assert [s.status for s in scopes] == [want], gated.report.gate
    assert gated.report.gate.decision == GateDecision.ALLOW, gated.report.gate


@pytest.mark.parametrize("configured", [True, False])
def test_the_example_plugin_passes_gate_commit_with_and_without_its_config(
    configured: bool, tmp_path: Path, homes: dict[str, str]
) -> None:
    """The config is committed before; the commit changes a YAML file only, so the
    gate's private tree has the config only if the checker declares it governs it."""
    config = {".yamllint.yaml": "extends: relaxed\n"} if configured else {}
    repo = new_repo(tmp_path / "r", {"c.yml": "a: 0\n", **config})
    git(repo, "commit", "-qm", "base")
    stage(repo, {"c.yml": "a: 1\n"})
    gated = gate("commit", timeout=120, cwd=repo)
    (scope,) = [s for s in gated.report.scopes if s.checker == "yamllint" and s.path == "c.yml"]
    want = ScopeStatus.CHECKED if configured else ScopeStatus.CONFIGURATION_REQUIRED
    assert scope.status == want, scope
    assert gated.report.gate.decision == GateDecision.ALLOW, gated.report.gate


def test_a_checker_claiming_by_suffix_never_stands_in_for_the_languages_evidence(
    tmp_path: Path, homes: dict[str, str]
) -> None:
    """prettier claims `.json` by suffix, not for JSON (its `languages` is empty): the
    fallback still judges the file (the JSON parser's verdict) in `lint` and at `gate
    commit`, where prettier is `not_run`. Before, prettier's claim took the file from
    the fallback, so a gate in any prettier project was incomplete on every JSON file."""
    repo = new_repo(tmp_path / "r", {".prettierrc.json": "{}\n", "data.json": '{"a": 1}\n'})
    report = lint(LintRequest(project_root=repo)).report
    statuses = {s.checker: s.status for s in report.scopes if s.path == "data.json"}
    assert statuses.get("treesitter") == ScopeStatus.CHECKED, statuses
    assert statuses.get("prettier") == ScopeStatus.CHECKED, statuses
    gated = gate("commit", timeout=120, cwd=repo)
    at_gate = {s.checker: s.status for s in gated.report.scopes if s.path == "data.json"}
    assert at_gate.get("treesitter") == ScopeStatus.CHECKED, at_gate
    assert at_gate.get("prettier") == ScopeStatus.NOT_RUN, at_gate
    assert gated.report.gate.decision == GateDecision.ALLOW, gated.report.gate
