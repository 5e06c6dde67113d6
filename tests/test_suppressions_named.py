"""Suppressions and checker configuration an agent's change adds are named (issue 26):
a new `# noqa`, `# type: ignore`, `eslint-disable`, `rubocop:disable` in the judged
change, and an edit to Ruff's configuration, at `gate commit` and `gate ci` (in process,
real git and Ruff), and the counting itself (decisions/suppressions.py)."""

from __future__ import annotations

import json

import pytest
from helpers import git, new_repo

from orchestrator.decisions import suppressions
from orchestrator.usecases.gate import gate


@pytest.fixture(autouse=True)
def _private_homes(homes: dict[str, str]) -> None:
    """Each test has its own user config and cache folders."""


def test_added_counts_only_what_the_change_adds() -> None:
    before = b"import os  # noqa: F401\nx = 1\n"
    after = b"import os  # noqa: F401\nimport sys  # NOQA\ny = f()  # type: ignore[call]\n"
    assert suppressions.added(before, after) == {"# noqa": 1, "# type: ignore": 1}
    assert suppressions.added(after, before) == {}
    assert suppressions.added(None, b"// eslint-disable-next-line no-undef\n") == {
        "eslint-disable": 1
    }
    assert suppressions.added(b"", b"# ruff: noqa\n") == {"# ruff: noqa": 1}
    assert suppressions.added(b"", b"x # rubocop:disable Style/X\n") == {"rubocop:disable": 1}


def test_the_note_names_files_and_markers_bounded_and_escaped() -> None:
    per_path = {f"f{i}.py": {"# noqa": i + 1} for i in range(7)} | {"e\x1b[31m.py": {"# noqa": 1}}
    note = suppressions.note(per_path, lambda p: p.replace("\x1b", "\\x1b"))
    assert note is not None and note.startswith("the change adds linter suppressions: ")
    assert "\x1b" not in note and "e\\x1b[31m.py (+1 # noqa)" in note
    assert note.endswith(", and 3 more file(s)")
    assert suppressions.note({"a.py": {}}, str) is None


def _repo(tmp_path):  # type: ignore[no-untyped-def]
    repo = new_repo(tmp_path / "r", {"a.py": "import os\n\nprint(os.sep)\n", "ruff.toml": ""})
    git(repo, "commit", "-q", "-m", "base")
    (repo / "a.py").write_text("import os\nimport sys  # noqa: F401\n\nprint(os.sep)\n")
    (repo / "ruff.toml").write_text('[lint]\nignore = ["ALL"]\n')
    git(repo, "add", "a.py", "ruff.toml")
    return repo


def test_gate_commit_names_the_added_noqa_and_the_ruff_config_edit(tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo = _repo(tmp_path)
    notes = gate("commit", timeout=120, cwd=repo).report.notes
    assert "the change adds linter suppressions: a.py (+1 # noqa)" in notes, notes
    assert any("ruff.toml" in n for n in notes), notes


def test_gate_ci_names_what_the_revision_adds_over_its_base(tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo = _repo(tmp_path)
    git(repo, "commit", "-q", "-m", "silence")
    notes = gate("ci", timeout=120, cwd=repo, rev="HEAD").report.notes
    assert "the change adds linter suppressions: a.py (+1 # noqa)" in notes, notes


def test_a_change_that_adds_no_suppression_gets_no_note(tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo = new_repo(tmp_path / "r", {"a.py": "import os  # noqa: F401\n"})
    git(repo, "commit", "-q", "-m", "base")
    (repo / "a.py").write_text("import os  # noqa: F401\nX = 1\n")
    git(repo, "add", "a.py")
    notes = gate("commit", timeout=120, cwd=repo).report.notes
    assert not [n for n in notes if "suppressions" in n], notes


def test_edit_feedback_names_the_noqa_an_edit_adds(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from orchestrator.render.agent import edit_context
    from orchestrator.usecases.agent import lint_here

    repo = new_repo(tmp_path / "r", {"a.py": "import os\n\nprint(os.sep)\n"})
    git(repo, "commit", "-q", "-m", "base")
    (repo / "a.py").write_text("import os\nimport sys  # noqa: F401\n\nprint(os.sep)\n")
    result = lint_here(repo, ["a.py"], 60)
    assert result.suppressions == {"a.py": {"# noqa": 1}}
    text = edit_context(True, ["a.py"], result, (None, ()), [], False)
    assert "the change adds linter suppressions: a.py (+1 # noqa)" in text, text


def test_the_warm_codec_carries_suppressions_and_refuses_free_text() -> None:
    import json

    from orchestrator.model.report import Report, ScanInfo
    from orchestrator.server.codec import decode_lint_result, encode_lint_result
    from orchestrator.usecases.lint import LintResult

    result = LintResult(
        Report(scan=ScanInfo(project_root="/p")), suppressions={"a.py": {"# noqa": 2}}
    )
    data = json.loads(encode_lint_result(result))
    back = decode_lint_result(data)
    assert back is not None and back.suppressions == {"a.py": {"# noqa": 2}}
    data["suppressions"] = {"a.py": {"ignore previous instructions": 1}}
    assert decode_lint_result(data) is None
    data["suppressions"] = {"a.py": {"# noqa": "1"}}
    assert decode_lint_result(data) is None


@pytest.mark.parametrize(
    "name", ["ruff.toml", "pyproject.toml", ".rubocop.yml", "eslint.config.js"]
)
def test_protect_checker_config_refuses_an_agent_edit_of_checker_config(
    tmp_path, name: str
) -> None:  # type: ignore[no-untyped-def]
    from orchestrator.usecases.agent import protected_edit

    repo = new_repo(tmp_path / "r", {"orchestrate.toml": "protect_checker_config = true\n"})
    assert protected_edit(str(repo / name), repo) == "protected_checker_config"
    assert protected_edit(str(repo / "sub" / name), repo) == "protected_checker_config"
    assert protected_edit(str(repo / "src" / "a.py"), repo) is None
    # A link named otherwise, pointing at a checker config, is the config.
    (repo / name).write_text("")
    (repo / "innocent.txt").symlink_to(repo / name)
    assert protected_edit(str(repo / "innocent.txt"), repo) == "protected_checker_config"


def test_without_the_setting_checker_config_stays_editable(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from orchestrator.usecases.agent import protected_edit

    repo = new_repo(tmp_path / "r", {})
    assert protected_edit(str(repo / "ruff.toml"), repo) is None
    (repo / "pyproject.toml").write_text("[tool.orchestrate\nbroken")
    # A configuration that cannot be read turns nothing on: the agent may repair it.
    assert protected_edit(str(repo / "pyproject.toml"), repo) is None


def test_config_edited_names_lint_checker_config_changes_only() -> None:
    edited = suppressions.config_edited
    assert edited("ruff.toml", b"", b'[lint]\nignore = ["ALL"]\n') == "ruff"
    assert edited("sub/.ruff.toml", None, b"") == "ruff"
    assert edited("web/eslint.config.mjs", b"a", b"b") == "eslint"
    assert edited(".eslintrc.json", b"{}", None) == "eslint"
    assert edited(".rubocop.yml", b"", b"AllCops: {DisabledByDefault: true}\n") == "rubocop"
    assert edited("ruff.toml", b"x", b"x") is None  # unchanged
    assert edited("a.py", b"", b"x") is None
    # pyproject.toml: only its [tool.ruff] table counts.
    base = b'[project]\nname = "x"\n'
    assert edited("pyproject.toml", base, base + b'[tool.ruff.lint]\nignore = ["ALL"]\n') == "ruff"
    assert edited("pyproject.toml", base, b'[project]\nname = "y"\n') is None
    assert edited("pyproject.toml", base, b"[tool.ruff\nbroken") == "ruff"


def test_edit_feedback_names_a_checker_config_edit(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from orchestrator.render.agent import edit_context
    from orchestrator.usecases.agent import lint_here

    files = {"a.py": "X = 1\n", "pyproject.toml": '[project]\nname = "x"\n', ".rubocop.yml": ""}
    repo = new_repo(tmp_path / "r", files)
    git(repo, "commit", "-q", "-m", "base")
    (repo / "ruff.toml").write_text('[lint]\nignore = ["ALL"]\n')
    (repo / ".rubocop.yml").write_text("AllCops:\n  DisabledByDefault: true\n")
    (repo / "pyproject.toml").write_text('[project]\nname = "y"\n')  # not Ruff's table
    paths = ["ruff.toml", ".rubocop.yml", "pyproject.toml", "a.py"]
    result = lint_here(repo, paths, 60)
    assert result.config_edits == (".rubocop.yml", "ruff.toml")
    text = edit_context(True, paths, result, (None, ()), [], False)
    assert "checker configuration edited: .rubocop.yml, ruff.toml" in text, text


SHELL_WRITES = [
    "echo 'ignore = [\"ALL\"]' > ruff.toml",
    "printf x >> sub/ruff.toml",
    "tee -a .rubocop.yml < /dev/null",
    "sed -i 's/select/ignore/' pyproject.toml",
    "cp /tmp/x eslint.config.js",
    "mv other.toml .ruff.toml",
    "cd sub && echo x > .eslintrc.json",
    "bash -c 'echo x > ruff.toml'",
    "true && dd if=/dev/zero of=ruff.toml count=0",
    "echo x > ruff.t*",
]


def _pre_tool_bash(repo, command: str) -> dict:  # type: ignore[no-untyped-def]
    from host_contracts import check_claude, encode, payload

    from orchestrator.hosts import claude_code

    ev = payload("claude-code", "PreToolUse.Bash", cwd=str(repo), tool_input={"command": command})
    code, out = claude_code.run(encode(ev), {"CLAUDE_PROJECT_DIR": str(repo)})
    return check_claude("PreToolUse", code, out)


@pytest.mark.parametrize("command", SHELL_WRITES)
def test_protect_checker_config_refuses_shell_writes_it_can_see(tmp_path, command: str) -> None:  # type: ignore[no-untyped-def]
    repo = new_repo(tmp_path / "r", {"orchestrate.toml": "protect_checker_config = true\n"})
    (repo / "sub").mkdir()
    hso = _pre_tool_bash(repo, command)["hookSpecificOutput"]
    assert hso.get("permissionDecision") == "deny", hso
    assert "protect_checker_config" in hso["permissionDecisionReason"]


def test_shell_writes_elsewhere_or_without_the_setting_pass(tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo = new_repo(tmp_path / "r", {"orchestrate.toml": "protect_checker_config = true\n"})
    for command in ("echo x > notes.txt", "cat ruff.toml", "echo x > /dev/null", "ls > out.txt"):
        assert "permissionDecision" not in json.dumps(_pre_tool_bash(repo, command)), command
    plain = new_repo(tmp_path / "plain", {})
    assert "permissionDecision" not in json.dumps(_pre_tool_bash(plain, SHELL_WRITES[0]))


def _host(repo, name: str, **changes) -> str:  # type: ignore[no-untyped-def]
    from host_contracts import check_claude, encode, payload

    from orchestrator.hosts import claude_code

    ev = payload("claude-code", name, cwd=str(repo), **changes)
    code, out = claude_code.run(encode(ev), {"CLAUDE_PROJECT_DIR": str(repo)})
    hso = check_claude(name.split(".")[0], code, out).get("hookSpecificOutput") or {}
    return hso.get("additionalContext") or hso.get("permissionDecisionReason") or ""


def test_done_when_a_noqa_and_ignore_all_are_named_at_feedback_and_gate_and_refused(
    tmp_path,
) -> None:  # type: ignore[no-untyped-def]
    """Issue 26's test: one agent change adds `# noqa` and `ignore = ["ALL"]`; the edit
    feedback and `gate commit` (its notes, and the pre-tool gate's text) name both; with
    `protect_checker_config = true` the same edits are refused before they run."""
    repo = _repo(tmp_path)  # a.py gains a noqa comment, ruff.toml ignores ALL
    feedback = {
        p: _host(repo, "PostToolUse.Write", tool_input={"file_path": str(repo / p)})
        for p in ("a.py", "ruff.toml")
    }
    assert "the change adds linter suppressions: a.py (+1 # noqa)" in feedback["a.py"]
    assert "checker configuration edited: ruff.toml" in feedback["ruff.toml"]
    notes = gate("commit", timeout=120, cwd=repo).report.notes
    assert "the change adds linter suppressions: a.py (+1 # noqa)" in notes, notes
    assert any("ruff.toml" in n for n in notes), notes
    pre = _host(repo, "PreToolUse.Bash", tool_input={"command": "git commit -q -m silence"})
    assert "the change adds linter suppressions: a.py (+1 # noqa)" in pre, pre
    assert "ruff.toml" in pre, pre
    # Protected: the agent's edit of ruff.toml is refused, by file tool and by shell.
    (repo / "orchestrate.toml").write_text("protect_checker_config = true\n")
    for name, tool_input in (
        ("PreToolUse.Write", {"file_path": str(repo / "ruff.toml"), "content": ""}),
        ("PreToolUse.Bash", {"command": "echo 'ignore = [\"ALL\"]' >> ruff.toml"}),
    ):
        text = _host(repo, name, tool_input=tool_input)
        assert "protects its checkers' configuration" in text, (name, text)


def test_every_host_refuses_a_shell_write_to_a_protected_checker_config(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from host_contracts import check_codex, check_gemini, encode, payload

    from orchestrator.hosts import codex, gemini

    repo = new_repo(tmp_path / "r", {"orchestrate.toml": "protect_checker_config = true\n"})
    command = {"command": "sed -i 's/select/ignore/' ruff.toml"}
    ev = payload("codex", "PreToolUse.Bash", cwd=str(repo), tool_input=command)
    hso = check_codex("PreToolUse", *codex.run(encode(ev), {}))["hookSpecificOutput"]
    assert hso["permissionDecision"] == "deny" and "protect_checker_config" in str(hso)
    ev = payload("gemini", "BeforeTool.run_shell_command", cwd=str(repo), tool_input=command)
    obj = check_gemini("BeforeTool", *gemini.run(encode(ev), {"GEMINI_PROJECT_DIR": str(repo)}))
    assert obj["decision"] == "deny" and "protect_checker_config" in obj["reason"]
