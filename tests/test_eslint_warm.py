"""The warm ESLint worker (plugins/eslint_warm.py, eslint_worker.mjs): inside a resident
process (the warm engine) ESLint batches run in a persistent Node worker, and what it
answers is what the ESLint CLI answers, byte for byte, for the repo's ESLint test
projects: findings, a parse error, an ignored file, a broken config and a missing
plugin (exit 2), stdin mode, the legacy eslintrc mode, a project-local ESLint 8. A
config edit between two warm requests is seen; a worker that crashes or answers
malformed is replaced and the batch goes to the CLI; one that hangs is killed at the
deadline (timed_out, as the CLI spawn); workers end with the residency and the engine.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import corpus, eslint_path, run_cli
from orchestrate_plugins import eslint_warm
from orchestrate_plugins.eslint_checker import EslintChecker, _cause, _output_format
from orchestrate_plugins.eslint_config import find_setup
from orchestrate_plugins.eslint_tool import resolve_tool, run_env
from test_eslint_fidelity import _NESTED, _agree, _native, _project, _sources

from orchestrator.deadline import Deadline
from orchestrator.model.checker import FileOutcome, FileTarget, RunContext
from orchestrator.procs import run_bounded
from orchestrator.resident import is_resident, residency
from orchestrator.vocab import ScopeStatus

PLUGIN = "eslint-plugin-no-only-tests"
OLD_ESLINT = "eslint-8"

FLAT = {
    "eslint.config.mjs": (
        'export default [{ ignores: ["gen/**"] },'
        ' { rules: { "no-var": "error", "no-unused-vars": "warn" } }];\n'
    ),
    "src/a.js": "var a = 1;\nconst unused = 2;\n",
    "src/bad.js": "function (\n",
    "src/ok.js": "export const ok = 1;\n",
    "src/we[ird].js": "var w = 1;\n",  # glob characters: linted over stdin
    "gen/out.js": "var g;\n",
}


@pytest.fixture(autouse=True)
def _no_workers() -> Iterator[None]:
    """Every test starts and ends without a live worker."""
    eslint_warm.POOL.close()
    yield
    eslint_warm.POOL.close()


def _lint(root: Path, deadline: float = 120) -> dict[str, FileOutcome]:
    checker = EslintChecker()
    ctx = RunContext(project_root=root, deadline=Deadline.after(deadline))
    targets = [FileTarget(path=p, abs_path=root / p) for p in _sources(root)]
    plan = checker.plan(targets, ctx)
    outs = list(plan.settled)
    for batch in plan.batches:
        outs += checker.run(batch, ctx)
    return {o.path: o.with_(duration_ms=None) for o in outs}


def _pids() -> set[int]:
    return {w.proc.pid for w in eslint_warm.POOL.workers.values()}


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


def _warm_equals_cold(root: Path) -> dict[str, FileOutcome]:
    """Lint cold (CLI spawns) and twice warm (worker): the same outcomes each time, and
    the second warm run is served by the worker the first one started."""
    eslint_path()
    cold = _lint(root)
    assert not is_resident() and not eslint_warm.POOL.workers
    with residency():
        warm = _lint(root)
        pids = _pids()
        assert pids, "no worker served the warm run"
        again = _lint(root)
        assert _pids() == pids
    assert warm == cold
    assert again == cold
    assert not any(_alive(p) for p in pids), "the workers outlived the residency"
    return warm


def test_flat_project_through_the_worker_equals_the_cli_and_eslint(tmp_path: Path) -> None:
    """Findings, a parse error, an ignored file and a stdin batch: the worker's outcomes
    are the CLI's, and the CLI's are what `eslint` run directly reports."""
    _project(tmp_path, FLAT)
    outs = _warm_equals_cold(tmp_path)
    _agree(outs, _native(tmp_path, eslint_path(), legacy=False))
    assert {f.rule for f in outs["src/a.js"].findings} == {"no-var", "no-unused-vars"}
    assert [f.rule for f in outs["src/bad.js"].findings] == ["eslint/parse-error"]
    assert outs["gen/out.js"].status == ScopeStatus.NOT_RUN
    assert {f.rule for f in outs["src/we[ird].js"].findings} == {"no-var", "no-unused-vars"}
    assert outs["src/ok.js"].status == ScopeStatus.CHECKED and not outs["src/ok.js"].findings


@pytest.mark.parametrize(
    "config",
    [
        'import x from "eslint-plugin-absent";\nexport default [{ plugins: { x } }];\n',
        'export default [{ rules: { "no-such-rule-here": "error" } }];\n',
        "throw new Error('broken config');\n",
    ],
    ids=["missing-plugin", "unknown-rule", "throws"],
)
def test_broken_config_is_the_same_tool_error(tmp_path: Path, config: str) -> None:
    """A config that cannot load or names what does not exist: ESLint exits 2 with its
    banner; through the worker the outcome (reason, hint, exit code) is the CLI's."""
    _project(tmp_path, {"eslint.config.mjs": config, "a.js": "var a;\n"})
    outs = _warm_equals_cold(tmp_path)
    out = outs["a.js"]
    assert out.status == ScopeStatus.TOOL_ERROR and out.exit_code == 2, out


def _argv_env(root: Path, rel: str, stdin: bool) -> tuple[list[str], Path, dict[str, str]]:
    """The argv, folder and environment the checker runs ESLint with for `rel`."""
    tool = resolve_tool(root, rel, RunContext(project_root=root, deadline=Deadline.after(5)))
    assert tool is not None
    setup = find_setup(root, rel)
    assert setup is not None
    version = run_bounded([tool, "--version"], deadline=Deadline.after(60)).stdout.decode()
    argv = [tool, "--format", _output_format(version.strip())]
    if not setup.legacy:
        argv += ["--config", str(setup.config)]
    path = os.path.relpath(root / rel, setup.cwd)
    argv += ["--stdin", "--stdin-filename", path] if stdin else [f"./{path}"]
    return argv, setup.cwd, run_env(dict(os.environ), tool, setup, version.strip())


@pytest.mark.parametrize(
    ("rel", "stdin"),
    [("src/a.js", False), ("src/bad.js", False), ("gen/out.js", False), ("src/a.js", True)],
)
def test_worker_bytes_are_the_cli_bytes(tmp_path: Path, rel: str, stdin: bool) -> None:
    """The raw answer: the same stdout bytes and exit code as the CLI spawn, and the
    same cause line on stderr; also for a missing file (exit 2, the CLI's banner)."""
    eslint_path()
    _project(tmp_path, FLAT)
    text = (tmp_path / rel).read_bytes() if stdin else None
    cases = [(rel, text)] + ([] if stdin else [("src/missing.js", None)])
    with residency():
        for name, data in cases:
            argv, cwd, env = _argv_env(tmp_path, name, stdin)
            cli = run_bounded(argv, deadline=Deadline.after(60), stdin=data, cwd=cwd, env=env)
            warm = eslint_warm.run_warm(
                argv,
                cwd=cwd,
                env=env,
                stdin=data,
                deadline=Deadline.after(60),
                output_budget=1 << 20,
                version=None,
                config_digest=None,
                root=tmp_path,
            )
            assert warm is not None and eslint_warm.POOL.workers
            assert (warm.returncode, warm.stdout) == (cli.returncode, cli.stdout)
            assert _cause(warm.stderr) == _cause(cli.stderr)
    assert cli.returncode == (1 if name == rel else 2)


def test_legacy_eslintrc_and_eslintignore(tmp_path: Path) -> None:
    """ESLint 9 in legacy mode (ESLINT_USE_FLAT_CONFIG=false): the worker runs under the
    same environment and answers as the CLI does, `.eslintignore` included."""
    rc = {"root": True, "extends": "eslint:recommended", "env": {"node": True, "es2022": True}}
    files = {
        ".eslintrc.json": json.dumps(rc),
        ".eslintignore": "gen/\n",
        "src/a.js": "const unused = 1;\nmissing();\n",
        "gen/out.js": "var g;\n",
    }
    _project(tmp_path, files)
    outs = _warm_equals_cold(tmp_path)
    _agree(outs, _native(tmp_path, eslint_path(), legacy=True))
    assert {f.rule for f in outs["src/a.js"].findings} == {"no-unused-vars", "no-undef"}


def test_project_local_eslint_8_and_its_plugin(tmp_path: Path) -> None:
    """The project's own ESLint 8.57 (legacy config) with its own plugin: the worker
    loads that package, not the managed one."""
    rc = {
        "root": True,
        "plugins": ["no-only-tests"],
        "extends": "eslint:recommended",
        "env": {"node": True},
        "rules": {"no-only-tests/no-only-tests": "error"},
    }
    files = {".eslintrc.json": json.dumps(rc), "lib/a.js": 'var unused = 1;\nit.only("t");\n'}
    _project(tmp_path, files, [OLD_ESLINT, PLUGIN])
    outs = _warm_equals_cold(tmp_path)
    out = outs["lib/a.js"]
    assert out.tool is not None and out.tool.version == "v8.57.1"
    assert {f.rule for f in out.findings} == {
        "no-unused-vars",
        "no-undef",
        "no-only-tests/no-only-tests",
    }
    with residency():
        _lint(tmp_path)
        (pkg,) = {key[0] for key in eslint_warm.POOL.workers}
    assert pkg == str(tmp_path / "node_modules/eslint/bin/eslint.js")


def test_project_local_eslint_10_nested_configs(tmp_path: Path) -> None:
    """The project's own ESLint 10 (each file's nearest flat config): one worker per
    config folder, each answering as the CLI run in that folder."""
    _project(tmp_path, _NESTED, ["qs"])
    outs = _warm_equals_cold(tmp_path)
    assert (outs["sub/x.js"].tool.version or "").startswith("v10.")  # type: ignore[union-attr]
    assert _rules(outs, "sub/x.js") == {"no-undef"}
    assert _rules(outs, "top.js") == {"no-unused-vars"}


def test_legacy_plugin_not_installed_is_the_same_tool_error(tmp_path: Path) -> None:
    """Legacy mode, a plugin the project has not installed: exit 2, ESLint's reason and
    the install hint, as from the CLI (ESLint's one-time warnings aside)."""
    rc = {"root": True, "plugins": ["not-installed-here"], "rules": {}}
    _project(tmp_path, {".eslintrc.json": json.dumps(rc), "a.js": "1;\n"})
    out = _warm_equals_cold(tmp_path)["a.js"]
    assert out.status == ScopeStatus.TOOL_ERROR and out.exit_code == 2
    assert "eslint-plugin-not-installed-here" in (out.reason or "")


def test_flat_config_with_the_projects_plugin(tmp_path: Path) -> None:
    config = (
        'import noOnly from "eslint-plugin-no-only-tests";\n'
        'export default [{ plugins: { "no-only-tests": noOnly },'
        ' rules: { "no-only-tests/no-only-tests": "error" } }];\n'
    )
    files = {"eslint.config.mjs": config, "a.test.js": 'describe.only("x", () => {});\n'}
    _project(tmp_path, files, [PLUGIN])
    outs = _warm_equals_cold(tmp_path)
    assert {f.rule for f in outs["a.test.js"].findings} == {"no-only-tests/no-only-tests"}
    corpus(PLUGIN)


def _rules(outs: dict[str, FileOutcome], path: str) -> set[str]:
    return {f.rule for f in outs[path].findings}


def test_a_config_edit_between_warm_requests_is_seen(tmp_path: Path) -> None:
    """The config file itself, then a module it imports: each edit is seen by the next
    warm request (a fresh worker), and the result is the CLI's."""
    eslint_path()
    files = {
        "eslint.config.mjs": 'import rules from "./rules.mjs";\nexport default [{ rules }];\n',
        "rules.mjs": 'export default { "no-var": "error" };\n',
        "a.js": "var a = 1;\ndebugger;\n",
    }
    _project(tmp_path, files)
    with residency():
        assert _rules(_lint(tmp_path), "a.js") == {"no-var"}
        first = _pids()
        (tmp_path / "rules.mjs").write_text('export default { "no-debugger": "error" };\n')
        warm = _lint(tmp_path)
        assert _rules(warm, "a.js") == {"no-debugger"}
        second = _pids()
        assert second and second != first
        config = 'export default [{ rules: { "no-var": "warn", "no-debugger": "error" } }];\n'
        (tmp_path / "eslint.config.mjs").write_text(config)
        warm_again = _lint(tmp_path)
        assert _rules(warm_again, "a.js") == {"no-var", "no-debugger"}
        assert _pids() and _pids() != second
    assert warm_again == _lint(tmp_path)


def test_an_install_replaces_the_worker(tmp_path: Path) -> None:
    """node_modules/.package-lock.json changing (an npm install) starts a fresh worker."""
    eslint_path()
    _project(tmp_path, {"eslint.config.mjs": "export default [];\n", "a.js": "1;\n"})
    lock = tmp_path / "node_modules" / ".package-lock.json"
    with residency():
        _lint(tmp_path)
        first = _pids()
        lock.parent.mkdir(exist_ok=True)
        lock.write_text("{}\n")
        _lint(tmp_path)
        assert _pids() and _pids() != first
        assert not any(_alive(p) for p in first)


def _fake_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    fake = tmp_path / "fake_eslint_worker.mjs"
    fake.write_text(body)
    monkeypatch.setattr(eslint_warm, "WORKER_JS", fake)


FAKES = {
    "crash-at-start": "process.exit(3);\n",
    "malformed-ready": 'process.stdout.write("not json\\n");\nsetInterval(() => {}, 1000);\n',
    "crash-mid-request": (
        'process.stdout.write(JSON.stringify({ready: true}) + "\\n");\n'
        'process.stdin.on("data", () => process.exit(5));\n'
    ),
    "malformed-reply": (
        'process.stdout.write(JSON.stringify({ready: true}) + "\\n");\n'
        'process.stdin.on("data", () => process.stdout.write(\'{"exit": "x"}\\n\'));\n'
    ),
}


@pytest.mark.parametrize("fault", sorted(FAKES))
def test_a_faulty_worker_falls_back_to_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    """A worker that crashes or answers malformed JSON is killed; the batch's outcome
    is the CLI spawn's (honestly: nothing the worker said is used)."""
    eslint_path()
    root = tmp_path / "p"
    _project(root, FLAT)
    cold = _lint(root)
    _fake_worker(tmp_path, monkeypatch, FAKES[fault])
    with residency():
        warm = _lint(root)
        assert all(not _alive(p) for p in _pids())
    assert warm == cold


def test_a_hanging_worker_is_killed_at_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the deadline the worker is killed and the scopes are timed out, as a CLI
    spawn that hangs."""
    eslint_path()
    root = tmp_path / "p"
    _project(root, {"eslint.config.mjs": "export default [];\n", "a.js": "1;\n"})
    hang = 'process.stdout.write(JSON.stringify({ready: true}) + "\\n");\nsetInterval(() => {}, 1000);\n'
    _fake_worker(tmp_path, monkeypatch, hang)
    with residency():
        start = time.monotonic()
        checker = EslintChecker()
        ctx = RunContext(project_root=root, deadline=Deadline.after(3))
        plan = checker.plan([FileTarget(path="a.js", abs_path=root / "a.js")], ctx)
        (batch,) = plan.batches
        (out,) = checker.run(batch, ctx)
        assert time.monotonic() - start < 10
        pids = _pids()
        assert not eslint_warm.POOL.workers
    assert out.status == ScopeStatus.TIMED_OUT, out
    assert not any(_alive(p) for p in pids)


def test_a_cold_run_never_starts_a_worker(tmp_path: Path) -> None:
    """Outside a residency (every one-shot `orchestrate lint`) the CLI is spawned."""
    eslint_path()
    _project(tmp_path, FLAT)
    _lint(tmp_path)
    assert not eslint_warm.POOL.workers


def _workers_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes()
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid and b"eslint_worker.mjs" in cmd:
            found.append(int(entry.name))
    return found


@pytest.mark.e2e
@pytest.mark.parametrize("ending", ["stop", "killed"])
def test_the_engine_owns_the_worker(tmp_path: Path, ending: str) -> None:
    """`orchestrate server start`, a warm `lint --feedback` of a JS file: the engine
    keeps one worker, reuses it for the next request, and the worker ends with the
    engine, whether it stops or is killed outright (the worker sees its stdin close)."""
    eslint_path()
    root = tmp_path / "repo"
    config = 'export default [{ rules: { "no-var": "error" } }];\n'
    _project(root, {"eslint.config.mjs": config, "a.js": "var a;\n"})
    # A short runtime folder (socket paths are limited), mode 0700.
    runtime = Path(tempfile.mkdtemp(prefix="ow-", dir="/tmp"))
    env = {"XDG_RUNTIME_DIR": str(runtime), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env["ORCHESTRATE_REUSE"] = "0"
    env.update(ORCHESTRATE_SERVER="1", CI="")  # the engine's clients use it (conftest.py)
    argv = ["lint", "--feedback", "a.js", "--format", "json"]
    cold = run_cli(argv, root, env={**env, "ORCHESTRATE_SERVER": "0"})
    seen: list[list[int]] = []
    try:
        started = run_cli(["server", "start", "--format", "json"], root, env=env)
        assert started.returncode == 0, started.stderr
        engine = int(json.loads(started.stdout)["pid"])
        for i in range(2):
            (root / "a.js").write_text(f"var a = {i};\n")
            res = run_cli(argv, root, env=env)
            assert res.returncode == 1, res.stderr
            assert [f["rule"] for f in json.loads(res.stdout)["findings"]] == ["no-var"]
            seen.append(_workers_of(engine))
        assert len(seen[0]) == 1 and seen[0] == seen[1], seen
        if ending == "killed":
            os.kill(engine, signal.SIGKILL)
    finally:
        run_cli(["server", "stop"], root, env=env)
        shutil.rmtree(runtime, ignore_errors=True)
    end = time.monotonic() + 10
    while time.monotonic() < end and _alive(seen[0][0]):
        time.sleep(0.05)
    assert not _alive(seen[0][0])
    assert cold.returncode == 1
