"""Generated-file marks from the judged change are policy (issue 24, class 17).

Written as an adversary: a revision that adds a `.gitattributes` marking its own files
generated had them skipped by the linters its gate asks evidence of, and the gate
allowed them (a syntax error the fallback grammar confirms; a Python file whose Ruff
cannot run, `incomplete` otherwise). Every spelling of the mark git and linguist
accept is added in the change, at `gate ci` and `gate commit`: the stricter of the
base and the change applies, so the files are judged. A mark the base already holds
still exempts. In process, real git, Ruff and the bundled grammars.
"""

from __future__ import annotations

import pytest
from helpers import git, new_repo, set_machine_tool

from orchestrator.usecases.gate import gate
from orchestrator.vocab import GateDecision

BROKEN_SH = "if then fi ((\n"
BROKEN_JSON = '{"a": \n'
BROKEN_JAVA = "class A { void f( }\n"
#: Every way a root `.gitattributes` line marks a file generated (model/generated.py).
MARKS = [
    "* linguist-generated=true",
    "* linguist-generated",
    "* linguist-generated=set",
    "** linguist-generated",
    "*.sh linguist-generated=true",
    "bad.* linguist-generated",
    "* -diff",
    "* !diff",
    "* diff=false",
    "* binary",
    "bad.sh -text -diff",
    "# header\n\n* linguist-generated=true",
    "*.sh linguist-generated=false\n*.sh linguist-generated",
]


@pytest.fixture(autouse=True)
def _private_homes(homes: dict[str, str]) -> None:
    """Each test has its own user config and cache folders."""


def _decision(root, event: str) -> tuple[GateDecision, list[str]]:  # type: ignore[no-untyped-def]
    result = gate(event, timeout=120, cwd=root, rev="HEAD" if event == "ci" else None)
    assert result.report.gate is not None
    return result.report.gate.decision, result.report.notes


@pytest.mark.parametrize("mark", MARKS)
@pytest.mark.parametrize("event", ["ci", "commit"])
def test_a_change_marking_its_own_files_generated_is_still_judged(
    tmp_path, mark: str, event: str
) -> None:  # type: ignore[no-untyped-def]
    root = new_repo(tmp_path / "r")
    files = {".gitattributes": mark + "\n", "bad.sh": BROKEN_SH, "bad.json": BROKEN_JSON}
    for rel, text in files.items():
        (root / rel).write_text(text)
    git(root, "add", *files)
    if event == "ci":
        git(root, "commit", "-q", "--no-verify", "-m", "change")
    decision, notes = _decision(root, event)
    assert decision == GateDecision.DENY, notes
    assert any(".gitattributes" in n and "base marks it too" in n for n in notes), notes


@pytest.mark.parametrize("event", ["ci", "commit"])
def test_a_missing_ruff_is_not_excused_by_the_change_marking_the_file(tmp_path, event: str) -> None:  # type: ignore[no-untyped-def]
    set_machine_tool("ruff", "/nonexistent/bin/ruff")
    root = new_repo(tmp_path / "r")
    (root / ".gitattributes").write_text("* linguist-generated=true\n")
    (root / "a.py").write_text("import os\n")
    git(root, "add", ".gitattributes", "a.py")
    if event == "ci":
        git(root, "commit", "-q", "--no-verify", "-m", "change")
    decision, notes = _decision(root, event)
    assert decision == GateDecision.INCOMPLETE, notes


@pytest.mark.parametrize("marked", [True, False])
def test_a_mark_the_base_holds_still_exempts(tmp_path, marked: bool) -> None:  # type: ignore[no-untyped-def]
    # A Java file: only the fallback's grammar judges Java (no native checker, no exact
    # parser), and it skips a generated file. (A generated file whose language has an
    # exact parser, JSON, is judged by that parser alone: tests/test_generated_files.py.)
    attrs = "bad.java linguist-generated\n" if marked else ""
    root = new_repo(tmp_path / "r", {".gitattributes": attrs or "# none\n"})
    git(root, "commit", "-q", "--no-verify", "-m", "base marks bad.java")
    (root / "bad.java").write_text(BROKEN_JAVA)
    git(root, "add", "bad.java")
    git(root, "commit", "-q", "--no-verify", "-m", "change")
    decision, notes = _decision(root, "ci")
    # Unmarked, the gate asks evidence of it (incomplete: no native checker for Java).
    assert (decision == GateDecision.ALLOW) == marked, (decision, notes)


def test_a_mark_only_the_base_holds_does_not_exempt(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The stricter of the two: a change that drops the mark is judged too."""
    root = new_repo(tmp_path / "r", {".gitattributes": "bad.sh linguist-generated\n"})
    git(root, "commit", "-q", "--no-verify", "-m", "base marks bad.sh")
    (root / ".gitattributes").write_text("")
    (root / "bad.sh").write_text(BROKEN_SH)
    git(root, "add", ".gitattributes", "bad.sh")
    git(root, "commit", "-q", "--no-verify", "-m", "change")
    decision, notes = _decision(root, "ci")
    assert decision == GateDecision.DENY, notes
