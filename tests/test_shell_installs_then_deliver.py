"""Package installs that run the project's own code, then a commit or push in the same
command (the brief of issue 24's last round, item 4).

`pip install -e .` runs the project's build backend and `setup.py`, `npm install` the
package's lifecycle scripts, `bundle install` its gemspec: any of them may change files
or the index, so a commit after one in the same command is undeterminable (the commit
gate would judge an index the install may change first). Generated: every installer
spelling by every way of joining it to every commit spelling. A push after one is
undeterminable too (docs/gates.md, class 7: the pre-tool gate judges the branch as it
stands before the command, and the install may commit first), and installs alone pass.
"""

from __future__ import annotations

import itertools

import pytest

from orchestrator.shell.analyser import analyse

INSTALLS = (
    "pip install -e .",
    "pip install .",
    "pip3 install --editable .",
    "python -m pip install -e .",
    "python3 -m pip install -e '.[dev]'",
    "uv pip install -e .",
    "uv sync",
    "poetry install",
    "pdm install",
    "hatch env create",
    "pipenv install",
    "npm install",
    "npm i",
    "npm ci",
    "npm install --foreground-scripts",
    "yarn",
    "yarn install",
    "pnpm install",
    "pnpm i",
    "bun install",
    "bundle install",
    "bundle",
    "gem build x.gemspec",
    "composer install",
    "cargo build",
    "go generate ./...",
    "sudo pip install -e .",
    "env CI=1 npm ci",
)
COMMITS = ("git commit -m x", "git commit -am x", "git add -A && git commit -m x", "git ci -m x")
JOINS = ("{i} && {c}", "{i}; {c}", "{i}\n{c}", "{i} || {c}", "({i}) && {c}")


@pytest.mark.parametrize("install", INSTALLS)
def test_an_install_running_project_code_then_a_commit_is_refused(install: str) -> None:
    allowed = []
    for commit, join in itertools.product(COMMITS, JOINS):
        command = join.format(i=install, c=commit)
        result = analyse(command, known_aliases={"ci": "commit"})
        if result.verdict not in ("undeterminable", "forbidden"):
            allowed.append(command)
    assert not allowed, allowed


PUSHES = ("git push", "git push origin main", "git push -u origin HEAD")


@pytest.mark.parametrize("install", INSTALLS)
def test_an_install_running_project_code_then_a_push_is_refused(install: str) -> None:
    allowed = []
    for push, join in itertools.product(PUSHES, JOINS):
        command = join.format(i=install, c=push)
        if analyse(command).verdict not in ("undeterminable", "forbidden"):
            allowed.append(command)
    assert not allowed, allowed


@pytest.mark.parametrize("install", ["pip install -e .", "npm install", "bundle install"])
def test_installs_alone_or_before_reading_still_pass(install: str) -> None:
    for command in (install, f"{install} && git status", f"{install} && git log -1"):
        assert analyse(command).verdict == "no_delivery", command
    assert analyse("pip install -r requirements.txt").verdict == "no_delivery"
