"""Project configuration is validated: an unknown key or a wrong type is a usage error
(exit 2) naming the real file, the dotted key and, for a near miss, the key meant."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import git, new_repo, run_cli, set_machine_tool

from orchestrator.core.config import load_config, parse_config
from orchestrator.errors import UsageError

#: Every key the README and the docs document, in both spellings of the file.
DOCUMENTED_TOML = """\
jobs = 4
disable_plugins = ["some-third-party-plugin"]
exclude_dirs = ["generated"]
policy_in_lint = true
[tools]
ruff = "/opt/ruff/bin/ruff"
eslint = "/opt/eslint/bin/eslint"
[required]
python = "native"
go = "syntax"
markdown = "none"
default = "syntax"
[hygiene]
mode = "replace"
scope_globs = ["**/*"]
[[hygiene.rules]]
id = "drafts"
glob = "drafts/*.txt"
"""


def _pyproject(body: str) -> str:
    out = []
    for line in body.splitlines():
        if line.startswith("[["):
            out.append("[[tool.orchestrate." + line[2:])
        elif line.startswith("["):
            out.append("[tool.orchestrate." + line[1:])
        else:
            out.append(line)
    head = "[project]\nname = 'x'\n[tool.orchestrate]\n"
    return head + "\n".join(out) + "\n"


def _lint(root: Path, *args: str):
    return run_cli(["lint", "--no-tasks", *args, "a.py"], cwd=root)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = new_repo(tmp_path / "p")
    (root / "a.py").write_text("x = 1\n")
    return root


def test_every_documented_key_is_accepted_in_both_files(tmp_path: Path) -> None:
    (tmp_path / "orchestrate.toml").write_text(DOCUMENTED_TOML)
    from_toml = load_config(tmp_path)
    (tmp_path / "orchestrate.toml").unlink()
    (tmp_path / "pyproject.toml").write_text(_pyproject(DOCUMENTED_TOML))
    from_pyproject = load_config(tmp_path)
    assert from_toml == from_pyproject
    assert from_toml["jobs"] == 4
    assert from_toml["tools"] == {"ruff": "/opt/ruff/bin/ruff", "eslint": "/opt/eslint/bin/eslint"}
    assert from_toml["required"]["default"] == "syntax"
    assert from_toml["hygiene"]["rules"] == [{"id": "drafts", "glob": "drafts/*.txt"}]


def test_no_configuration_is_empty(tmp_path: Path) -> None:
    assert load_config(tmp_path) == {}
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    assert load_config(tmp_path) == {}


def test_orchestrate_toml_may_use_a_tool_orchestrate_table(tmp_path: Path) -> None:
    (tmp_path / "orchestrate.toml").write_text("[tool.orchestrate]\njobs = 2\n")
    assert load_config(tmp_path) == {"jobs": 2}


@pytest.mark.e2e
def test_unknown_key_names_file_key_and_the_near_miss(project: Path) -> None:
    (project / "orchestrate.toml").write_text("jobz = 4\n")
    res = _lint(project)
    assert res.returncode == 2, res.stderr
    assert "orchestrate.toml: jobz: unknown key (did you mean 'jobs'?)" in res.stderr
    assert "internal" not in res.stderr


@pytest.mark.e2e
def test_unknown_key_in_pyproject_names_pyproject_and_the_dotted_key(project: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.orchestrate]\nexclude_dir = ['gen']\n")
    res = _lint(project)
    assert res.returncode == 2, res.stderr
    assert "pyproject.toml: tool.orchestrate.exclude_dir: unknown key" in res.stderr
    assert "did you mean 'exclude_dirs'?" in res.stderr
    assert "orchestrate.toml" not in res.stderr.replace("tool.orchestrate", "")


@pytest.mark.e2e
def test_wrong_type_is_a_usage_error_not_an_internal_one(project: Path) -> None:
    (project / "orchestrate.toml").write_text('jobs = "four"\n')
    res = _lint(project)
    assert res.returncode == 2, res.stderr
    assert "orchestrate.toml: jobs: " in res.stderr
    assert "integer" in res.stderr and "'four'" in res.stderr
    assert "internal" not in res.stderr


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ("jobs = true\n", "jobs"),
        ("jobs = 0\n", "jobs"),
        ('disable_plugins = "yamllint"\n', "disable_plugins"),
        ("exclude_dirs = [1]\n", "exclude_dirs.0"),
        ('policy_in_lint = "yes"\n', "policy_in_lint"),
        ("tools = 3\n", "tools"),
        ("required = 3\n", "required"),
        ("hygiene = []\n", "hygiene"),
    ],
)
def test_each_key_keeps_its_documented_type(tmp_path: Path, body: str, key: str) -> None:
    with pytest.raises(UsageError, match=rf"orchestrate\.toml: {key}: "):
        parse_config(body, "orchestrate.toml")


@pytest.mark.e2e
def test_unknown_required_level_is_refused_by_lint_too(project: Path) -> None:
    (project / "orchestrate.toml").write_text('[required]\npython = "nativ"\n')
    res = _lint(project)
    assert res.returncode == 2, res.stderr
    assert "orchestrate.toml: required.python: " in res.stderr
    assert "did you mean 'native'?" in res.stderr


def _commit_all(root: Path) -> None:
    """Strict gates read orchestrate's config from the judged revision, not the work tree."""
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "config")


@pytest.mark.e2e
def test_gate_names_the_file_the_bad_level_is_in(project: Path) -> None:
    (project / "orchestrate.toml").write_text('[required]\npython = "nativ"\n')
    _commit_all(project)
    res = run_cli(["gate", "ci"], cwd=project)
    assert res.returncode == 2, res.stderr
    assert "orchestrate.toml" in res.stderr and "required.python: " in res.stderr
    assert "[tool.orchestrate.required]" not in res.stderr
    (project / "orchestrate.toml").unlink()
    (project / "pyproject.toml").write_text('[tool.orchestrate.required]\npython = "nativ"\n')
    _commit_all(project)
    res = run_cli(["gate", "ci"], cwd=project)
    assert res.returncode == 2, res.stderr
    assert "pyproject.toml at commit " in res.stderr
    assert ": tool.orchestrate.required.python: " in res.stderr


@pytest.mark.e2e
def test_gate_refuses_an_unknown_key(project: Path) -> None:
    (project / "orchestrate.toml").write_text("jobz = 4\n")
    _commit_all(project)
    res = run_cli(["gate", "ci"], cwd=project)
    assert res.returncode == 2, res.stderr
    assert "orchestrate.toml" in res.stderr
    assert "jobz: unknown key (did you mean 'jobs'?)" in res.stderr


def test_top_level_keys_beside_a_tool_orchestrate_table_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"orchestrate\.toml: jobs: .*\[tool\.orchestrate\]"):
        parse_config("jobs = 4\n[tool.orchestrate]\nexclude_dirs = []\n", "orchestrate.toml")


def test_a_tool_orchestrate_that_is_not_a_table_is_refused() -> None:
    with pytest.raises(UsageError, match=r"pyproject\.toml: tool\.orchestrate: "):
        parse_config("[tool]\norchestrate = 3\n", "pyproject.toml")


def test_parse_config_reads_text_the_way_load_config_reads_files() -> None:
    assert parse_config("[tool.ruff]\nx = 1\n", "pyproject.toml") is None
    assert parse_config("", "orchestrate.toml") == {}
    assert parse_config("[tool.orchestrate]\njobs = 3\n", "pyproject.toml") == {"jobs": 3}
    with pytest.raises(UsageError, match=r"^orchestrate\.toml: cannot read configuration"):
        parse_config("jobs = = 4\n", "orchestrate.toml")


def test_a_hostile_key_is_escaped_in_the_message() -> None:
    with pytest.raises(UsageError) as info:
        parse_config('"x\\u001b[2J\\nforged" = 1\n', "orchestrate.toml")
    text = str(info.value)
    assert "\x1b" not in text and "\n" not in text
    assert "x\\x1b[2J\\nforged: unknown key" in text


@pytest.mark.e2e
def test_gate_ci_unknown_rev_is_a_usage_error(project: Path) -> None:
    git(project, "add", "a.py")
    git(project, "commit", "-q", "-m", "a")
    res = run_cli(["gate", "ci", "--rev", "nosuchrev"], cwd=project)
    assert res.returncode == 2, res.stderr
    assert "nosuchrev" in res.stderr and "names no commit" in res.stderr
    assert "internal fault" not in res.stderr
    res = run_cli(["gate", "ci", "--rev=-x"], cwd=project)
    assert res.returncode == 2, res.stderr


def test_the_model_levels_are_the_decision_levels() -> None:
    from typing import get_args

    from orchestrator.core.config_model import Level
    from orchestrator.decisions.required import LEVELS, required_coverage

    assert get_args(Level) == LEVELS
    with pytest.raises(UsageError, match=r"^required\.python: want one of"):
        required_coverage({"required": {"python": "nativ"}})


# --- issue 32: the two tables whose keys were not checked -------------------------------


@pytest.mark.parametrize(
    ("file_name", "body", "key"),
    [
        ("orchestrate.toml", '[required]\npyton = "native"\n', "required.pyton"),
        (
            "pyproject.toml",
            '[tool.orchestrate.required]\npyton = "native"\n',
            "tool.orchestrate.required.pyton",
        ),
    ],
)
def test_an_unknown_required_language_is_refused(file_name: str, body: str, key: str) -> None:
    """A misspelt language never matches a file: the gate would quietly require nothing."""
    with pytest.raises(UsageError) as err:
        parse_config(body, file_name)
    assert f"{file_name}: {key}: unknown language (did you mean 'python'?)" in str(err.value)


def test_required_accepts_every_language_detection_names() -> None:
    from orchestrator.model.languages import known_languages

    body = "".join(
        f'{lang} = "none"\n' for lang in ("python", "go", "markdown", "dockerfile", "terraform")
    )
    cfg = parse_config(f'[required]\n{body}default = "syntax"\n', "orchestrate.toml")
    assert cfg is not None and set(cfg["required"]) >= {"python", "terraform", "default"}
    assert {"python", "typescript", "tsx", "ruby", "bash", "objc"} <= known_languages()
    # A display name is not the id: refused, with the id meant.
    with pytest.raises(UsageError, match="did you mean 'python'"):
        parse_config('[required]\nPython = "native"\n', "orchestrate.toml")


@pytest.mark.e2e
def test_cli_unknown_required_language_is_exit_2(project: Path) -> None:
    (project / "orchestrate.toml").write_text('[required]\npyton = "native"\n')
    res = _lint(project)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "orchestrate.toml: required.pyton: unknown language (did you mean 'python'?)" in (
        res.stderr
    )


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("key", "meant"),
    [("rufff", "ruff"), ("eslnt", "eslint"), ("gofmtt", "gofmt"), ("rubocp", "rubocop")],
)
def test_cli_a_tools_key_near_a_checker_name_is_exit_2(project: Path, key: str, meant: str) -> None:
    set_machine_tool(key, f"/opt/x/bin/{key}")
    res = _lint(project)
    assert res.returncode == 2, res.stdout + res.stderr
    assert f"tools.{key}: no checker or parser named {key!r}" in res.stderr
    assert f"(did you mean {meant!r}?)" in res.stderr


@pytest.mark.e2e
def test_cli_a_committed_tools_table_is_ignored_with_a_note(project: Path) -> None:
    """A project's `[tools]` never names a tool (issue 24): even a typo in it is only
    the note saying where tool paths belong."""
    import json

    (project / "pyproject.toml").write_text('[tool.orchestrate.tools]\nrufff = "/opt/ruff"\n')
    res = _lint(project, "--format", "json")
    assert res.returncode == 0, res.stdout + res.stderr
    notes = json.loads(res.stdout)["notes"]
    assert any(
        n.startswith("pyproject.toml: tool.orchestrate.tools is ignored (rufff)")
        and "ORCHESTRATE_TOOL_RUFFF=/abs/path" in n
        for n in notes
    ), notes


@pytest.mark.e2e
def test_cli_a_tools_key_far_from_every_name_is_a_warning(project: Path) -> None:
    """Far from every name it may be a third-party plugin not installed here: said, not
    refused."""
    import json

    set_machine_tool("terraform-ls", "/opt/tf/bin/tfls")
    res = _lint(project, "--format", "json")
    assert res.returncode == 0, res.stdout + res.stderr
    notes = json.loads(res.stdout)["notes"]
    assert any("tools.terraform-ls: no checker or parser named" in n for n in notes), notes
    res = _lint(project)
    assert res.returncode == 0 and "warning: machine tool paths" in res.stdout


def test_tool_key_distance() -> None:
    from orchestrator.core.config import edit_distance

    assert edit_distance("rufff", "ruff") == 1
    assert edit_distance("eslnt", "eslint") == 1
    assert edit_distance("ruff", "ruff") == 0
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("", "abc") == 3


def test_builtin_checker_names_are_the_entry_points() -> None:
    """The names a `[tools]` typo is measured against even when a plugin is disabled."""
    import tomllib

    from orchestrator.core.config import BUILTIN_CHECKERS

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    entry_points = tomllib.loads(pyproject.read_text())["project"]["entry-points"]["orchestrate"]
    assert frozenset(entry_points) == BUILTIN_CHECKERS
