"""A wheel built from the repository, installed in a fresh venv, lints JavaScript.

Before `orchestrate tools install` the JS file is `missing` with a hint naming that
command (a pip user has no `tools/eslint`); after it (real npm, the registry, the user's
cache folder in tmp) the report's ESLint findings equal what the installed ESLint says.
Slow (a wheel build, a venv, an npm install): one test, marked `slow`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO, require_tool

pytestmark = pytest.mark.slow

CONFIG = 'export default [{ rules: { "no-unused-vars": "error", "no-var": "error" } }];\n'
SOURCE = "var unused = 1;\nconst used = 2;\nconsole.log(used);\n"


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 300) -> Any:
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def _source_copy(dest: Path) -> Path:
    """The repository's files as git sees them (tracked and untracked, not ignored), so
    the build writes nothing into the checkout."""
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


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ORCHESTRATE_", "PYTHON"))}
    env.pop("VIRTUAL_ENV", None)
    return dict(env, **extra)


def _eslint_scope(report: dict[str, Any]) -> dict[str, Any]:
    return next(s for s in report["scopes"] if s["path"] == "a.js" and s["checker"] == "eslint")


def test_wheel_lints_js_after_tools_install(tmp_path: Path) -> None:
    npm = require_tool("npm", "install Node.js with npm (Debian: apt-get install npm)")
    pip_env = _env({})
    src = _source_copy(tmp_path / "src")
    wheels = tmp_path / "wheels"
    built = _run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(src)],
        tmp_path,
        pip_env,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("orchestrate-*.whl")
    venv = tmp_path / "venv"
    made = _run([sys.executable, "-m", "venv", str(venv)], tmp_path, pip_env)
    assert made.returncode == 0, made.stderr
    bin_dir = venv / "bin"
    inst = _run(
        [str(bin_dir / "python"), "-m", "pip", "install", "-q", str(wheel)], tmp_path, pip_env, 600
    )
    assert inst.returncode == 0, inst.stderr

    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "eslint.config.js").write_text(CONFIG)
    (proj / "a.js").write_text(SOURCE)
    cache = tmp_path / "xdg-cache"
    env = _env(
        {
            "PATH": f"{bin_dir}{os.pathsep}{Path(npm).parent}{os.pathsep}{os.environ['PATH']}",
            "XDG_CACHE_HOME": str(cache),
        }
    )
    orchestrate = str(bin_dir / "orchestrate")
    lint = [orchestrate, "lint", "--format", "json", "--no-tasks", "a.js"]

    before = _run(lint, proj, env)
    scope = _eslint_scope(json.loads(before.stdout))
    assert scope["status"] == "missing", scope
    assert "orchestrate tools install" in scope["hint"] and "tools/eslint" not in scope["hint"]

    installed = _run([orchestrate, "tools", "install"], proj, env, 600)
    assert installed.returncode == 0, installed.stderr
    (home,) = (cache / "orchestrate" / "tools").glob("eslint-*")
    status = _run([orchestrate, "tools", "status"], proj, env)
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
