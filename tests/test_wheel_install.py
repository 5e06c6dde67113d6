"""A wheel built from the repository, installed the ways users install it.

The distribution is `orchestrate-lint` (the name `orchestrate` on the package index is
another project); the console script is `orchestrate`. `python -m build` builds the sdist
and the wheel from it without a warning. The wheel, in a fresh venv, carries what the
documented commands need (the grammar manifest and corpus, the managed ESLint's lockfile,
the agent host configurations) and runs the demo as a source checkout does; `uv tool
install` and `pipx install` (pipx from the package index) give a working `orchestrate`
too, and the installed `orchestrate lsp` answers a
real LSP client (pytest-lsp over stdio) with F401 for an unsaved buffer. Before `orchestrate tools install` a JS file
is `missing` with a hint naming that command (a pip user has no `tools/eslint`); after it
(real npm, the registry, the user's cache folder in tmp) the report's ESLint findings
equal what the installed ESLint says. Slow (builds, venvs, an npm install): `slow`.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock
from helpers import REPO, VENV_BIN, fail_or_skip, new_repo, require_tool, source_copy

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

DIST = "orchestrate-lint"
#: The checkers the distribution itself registers, and the selection's own scopes.
BUILTIN = {"ruff", "treesitter", "eslint", "ruby", "rubocop", "secrets", "orchestrate"}
CONFIG = 'export default [{ rules: { "no-unused-vars": "error", "no-var": "error" } }];\n'
SOURCE = "var unused = 1;\nconst used = 2;\nconsole.log(used);\n"


def _run(
    argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 300, stdin: str = ""
) -> Any:
    return subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ORCHESTRATE_", "PYTHON"))}
    env.pop("VIRTUAL_ENV", None)
    return dict(env, **extra)


@contextmanager
def _once_per_session(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[Path]:
    """A folder of this test session's own, made by the first test worker to ask, under
    a lock: a later worker waits for it and finds it done (its `done` file). A worker
    whose making failed leaves no `done`, so the next one makes it again."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the session's folder, shared by its workers
    with FileLock(str(base / f"{name}.lock")):
        yield base / name


def _made(folder: Path) -> str | None:
    done = folder / "done"
    return done.read_text() if done.is_file() else None


def _mark_made(folder: Path, text: str) -> None:
    part = folder / "done.part"
    part.write_text(text)
    part.replace(folder / "done")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """(the wheel, the build's output): `python -m build` on a copy of the checkout,
    once per test session (the test workers share it)."""
    with _once_per_session(tmp_path_factory, "build") as tmp:
        log = _made(tmp)
        if log is None:
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir()
            src = source_copy(tmp / "src")
            out = _run(
                [sys.executable, "-m", "build", "--outdir", str(tmp / "dist"), str(src)],
                tmp,
                _env({}),
                900,
            )
            assert out.returncode == 0, out.stdout + out.stderr
            log = out.stdout + out.stderr
            _mark_made(tmp, log)
    (wheel,) = (tmp / "dist").glob("orchestrate_lint-*.whl")
    yield wheel, log


def _uv() -> str:
    """The uv the test extra pins (the checkout's venv), else one on PATH."""
    return require_tool("uv", "pip install -e '.[test]' (it pins uv)", str(VENV_BIN / "uv"))


@pytest.fixture(scope="module")
def venv_bin(built: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of a fresh venv (pip in it) with the wheel, its dependencies and
    its `lsp` and `mcp` extras installed, once per test session (the tests only run what
    it holds). uv makes it, in seconds where pip takes a minute on two cores; pip's own
    install of the wheel is pipx's test, and the Action's step runs pip in this venv."""
    with _once_per_session(tmp_path_factory, "venv") as venv:
        if _made(venv) is None:
            shutil.rmtree(venv, ignore_errors=True)
            uv = _uv()
            made = _run(
                [uv, "venv", "-q", "--seed", "--python", sys.executable, str(venv)],
                venv.parent,
                _env({"UV_PYTHON_DOWNLOADS": "never"}),
            )
            assert made.returncode == 0, made.stderr
            inst = _run(
                [uv, "pip", "install", "-q", "--python", str(venv / "bin" / "python"),
                 f"{built[0]}[lsp,mcp]"],
                venv,
                _env({}),
                900,
            )  # fmt: skip
            assert inst.returncode == 0, inst.stderr
            _mark_made(venv, "")
    return venv / "bin"


def _user_env(bin_dir: Path, tmp: Path, *more: str) -> dict[str, str]:
    """A user's shell: the install's bin first on PATH, a cache folder of its own."""
    path = os.pathsep.join([str(bin_dir), *more, os.environ["PATH"]])
    return _env({"PATH": path, "XDG_CACHE_HOME": str(tmp / "xdg-cache")})


def test_build_names_the_distribution_and_warns_about_nothing(built: tuple[Path, str]) -> None:
    wheel, log = built
    assert wheel.name.startswith("orchestrate_lint-")
    assert "warning" not in log.lower(), log
    sdists = list(wheel.parent.glob("orchestrate_lint-*.tar.gz"))
    assert len(sdists) == 1


def test_the_distribution_name_is_free_on_the_package_index(tmp_path: Path) -> None:
    """`orchestrate` there is somebody else's project: ours must not be found there."""
    probe = _run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(tmp_path), DIST],
        tmp_path,
        _env({}),
        180,
    )
    text = probe.stdout + probe.stderr
    if "No matching distribution" not in text and probe.returncode != 0:
        fail_or_skip(f"the package index is not reachable: {text[-400:]}")
    assert probe.returncode != 0 and "No matching distribution" in text, text


def _demo_report(
    orchestrate: str, proj: Path, env: dict[str, str], code: int = 1
) -> dict[str, Any]:
    """The demo's JSON report. It holds findings on purpose (1); a fresh wheel has no
    ESLint while the demo configures one, so its run is incomplete (3) until `orchestrate
    tools install`."""
    out = _run([orchestrate, "lint", "demo", "--format", "json", "--no-tasks"], proj, env)
    assert out.returncode == code, out.stderr
    return json.loads(out.stdout)


def _outcome(report: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """Scopes and findings of the built-in checkers (the checkout's venv also holds the
    example plugin), JavaScript aside: a source checkout has its pinned ESLint, a fresh
    wheel install has not (until `orchestrate tools install`)."""
    scopes = sorted(
        (s["path"], s["checker"], s["status"], s.get("syntax"))
        for s in report["scopes"]
        if not s["path"].endswith(".js") and s["checker"] in BUILTIN
    )
    findings = sorted(
        (f["path"], f["checker"], f["rule"], f["line"])
        for f in report["findings"]
        if not f["path"].endswith(".js")
    )
    return scopes, findings


def test_wheel_runs_the_demo_as_the_checkout_does(venv_bin: Path, tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    shutil.copytree(REPO / "demo", proj / "demo", symlinks=True)
    wheel = _demo_report(str(venv_bin / "orchestrate"), proj, _user_env(venv_bin, tmp_path), 3)
    checkout = _demo_report(str(VENV_BIN / "orchestrate"), proj, _env({}))
    assert _outcome(wheel) == _outcome(checkout)
    checkers = {s["checker"] for s in wheel["scopes"]}
    assert {"ruff", "treesitter", "ruby"} <= checkers, checkers
    js = next(s for s in wheel["scopes"] if s["checker"] == "eslint")
    assert js["status"] == "missing" and "orchestrate tools install" in js["hint"]


def test_wheel_runs_every_documented_command(venv_bin: Path, tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", {"ok.py": "print(1)\n"})
    env = _user_env(venv_bin, tmp_path)
    orchestrate = str(venv_bin / "orchestrate")

    def ok(*args: str, stdin: str = "", codes: tuple[int, ...] = (0,)) -> str:
        out = _run([orchestrate, *args], repo, env, stdin=stdin)
        assert out.returncode in codes and "Traceback" not in out.stderr, (args, out)
        return out.stdout

    assert "orchestrate" in ok("--version")
    plugins = json.loads(ok("plugins", "--format", "json"))
    ours = {p["name"] for p in plugins if p.get("status") == "loaded"}
    assert BUILTIN - {"orchestrate"} <= ours
    assert all(p["display"].startswith(f"{DIST}[") for p in plugins if p["name"] in ours), plugins
    assert json.loads(ok("schema"))["title"]
    report = tmp_path / "report.json"
    ok("lint", "--format", "json", "--output", str(report), "ok.py")
    ok("report", "validate", str(report))
    ok("lint", "--feedback", "ok.py")
    ok("gate", "commit")
    ok("install-hooks")
    ok("uninstall-hooks")
    ok("task", "list")
    ok("next")
    ok("check", codes=(0, 1))
    assert "orchestrate tools install" in ok("tools", "status", codes=(1,))
    event = {"hook_event_name": "SessionStart", "session_id": "s", "cwd": str(repo)}
    event |= {"source": "startup", "transcript_path": str(tmp_path / "t.jsonl")}
    assert "hookSpecificOutput" in json.loads(ok("hook", "claude-code", stdin=json.dumps(event)))
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize"}
    init["params"] = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    }
    answer = json.loads(ok("mcp", stdin=json.dumps(init) + "\n").splitlines()[0])
    assert answer["result"]["serverInfo"]["name"] == "orchestrate"

    # The agent host configurations docs/hosts.md points to ship inside the wheel.
    for rel in ("claude-code/settings.json", "codex/hooks.json", "gemini/settings.json"):
        code = (
            "import sys; from importlib.resources import files; "
            "sys.stdout.write(files('orchestrate_hooks').joinpath(sys.argv[1]).read_text())"
        )
        shipped = _run([str(venv_bin / "python"), "-c", code, rel], repo, env)
        assert shipped.stdout == (REPO / "hooks" / rel).read_text(), shipped.stderr


def test_uv_tool_install_gives_a_working_orchestrate(
    built: tuple[Path, str], tmp_path: Path
) -> None:
    uv = _uv()
    tools, bins = tmp_path / "uv-tools", tmp_path / "uv-bin"
    env = _env(
        {
            "UV_TOOL_DIR": str(tools),
            "UV_TOOL_BIN_DIR": str(bins),
            "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
            "UV_PYTHON_DOWNLOADS": "never",
        }
    )
    inst = _run(
        [uv, "tool", "install", "--python", sys.executable, str(built[0])], tmp_path, env, 900
    )
    assert inst.returncode == 0, inst.stderr
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "a.py").write_text("import os\n")
    # Only the console script is on PATH: the tool's venv (and its Ruff) is not.
    out = _run(
        [str(bins / "orchestrate"), "lint", "--format", "json", "--no-tasks", "a.py"],
        proj,
        _user_env(bins, tmp_path),
    )
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    assert [(f["checker"], f["rule"]) for f in report["findings"]] == [("ruff", "F401")]
    # A plain install has no `lsp` extra: the command says which extra, no traceback.
    lsp = _run([str(bins / "orchestrate"), "lsp"], proj, _user_env(bins, tmp_path))
    assert lsp.returncode == 2, lsp.stderr
    assert "needs the `lsp` extra (pygls, lsprotocol not installed)" in lsp.stderr, lsp.stderr


def test_pipx_install_gives_a_working_orchestrate(built: tuple[Path, str], tmp_path: Path) -> None:
    """pipx (from the package index, into a venv of its own) installs the wheel; its
    console script alone on PATH lints a file."""
    venv = tmp_path / "pipx-venv"
    made = _run([sys.executable, "-m", "venv", str(venv)], tmp_path, _env({}))
    assert made.returncode == 0, made.stderr
    got = _run([str(venv / "bin" / "pip"), "install", "-q", "pipx"], tmp_path, _env({}), 600)
    if got.returncode != 0:
        fail_or_skip(f"pipx could not be installed from the package index: {got.stderr[-400:]}")
        return
    bins = tmp_path / "pipx-bin"
    env = _env(
        {
            "PIPX_HOME": str(tmp_path / "pipx-home"),
            "PIPX_BIN_DIR": str(bins),
            "PIPX_MAN_DIR": str(tmp_path / "pipx-man"),
        }
    )
    pipx = str(venv / "bin" / "pipx")
    inst = _run([pipx, "install", "--python", sys.executable, str(built[0])], tmp_path, env, 900)
    assert inst.returncode == 0, inst.stdout + inst.stderr
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "a.py").write_text("import os\n")
    out = _run(
        [str(bins / "orchestrate"), "lint", "--format", "json", "--no-tasks", "a.py"],
        proj,
        _user_env(bins, tmp_path),
    )
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    assert [(f["checker"], f["rule"]) for f in report["findings"]] == [("ruff", "F401")]
    listed = _run([pipx, "list", "--short"], tmp_path, env)
    assert listed.stdout.startswith(DIST), listed.stdout + listed.stderr


def test_wheel_language_server_shows_f401_of_an_unsaved_buffer(
    venv_bin: Path, tmp_path: Path
) -> None:
    """The installed `orchestrate lsp` (pygls from the wheel's `lsp` extra), a real
    LSP client over stdio, a buffer with an unused import that was never saved."""
    from lsprotocol import types
    from pytest_lsp.client import client_capabilities, make_test_lsp_client

    proj = new_repo(tmp_path / "proj", {"a.py": "x = 1\n"})
    uri = (proj / "a.py").as_uri()
    env = _user_env(venv_bin, tmp_path)

    async def session() -> list[types.Diagnostic]:
        client = make_test_lsp_client()
        await client.start_io(str(venv_bin / "orchestrate"), "lsp", cwd=str(proj), env=env)
        try:
            await client.initialize_session(
                types.InitializeParams(
                    capabilities=client_capabilities("neovim"),
                    root_uri=proj.as_uri(),
                    workspace_folders=[types.WorkspaceFolder(uri=proj.as_uri(), name="proj")],
                )
            )
            item = types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text="import os\n\nx = 1\n"
            )
            client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
            end = asyncio.get_running_loop().time() + 120
            while asyncio.get_running_loop().time() < end:
                got = client.diagnostics.get(uri)
                if got:
                    break
                await asyncio.sleep(0.1)
            await client.shutdown_session()
            return list(client.diagnostics.get(uri) or [])
        finally:
            await client.stop()

    diags = asyncio.run(session())
    assert [(d.code, d.range.start.line) for d in diags] == [("ruff/F401", 0)], diags
    assert diags[0].severity == types.DiagnosticSeverity.Error
    assert (proj / "a.py").read_text() == "x = 1\n"  # judged from the buffer, not saved


def _eslint_scope(report: dict[str, Any]) -> dict[str, Any]:
    return next(s for s in report["scopes"] if s["path"] == "a.js" and s["checker"] == "eslint")


def test_wheel_lints_js_after_tools_install(venv_bin: Path, tmp_path: Path) -> None:
    npm = require_tool("npm", "install Node.js with npm (Debian: apt-get install npm)")
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "eslint.config.js").write_text(CONFIG)
    (proj / "a.js").write_text(SOURCE)
    cache = tmp_path / "xdg-cache"
    env = _user_env(venv_bin, tmp_path, str(Path(npm).parent))
    orchestrate = str(venv_bin / "orchestrate")
    lint = [orchestrate, "lint", "--format", "json", "--no-tasks", "a.js"]

    before = _run(lint, proj, env)
    scope = _eslint_scope(json.loads(before.stdout))
    assert scope["status"] == "missing", scope
    assert "orchestrate tools install" in scope["hint"] and "tools/eslint" not in scope["hint"]

    # ESLint's pinned set alone: the Action's test runs the whole `tools install` from
    # the wheel (its step does), so every packaged lock file is installed there.
    installed = _run([orchestrate, "tools", "install", "eslint"], proj, env, 600)
    assert installed.returncode == 0, installed.stderr
    (home,) = (cache / "orchestrate" / "tools").glob("eslint-*")
    status = _run([orchestrate, "tools", "status", "eslint"], proj, env)
    assert status.returncode == 0 and str(home) in status.stdout

    after = _run(lint, proj, env)
    report = json.loads(after.stdout)
    scope = _eslint_scope(report)
    assert scope["status"] == "checked", scope
    assert "pinned install" in scope["reason"]
    got = sorted(
        (f["rule"], f["line"], f["column"]) for f in report["findings"] if f["checker"] == "eslint"
    )
    native = _run(
        [str(home / "node_modules" / ".bin" / "eslint"), "--format", "json", "a.js"], proj, env
    )
    want = sorted(
        (m["ruleId"], m["line"], m["column"])
        for r in json.loads(native.stdout)
        for m in r["messages"]
    )
    assert got == want and {r for r, _, _ in want} == {"no-unused-vars", "no-var"}
    assert not any((proj / n).exists() for n in ("node_modules", "package-lock.json"))


# ---------------------------------------------------------------- the composite Action

#: The `${{ ... }}` expressions of action.yml's `env:` blocks, as a pull request's run
#: would give them (the test's stand-in for the runner's expression evaluation).
_EXPRESSIONS = {
    "inputs.install-from": "{wheel}",
    "inputs.base": "",
    "github.base_ref": "main",
    "inputs.sarif": "orchestrate.sarif",
    "steps.lint.outputs.exit-code": "{exit_code}",
}


def _action_steps() -> list[dict[str, Any]]:
    import yaml

    action = yaml.safe_load((REPO / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    return action["runs"]["steps"]


def test_the_action_splices_no_expression_into_a_script() -> None:
    """Inputs and the base branch's name reach the scripts only as environment
    variables (an expression inside `run:` is script injection)."""
    steps = _action_steps()
    assert [s["uses"] for s in steps if "uses" in s] == [
        "actions/setup-python@v5",
        "github/codeql-action/upload-sarif@v3",
    ]
    for step in steps:
        if "run" in step:
            assert "${{" not in step["run"], step["name"]
            assert step["shell"] == "bash"


def _run_action(repo: Path, venv_bin: Path, wheel: Path, tmp: Path) -> tuple[int, Path]:
    """Run the Action's `run:` steps in `repo` (the pull request's commit checked out)
    as a runner would (bash -eo pipefail,
    GITHUB_OUTPUT, GITHUB_ACTION_PATH; setup-python stands for the venv first on PATH;
    the upload step is GitHub's own). Returns the last step's exit code and the SARIF."""
    output = tmp / "github-output"
    output.write_text("")
    # A cache folder of the test's own: the step's `orchestrate tools install` installs
    # every pinned set from the wheel's lock files (the first run), from nothing.
    env = _env({"PATH": os.pathsep.join([str(venv_bin), os.environ["PATH"]])})
    env |= {"GITHUB_OUTPUT": str(output), "GITHUB_ACTION_PATH": str(REPO)}
    env["XDG_CACHE_HOME"] = str(tmp / "xdg-cache")
    code = 0
    for step in _action_steps():
        if "run" not in step:
            continue
        outputs = dict(
            line.split("=", 1) for line in output.read_text().splitlines() if "=" in line
        )
        values = {
            k: v.format(wheel=wheel, exit_code=outputs.get("exit-code", ""))
            for k, v in _EXPRESSIONS.items()
        }
        step_env = dict(env)
        for name, value in (step.get("env") or {}).items():
            expr = str(value).removeprefix("${{").removesuffix("}}").strip()
            step_env[name] = values[expr]
        res = _run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            repo,
            step_env,
            600,
        )
        code = res.returncode
        if step.get("id") != "lint":
            assert step["name"] == "Verdict" or code == 0, (step["name"], res.stderr[-2000:])
    return code, repo / "orchestrate.sarif"


def test_the_action_fails_only_on_what_the_pull_request_introduces(
    venv_bin: Path, built: tuple[Path, str], tmp_path: Path
) -> None:
    repo = new_repo(tmp_path / "checkout")
    (repo / "pyproject.toml").write_text('[tool.ruff.lint]\nselect = ["F"]\n')
    (repo / "a.py").write_text("import os\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "base"], cwd=repo, check=True)
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    subprocess.run(["git", "remote", "add", "origin", str(remote)], cwd=repo, check=True)
    subprocess.run(["git", "push", "-q", "origin", "main", "--no-verify"], cwd=repo, check=True)
    subprocess.run(["git", "fetch", "-q", "origin"], cwd=repo, check=True)
    subprocess.run(["git", "checkout", "-q", "-b", "change"], cwd=repo, check=True)
    (repo / "a.py").write_text("# moved down\nimport os\n")
    subprocess.run(["git", "commit", "-qam", "move"], cwd=repo, check=True)
    code, sarif = _run_action(repo, venv_bin, built[0], tmp_path)
    assert code == 0  # the old finding only moved
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    assert [r["baselineState"] for r in results] == ["unchanged"]
    (repo / "b.py").write_text("import re\n")
    subprocess.run(["git", "add", "b.py"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "new finding"], cwd=repo, check=True)
    code, sarif = _run_action(repo, venv_bin, built[0], tmp_path)
    assert code == 1
    states = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r["baselineState"]
        for r in json.loads(sarif.read_text())["runs"][0]["results"]
    }
    assert states == {"a.py": "unchanged", "b.py": "new"}
