"""Project recipes (orchestrator.checkers.project_recipes, orchestrator.core.trust,
orchestrator.usecases.trust): they only add checkers, run in `lint` once trusted, and
at a strict gate only as the base holds them; never a shell, never coverage.

The tool is the real `grep` (Debian's), the projects real folders in tmp_path; the
trust store lives in a private XDG_DATA_HOME.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from orchestrator.checkers import project_recipes
from orchestrator.checkers.project_recipes import (
    StrictSources,
    parse_project_recipe,
    strict_recipes,
    worktree_recipes,
)
from orchestrator.core import trust
from orchestrator.core.config import parse_config
from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.decisions.coverage import coverage_of, is_complete, missing_required
from orchestrator.errors import UsageError
from orchestrator.usecases import trust as trust_usecase
from orchestrator.vocab import Purpose, ScopeStatus, Tier

GREP = """
name = "{name}"
description = "TODO markers, found by grep"
tool = "grep"
argv = ["grep", "-nH", "-E", "TODO"]
extensions = [{ext}]
{extra}
[output]
format = "pattern"
pattern = '^(?P<path>[^:]+):(?P<line>\\d+):(?P<message>.*)$'
exits = [0, 1]
quiet_ok = true
"""


def _recipe(name: str = "todo", ext: str = '".txt"', extra: str = "") -> str:
    return GREP.format(name=name, ext=ext, extra=extra)


@pytest.fixture(autouse=True)
def _private_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    if shutil.which("grep") is None:
        pytest.fail("grep is missing: apt-get install grep")


def _project(root: Path, recipe: str = "", files: dict[str, str] | None = None) -> Path:
    (root / "lint").mkdir(parents=True, exist_ok=True)
    (root / "lint" / "todo.toml").write_text(recipe or _recipe())
    (root / "orchestrate.toml").write_text('recipes = ["lint/todo.toml"]\n')
    for rel, text in (files or {"notes.txt": "hello\nTODO fix\n"}).items():
        (root / rel).write_text(text)
    return root


def _lint(root: Path, *paths: str, only: frozenset[str] | None = None, **kw):
    req = LintRequest(
        project_root=root,
        paths=paths or ("notes.txt",),
        only_checkers=only,
        cwd=root,
        project_recipes=project_recipes.for_worktree(),
        **kw,
    )
    return run_lint(req)


def _scope(report, checker: str = "todo"):
    (scope,) = [s for s in report.scopes if s.checker == checker]
    return scope


# ------------------------------------------------------------------ the format


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ('tool = "grep"', "[install]"),
        ("", "env"),
    ],
)
def test_a_project_recipe_declares_no_install_source_and_pins_no_env(change, said) -> None:
    extra = (
        '[install]\npypi = "grep==1.0"'
        if said == "[install]"
        else 'env = { LD_PRELOAD = "./x.so" }'
    )
    with pytest.raises(UsageError, match=f"not a valid project recipe: {said}".replace("[", r"\[")):
        parse_project_recipe(_recipe(extra=extra).encode(), "lint/todo.toml")


@pytest.mark.parametrize("name", ["LD_PRELOAD", "PYTHONPATH", "NODE_OPTIONS", "BASH_ENV", "PATH"])
def test_cache_env_never_names_what_a_program_loads(name: str) -> None:
    with pytest.raises(UsageError, match=f"cache_env: {name}"):
        parse_project_recipe(_recipe(extra=f'cache_env = ["{name}"]').encode(), "lint/todo.toml")


def test_cache_env_may_name_a_cache_variable() -> None:
    recipe = parse_project_recipe(_recipe(extra='cache_env = ["MYPY_CACHE_DIR"]').encode(), "x")
    assert recipe.cache_env == ["MYPY_CACHE_DIR"]


def _with_tool(tool: str) -> str:
    """The sample recipe with `tool` as its declared tool and argv[0]."""
    return (
        _recipe()
        .replace('tool = "grep"', f'tool = "{tool}"')
        .replace('"grep", "-nH"', f'"{tool}", "-nH"')
    )


def _assert_refused(tool: str) -> None:
    with pytest.raises(UsageError, match="tool"):
        parse_project_recipe(_with_tool(tool).encode(), "lint/todo.toml")


@pytest.mark.parametrize(
    "tool",
    ["sh", "bash5", "dc", "sqlite3", "m4", "python3.12", "env", "busybox", "xargs", "find", "git", "go", "npm",
     "docker", "nsenter", "vim", "perl", "true", "node"],
)  # fmt: skip
def test_the_tool_is_never_a_shell_interpreter_or_launcher(tool: str) -> None:
    _assert_refused(tool)


@pytest.mark.parametrize(
    "tool",
    ["setarch", "linux64", "dbus-run-session", "ssh-agent", "vim.basic", "vim.tiny", "gcc",
     "cc", "gcc-12", "x86_64-linux-gnu-gcc-12", "clang++-15", "tcc", "perl5.36.0",
     "python3.12-dbg", "xvfb-run", "eatmydata"],
)  # fmt: skip
def test_a_launchers_other_spellings_are_refused_too(tool: str) -> None:
    # Each runs `sh -c ...` from its arguments (setarch ARCH sh, dbus-run-session -- sh,
    # vim -c '!sh', gcc -wrapper sh,-c,...): a base recipe naming one ran a shell at a
    # strict gate before these were refused.
    _assert_refused(tool)


@pytest.mark.parametrize(
    "tool",
    ["shellcheck", "markdownlint-cli2", "clang-tidy", "clang-tidy-15", "cppcheck", "yamllint",
     "sqlfluff", "golangci-lint", "cfn-lint"],
)  # fmt: skip
def test_linters_with_digits_dashes_or_dots_stay_allowed(tool: str) -> None:
    assert not project_recipes.refused_tool(tool)


def test_a_file_named_like_an_option_stays_a_file_without_double_dash(tmp_path: Path) -> None:
    # `paths_after = []`: before, `-v.txt` reached grep as options (`-v -. ...`), so
    # a change's file name could steer a recipe's tool; now it is `./-v.txt`.
    recipe = _recipe(extra="paths_after = []")
    root = _project(tmp_path / "p", recipe, {"-v.txt": "hello\nTODO fix\n"})
    trust_usecase.trust_recipes(root)
    report = _lint(root, "-v.txt")
    scope = _scope(report)
    assert scope.status == ScopeStatus.CHECKED, scope.reason
    assert [(f.path, f.line) for f in report.findings if f.checker == "todo"] == [("-v.txt", 2)]


def _assert_a_linked_tool_never_runs(tmp_path: Path, target: Path) -> None:
    """The recipe's tool `mylint` on PATH is a link to `target`: linting is `tool_error`,
    saying the program behind it is never a project recipe's tool."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "mylint").symlink_to(target)
    recipe = _recipe().replace('tool = "grep"', 'tool = "mylint"').replace('["grep"', '["mylint"')
    root = _project(tmp_path / "p", recipe)
    trust_usecase.trust_recipes(root)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    scope = _scope(_lint(root, env=env))
    assert scope.status == ScopeStatus.TOOL_ERROR
    assert "never a project recipe's tool" in (scope.reason or "")


def test_a_tool_that_resolves_to_a_versioned_compiler_never_runs(tmp_path: Path) -> None:
    real = tmp_path / "bin" / "x86_64-linux-gnu-gcc-12"
    real.parent.mkdir()
    real.write_text("#!/bin/sh\necho 1.0.0\n")
    real.chmod(0o755)
    _assert_a_linked_tool_never_runs(tmp_path, real)


@pytest.mark.parametrize(
    "argv",
    ['["sh", "-c", "grep TODO"]', '["env", "grep"]', '["/bin/grep"]', '["python", "-c", "1"]'],
)
def test_argv0_must_be_the_declared_tool(argv: str) -> None:
    text = _recipe().replace('argv = ["grep", "-nH", "-E", "TODO"]', f"argv = {argv}")
    with pytest.raises(UsageError, match="argv"):
        parse_project_recipe(text.encode(), "lint/todo.toml")


def test_a_tool_that_resolves_to_a_shell_never_runs(tmp_path: Path) -> None:
    _assert_a_linked_tool_never_runs(tmp_path, Path(shutil.which("sh") or "/bin/sh"))


@pytest.mark.parametrize("path", ["../x.toml", "/etc/x.toml", "a/../../x.toml", "x.sh"])
def test_a_recipe_path_outside_the_project_is_refused(path: str) -> None:
    with pytest.raises(UsageError, match="not a recipe path"):
        parse_config(f'recipes = ["{path}"]\n', "orchestrate.toml", "orchestrate.toml")


def test_a_recipe_file_linked_outside_the_project_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.toml"
    outside.write_text(_recipe())
    root = _project(tmp_path / "p")
    (root / "lint" / "todo.toml").unlink()
    (root / "lint" / "todo.toml").symlink_to(outside)
    with pytest.raises(UsageError, match="outside the project"):
        _lint(root)


# ----------------------------------------------------------- names only add


@pytest.mark.parametrize("name", ["ruff", "secrets", "treesitter", "shellcheck"])
def test_a_recipe_named_like_a_builtin_is_refused_naming_the_clash(
    tmp_path: Path, name: str
) -> None:
    root = _project(tmp_path, _recipe(name=name))
    with pytest.raises(UsageError, match=f"project recipe '{name}' clashes with the checker"):
        _lint(root)


def test_a_builtin_name_stays_taken_while_its_plugin_is_disabled(tmp_path: Path) -> None:
    root = _project(tmp_path, _recipe(name="shellcheck"))
    (root / "orchestrate.toml").write_text(
        'recipes = ["lint/todo.toml"]\ndisable_plugins = ["recipes"]\n'
    )
    with pytest.raises(UsageError, match=r"'shellcheck' of orchestrate \(built in, disabled here"):
        _lint(root)


def test_a_recipe_named_like_a_plugin_checker_is_refused(tmp_path: Path) -> None:
    from orchestrator.checkers.recipe import recipe_checker
    from orchestrator.checkers.recipe_format import parse_recipe

    class Plugin:
        @staticmethod
        def orchestrate_checkers():
            return [recipe_checker(parse_recipe(_recipe(name="todo"), "plugin.toml"))]

    from orchestrator.core.hookspecs import hookimpl

    Plugin.orchestrate_checkers = staticmethod(hookimpl(Plugin.orchestrate_checkers))
    root = _project(tmp_path)
    with pytest.raises(UsageError, match="clashes with the checker 'todo' of the plugin"):
        _lint(root, extra_plugins=[("thirdparty", Plugin())])


# ------------------------------------------------------------------ trust


def test_an_untrusted_recipe_is_not_run_saying_how_to_trust_it(tmp_path: Path) -> None:
    root = _project(tmp_path)
    scope = _scope(_lint(root))
    assert scope.status == ScopeStatus.NOT_RUN
    assert "not trusted yet" in (scope.reason or "")
    assert "orchestrate trust" in (scope.reason or "")


def test_a_trusted_recipe_runs_and_gives_findings_with_its_scopes(tmp_path: Path) -> None:
    root = _project(tmp_path)
    (state,) = trust_usecase.trust_recipes(root)
    assert (state.name, state.path, state.state) == ("todo", "lint/todo.toml", "trusted")
    report = _lint(root)
    scope = _scope(report)
    assert (scope.status, scope.tier) == (ScopeStatus.CHECKED, Tier.PROJECT)
    assert [(f.path, f.line, f.rule) for f in report.findings] == [("notes.txt", 2, "todo")]
    assert trust.store_path().stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("what", ["bytes", "config"])
def test_a_changed_recipe_or_naming_config_is_untrusted_again(tmp_path: Path, what) -> None:
    root = _project(tmp_path)
    trust_usecase.trust_recipes(root)
    if what == "bytes":
        (root / "lint" / "todo.toml").write_text(_recipe().replace('"TODO"', '"."'))
    else:
        (root / "lint" / "b.toml").write_text(_recipe(name="other"))
        (root / "orchestrate.toml").write_text('recipes = ["lint/todo.toml", "lint/b.toml"]\n')
    scope = _scope(_lint(root))
    assert scope.status == ScopeStatus.NOT_RUN
    assert "changed since it was trusted" in (scope.reason or "")
    states = {s.path: s.state for s in trust_usecase.recipe_states(root)}
    assert states["lint/todo.toml"] == "changed since trusted"


def test_revoke_forgets_the_trust(tmp_path: Path) -> None:
    root = _project(tmp_path)
    trust_usecase.trust_recipes(root)
    assert trust_usecase.revoke_recipes(root) == ["lint/todo.toml"]
    assert _scope(_lint(root)).status == ScopeStatus.NOT_RUN
    assert trust.trusted(root) == {}


def test_trust_is_keyed_by_the_project_root(tmp_path: Path) -> None:
    a = _project(tmp_path / "a")
    b = _project(tmp_path / "b")
    trust_usecase.trust_recipes(a)
    assert _scope(_lint(a)).status == ScopeStatus.CHECKED
    assert _scope(_lint(b)).status == ScopeStatus.NOT_RUN


def test_concurrent_trust_in_two_projects_keeps_both(tmp_path: Path) -> None:
    import threading

    roots = [_project(tmp_path / f"p{i}") for i in range(8)]
    threads = [threading.Thread(target=trust_usecase.trust_recipes, args=(r,)) for r in roots]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(trust.trusted(r) for r in roots)


def test_a_damaged_store_trusts_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path)
    trust_usecase.trust_recipes(root)
    trust.store_path().write_text("{not json")
    assert _scope(_lint(root)).status == ScopeStatus.NOT_RUN


def test_a_delivery_run_without_a_base_runs_no_project_recipe(tmp_path: Path) -> None:
    root = _project(tmp_path)
    trust_usecase.trust_recipes(root)
    got = worktree_recipes(root, {"recipes": ["lint/todo.toml"]}, {}, delivery=True)
    assert got.checkers[0].impl.blocked and "without a base" in got.checkers[0].impl.blocked


# ------------------------------------------------------- coverage and policy


def test_a_recipe_claiming_python_never_makes_python_files_covered(tmp_path: Path) -> None:
    # `true` is refused outright; a real tool that exits 0 saying nothing is the next try.
    with pytest.raises(UsageError):
        parse_project_recipe(
            b'name = "mine"\ntool = "true"\nargv = ["true"]\nextensions = [".py"]\n'
            b'[output]\nformat = "pattern"\npattern = "(?P<path>x):(?P<line>1)"\n',
            "lint/todo.toml",
        )
    root = _project(tmp_path, _recipe(ext='".py"'), {"app.py": "x = 1  # TODO\n"})
    trust_usecase.trust_recipes(root)
    report = _lint(root, "app.py", only=frozenset({"todo"}))
    assert _scope(report).status == ScopeStatus.CHECKED
    assert coverage_of(report.scopes).native_files == 0
    assert missing_required(report, ["native"], {"python": "ruff"})
    assert missing_required(report, ["syntax"], {})


def test_a_recipe_takes_no_file_from_another_checker(tmp_path: Path) -> None:
    root = _project(tmp_path, _recipe(ext='".py"'), {"app.py": "import os  # TODO\n"})
    trust_usecase.trust_recipes(root)
    report = _lint(root, "app.py")
    by = {s.checker: s.status for s in report.scopes}
    assert by["todo"] == ScopeStatus.CHECKED
    assert by["ruff"] == ScopeStatus.CHECKED  # Ruff still judges it
    assert "F401" in {f.rule for f in report.findings}
    assert report.coverage.native_files == 1


def test_an_untrusted_recipe_leaves_no_gap_in_completeness(tmp_path: Path) -> None:
    root = _project(tmp_path, _recipe(ext='".py"'), {"app.py": "x = 1\n"})
    report = _lint(root, "app.py")
    assert _scope(report).status == ScopeStatus.NOT_RUN
    assert is_complete(report)


def _sources(**kw) -> StrictSources:
    return StrictSources(**kw)


def test_at_a_strict_gate_a_recipe_not_in_the_base_is_new_policy() -> None:
    data = _recipe().encode()
    got = strict_recipes(
        _sources(surface_paths=("lint/todo.toml",), surface={"lint/todo.toml": data}), {}
    )
    (c,) = got.checkers
    assert "new policy" in (c.impl.blocked or "")
    assert any("new policy" in n and "todo" in n for n in got.notes)


def test_at_a_strict_gate_a_recipe_the_base_names_but_lacks_is_named() -> None:
    got = strict_recipes(_sources(base_paths=("lint/todo.toml",)), {})
    assert got.checkers == []
    assert any("does not hold" in n for n in got.notes)


def test_at_a_strict_gate_a_changed_recipe_runs_as_the_base_holds_it() -> None:
    base = _recipe().encode()
    now = _recipe().replace('"TODO"', '"."').encode()
    got = strict_recipes(
        _sources(
            base_paths=("lint/todo.toml",),
            base={"lint/todo.toml": base},
            surface_paths=("lint/todo.toml",),
            surface={"lint/todo.toml": now},
        ),
        {},
    )
    (c,) = got.checkers
    assert c.impl.blocked is None and "TODO" in c.impl.recipe.argv
    assert any("changed in this change" in n for n in got.notes)


def test_at_a_strict_gate_a_base_recipe_that_executes_project_code_never_runs(
    tmp_path: Path,
) -> None:
    data = _recipe(extra="executes_project_code = true").encode()
    src = _sources(base_paths=("lint/todo.toml",), base={"lint/todo.toml": data},
                   surface_paths=("lint/todo.toml",), surface={"lint/todo.toml": data})  # fmt: skip
    root = _project(tmp_path)
    req = LintRequest(
        project_root=root,
        paths=("notes.txt",),
        cwd=root,
        purpose=Purpose.DELIVERY,
        project_recipes=project_recipes.for_gate(src),
    )
    scope = _scope(run_lint(req))
    assert scope.status == ScopeStatus.NOT_RUN
    assert "executes_project_code" in (scope.reason or "")


# ------------------------------------------------------------ the documented one


def _documented() -> str:
    text = (Path(__file__).resolve().parent.parent / "plugins" / "README.md").read_text()
    block = text.split("<!-- project-recipe-example -->", 1)[1]
    return block.split("```toml\n", 1)[1].split("```", 1)[0]


def test_the_documented_project_recipe_gives_findings_with_scopes(tmp_path: Path) -> None:
    body = _documented()
    assert len(body.splitlines()) <= 30
    root = tmp_path / "p"
    (root / "lint").mkdir(parents=True)
    (root / "lint" / "shellcheck-all.toml").write_text(body)
    (root / "orchestrate.toml").write_text('recipes = ["lint/shellcheck-all.toml"]\n')
    (root / "a.sh").write_text("#!/bin/sh\necho $1\nfoo=`ls`\n")
    (root / "b.sh").write_text('#!/bin/sh\necho "clean"\n')
    trust_usecase.trust_recipes(root)
    report = _lint(root, "a.sh", "b.sh")
    mine = {s.path: s.status for s in report.scopes if s.checker == "shellcheck-all"}
    assert mine == {"a.sh": ScopeStatus.CHECKED, "b.sh": ScopeStatus.CHECKED}
    found = {(f.path, f.line, f.rule) for f in report.findings if f.checker == "shellcheck-all"}
    assert {("a.sh", 2, "SC2086"), ("a.sh", 3, "SC2006"), ("a.sh", 3, "SC2034")} <= found
    # Exactly what the tool run directly reports, on the same files.
    import re
    import subprocess

    tool = next(s.tool.path for s in report.scopes if s.checker == "shellcheck-all" and s.tool)
    out = subprocess.run(
        [tool, "-f", "gcc", "-o", "all", "a.sh", "b.sh"], cwd=root, capture_output=True, text=True
    ).stdout
    direct = {
        (m[1], int(m[2]), m[3])
        for m in re.finditer(r"^(.+?):(\d+):\d+: \w+: .* \[(SC\d+)\]$", out, re.M)
    }
    assert found == direct


# ------------------------------------------- the editor and the agent hooks


@pytest.mark.parametrize("entry", ["editor", "hook"])
def test_the_editor_and_the_hooks_run_a_project_recipe_only_once_trusted(
    tmp_path: Path, entry: str
) -> None:
    from orchestrator.usecases.agent import lint_here
    from orchestrator.usecases.editor import check_content

    root = _project(tmp_path)

    def scope():
        if entry == "editor":
            report = check_content(root, "notes.txt", b"TODO unsaved\n").report
        else:
            report = lint_here(root, ["notes.txt"], 60).report
        assert report is not None
        return _scope(report), report

    before, _ = scope()
    assert before.status == ScopeStatus.NOT_RUN and "orchestrate trust" in (before.reason or "")
    trust_usecase.trust_recipes(root)
    after, report = scope()
    assert after.status == ScopeStatus.CHECKED
    assert [f.line for f in report.findings if f.checker == "todo"] == [
        1 if entry == "editor" else 2
    ]


def test_the_host_pre_tool_gate_runs_only_the_base_recipe(tmp_path: Path) -> None:
    from helpers import git, new_repo

    from orchestrator.hosts.events import Kind, RouterEvent
    from orchestrator.hosts.router import route

    repo = new_repo(
        tmp_path / "r",
        {"lint/todo.toml": _recipe(), "orchestrate.toml": 'recipes = ["lint/todo.toml"]\n'},
    )
    git(repo, "commit", "-qm", "recipe")
    (repo / "lint" / "more.toml").write_text(_recipe(name="more"))
    (repo / "orchestrate.toml").write_text('recipes = ["lint/todo.toml", "lint/more.toml"]\n')
    (repo / "notes.txt").write_text("TODO b\n")
    git(repo, "add", "-A")
    trust_usecase.trust_recipes(repo)  # the user's trust: never read by a gate
    res = route(RouterEvent(Kind.SHELL_COMMAND, repo, command="git commit -m x", shell_cwd=repo))
    assert res.report is not None, res.context
    by = {s.checker: s for s in res.report.scopes if s.path == "notes.txt"}
    assert by["todo"].status == ScopeStatus.CHECKED
    assert by["more"].status == ScopeStatus.NOT_RUN and "new policy" in (by["more"].reason or "")
    assert {f.checker for f in res.report.findings if f.path == "notes.txt"} == {"todo"}


def test_a_warm_process_never_replays_a_run_whose_config_names_recipes(tmp_path: Path) -> None:
    from orchestrator.core import run_memo

    run_memo.hold(True)
    try:
        req = LintRequest(project_root=tmp_path)
        assert run_memo.request_key(req, tmp_path, {}) is not None
        assert run_memo.request_key(req, tmp_path, {"recipes": ["lint/todo.toml"]}) is None
    finally:
        run_memo.hold(False)


def test_protect_checker_config_covers_the_project_recipes(tmp_path: Path) -> None:
    from helpers import new_repo

    from orchestrator.usecases.agent import protected_edit, protected_shell_write

    config = 'protect_checker_config = true\nrecipes = ["lint/todo.toml"]\n'
    repo = new_repo(tmp_path / "r", {"orchestrate.toml": config, "lint/todo.toml": _recipe()})
    assert protected_edit(str(repo / "lint" / "todo.toml"), repo) == "protected_checker_config"
    assert protected_shell_write(["lint/todo.toml"], repo, repo) == "protected_checker_config"
    assert protected_edit(str(repo / "lint" / "other.txt"), repo) is None


@pytest.mark.parametrize("where", ["main worktree", "common git folder"])
def test_a_strict_gate_in_a_linked_worktree_runs_no_tool_of_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """A base recipe's tool found on PATH inside the main worktree (untracked), or in
    the repository's git folder, is the repository's: `gate commit` in a linked
    worktree never runs it. Before, only the linked worktree was refused."""
    from helpers import git, new_repo

    from orchestrator.usecases.gate import gate

    repo = new_repo(
        tmp_path / "r",
        {"lint/todo.toml": _recipe(), "orchestrate.toml": 'recipes = ["lint/todo.toml"]\n'},
    )
    git(repo, "commit", "-qm", "recipe")
    linked = tmp_path / "w"
    git(repo, "worktree", "add", "-q", str(linked), "-b", "w")
    mark = tmp_path / "mark"
    folder = repo / "tools" if where == "main worktree" else repo / ".git" / "bin"
    folder.mkdir()
    (folder / "grep").write_text(f"#!/bin/sh\necho ran >> '{mark}'\n")
    (folder / "grep").chmod(0o755)
    (repo / ".git" / "info" / "exclude").write_text("tools/\n")
    (linked / "notes.txt").write_text("TODO b\n")
    git(linked, "add", "notes.txt")
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(linked)
    result = gate("commit", timeout=120, cwd=linked)
    assert not mark.exists(), f"the gate ran a tool of the {where}"
    todo = _scope(result.report)
    assert todo.status == ScopeStatus.CHECKED, todo.reason  # the machine's grep ran
    assert {f.checker for f in result.report.findings} >= {"todo"}


def test_a_missing_tool_hint_names_the_machine_setting_never_the_projects(
    tmp_path: Path,
) -> None:
    """A project's `[tools]` table is ignored (a tool path is the machine's): the
    `missing` hint names the user config and the variable. Before, it told the user to
    set `[tool.orchestrate.tools]`, which the project config may not do."""
    recipe = _recipe().replace('tool = "grep"', 'tool = "no-such-lint"')
    root = _project(tmp_path / "p", recipe.replace('["grep"', '["no-such-lint"'))
    trust_usecase.trust_recipes(root)
    scope = _scope(_lint(root))
    assert scope.status == ScopeStatus.MISSING
    hint = scope.hint or ""
    assert "[tool.orchestrate.tools]" not in hint and "ORCHESTRATE_TOOL_TODO=" in hint, hint
