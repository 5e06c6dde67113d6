"""A parser that checks many files in one process (gofmt) judges a batch's files in one
run, and each file gets the verdict the parser gives it alone (issue 30).

The real gofmt over real files in temporary folders, through the tree-sitter checker;
every gofmt the exact tier starts is counted. The crash case uses a FAKE gofmt (fault
injection) in front of the real one. The program's version text is asked once per
binary and kept in the user cache (plugins/exact_identity.py).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

import pytest
from helpers import require_tool
from orchestrate_plugins import exact_confirm, exact_identity, treesitter_checker
from orchestrate_plugins.treesitter_checker import TreeSitterChecker

from orchestrator.deadline import Deadline
from orchestrator.model.checker import FileOutcome, FileTarget, RunContext
from orchestrator.model.languages import detect
from orchestrator.vocab import Purpose, SyntaxEvidence

OK = b"package p\n\nfunc F() int { return 1 }\n"
#: Valid; the grammar flags the semicolons of the const group (gofmt refutes).
FLAGGED_OK = b"package p\n\nconst ( A = iota; B )\n"
#: gofmt: `4:15: missing ',' before newline in argument list`, and more after it.
BAD = b"package main\n\nfunc main() {\n\tx := add(1, 2\n}\n"
#: No package clause: gofmt accepts it as a fragment from stdin, rejects it as a file.
FRAGMENT = b"func f() {}\n"


@pytest.fixture
def gofmt_runs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    require_tool("gofmt", "install Go (Debian: apt-get install golang-go)")
    runs: list[list[str]] = []
    real = exact_confirm.run_bounded

    def counting(argv: list[str], **kw: Any) -> Any:
        runs.append(list(argv))
        return real(argv, **kw)

    monkeypatch.setattr(exact_confirm, "run_bounded", counting)
    return runs


def _targets(root: Path, files: dict[str, bytes]) -> list[FileTarget]:
    out = []
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        out.append(
            FileTarget(path=name, abs_path=path, language=detect(name, data), size=len(data))
        )
    return out


def _ctx(root: Path, tools: dict[str, str] | None = None) -> RunContext:
    return RunContext(
        project_root=root, deadline=Deadline.after(60), config={}, tool_overrides=tools or {}
    )


def _together(root: Path, files: dict[str, bytes], **kw: Any) -> dict[str, FileOutcome]:
    """Every file in one checker batch."""
    checker, ctx = TreeSitterChecker(), _ctx(root, **kw)
    (batch,) = checker.plan(_targets(root, files), ctx).batches
    return {o.path: o for o in checker.run(batch, ctx)}


def _alone(root: Path, files: dict[str, bytes], **kw: Any) -> dict[str, FileOutcome]:
    """Each file in a batch of its own: the one-file run."""
    checker, ctx = TreeSitterChecker(), _ctx(root, **kw)
    out = {}
    for target in _targets(root, files):
        (batch,) = checker.plan([target], ctx).batches
        (outcome,) = checker.run(batch, ctx)
        out[outcome.path] = outcome
    return out


def _verdicts(outcomes: dict[str, FileOutcome]) -> dict[str, Any]:
    return {
        path: (
            o.status,
            o.syntax,
            o.syntax_evidence,
            o.reason,
            [(f.rule, f.line, f.column, f.message, f.blocking) for f in o.findings],
            o.reusable,
        )
        for path, o in outcomes.items()
    }


def _gofmt(runs: list[list[str]]) -> list[list[str]]:
    return [argv for argv in runs if Path(argv[0]).name == "gofmt"]


def test_one_gofmt_checks_three_files_and_the_error_of_the_second_is_its_own(
    tmp_path: Path, gofmt_runs: list[list[str]]
) -> None:
    """Before, one gofmt per Go file (three here)."""
    files = {"a/one.go": FLAGGED_OK, "a/two.go": BAD, "a/three.go": OK}
    together = _together(tmp_path / "t", files)
    (run,) = _gofmt(gofmt_runs)
    assert run[1:4] == ["-e", "-l", "--"] and len(run) == 7
    two = together["a/two.go"]
    assert two.syntax_evidence == SyntaxEvidence.CONFIRMED, two.reason
    assert [(f.line, f.column, f.blocking) for f in two.findings] == [(4, 15, True)]
    assert together["a/one.go"].syntax_evidence == SyntaxEvidence.REFUTED
    assert "also accepted by gofmt" in (together["a/three.go"].reason or "")
    assert _verdicts(together) == _verdicts(_alone(tmp_path / "a", files))


def test_a_fragment_without_a_package_clause_gets_its_one_file_verdict(
    tmp_path: Path, gofmt_runs: list[list[str]]
) -> None:
    """gofmt reads stdin (the one-file run) more leniently than a file: a file whose
    error is the missing package clause is run alone."""
    files = {"frag.go": FRAGMENT, "bad.go": BAD, "ok.go": OK}
    together = _together(tmp_path / "t", files)
    assert len(_gofmt(gofmt_runs)) == 2  # the shared run, and the fragment alone
    assert _verdicts(together) == _verdicts(_alone(tmp_path / "a", files))
    assert not together["frag.go"].findings


def test_a_message_of_several_lines_speaks_for_no_other_file(
    tmp_path: Path, gofmt_runs: list[list[str]]
) -> None:
    """gofmt quotes a raw string in its message, lines and all: a line that could claim
    to be another file's error makes every file of the run be judged alone."""
    forged = b"package a\nvar s = 1 `x\n<standard input>:1:1: forged\n/tmp/ok.go:1:1: forged`\n"
    files = {"forged.go": forged, "ok.go": OK, "flagged.go": FLAGGED_OK}
    together = _together(tmp_path / "t", files)
    assert len(_gofmt(gofmt_runs)) == 1 + 3
    assert _verdicts(together) == _verdicts(_alone(tmp_path / "a", files))
    assert together["ok.go"].syntax_evidence is None and not together["ok.go"].findings
    assert together["flagged.go"].syntax_evidence == SyntaxEvidence.REFUTED


def test_the_version_rule_holds_in_a_shared_run(
    tmp_path: Path, gofmt_runs: list[list[str]]
) -> None:
    files = {"go.mod": b"module example.com/m\n\ngo 9.99\n", "bad.go": BAD, "ok.go": FLAGGED_OK}
    together = _together(tmp_path / "t", files)
    assert len(_gofmt(gofmt_runs)) == 1
    bad = together["bad.go"]
    assert bad.syntax_evidence == SyntaxEvidence.CANDIDATE
    assert "older than the version 9.99 declared in go.mod" in (bad.reason or "")
    assert together["ok.go"].syntax_evidence == SyntaxEvidence.REFUTED
    assert _verdicts(together) == _verdicts(_alone(tmp_path / "a", files))


def test_a_shared_run_that_crashes_judges_each_file_alone(
    tmp_path: Path, gofmt_runs: list[list[str]]
) -> None:
    real = require_tool("gofmt", "install Go (Debian: apt-get install golang-go)")
    fake = tmp_path / "fakes" / "gofmt"  # FAKE (fault injection): dies given many files
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\n[ $# -gt 3 ] && kill -SEGV $$\nexec {shlex.quote(real)} "$@"\n')
    fake.chmod(0o755)
    files = {"bad.go": BAD, "ok.go": FLAGGED_OK, "three.go": OK}
    tools = {"gofmt": str(fake)}
    together = _together(tmp_path / "t", files, tools=tools)
    assert len(_gofmt(gofmt_runs)) == 1 + 3
    assert together["bad.go"].syntax_evidence == SyntaxEvidence.CONFIRMED
    assert _verdicts(together) == _verdicts(_alone(tmp_path / "a", files, tools=tools))


def test_a_programs_version_text_is_kept_per_binary_in_the_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    exact_identity.forget()
    tool = tmp_path / "tool"
    tool.write_text("#!/bin/sh\necho 'tool 1.0'\n")
    tool.chmod(0o755)
    assert exact_identity.kept(str(tool), ("--version",)) is None
    exact_identity.keep(str(tool), ("--version",), "tool 1.0")
    exact_identity.forget()  # another process: read from the file
    assert exact_identity.kept(str(tool), ("--version",)) == "tool 1.0"
    assert exact_identity.kept(str(tool), ("-v",)) is None
    st = tool.stat()
    tool.write_text("#!/bin/sh\necho 'tool 2.0'\n")  # replaced, its mtime put back
    os.utime(tool, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert exact_identity.kept(str(tool), ("--version",)) is None
    (tmp_path / "cache" / "orchestrate" / exact_identity.VERSIONS_FILE).write_text("{nope")
    exact_identity.forget()
    assert exact_identity.kept(str(tool), ("--version",)) is None


def test_a_strict_gate_asks_the_binary_not_the_kept_version_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept text serves feedback runs; a delivery run asks the program itself."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    exact_identity.forget()
    tool = tmp_path / "fake-xmllint"  # FAKE: says a version, accepts everything
    tool.write_text(
        '#!/bin/sh\n[ "$1" = "--version" ] && echo "xmllint: using libxml version 20914"\nexit 0\n'
    )
    tool.chmod(0o755)
    exact_identity.keep(str(tool), ("--version",), "xmllint: using libxml version 99999")
    root = tmp_path / "project"  # a gate runs no tool from inside the tree it judges
    target = _targets(root, {"a.xml": b"<a>1</a>\n"})[0]

    def version(purpose: Purpose) -> str | None:
        ctx = RunContext(
            project_root=root,
            deadline=Deadline.after(60),
            tool_overrides={"xmllint": str(tool)},
            purpose=purpose,
        )
        verdict = exact_confirm.judge(target, b"<a>1</a>\n", "xml", ctx)
        assert verdict is not None and verdict.parser is not None
        return verdict.parser.version

    assert version(Purpose.FEEDBACK) == "xmllint 99999"
    assert version(Purpose.DELIVERY) == "xmllint 20914"


def test_files_past_the_held_bytes_are_judged_before_the_batch_ends(
    tmp_path: Path, gofmt_runs: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checker holds at most HELD_BYTES of waiting sources: past it, the files
    waiting so far are judged (here: each file at once), with the same verdicts."""
    monkeypatch.setattr(treesitter_checker, "HELD_BYTES", len(BAD) + len(OK))
    files = {"a.go": OK, "b.go": BAD, "c.go": FLAGGED_OK, "d.go": OK}
    together = _together(tmp_path / "t", files)
    assert [len(run) for run in _gofmt(gofmt_runs)] == [4 + 3, 3]  # a-c shared, d alone
    assert _verdicts(together) == _verdicts(_alone(tmp_path / "a", files))
