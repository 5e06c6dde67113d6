"""`lint --new-from-rev REV` (issue 31): only what the change introduces fails.

Real git repositories and the real Ruff, in-process. `main` holds `a.py` with an
unused import (F401); the change is a branch forked from it. Each case edits the
branch (and sometimes `main` after the fork) and judges against `main`:

- lines moved by an edit above them stay unchanged (exit 0);
- an edited line with a new finding is new (exit 1), so is a new file's finding;
- a file renamed with its content stays unchanged;
- a checker's configuration changed on the branch: all its findings are new, said so;
- a finding `main` fixed after the fork, still on the old branch: new (it would come
  back with the merge);
- SARIF's `baselineState` and JSON's `baseline_state` carry it (SARIF validated
  against the vendored 2.1.0 schema);
- a revision a shallow clone lacks: exit 3 with the fix; a name that is no commit:
  usage error (exit 2).
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from helpers import git, new_repo, sarif_schema

from orchestrator.cli import main as cli_main
from orchestrator.core.engine import LintRequest
from orchestrator.render.sarif import to_sarif
from orchestrator.usecases.lint import NO_TASKS, lint
from orchestrator.usecases.new_from_rev import Revisions, revisions
from orchestrator.vocab import BaselineState

A = "import os\n\n\ndef f():\n    return 1\n"
PYPROJECT = '[tool.ruff.lint]\nselect = ["F"]\n'


def _commit(repo: Path, files: dict[str, str], message: str) -> None:
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """`main` with a.py (F401 on line 1); the branch `change` checked out from it."""
    root = new_repo(tmp_path / "repo")
    _commit(root, {"pyproject.toml": PYPROJECT, "a.py": A}, "base")
    git(root, "checkout", "-q", "-b", "change")
    return root


def _judged(repo: Path, rev: str = "main") -> tuple[dict[tuple[str, str], str], int, list[str]]:
    found = revisions(repo, rev)
    assert isinstance(found, Revisions), found
    result = lint(LintRequest(project_root=repo, cwd=repo, timeout=120), NO_TASKS, new_from=found)
    states = {
        (f.path, f.rule): str(f.baseline_state) for f in result.report.findings if f.rule != ""
    }
    return states, result.exit_code, result.report.notes


def test_lines_moved_by_an_edit_above_stay_unchanged(repo: Path) -> None:
    (repo / "a.py").write_text("# a comment\n# another\n" + A)
    states, code, notes = _judged(repo)
    assert states == {("a.py", "F401"): "unchanged"}
    assert code == 0
    assert any("0 new finding(s), 1 unchanged" in n for n in notes)


def test_an_edited_line_with_a_new_finding_is_new(repo: Path) -> None:
    (repo / "a.py").write_text(A.replace("import os", "import json"))
    states, code, _ = _judged(repo)
    assert states == {("a.py", "F401"): "new"}
    assert code == 1


def test_a_new_files_findings_are_new(repo: Path) -> None:
    (repo / "b.py").write_text("import re\n")
    states, code, _ = _judged(repo)
    assert states == {("a.py", "F401"): "unchanged", ("b.py", "F401"): "new"}
    assert code == 1


def test_a_committed_change_is_judged_like_an_uncommitted_one(repo: Path) -> None:
    _commit(repo, {"b.py": "import re\n", "a.py": "# top\n" + A}, "change")
    states, code, _ = _judged(repo)
    assert states == {("a.py", "F401"): "unchanged", ("b.py", "F401"): "new"}
    assert code == 1


def test_a_renamed_file_keeps_its_findings_unchanged(repo: Path) -> None:
    git(repo, "mv", "a.py", "c.py")
    states, code, _ = _judged(repo)
    assert states == {("c.py", "F401"): "unchanged"}
    assert code == 0


def test_a_changed_configuration_makes_its_checkers_findings_new(repo: Path) -> None:
    (repo / "pyproject.toml").write_text('[tool.ruff.lint]\nselect = ["F", "E"]\n')
    states, code, notes = _judged(repo)
    assert states == {("a.py", "F401"): "new"}
    assert code == 1
    assert any("ruff's configuration differs" in n for n in notes)


def test_a_finding_fixed_on_rev_after_the_fork_is_new_on_the_old_branch(repo: Path) -> None:
    git(repo, "checkout", "-q", "main")
    _commit(repo, {"a.py": A.replace("import os\n", "")}, "fix F401")
    git(repo, "checkout", "-q", "change")
    _commit(repo, {"other.txt": "x\n"}, "unrelated")
    states, code, _ = _judged(repo)
    assert states == {("a.py", "F401"): "new"}
    assert code == 1


def test_sarif_and_json_carry_the_state(repo: Path) -> None:
    (repo / "b.py").write_text("import re\n")
    found = revisions(repo, "main")
    assert isinstance(found, Revisions)
    report = lint(
        LintRequest(project_root=repo, cwd=repo, timeout=120), NO_TASKS, new_from=found
    ).report
    data = json.loads(report.model_dump_json())
    assert {f["path"]: f["baseline_state"] for f in data["findings"]} == {
        "a.py": "unchanged",
        "b.py": "new",
    }
    sarif = to_sarif(report)
    schema = sarif_schema()
    jsonschema.validators.validator_for(schema)(schema).validate(sarif)
    by_uri = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r["baselineState"]
        for r in sarif["runs"][0]["results"]
    }
    assert by_uri == {"a.py": "unchanged", "b.py": "new"}
    assert {r["properties"]["blocking"] for r in sarif["runs"][0]["results"]} == {True, False}


def test_without_the_option_no_state_is_set(repo: Path) -> None:
    report = lint(LintRequest(project_root=repo, cwd=repo, timeout=120), NO_TASKS).report
    assert [f.baseline_state for f in report.findings] == [None]
    assert "baselineState" not in to_sarif(report)["runs"][0]["results"][0]


def test_the_cli_exits_by_new_findings_only(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    (repo / "a.py").write_text("# moved\n" + A)
    assert cli_main.main(["lint", "--new-from-rev", "main", "--no-tasks"]) == 0
    assert cli_main.main(["lint", "--no-tasks"]) == 1  # without it, the old finding blocks
    (repo / "b.py").write_text("import re\n")
    assert cli_main.main(["lint", "--new-from-rev", "main", "--no-tasks"]) == 1


def test_a_revision_the_shallow_clone_lacks_is_incomplete(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _commit(repo, {"b.py": "B = 1\n"}, "second")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "change", repo.as_uri(), str(clone))
    monkeypatch.chdir(clone)
    old = git(repo, "rev-parse", "main").strip()
    assert cli_main.main(["lint", "--new-from-rev", old, "--no-tasks"]) == 3
    assert "fetch-depth: 0" in capsys.readouterr().err


def test_a_name_that_is_no_commit_is_a_usage_error(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    assert cli_main.main(["lint", "--new-from-rev", "no-such-branch", "--no-tasks"]) == 2
    assert cli_main.main(["lint", "--new-from-rev", "main", "--since", "main"]) == 2


def test_the_states_are_the_two_words() -> None:
    from orchestrator.decisions.new_findings import baseline_state

    assert {str(s) for s in BaselineState} == {"new", "unchanged"}
    assert baseline_state(True, True, True) == BaselineState.UNCHANGED
    for args in ((True, False, True), (False, True, True), (True, True, False)):
        assert baseline_state(*args) == BaselineState.NEW


def test_the_line_formats_mark_an_unchanged_finding(repo: Path) -> None:
    from orchestrator.render.lines import concise, github

    (repo / "b.py").write_text("import re\n")
    found = revisions(repo, "main")
    assert isinstance(found, Revisions)
    report = lint(
        LintRequest(project_root=repo, cwd=repo, timeout=120), NO_TASKS, new_from=found
    ).report
    annotations = [line for line in github(report).splitlines() if "F401" in line]
    assert sorted(a.split(" ", 1)[0] for a in annotations) == ["::error", "::notice"]
    assert any("file=a.py" in a and "(unchanged)" in a for a in annotations)
    lines = concise(report).splitlines()
    assert any(line.startswith("a.py:1:8:") and "(unchanged)" in line for line in lines)
    assert any(line.startswith("b.py:1:8:") and "(unchanged)" not in line for line in lines)


# ---------------------------------------------------------------- gate ci --new-from-rev


def _gate(repo: Path, rev: str = "main"):  # type: ignore[no-untyped-def]
    from orchestrator.usecases.gate import gate

    return gate("ci", timeout=120, cwd=repo, rev="HEAD", new_from_rev=rev).report


def test_gate_ci_blocks_only_what_the_commit_introduces(repo: Path) -> None:
    from orchestrator.vocab import GateDecision

    _commit(repo, {"a.py": "# moved\n" + A}, "move")
    report = _gate(repo)
    assert [str(f.baseline_state) for f in report.findings if f.rule == "F401"] == ["unchanged"]
    assert report.gate.decision == GateDecision.ALLOW, report.gate
    # Judged on the commit: an uncommitted new finding is not in the surface.
    (repo / "b.py").write_text("import re\n")
    assert _gate(repo).gate.decision == GateDecision.ALLOW
    _commit(repo, {"b.py": "import re\n"}, "new finding")
    report = _gate(repo)
    states = {f.path: str(f.baseline_state) for f in report.findings if f.rule == "F401"}
    assert states == {"a.py": "unchanged", "b.py": "new"}
    assert report.gate.decision == GateDecision.DENY


def test_gate_ci_without_the_option_blocks_every_finding(repo: Path) -> None:
    from orchestrator.usecases.gate import gate
    from orchestrator.vocab import GateDecision

    _commit(repo, {"a.py": "# moved\n" + A}, "move")
    report = gate("ci", timeout=120, cwd=repo, rev="HEAD").report
    assert report.gate.decision == GateDecision.DENY
    assert all(f.baseline_state is None for f in report.findings)


def test_gate_ci_with_an_unknown_merge_base_counts_every_finding_new(
    repo: Path, tmp_path: Path
) -> None:
    from orchestrator.vocab import GateDecision

    _commit(repo, {"a.py": "# moved\n" + A}, "move")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "change", repo.as_uri(), str(clone))
    old = git(repo, "rev-parse", "main").strip()
    report = _gate(clone, old)
    assert report.gate.decision == GateDecision.DENY
    assert any("every finding counts as new" in n for n in report.notes)


# The stricter of the two configurations (issue 31): a change that turns a rule off
# beside a new finding of it does not get the finding through.
IGNORES_F401 = '[tool.ruff.lint]\nselect = ["F"]\nignore = ["F401"]\n'


def test_a_rule_the_change_turns_off_still_finds_what_the_change_adds(repo: Path) -> None:
    (repo / "pyproject.toml").write_text(IGNORES_F401)
    (repo / "b.py").write_text("import json\n")
    states, code, notes = _judged(repo)
    # a.py is untouched: its old F401 is not re-judged (and would not block).
    assert states == {("b.py", "F401"): "new"}
    assert code == 1
    assert any(
        "1 finding(s) of ruff found under main's merge-base configuration" in n for n in notes
    )


def test_a_path_the_change_excludes_still_has_its_new_findings_found(repo: Path) -> None:
    (repo / "pyproject.toml").write_text(
        PYPROJECT.replace(
            "[tool.ruff.lint]", '[tool.ruff]\nextend-exclude = ["b.py"]\n\n[tool.ruff.lint]'
        )
    )
    (repo / "b.py").write_text("import json\n")
    states, code, _ = _judged(repo)
    # a.py's old finding is new too: ruff's configuration changed (said in a note).
    assert states == {("a.py", "F401"): "new", ("b.py", "F401"): "new"}
    assert code == 1


def test_a_stricter_change_of_configuration_adds_nothing_twice(repo: Path) -> None:
    (repo / "pyproject.toml").write_text('[tool.ruff.lint]\nselect = ["F", "E"]\n')
    (repo / "b.py").write_text("import json\n")
    states, code, notes = _judged(repo)
    assert states == {("a.py", "F401"): "new", ("b.py", "F401"): "new"}
    assert code == 1
    assert not any("merge-base configuration and not under" in n for n in notes)


def test_gate_ci_judges_a_committed_rule_switch_off_with_the_stricter_configuration(
    repo: Path,
) -> None:
    from orchestrator.vocab import GateDecision

    _commit(repo, {"pyproject.toml": IGNORES_F401, "b.py": "import json\n"}, "quiet F401")
    report = _gate(repo)
    states = {f.path: str(f.baseline_state) for f in report.findings if f.rule == "F401"}
    assert states == {"b.py": "new"}
    assert report.gate.decision == GateDecision.DENY, report.gate
