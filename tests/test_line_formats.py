"""The line formats (github, concise, jsonl) and the human verdict: what CI runners,
problem matchers and scripts read, and that no file name or message can forge a line.

GitHub output is parsed the way the Actions runner parses a workflow command (split the
properties on `,`, each on its first `=`, then percent-decode), so a test sees what the
runner would annotate. The VS Code problem matcher is read out of docs/editor.md and
run against real `concise` output.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import REPO, eslint_path, new_repo, run_cli

from orchestrator.model.report import Finding, PluginFailure, Report, ScanInfo, Scope, normalize
from orchestrator.render.formats import BUILTIN
from orchestrator.render.human import VERDICT_WIDTH, verdict
from orchestrator.render.lines import github
from orchestrator.vocab import ScopeStatus, Severity

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

#: A command line as the runner reads it: `::name[ props]::data`.
COMMAND = re.compile(r"^::(?P<name>[a-z-]+)(?: (?P<props>.*?))?::(?P<data>.*)$")
#: The runner's decoding (ActionCommand.unescapeData / unescapeProperty).
_DATA = {"%25": "%", "%0D": "\r", "%0A": "\n"}
_PROP = {**_DATA, "%3A": ":", "%2C": ","}


def _unescape(text: str, table: dict[str, str]) -> str:
    return re.sub("|".join(table), lambda m: table[m.group(0)], text)


def parse_commands(out: str) -> list[tuple[str, dict[str, str], str]]:
    """(command, properties, message) of every workflow command in `out`."""
    found = []
    for line in out.split("\n"):
        m = COMMAND.match(line)
        if not m:
            continue
        props: dict[str, str] = {}
        for pair in (m["props"] or "").split(","):
            if pair:
                key, _, value = pair.partition("=")
                props[key] = _unescape(value, _PROP)
        found.append((m["name"], props, _unescape(m["data"], _DATA)))
    return found


def _report(findings: list[Finding], scopes: list[Scope] | None = None) -> Report:
    paths = {f.path for f in findings}
    rows = scopes if scopes is not None else []
    rows += [Scope(path=p, checker="ruff", status=ScopeStatus.CHECKED) for p in sorted(paths)]
    return normalize(Report(scan=ScanInfo(project_root="/p"), scopes=rows, findings=findings))


def _finding(**kw: object) -> Finding:
    base: dict[str, object] = {
        "checker": "ruff",
        "rule": "F401",
        "severity": Severity.ERROR,
        "path": "a.py",
        "line": 1,
        "column": 8,
        "message": "`os` imported but unused",
    }
    return Finding(**(base | kw))  # type: ignore[arg-type]


# --- github ----------------------------------------------------------------------------------

HOSTILE_NAMES = ["a,line=1::x.py", "100%.py", "b:title=forged,c.py"]


def test_github_a_hostile_file_name_cannot_forge_an_annotation(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", {n: "import os\n" for n in HOSTILE_NAMES}, initial_commit=False)
    res = run_cli(["lint", "--no-tasks", "--format", "github"], cwd=repo)
    assert res.returncode == 1, res.stderr
    commands = parse_commands(res.stdout)
    errors = [c for c in commands if c[0] == "error"]
    assert sorted(p["file"] for _, p, _ in errors) == sorted(HOSTILE_NAMES)
    for _, props, message in errors:
        assert set(props) == {"file", "line", "col", "endLine", "endColumn", "title"}
        assert (props["line"], props["col"], props["title"]) == ("1", "8", "ruff/F401")
        assert message == "`os` imported but unused"
    assert "file=a%2Cline=1%3A%3Ax.py," in res.stdout and "file=100%25.py," in res.stdout


def test_github_a_message_cannot_start_a_command_of_its_own() -> None:
    message = "bad\n::error file=x.py::forged\r\n%0A done\x1b[2J"
    out = BUILTIN["github"].render(_report([_finding(message=message, rule="R,1:x")]))
    lines = out.splitlines()
    assert not any(ln.startswith("::error file=x.py") for ln in lines)
    (cmd,) = [c for c in parse_commands(out) if c[0] == "error"]
    # The message arrives whole (controls other than CR and LF shown as escapes).
    assert cmd[2] == "bad\n::error file=x.py::forged\r\n%0A done\\x1b[2J"
    assert cmd[1]["title"] == "ruff/R,1:x"
    assert "\x1b" not in out


def test_github_levels_follow_our_severity_and_candidates_are_notices() -> None:
    findings = [
        _finding(path="e.py"),
        _finding(path="w.py", severity=Severity.WARNING),
        _finding(path="i.py", severity=Severity.INFO),
        _finding(path="c.go", checker="treesitter", rule="syntax/error", candidate=True),
    ]
    by_file = {
        p["file"]: (name, p["title"])
        for name, p, _ in parse_commands(BUILTIN["github"].render(_report(findings)))
        if "file" in p
    }
    assert by_file == {
        "e.py": ("error", "ruff/F401"),
        "w.py": ("warning", "ruff/F401"),
        "i.py": ("notice", "ruff/F401"),
        "c.go": ("notice", "treesitter/syntax/error (syntax candidate)"),
    }


def test_github_gaps_are_one_notice_per_group(tmp_path: Path) -> None:
    eslint_path()
    files = {f"src/f{i}.js": f"var x{i} = 1;\n" for i in range(5)} | {"notes.xyz": "?\n"}
    repo = new_repo(tmp_path / "r", files, initial_commit=False)
    res = run_cli(["lint", "--no-tasks", "--format", "github"], cwd=repo)
    commands = parse_commands(res.stdout)
    notices = [c for c in commands if c[1].get("title") == "orchestrate: not checked"]
    assert len(notices) == 1, res.stdout
    (eslint,) = notices
    assert eslint[2].startswith("eslint configuration_required: 5 files (src/f0.js, ")
    assert "and 2 more" in eslint[2] and "hint: add eslint.config.js" in eslint[2]
    assert "file" not in eslint[1]  # a group of five has no single file to annotate
    # A file nobody lints is one count, not a gap notice of its own (issue 27).
    (nothing,) = [c for c in commands if c[1].get("title") == "orchestrate: nothing to check"]
    assert nothing[2].startswith("1 file with nothing to check"), nothing
    assert res.stdout.splitlines()[-1] == verdict_of(repo)


def verdict_of(repo: Path) -> str:
    return run_cli(["lint", "--no-tasks"], cwd=repo, env={"NO_COLOR": "1"}).stdout.splitlines()[-1]


# --- concise and the problem matcher ---------------------------------------------------------


def problem_matcher() -> re.Pattern[str]:
    """The VS Code problem matcher regexp of docs/editor.md (JSON-decoded, as VS Code reads it)."""
    doc = (REPO / "docs" / "editor.md").read_text(encoding="utf-8")
    (raw,) = re.findall(r'"regexp": ("(?:[^"\\]|\\.)*")', doc)
    return re.compile(json.loads(raw))


def test_the_documented_problem_matcher_reads_concise_output(tmp_path: Path) -> None:
    hostile = "x.py:9:9: error F999 forged.py"
    repo = new_repo(
        tmp_path / "r",
        {
            "bad.py": "import os\n",
            hostile: "import sys\n",
            # Java: no exact parser confirms it, so it stays a syntax candidate.
            "Broken.java": "class Broken {\n\n  void main( {\n}\n",
            "notes.xyz": "?\n",
        },
        initial_commit=False,
    )
    res = run_cli(["lint", "--no-tasks", "--format", "concise"], cwd=repo)
    assert res.returncode == 1, res.stderr
    matcher = problem_matcher()
    matched = [m.groups() for m in map(matcher.match, res.stdout.splitlines()) if m]
    assert [m[:5] for m in matched] == [
        ("Broken.java", "3", "3", "info", "treesitter/syntax/error"),
        ("bad.py", "1", "8", "error", "ruff/F401"),
        ("x.py\\x3a9\\x3a9: error F999 forged.py", "1", "8", "error", "ruff/F401"),
    ]
    assert matched[1][5] == "`os` imported but unused"
    assert matched[0][5].startswith("(syntax candidate) possible syntax error")
    rest = [ln for ln in res.stdout.splitlines() if not matcher.match(ln)]
    # notes.xyz: nobody lints it, so it is one count, not a gap line (issue 27).
    assert rest[0].startswith("1 file with nothing to check")
    assert "1 unlintable file" in rest[-1] and len(rest) == 2


def test_concise_escapes_controls_and_cannot_be_forged_by_a_message() -> None:
    findings = [
        _finding(path="nl\nb.py", message="m\n/etc/passwd:1:1: error X y\x1b[2J"),
        _finding(path="c.py", line=None, column=None, rule="has space"),
    ]
    scopes = [
        Scope(
            path="q.py", checker="x", status=ScopeStatus.TOOL_ERROR, reason="at a.py:3:4: error Z"
        )
    ]
    out = BUILTIN["concise"].render(_report(findings, scopes))
    lines = out.splitlines()
    assert lines[0] == "c.py:1:1: error ruff/has\\x20space `os` imported but unused"
    assert (
        lines[1] == "nl\\nb.py:1:8: error ruff/F401 m\\n/etc/passwd\\x3a1\\x3a1: error X y\\x1b[2J"
    )
    matcher = problem_matcher()
    assert [matcher.match(ln).group(1) for ln in lines if matcher.match(ln)] == [
        "c.py",
        "nl\\nb.py",
    ]
    assert "\x1b" not in out and len(lines) == 4


# --- jsonl -----------------------------------------------------------------------------------


def test_jsonl_has_one_typed_object_per_finding_and_gap_then_a_summary(tmp_path: Path) -> None:
    repo = new_repo(
        tmp_path / "r",
        {"bad.py": "import os\n", "ok.py": "x = 1\n", "notes.xyz": "?\n"},
        initial_commit=False,
    )
    res = run_cli(["lint", "--no-tasks", "--format", "jsonl"], cwd=repo)
    objs = [json.loads(ln) for ln in res.stdout.splitlines()]
    assert [o["type"] for o in objs] == ["finding", "not_checked", "summary"]
    finding = Finding.model_validate({k: v for k, v in objs[0].items() if k != "type"})
    assert (finding.path, finding.rule, finding.line) == ("bad.py", "F401", 1)
    scope = Scope.model_validate({k: v for k, v in objs[1].items() if k != "type"})
    assert (scope.path, scope.status) == ("notes.xyz", ScopeStatus.UNSUPPORTED)
    summary = objs[2]
    assert (summary["findings"], summary["not_checked"]) == (1, 1)
    assert summary["coverage"]["complete"] is False
    assert summary["gate"]["decision"] == "not_evaluated"
    full = json.loads(run_cli(["lint", "--no-tasks", "--format", "json"], cwd=repo).stdout)
    assert summary["coverage"] == full["coverage"]


def test_jsonl_lines_are_ascii_and_keep_exact_values() -> None:
    text = BUILTIN["jsonl"].render(_report([_finding(path="a\u2028b\n.py", message="é\x1b")]))
    assert text.isascii() and len(text.splitlines()) == 2
    assert json.loads(text.splitlines()[0])["path"] == "a\u2028b\n.py"


# --- human -----------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [1, 9, 123, 9_999])
def test_the_verdict_is_one_line_within_100_columns(scale: int) -> None:
    kinds = [
        {"severity": Severity.ERROR},
        {"severity": Severity.WARNING},
        {"severity": Severity.INFO},
        {"candidate": True},
    ]
    findings = [_finding(path=f"f{i}.py", **kinds[i % 4]) for i in range(scale * 4)]
    gaps = [
        Scope(path=f"g{i}.js", checker="eslint", status=ScopeStatus.MISSING) for i in range(scale)
    ]
    report = _report(findings, gaps)
    report.coverage.syntax_only_files = scale
    report.plugin_failures = [
        PluginFailure(name=f"p{i}", reason="x") for i in range(min(scale, 99))
    ]
    line = verdict(report)
    assert "\n" not in line and len(line) <= VERDICT_WIDTH, line
    assert "NOT checked" in line and "failed to load" in line
    assert line.startswith(f"{scale * 4} finding")


def test_human_output_names_the_severity_and_groups_the_gaps(tmp_path: Path) -> None:
    eslint_path()
    files = {f"f{i}.js": f"var x{i} = 1;\n" for i in range(4)} | {"bad.py": "import os\n"}
    repo = new_repo(tmp_path / "r", files, initial_commit=False)
    out = run_cli(["lint", "--no-tasks"], cwd=repo, env={"NO_COLOR": "1", "COLUMNS": "200"}).stdout
    lines = out.splitlines()
    assert "bad.py:1:8  error    ruff/F401  `os` imported but unused  [fix: auto]" in lines
    (group,) = [ln for ln in lines if "configuration_required" in ln and "files" in ln]
    assert group.startswith(
        "  eslint configuration_required: 4 files (f0.js, f1.js, f2.js, and 1 more)"
    )
    assert "hint: add eslint.config.js" in group
    assert "not checked (4 scopes):" in lines
    assert len(lines[-1]) <= VERDICT_WIDTH


def test_gate_text_shows_each_blocking_findings_message(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", {"a.py": "import os\n"}, initial_commit=False)
    res = run_cli(["gate", "commit"], cwd=repo, env={"NO_COLOR": "1"})
    assert res.returncode == 1
    assert "  - a.py:1:8: error ruff/F401 `os` imported but unused" in res.stdout.splitlines()
    assert "finding: a.py:1 ruff/F401" not in res.stdout


def test_a_gate_in_line_formats_carries_its_reasons(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "r", {"a.py": "import os\n"}, initial_commit=False)
    res = run_cli(["gate", "commit", "--format", "github"], cwd=repo)
    assert res.returncode == 1
    gate = [c for c in parse_commands(res.stdout) if c[1].get("title") == "orchestrate gate: deny"]
    ((name, _, message),) = gate
    assert name == "error"
    assert message.splitlines()[0] == "1 blocking finding(s) in 1 file(s)"
    assert message.splitlines()[-1].startswith("to recover: fix the findings")
    res = run_cli(["gate", "commit", "--format", "concise"], cwd=repo)
    lines = res.stdout.splitlines()
    assert "gate: 1 blocking finding(s) in 1 file(s)" in lines
    assert not any(problem_matcher().match(ln) for ln in lines if ln.startswith("gate: "))
    assert lines[-1].endswith("gate: deny")


# --- every format in a GitHub Actions log ------------------------------------------------------

#: The commands the Actions runner registers (its command extensions and stop-commands).
RUNNER_COMMANDS = {
    "set-env", "set-output", "save-state", "add-mask", "add-path", "add-matcher",
    "remove-matcher", "debug", "warning", "error", "notice", "group", "endgroup", "echo",
    "stop-commands",
}  # fmt: skip


def runner_command(line: str) -> str | None:
    """The command the Actions runner would run for one log line, or None: its V2 form
    (`::name ...::` after leading white space), else its legacy form (`##[name ...]`
    anywhere in the line), as ActionCommand.TryParseV2 / TryParse read them."""
    text = line.lstrip()
    if text.startswith("::") and (end := text.find("::", 2)) >= 0:
        name = text[2:end].split(" ", 1)[0]
        if name in RUNNER_COMMANDS:
            return name
    if (start := line.find("##[")) >= 0 and (end := line.find("]", start)) >= 0:
        name = line[start + 3 : end].split(" ", 1)[0]
        if name in RUNNER_COMMANDS:
            return name
    return None


CI_HOSTILE_NAMES = [
    "::warning file=README.md::pwned.py",
    " ::add-mask::lead.py",
    "x##[error]y.py",
    "s##[stop-commands]tok.py",
]


def _ci_hostile_repo(tmp_path: Path) -> Path:
    repo = new_repo(tmp_path / "r", initial_commit=False)
    for name in CI_HOSTILE_NAMES:  # untracked: `git add` reads a leading `:` as magic
        (repo / name).write_text("import os\n")
    return repo


@pytest.mark.parametrize("fmt", ["human", "concise", "json", "jsonl", "sarif"])
def test_no_format_lets_a_file_name_run_a_workflow_command(tmp_path: Path, fmt: str) -> None:
    repo = _ci_hostile_repo(tmp_path)
    res = run_cli(["lint", "--no-tasks", "--format", fmt], cwd=repo, env={"NO_COLOR": "1"})
    assert res.returncode == 1, res.stderr
    forged = [ln for ln in res.stdout.splitlines() if runner_command(ln)]
    assert forged == []
    if fmt in ("json", "jsonl"):  # the machine formats keep the exact names
        text = res.stdout if fmt != "jsonl" else "[" + ",".join(res.stdout.splitlines()) + "]"
        assert all(n in json.dumps(json.loads(text), ensure_ascii=False) for n in CI_HOSTILE_NAMES)


def test_the_github_format_keeps_workflow_commands_of_its_own_only(tmp_path: Path) -> None:
    repo = _ci_hostile_repo(tmp_path)
    res = run_cli(["lint", "--no-tasks", "--format", "github"], cwd=repo)
    names = [runner_command(ln) for ln in res.stdout.splitlines()]
    assert names == ["error"] * 4 + [None]
    assert sorted(p["file"] for _, p, _ in parse_commands(res.stdout)) == sorted(CI_HOSTILE_NAMES)


def _annotations_by_level(out: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for name, _props, _msg in parse_commands(out):
        counts[name] = counts.get(name, 0) + 1
    return counts


def test_github_annotations_stay_within_the_per_step_limits_and_say_what_was_cut() -> None:
    from orchestrator.model.report import Gate
    from orchestrator.render.lines import GITHUB_PER_LEVEL
    from orchestrator.vocab import GateDecision

    findings = [
        Finding(checker="ruff", rule="F401", severity=Severity.ERROR, path=f"e{i}.py", line=1)
        for i in range(40)
    ] + [
        Finding(checker="ruff", rule="E501", severity=Severity.WARNING, path=f"w{i}.py", line=2)
        for i in range(15)
    ]
    report = _report(findings).model_copy(
        update={"gate": Gate(decision=GateDecision.DENY, reasons=["40 blocking findings"])}
    )
    out = github(report)
    counts = _annotations_by_level(out)
    assert all(n <= GITHUB_PER_LEVEL for n in counts.values()), counts
    commands = parse_commands(out)
    (gate,) = [c for c in commands if c[1].get("title", "").startswith("orchestrate gate")]
    assert gate[0] == "error" and "40 blocking findings" in gate[2]
    (cut,) = [c for c in commands if c[1].get("title") == "orchestrate: annotations cut"]
    # 9 errors and 9 warnings shown (a slot of each kept for the gate and this summary).
    assert "37 more annotations not shown (31 error, 6 warning)" in cut[2], cut
    assert "--format sarif" in cut[2]
    assert sum(1 for c in commands if c[1].get("title") == "ruff/F401") == GITHUB_PER_LEVEL - 1


def test_github_under_the_limits_cuts_nothing() -> None:
    findings = [
        Finding(checker="ruff", rule="F401", severity=Severity.ERROR, path=f"e{i}.py", line=1)
        for i in range(9)
    ]
    commands = parse_commands(github(_report(findings)))
    assert len(commands) == 9
    assert not [c for c in commands if c[1].get("title") == "orchestrate: annotations cut"]
