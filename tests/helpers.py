"""Shared test helpers: tool requirements (no silent skips under CI), repos, the CLI.

Import them with `from helpers import ...` (tests/ is on sys.path via the root conftest)."""

from __future__ import annotations

import ast
import contextlib
import functools
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

import pytest

REPO = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
IN_CI = os.environ.get("CI", "").lower() == "true"


def hang_marker(folder: Path) -> Path:
    """Where a hanging fake tool of a test says it is running (before it sleeps):
    `deadline_passes_at(marker)` ends the run's deadline the moment the file exists."""
    return folder / "hanging.marker"


@contextlib.contextmanager
def deadline_passes_at(marker: Path, poll_s: float = 0.01) -> Iterator[None]:
    """Every deadline of this process passes the moment `marker` exists.

    A hanging fake tool creates `marker` once it runs (then sleeps far longer than any
    deadline), so a timeout test waits for the hang to be reached, not for seconds of
    clock. The deadline passes through its own cancellation (`deadline.cancel_all`), the
    same expiry a run sees on the clock: the child is killed and its scope timed out.
    The test's own deadline stays as the bound should the marker never come. Deadlines
    run on their clocks again when the block ends.
    """
    from orchestrator import deadline

    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            if marker.exists():
                deadline.cancel_all()
                return
            stop.wait(poll_s)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        stop.set()
        watcher.join()
        deadline.resume()


def require_tool(name: str, install_hint: str, path: str | None = None) -> str:
    """The absolute path of `name`, or fail (under CI=true) / skip (locally) with the hint."""
    found = path if path and Path(path).exists() else shutil.which(name)
    if found:
        return found
    fail_or_skip(f"{name} is required for this test: {install_hint}")
    raise AssertionError("unreachable")


def fail_or_skip(message: str) -> NoReturn:
    """A missing prerequisite: a failure under CI=true (it must be installed there), a
    skip with the same message locally."""
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


def eslint_path() -> str:
    """The managed ESLint installed by the set-up (tools/eslint)."""
    return require_tool(
        "eslint",
        "run ./run setup (npm ci --prefix tools/eslint)",
        path=str(REPO / "tools/eslint/node_modules/.bin/eslint"),
    )


def load_module(path: Path, name: str) -> ModuleType:
    """The Python file at `path` (a script of the repository, not a package module)
    imported as module `name`, registered in `sys.modules`."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def parsed(path: Path) -> ast.Module:
    """The syntax tree of the Python file at `path`, parsed once per test process while
    its stat stays the same (the meta-tests read the same few hundred files). Callers
    only read the tree: it is shared."""
    st = path.stat()
    return _parsed(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=2048)
def _parsed(path: str, _mtime_ns: int, _size: int) -> ast.Module:
    return ast.parse(Path(path).read_text(encoding="utf-8"), path)


def corpus(item_id: str) -> Path:
    """The cache folder of manifest item `item_id` as scripts/fetch left it (`src/` for
    a project, `node_modules/` for installed packages), or fail (under CI=true) / skip
    saying to run scripts/fetch. This is the one way the tests reach fetched code."""
    mod = sys.modules.get("orchestrate_corpora") or load_module(
        REPO / "scripts" / "corpora.py", "orchestrate_corpora"
    )
    item = mod.load_manifest()[item_id]
    root = mod.cache_root()
    found = mod.ready(item, root)
    if found is None:
        fail_or_skip(
            f"corpus {item_id!r} is missing or stale in {root}: run scripts/fetch"
            " (./run test runs it before the tests)"
        )
    return found


@pytest.fixture(autouse=True)
def machine_tools_reset() -> Iterator[None]:
    """The machine tool paths a test names (`set_machine_tool`) end with it (autouse
    through each conftest)."""
    before = {k: v for k, v in os.environ.items() if k.startswith("ORCHESTRATE_TOOL_")}
    yield
    for key in [k for k in os.environ if k.startswith("ORCHESTRATE_TOOL_")]:
        del os.environ[key]
    os.environ.update(before)


def set_machine_tool(name: str, path: str) -> None:
    """Name the machine's tool path for `name` (`ORCHESTRATE_TOOL_<NAME>`, the way a
    user does: a project config's `[tools]` is ignored) for the rest of the test, in
    process and in every CLI it starts; `machine_tools_reset` clears it after."""
    from orchestrator.core.tool_paths import env_name

    os.environ[env_name(name)] = path


def run_cli(
    args: Sequence[str],
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    stdin: str | None = None,
    inherit_env: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run the real `orchestrate` console script; never raises on a non-zero exit.

    This is the one CLI runner of the tests. `env` is laid over the current environment,
    or, with `inherit_env=False`, is the whole environment (gate cases pass a clean one).
    """
    full_env = dict(os.environ) if inherit_env else {}
    full_env.update(env or {})
    return subprocess.run(
        [str(VENV_BIN / "orchestrate"), *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        input=stdin,
        timeout=timeout,
        check=False,
    )


def ruff_directly(root: Path) -> list[tuple[str, str]]:
    """(path, rule) of every finding `ruff check` reports run directly in `root`, sorted:
    the native tool as a user runs it, for fidelity comparisons."""
    import json

    out = subprocess.run(
        [str(VENV_BIN / "ruff"), "check", "--no-cache", "--output-format", "json", "."],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    return sorted(
        (os.path.relpath(item["filename"], root).replace(os.sep, "/"), item["code"])
        for item in json.loads(out.stdout)
    )


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run git in `repo` with a fixed identity; return stdout."""
    full_env = dict(os.environ)
    full_env.update(
        {
            "GIT_AUTHOR_NAME": "Test",
            "GIT_AUTHOR_EMAIL": "test@example.invalid",
            "GIT_COMMITTER_NAME": "Test",
            "GIT_COMMITTER_EMAIL": "test@example.invalid",
        }
    )
    full_env.update(env or {})
    out = subprocess.run(
        ["git", *args], cwd=repo, env=full_env, capture_output=True, text=True, check=True
    )
    return out.stdout


#: Per test process, the repository `new_repo` copies: {initial_commit: template folder}.
_REPO_TEMPLATES: dict[bool, Path] = {}


def _repo_template(initial_commit: bool) -> Path:
    """The repository `new_repo` would build, built once per test process and kept in a
    temporary folder (removed at exit). Copying it costs one git run instead of six.

    It is built with no global or system git configuration, so it is the same whatever
    environment the first test that asks for it has set up."""
    found = _REPO_TEMPLATES.get(initial_commit)
    if found is not None:
        return found
    import atexit
    import tempfile

    holder = Path(tempfile.mkdtemp(prefix="orchestrate-test-repo-"))
    atexit.register(shutil.rmtree, holder, ignore_errors=True)
    path = holder / "repo"
    path.mkdir()
    env = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    git(path, "init", "-q", "-b", "main", env=env)
    git(path, "config", "user.name", "Test", env=env)
    git(path, "config", "user.email", "test@example.invalid", env=env)
    git(path, "config", "commit.gpgsign", "false", env=env)
    if initial_commit:
        (path / "README.md").write_text("test\n")
        git(path, "add", "README.md", env=env)
        git(path, "commit", "-q", "-m", "init", env=env)
    _REPO_TEMPLATES[initial_commit] = path
    return path


def new_repo(
    path: Path, files: dict[str, str] | None = None, *, initial_commit: bool = True
) -> Path:
    """A git repository at `path` on branch main with the test identity and no signing.

    This is the one repository builder of the tests. With `initial_commit`, README.md is
    committed first (so HEAD exists); `files` are then written and staged, not committed.
    The repository is a copy of a per-process template (`_repo_template`): the objects,
    refs, config and index `git init` + `git commit` leave, with the index's file stamps
    refreshed for the copy. Every repository of one test process therefore starts from
    the same initial commit (same id and date); the commits a test makes are its own.
    """
    path.mkdir(parents=True, exist_ok=True)
    shutil.copytree(_repo_template(initial_commit), path, symlinks=True, dirs_exist_ok=True)
    if initial_commit:
        # The index records README.md's inode and ctime, which the copy changed: refresh
        # them, so plumbing that trusts the stamps (diff-files, ls-files -m) sees it clean.
        git(path, "update-index", "-q", "--refresh")
    stage(path, files or {})
    return path


#: Per test process, the folders `from_template` copies: {key: (folder, what build returned)}.
_BUILT: dict[str, tuple[Path, Any]] = {}


def from_template(key: str, dest: Path, build: Callable[[Path], Any]) -> Any:
    """Copy into `dest` what `build(folder)` made in a folder of its own, built once per
    test process under `key` (a fixture's repositories, the same for each of its tests),
    and return what `build` returned (ids, never paths).

    `build` runs with no global or system git configuration (as `_repo_template`). The
    copy is made as if built in `dest`: each git config file of the copy (`*/.git/config`,
    a bare `*.git/config`) and `*/.git/FETCH_HEAD` naming the template folder name `dest`
    instead (a remote's url), and each work tree's index stamps are refreshed (one git
    run per work tree).
    """
    found = _BUILT.get(key)
    if found is None:
        import atexit
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="orchestrate-test-built-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("GIT_CONFIG_GLOBAL", os.devnull)
            mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
            found = _BUILT[key] = (folder, build(folder))
    folder, value = found
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copytree(folder, dest, symlinks=True, dirs_exist_ok=True)
    for config in [
        *dest.glob("*/.git/config"),
        *dest.glob("*/.git/FETCH_HEAD"),
        *dest.glob("*.git/config"),
    ]:
        text = config.read_text()
        if str(folder) in text:
            config.write_text(text.replace(str(folder), str(dest)))
    for dot_git in dest.glob("*/.git"):
        git(dot_git.parent, "update-index", "-q", "--refresh")
    return value


def add_remote(repo: Path, remote: Path, push: bool = True) -> Path:
    """A bare repository at `remote`, added to `repo` as origin.

    With `push`, main is pushed there and origin/HEAD set (git hooks may run; see
    test_gate_hooks for a push that must go through the pre-push gate instead).
    """
    git(remote.parent, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    if push:
        git(repo, "push", "-q", "origin", "main")
        git(repo, "remote", "set-head", "origin", "main")
    return remote


def stage(repo: Path, files: dict[str, str]) -> None:
    """Write `files` (relative path -> text) into `repo` and `git add` them (one git run)."""
    for rel, text in files.items():
        target = repo / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    if files:
        git(repo, "add", "--", *files)


def task_backlog(root: Path, n: int, message: str = "msg", path: str = "a.py") -> list[str]:
    """`n` open tasks in `root`, one per blocking F401 finding on the lines of `path`.

    This is the one task-backlog builder of the tests; returns the created task ids.
    """
    from orchestrator.model.report import Finding, Report, ScanInfo
    from orchestrator.tasks import store
    from orchestrator.vocab import Severity

    (root / path).write_text("".join(f"import m{i}\n" for i in range(n)))
    findings = [
        Finding(
            checker="ruff",
            rule="F401",
            severity=Severity.ERROR,
            path=path,
            line=i + 1,
            message=message,
            blocking=True,
        )
        for i in range(n)
    ]
    report = Report(scan=ScanInfo(project_root=str(root)), findings=findings)
    return list(store.sync_tasks(report, root).created)


def save_task(project_root: Path, rec: Any) -> None:
    """Write one task record as the store does, under its lock (set-up of store tests)."""
    from orchestrator.tasks import store
    from orchestrator.workspace import locked

    with locked(project_root, store.LOCK_NAME):
        store._write_unlocked(project_root, rec)


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """An empty git repository with an initial commit on branch main."""
    return new_repo(tmp_path / "repo")


@pytest.fixture
def write_files() -> Callable[[Path, dict[str, str | bytes]], None]:
    """Write a mapping of relative path -> content under a folder."""

    def _write(base: Path, files: dict[str, str | bytes]) -> None:
        for rel, content in files.items():
            p = base / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                p.write_bytes(content)
            else:
                p.write_text(content)

    return _write


# Third-party schemas and the scenario catalogue travel with the repository
# (schemas/*/SOURCE.md, conformance/SCENARIOS.md): a fresh clone needs nothing beside it.
SCHEMAS = REPO / "schemas"
SCENARIOS = REPO / "conformance" / "SCENARIOS.md"


def sarif_schema() -> dict:
    """The OASIS SARIF 2.1.0 schema with its one known-bad pattern fixed.

    The upstream `run.language` pattern uses an inline `(?i)` flag Python's `re` refuses
    (see schemas/sarif/SOURCE.md). The vendored file stays byte-for-byte upstream; the
    fix proposed upstream is applied here, in memory, and nowhere else.
    """
    import json

    text = (SCHEMAS / "sarif" / "sarif-schema-2.1.0.json").read_text()
    text = text.replace("^(?i)[a-zA]{2}(-[a-z]{2})?$", "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$")
    schema = json.loads(text)
    return schema


def source_copy(dest: Path) -> Path:
    """The repository's files as git sees them (tracked and untracked, not ignored)
    copied to `dest`, so a build or an install writes nothing into the checkout."""
    names = subprocess.run(
        ["git", "ls-files", "-z", "-co", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for raw in filter(None, names):
        src = REPO / os.fsdecode(raw)
        if src.is_file() and not src.is_symlink():
            (dest / os.fsdecode(raw)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / os.fsdecode(raw))
    return dest
