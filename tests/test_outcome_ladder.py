"""The same process fact gives the same scope status whichever plugin ran the tool.

Every process-backed checker (Ruff, ESLint, Ruby, the example yamllint plugin) runs a
FAKE tool written here (scripts named fake-*) that overflows the output budget,
crashes, is killed by a signal, prints garbage or nothing, or hangs past the deadline.
The in-process tree-sitter fallback is faulted the in-process way (a tiny deadline on
a large file, a parser that raises). Combinations that cannot apply are skipped with
the reason.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import deadline_passes_at, hang_marker
from orchestrate_plugins import treesitter_checker
from orchestrate_plugins.eslint_checker import EslintChecker
from orchestrate_plugins.ruby_checker import RubyChecker
from orchestrate_plugins.ruff_checker import RuffChecker
from orchestrate_plugins.treesitter_checker import TreeSitterChecker
from orchestrate_yamllint import YamllintChecker

from orchestrator.api import Deadline, FileOutcome, FileTarget, RunContext, ScopeStatus

#: fact -> (shell body of the fake tool, expected status). Every body first drains
#: stdin (Ruby and staged content read the source from it).
FACTS: dict[str, tuple[str, ScopeStatus]] = {
    "over-budget": ("head -c 200000 /dev/zero | tr '\\0' x; exit 0", ScopeStatus.TOOL_ERROR),
    "crash-exit-139": ("echo 'Segmentation fault' >&2; exit 139", ScopeStatus.TOOL_ERROR),
    "killed-by-signal": ("kill -SEGV $$", ScopeStatus.TOOL_ERROR),
    "garbage": ("echo '%%% not the promised format %%%'; exit 0", ScopeStatus.TOOL_ERROR),
    "nothing-exit-1": ("exit 1", ScopeStatus.TOOL_ERROR),
    "hang": ("sleep 30", ScopeStatus.TIMED_OUT),
}
BUDGET = 1000
TIMEOUT = 3.0


def _script(path: Path, version: str, body: str) -> str:
    path.write_text(
        f'#!/bin/sh\ncase "$1" in --version) echo "{version}"; exit 0;; esac\n'
        f"cat >/dev/null\n{body}\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _ctx(root: Path, **kw: object) -> RunContext:
    return RunContext(
        project_root=root,
        deadline=Deadline.after(TIMEOUT),
        output_budget=BUDGET,
        **kw,  # type: ignore[arg-type]
    )


def _ruff(root: Path, body: str) -> tuple[object, RunContext, str]:
    fake = _script(root / "fake-ruff", "ruff 9.9.9", body)
    (root / "m.py").write_text("x = 1\n")
    return RuffChecker(), _ctx(root, tool_overrides={"ruff": fake}), "m.py"


def _eslint(root: Path, body: str) -> tuple[object, RunContext, str]:
    fake = _script(root / "fake-eslint", "v9.9.9", body)
    (root / "eslint.config.js").write_text("export default [];\n")
    (root / "a.js").write_text("1;\n")
    return EslintChecker(), _ctx(root, tool_overrides={"eslint": fake}), "a.js"


def _ruby(root: Path, body: str) -> tuple[object, RunContext, str]:
    fake = _script(root / "fake-ruby", "ruby 9.9.9", body)
    (root / "a.rb").write_text("puts 1\n")
    return RubyChecker(), _ctx(root, tool_overrides={"ruby": fake}), "a.rb"


def _yamllint(root: Path, body: str) -> tuple[object, RunContext, str]:
    # The plugin runs `python -m yamllint`: a fake package first on PYTHONPATH hands
    # the process over to the fake shell script (exec: same pid, same exit status).
    script = _script(root / "fake-yamllint", "yamllint 9.9.9", body)
    pkg = root / "fake-yamllint-path" / "yamllint"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text(
        f"import os, sys\nos.execv({script!r}, [{script!r}, *sys.argv[1:]])\n"
    )
    (root / "a.yml").write_text("a: 1\n")
    (root / ".yamllint.yaml").write_text("extends: default\n")
    env = dict(os.environ, PYTHONPATH=str(pkg.parent))
    return YamllintChecker(), _ctx(root, env=env), "a.yml"


PLUGINS: dict[str, Callable[[Path, str], tuple[object, RunContext, str]]] = {
    "ruff": _ruff,
    "eslint": _eslint,
    "ruby": _ruby,
    "yamllint": _yamllint,
}


def _outcomes(checker: object, ctx: RunContext, path: str) -> list[FileOutcome]:
    target = FileTarget(path=path, abs_path=ctx.project_root / path)
    plan = checker.plan([target], ctx)  # type: ignore[attr-defined]
    outs = list(plan.settled)
    for batch in plan.batches:
        outs += checker.run(batch, ctx)  # type: ignore[attr-defined]
    return outs


@pytest.mark.parametrize("fact", list(FACTS))
@pytest.mark.parametrize("plugin", list(PLUGINS))
def test_same_process_fact_same_status(tmp_path: Path, plugin: str, fact: str) -> None:
    body, expected = FACTS[fact]
    marker = hang_marker(tmp_path)
    if fact == "hang":  # the fake says it hangs; the deadline passes then
        body = f"touch '{marker}'; {body}"
    checker, ctx, path = PLUGINS[plugin](tmp_path, body)
    with deadline_passes_at(marker):
        (out,) = _outcomes(checker, ctx, path)
    assert out.status == expected, out.reason
    assert out.findings == () and not out.falls_back and not out.coherent
    assert out.reason


@pytest.mark.parametrize("plugin", list(PLUGINS))
def test_silent_success_is_tool_error_unless_silence_is_the_tools_clean_answer(
    tmp_path: Path, plugin: str
) -> None:
    # yamllint's parsable format prints nothing for a clean file (exit 0): that is its
    # promised answer, so there the fact "printed nothing, exit 0" does not apply.
    checker, ctx, path = PLUGINS[plugin](tmp_path, "exit 0")
    (out,) = _outcomes(checker, ctx, path)
    want = ScopeStatus.CHECKED if plugin == "yamllint" else ScopeStatus.TOOL_ERROR
    assert out.status == want, out.reason


IN_PROCESS_NA = "in-process parser: no process, so no output, exit code or signal"


@pytest.mark.parametrize(
    "fact",
    [
        "hang",
        "crash",
        *(
            pytest.param(f, marks=pytest.mark.skip(reason=IN_PROCESS_NA))
            for f in ("over-budget", "crash-exit-139", "killed-by-signal", "garbage")
        ),
    ],
)
def test_treesitter_maps_its_faults_the_same_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fact: str
) -> None:
    big = tmp_path / "big.json"
    big.write_text("[" + ",".join(['{"a": [1, 2, 3]}'] * 200_000) + "]\n")
    deadline = Deadline.after(0.001 if fact == "hang" else 30)
    if fact == "crash":

        def boom(*_a: object, **_k: object) -> None:
            raise RuntimeError("parser crashed")

        monkeypatch.setattr(treesitter_checker, "parse", boom)
    # Over the default parse limit (a slow parse): the setting lets it be parsed.
    limit = {"max_parse_bytes": 16 * 1024 * 1024}
    ctx = RunContext(project_root=tmp_path, deadline=deadline, config=limit)
    (out,) = _outcomes(TreeSitterChecker(), ctx, "big.json")
    want = {"hang": FACTS["hang"][1], "crash": FACTS["crash-exit-139"][1]}[fact]
    assert out.status == want, out.reason
    assert out.findings == ()
