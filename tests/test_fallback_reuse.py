"""The tree-sitter fallback's complete outcomes are reused while their identity holds
(issue 29, item 7).

Before, only `checked` results were stored and the fallback declared no reuse identity,
so Lua and every other file the fallback alone judged (`unqualified`) was parsed
again on every run. In-process lints (the use case) of real git repositories in
temporary folders, with the real grammars; a second run's parser is replaced by a fake
that raises, so a parse there would turn the file into a `tool_error`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from helpers import git, new_repo, require_tool, set_machine_tool
from orchestrate_plugins import exact_confirm, treesitter_checker

from orchestrator.core import reuse
from orchestrator.core.engine import LintRequest
from orchestrator.decisions.coverage import REUSABLE_STATUSES, is_reusable
from orchestrator.usecases.lint import NO_TASKS, lint
from orchestrator.vocab import ScopeStatus

#: A language with an unqualified grammar and no exact parser: candidates only.
DOC = 'local t = {"one", "two"}\nfor _, v in ipairs(t) do print(v) end\n'
#: gofmt rejects it (`gofmt -e`): the fallback's candidate goes to the exact parser.
BROKEN_GO = "package main\n\nfunc main() {\n\tprintln(1)\n"
#: The real parse, whatever a test puts in its place.
REAL_PARSE = treesitter_checker.parse


@pytest.fixture(autouse=True)
def _reuse_on(monkeypatch: pytest.MonkeyPatch, homes: dict[str, str]) -> None:
    monkeypatch.setenv(reuse.ENV_SWITCH, "1")


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    root = new_repo(tmp_path / "r", files)
    git(root, "commit", "-qm", "files")
    return root


def _fallback(root: Path, path: str) -> tuple[ScopeStatus, str | None, str | None]:
    """(status, reused, reason) of the fallback's scope for `path` in one lint."""
    req = LintRequest(project_root=root, paths=[path], cwd=root, timeout=60)
    report = lint(req, NO_TASKS).report
    (scope,) = [s for s in report.scopes if s.checker == "treesitter" and s.path == path]
    return scope.status, scope.reused, scope.reason


def _fake_parse(*_args: Any) -> Any:
    raise AssertionError("parsed again")


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = REAL_PARSE

    def counting(grammar: str, src: bytes, deadline_at: float) -> Any:
        calls.append(grammar)
        return real(grammar, src, deadline_at)

    monkeypatch.setattr(treesitter_checker, "parse", counting)
    return calls


def test_an_unqualified_lua_file_is_reused_not_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path, {"notes.lua": DOC})
    first = _fallback(root, "notes.lua")
    assert first[:2] == (ScopeStatus.UNQUALIFIED, None)

    monkeypatch.setattr(treesitter_checker, "parse", _fake_parse)
    assert _fallback(root, "notes.lua") == (first[0], reuse.REUSE_REASON, first[2])

    # One changed byte: parsed again, and that result reused in turn.
    (root / "notes.lua").write_text(DOC.replace("one", "One"))
    calls = _counting(monkeypatch)
    assert _fallback(root, "notes.lua")[:2] == (ScopeStatus.UNQUALIFIED, None)
    assert calls == ["lua"]
    assert _fallback(root, "notes.lua")[:2] == (ScopeStatus.UNQUALIFIED, reuse.REUSE_REASON)
    assert calls == ["lua"]


def test_a_changed_setting_parses_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _repo(tmp_path, {"notes.lua": DOC})
    assert _fallback(root, "notes.lua")[1] is None
    assert _fallback(root, "notes.lua")[1] == reuse.REUSE_REASON
    (root / "orchestrate.toml").write_text("max_parse_bytes = 100000\n")
    calls = _counting(monkeypatch)
    assert _fallback(root, "notes.lua")[:2] == (ScopeStatus.UNQUALIFIED, None)
    assert calls == ["lua"]


def test_a_change_of_the_fallbacks_own_code_parses_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upgrade that changes how candidates are found or dropped: a stored outcome
    of the old code is not an answer (the code's digest is in the identity)."""
    root = _repo(tmp_path, {"notes.lua": DOC})
    assert _fallback(root, "notes.lua")[1] is None
    assert _fallback(root, "notes.lua")[1] == reuse.REUSE_REASON
    monkeypatch.setattr(treesitter_checker, "_code_digest", lambda: "fake-other-code")
    calls = _counting(monkeypatch)
    assert _fallback(root, "notes.lua")[:2] == (ScopeStatus.UNQUALIFIED, None)
    assert calls == ["lua"]


def _gofmt_runs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The argv of every gofmt the exact parser tier starts from now on."""
    runs: list[list[str]] = []
    real = exact_confirm.run_bounded

    def counting(argv: list[str], **kw: Any) -> Any:
        if Path(argv[0]).name == "gofmt":
            runs.append(list(argv))
        return real(argv, **kw)

    monkeypatch.setattr(exact_confirm, "run_bounded", counting)
    return runs


def test_a_programs_verdict_is_reused_until_the_program_or_the_declared_go_version_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gofmt's verdict follows from the bytes, the gofmt (its path, stamp and version)
    and the Go version the nearest go.mod declares (the version rule): all in the
    fallback's identity, so the verdict is reused, and a change of either judges
    again. Before, a program's verdict was never reused (the first reuse fails on the
    old checker)."""
    real_gofmt = require_tool("gofmt", "install Go (gofmt)")
    root = _repo(tmp_path, {"main.go": BROKEN_GO})
    status, reused, reason = _fallback(root, "main.go")
    assert (status, reused) == (ScopeStatus.CHECKED, None)
    assert "confirmed by gofmt" in (reason or "")
    calls, runs = _counting(monkeypatch), _gofmt_runs(monkeypatch)
    assert _fallback(root, "main.go") == (status, reuse.REUSE_REASON, reason)
    assert (calls, runs) == ([], [])

    # A go.mod declaring a newer Go than this gofmt: the rejection is a candidate now.
    (root / "go.mod").write_text("module example.com/m\n\ngo 9.99\n")
    status, reused, newer = _fallback(root, "main.go")
    assert (status, reused) == (ScopeStatus.CHECKED, None)
    assert "older than the version 9.99 declared in go.mod" in (newer or ""), newer
    assert (calls, len(runs)) == (["go"], 1)
    assert _fallback(root, "main.go") == (status, reuse.REUSE_REASON, newer)
    (root / "go.mod").write_text("module example.com/m\n\ngo 1.1\n")
    assert _fallback(root, "main.go") == (ScopeStatus.CHECKED, None, reason)
    assert len(runs) == 2

    # Another program behind the same name: a link first on PATH, then replaced.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gofmt").symlink_to(os.path.realpath(real_gofmt))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert _fallback(root, "main.go")[1] is None
    assert _fallback(root, "main.go")[1] == reuse.REUSE_REASON
    (bin_dir / "gofmt.new").symlink_to(os.path.realpath(real_gofmt))
    os.replace(bin_dir / "gofmt.new", bin_dir / "gofmt")
    assert _fallback(root, "main.go")[:2] == (ScopeStatus.CHECKED, None)
    assert len(runs) == 4 and runs[-1][0] == str(bin_dir / "gofmt")


def test_no_verdict_from_a_program_is_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program that is missing or crashed gave no verdict: that outcome is of this
    run alone, so the next run asks again."""
    root = _repo(tmp_path, {"main.go": BROKEN_GO})
    set_machine_tool("gofmt", str(tmp_path / "absent" / "gofmt"))
    assert "gofmt not found" in (_fallback(root, "main.go")[2] or "")
    calls = _counting(monkeypatch)
    assert _fallback(root, "main.go")[1] is None
    assert calls == ["go"]
    crash = tmp_path / "fake-gofmt-crashes"  # FAKE (fault injection)
    crash.write_text("#!/bin/sh\nkill -SEGV $$\n")
    crash.chmod(0o755)
    set_machine_tool("gofmt", str(crash))
    assert "crashed" in (_fallback(root, "main.go")[2] or "")
    assert _fallback(root, "main.go")[1] is None
    assert calls == ["go", "go", "go"]


@pytest.mark.parametrize(
    ("path", "text", "confirmed"),
    [
        ("data.json", '{"a": [1, 2, {"b": null}]}\n', False),
        ("conf.yaml", "a: 1\nb:\n  - x\n  - y\n", False),
        ("dup.toml", "a = 1\na = 2\n", True),  # tomllib: a key defined twice
    ],
)
def test_an_in_process_parsers_verdict_is_reused_until_its_identity_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str, text: str, confirmed: bool
) -> None:
    """Python's json and tomllib and PyYAML judge from the bytes alone: their decided
    verdict (accepted, or the error located) is reused, with nothing parsed again;
    another version of the parser (its identity) parses again. Before, every file an
    exact parser judged was parsed on every run."""
    root = _repo(tmp_path, {path: text})
    status, reused, reason = _fallback(root, path)
    assert (status, reused) == (ScopeStatus.CHECKED, None)
    assert ("confirmed by" in (reason or "")) is confirmed
    calls = _counting(monkeypatch)
    assert _fallback(root, path) == (status, reuse.REUSE_REASON, reason)
    assert calls == []
    monkeypatch.setattr(treesitter_checker, "_in_process_parsers", lambda: "fake-other-parsers")
    assert _fallback(root, path)[:2] == (ScopeStatus.CHECKED, None)
    assert len(calls) == 1


def test_only_complete_statuses_are_reusable() -> None:
    assert {s for s in ScopeStatus if is_reusable(s)} == set(REUSABLE_STATUSES)
    assert set(REUSABLE_STATUSES) == {ScopeStatus.CHECKED, ScopeStatus.UNQUALIFIED}
    for status in (
        ScopeStatus.TIMED_OUT,
        ScopeStatus.PARTIAL,
        ScopeStatus.TOOL_ERROR,
        ScopeStatus.MISSING,
        ScopeStatus.CONFIGURATION_REQUIRED,
    ):
        assert not is_reusable(status)
