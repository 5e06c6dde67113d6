"""Strict gates judge a materialised surface under its committed policy.

The judged files and every file that governs them are written from the surface's
source (the index, a pushed commit, a revision) into a private tree, and the checkers
run there: untracked or unstaged config (orchestrate's or Ruff's) changes no verdict,
a staged config change is used and named, the policy is the stricter of the base's
and the surface's, and the tree is gone afterwards with nothing written in the project.
Real git and real Ruff throughout.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from gate_support import BAD_PY, GOOD_PY, clean_env, orchestrate
from helpers import (
    VENV_BIN,
    add_remote,
    eslint_path,
    git,
    new_repo,
    require_tool,
    stage,
)

from orchestrator.core import reuse
from orchestrator.gates.materialise import TREES_DIR, UnsafePath, materialised
from orchestrator.model.checker import FileTarget
from orchestrator.usecases.gate import gate

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

WEAKEN_ORCHESTRATE = 'disable_plugins = ["ruff"]\n\n[required]\npython = "syntax"\n'
IGNORE_ALL = 'lint.ignore = ["ALL"]\n'


@pytest.fixture
def ruff() -> str:
    return require_tool("ruff", "pip install ruff", path=str(VENV_BIN / "ruff"))


def _gate(repo: Path, homes: dict[str, str], *args: str, stdin: str | None = None):  # type: ignore[no-untyped-def]
    res = orchestrate(repo, "gate", *args, "--format", "json", env=clean_env(**homes), stdin=stdin)
    return res.returncode, json.loads(res.stdout)


def _human(repo: Path, homes: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return orchestrate(repo, "gate", *args, env=clean_env(**homes))


def _rules(report: dict) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return sorted((f["path"], f["rule"]) for f in report["findings"] if f["checker"] == "ruff")


def _footprint(repo: Path) -> str:
    return git(repo, "status", "--porcelain", "--ignored")


def _trees(homes: dict[str, str]) -> list[Path]:
    base = Path(homes["XDG_CACHE_HOME"]) / "orchestrate" / "projects"
    return [p for d in base.glob(f"*/{TREES_DIR}") for p in d.iterdir()]


def test_untracked_orchestrate_config_cannot_switch_ruff_off(
    tmp_path: Path, ruff: str, homes: dict[str, str]
) -> None:
    repo = new_repo(tmp_path / "r", {"bad.py": BAD_PY})
    (repo / "orchestrate.toml").write_text(WEAKEN_ORCHESTRATE)
    before = _footprint(repo)
    code, report = _gate(repo, homes, "commit")
    assert code == 1, report["gate"]
    assert _rules(report) == [("bad.py", "F401")]
    assert report["scan"]["project_root"] == str(repo.resolve())
    # Nothing was written in the project, and the private tree is gone.
    assert _footprint(repo) == before
    assert _trees(homes) == []


def test_unstaged_ruff_config_cannot_ignore_everything(
    tmp_path: Path, ruff: str, homes: dict[str, str]
) -> None:
    repo = new_repo(tmp_path / "r", {"ruff.toml": 'lint.select = ["F"]\n'})
    git(repo, "commit", "-q", "-m", "ruff config")
    stage(repo, {"bad.py": BAD_PY})
    (repo / "ruff.toml").write_text(IGNORE_ALL)  # unstaged
    (repo / "sub").mkdir()
    (repo / "sub" / "ruff.toml").write_text(IGNORE_ALL)  # untracked, nearer to nothing
    code, report = _gate(repo, homes, "commit")
    assert code == 1, report["gate"]
    assert _rules(report) == [("bad.py", "F401")]
    assert not any("ruff.toml" in r for r in report["gate"]["reasons"])


def test_staged_ruff_config_change_is_used_and_named(
    tmp_path: Path, ruff: str, homes: dict[str, str]
) -> None:
    repo = new_repo(tmp_path / "r", {"ruff.toml": 'lint.select = ["F"]\n'})
    git(repo, "commit", "-q", "-m", "ruff config")
    stage(repo, {"bad.py": BAD_PY, "ruff.toml": 'lint.select = ["F"]\nlint.ignore = ["F401"]\n'})
    code, report = _gate(repo, homes, "commit")
    assert code == 0, report["gate"]
    assert _rules(report) == []
    assert any(
        "ruff.toml" in r and "changed since the base" in r for r in report["gate"]["reasons"]
    )
    assert any(
        n.startswith("config file ruff.toml changed since the base") for n in report["notes"]
    )
    text = _human(repo, homes, "commit").stdout
    assert "changed since the base (see the notes): ruff.toml" in text
    assert "note: config file ruff.toml changed since the base" in text


NESTED = {
    "ruff.toml": 'lint.select = ["F", "E"]\n',
    "pkg/ruff.toml": (
        'extend = "../ruff.toml"\n'
        "[lint.per-file-ignores]\n"
        '"tests/*.py" = ["F401"]\n'
        '"gen_*.py" = ["E711"]\n'
    ),
    "pkg/tests/test_a.py": "import os\nimport sys\n",
    "pkg/gen_x.py": "import json\nx = None\nif x == None:\n    pass\n",
    "pkg/mod.py": "import os\n",
    "other/b.py": "import re\ny = None\nif y == None:\n    pass\n",
}


def test_nested_config_matches_ruff_on_a_checkout_of_the_same_tree(
    tmp_path: Path, ruff: str, homes: dict[str, str]
) -> None:
    repo = new_repo(tmp_path / "r", NESTED)
    # The work tree says something else everywhere; only the index counts.
    (repo / "pkg" / "ruff.toml").write_text(IGNORE_ALL)
    (repo / "other" / "ruff.toml").write_text(IGNORE_ALL)
    code, report = _gate(repo, homes, "commit")
    assert code == 1, report["gate"]

    checkout = tmp_path / "checkout"
    git(repo, "checkout-index", "-a", f"--prefix={checkout}/")
    out = subprocess.run(
        [ruff, "check", "--no-fix", "--no-cache", "--output-format", "json", "."],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
    )
    expected = sorted(
        (
            os.path.relpath(item["filename"], checkout).replace(os.sep, "/"),
            item["code"],
            item["location"]["row"],
        )
        for item in json.loads(out.stdout)
    )
    got = sorted(
        (f["path"], f["rule"], f["line"]) for f in report["findings"] if f["checker"] == "ruff"
    )
    assert got == expected
    assert ("pkg/tests/test_a.py", "F401", 1) not in got  # the relative per-file ignore held
    assert ("other/b.py", "E711", 3) in got


def test_ci_policy_is_the_stricter_of_parent_and_revision(
    tmp_path: Path, ruff: str, homes: dict[str, str]
) -> None:
    repo = new_repo(tmp_path / "r", {"bad.py": BAD_PY, "orchestrate.toml": WEAKEN_ORCHESTRATE})
    git(repo, "commit", "-q", "-m", "weaken and add a finding in one commit")
    (repo / "ruff.toml").write_text(IGNORE_ALL)  # untracked: never read by gate ci
    code, report = _gate(repo, homes, "ci", "--rev", "HEAD")
    assert code == 1, report["gate"]
    assert _rules(report) == [("bad.py", "F401")]
    reasons = " ".join(report["gate"]["reasons"])
    assert "orchestrate settings" in reasons and "orchestrate.toml" in reasons
    assert any("disable_plugins, required" in n for n in report["notes"])


def test_ci_root_commit_judges_with_its_own_policy(
    tmp_path: Path, ruff: str, homes: dict[str, str]
) -> None:
    repo = new_repo(tmp_path / "r", initial_commit=False)
    stage(repo, {"a.py": GOOD_PY, "bad.py": BAD_PY, "ruff.toml": 'lint.ignore = ["F401"]\n'})
    git(repo, "commit", "-q", "-m", "root")
    (repo / "ruff.toml").write_text('lint.select = ["ALL"]\n')  # unstaged: ignored
    code, report = _gate(repo, homes, "ci")
    assert code == 0, report["gate"]
    assert _rules(report) == []


def test_push_judges_the_pushed_commit_not_the_work_tree(
    tmp_path: Path, ruff: str, homes: dict[str, str]
) -> None:
    repo = new_repo(tmp_path / "r")
    add_remote(repo, tmp_path / "remote.git")
    base = git(repo, "rev-parse", "HEAD").strip()
    stage(repo, {"bad.py": BAD_PY, "orchestrate.toml": WEAKEN_ORCHESTRATE})
    git(repo, "commit", "-q", "-m", "weaken")
    tip = git(repo, "rev-parse", "HEAD").strip()
    (repo / "ruff.toml").write_text(IGNORE_ALL)  # untracked
    line = f"refs/heads/main {tip} refs/heads/main {base}\n"
    code, report = _gate(repo, homes, "push", "origin", str(tmp_path / "remote.git"), stdin=line)
    assert code == 1, report["gate"]
    assert _rules(report) == [("bad.py", "F401")]
    assert any("orchestrate settings" in r for r in report["gate"]["reasons"])


def test_both_sides_disabling_a_plugin_is_honoured(
    tmp_path: Path, ruff: str, homes: dict[str, str]
) -> None:
    repo = new_repo(tmp_path / "r", {"orchestrate.toml": WEAKEN_ORCHESTRATE})
    git(repo, "commit", "-q", "-m", "committed policy: python needs syntax only")
    stage(repo, {"bad.py": BAD_PY})
    code, report = _gate(repo, homes, "commit")
    assert code == 0, report["gate"]
    assert not any(s["checker"] == "ruff" for s in report["scopes"])


def test_user_config_names_tools_and_nothing_else(
    tmp_path: Path, ruff: str, homes: dict[str, str]
) -> None:
    cfg = Path(homes["XDG_CONFIG_HOME"]) / "orchestrate" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('[required]\npython = "none"\n[tools]\nruff = "/nonexistent/bin/ruff"\n')
    repo = new_repo(tmp_path / "r", {"bad.py": BAD_PY})
    code, report = _gate(repo, homes, "commit")
    # The machine's Ruff path is used (and is missing): incomplete, never weakened.
    assert code == 3, report["gate"]
    [scope] = [s for s in report["scopes"] if s["checker"] == "ruff"]
    assert scope["status"] == "missing"
    assert any("only [tools] is read; ignored: required" in n for n in report["notes"])


def test_untracked_tool_path_is_not_read(tmp_path: Path, ruff: str, homes: dict[str, str]) -> None:
    repo = new_repo(tmp_path / "r", {"bad.py": BAD_PY})
    (repo / "orchestrate.toml").write_text('[tools]\nruff = "/nonexistent/bin/ruff"\n')
    code, report = _gate(repo, homes, "commit")
    assert code == 1, report["gate"]
    assert _rules(report) == [("bad.py", "F401")]


def test_strict_gates_never_use_the_reuse_cache(
    tmp_path: Path, ruff: str, homes: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = new_repo(tmp_path / "r", {"bad.py": BAD_PY})
    # A feedback lint fills the reuse cache for the same bytes and config.
    lint = orchestrate(repo, "lint", "bad.py", "--format", "json", env=clean_env(**homes))
    assert lint.returncode == 1, lint.stdout
    cache = reuse.cache_dir(repo)
    stored = sorted(p.name for p in cache.rglob("*")) if cache.exists() else []
    assert stored, "the feedback lint should have stored its result"

    def fake_lookup(*_a: object, **_k: object) -> None:
        raise AssertionError("a strict gate looked up the reuse cache")

    def fake_store(*_a: object, **_k: object) -> bool:
        raise AssertionError("a strict gate stored into the reuse cache")

    monkeypatch.setattr(reuse, "lookup", fake_lookup)
    monkeypatch.setattr(reuse, "store", fake_store)
    for _ in range(2):
        result = gate("commit", timeout=120, cwd=repo)
        assert [s.reused for s in result.report.scopes] == [None] * len(result.report.scopes)
        assert [(f.path, f.rule) for f in result.report.findings if f.checker == "ruff"] == [
            ("bad.py", "F401")
        ]
    assert sorted(p.name for p in cache.rglob("*")) == stored


def test_tree_is_removed_on_error_and_refuses_escaping_paths(
    tmp_path: Path, homes: dict[str, str]
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "node_modules").mkdir()
    target = FileTarget(path="src/a.py", abs_path=project / "src/a.py", content=b"x = 1\n")
    seen: list[Path] = []
    with pytest.raises(RuntimeError), materialised(project, [target], {"ruff.toml": b""}) as tree:
        seen.append(tree.root)
        assert (tree.root / "src/a.py").read_bytes() == b"x = 1\n"
        assert tree.targets[0].on_disk and tree.targets[0].abs_path == tree.root / "src/a.py"
        assert (tree.root / "ruff.toml").is_file()
        assert (tree.root / "node_modules").resolve() == (project / "node_modules").resolve()
        assert oct(tree.root.stat().st_mode & 0o777) == oct(0o700)
        raise RuntimeError("checker blew up")
    assert not seen[0].exists()
    assert (project / "node_modules").is_dir()  # the link went, not what it pointed at

    evil = FileTarget(path="../escape.py", abs_path=project / "x", content=b"")
    with pytest.raises(UnsafePath), materialised(project, [evil], {}):
        pass
    assert not (tmp_path / "escape.py").exists()
    assert _trees(homes) == []


LOCAL_PLUGIN = (
    "module.exports = { rules: { 'no-foo': { meta: { type: 'problem' }, create(ctx) {"
    " return { Identifier(n) { if (n.name === 'foo') ctx.report({ node: n, message: 'no foo' });"
    " } }; } } } };\n"
)


def test_eslint_runs_committed_config_with_the_projects_installed_plugins(
    tmp_path: Path, homes: dict[str, str]
) -> None:
    eslint_path()
    config = (
        'import local from "eslint-plugin-local";\n'
        'export default [{ plugins: { local }, rules: { "local/no-foo": "error" } }];\n'
    )
    repo = new_repo(tmp_path / "r", {"eslint.config.mjs": config, ".gitignore": "node_modules/\n"})
    git(repo, "commit", "-q", "-m", "eslint config")
    plugin = repo / "node_modules" / "eslint-plugin-local"  # installed, not in git
    plugin.mkdir(parents=True)
    (plugin / "package.json").write_text('{"name": "eslint-plugin-local", "main": "index.js"}\n')
    (plugin / "index.js").write_text(LOCAL_PLUGIN)
    stage(repo, {"bad.mjs": "export const foo = 1;\n"})
    (repo / "eslint.config.mjs").write_text("export default [];\n")  # unstaged: ignored
    before = _footprint(repo)
    code, report = _gate(repo, homes, "commit")
    assert code == 1, report["gate"]
    assert [(f["path"], f["rule"]) for f in report["findings"]] == [("bad.mjs", "local/no-foo")]
    assert _footprint(repo) == before
    assert _trees(homes) == []


def test_a_malformed_base_config_is_replaced_by_the_defaults_so_it_can_be_repaired(
    tmp_path: Path, ruff: str, homes: dict[str, str]
) -> None:
    repo = new_repo(tmp_path / "r", {"orchestrate.toml": '[required]\npython = "nativ"\n'})
    git(repo, "commit", "-q", "-m", "typo", "--no-verify")
    stage(repo, {"orchestrate.toml": '[required]\npython = "native"\n', "a.py": GOOD_PY})
    code, report = _gate(repo, homes, "commit")
    assert code == 0, report["gate"]
    assert any("base's orchestrate config is malformed" in n for n in report["notes"])
    # The judged surface's own typo is the user's to fix: a usage error, never a pass.
    stage(repo, {"orchestrate.toml": '[required]\npython = "nativ"\n'})
    res = _human(repo, homes, "commit")
    assert res.returncode == 2, res.stdout + res.stderr
    assert "nativ" in res.stderr


def test_a_staged_secret_allowlist_is_named_as_a_change(
    tmp_path: Path, ruff: str, homes: dict[str, str]
) -> None:
    repo = new_repo(tmp_path / "r", {".orchestrate-secrets-allow": "# none yet\n", "a.py": GOOD_PY})
    code, report = _gate(repo, homes, "commit")
    assert code == 0, report["gate"]
    assert "secret allowlist .orchestrate-secrets-allow added since the base" in " ".join(
        report["notes"]
    )
    assert any(".orchestrate-secrets-allow" in r for r in report["gate"]["reasons"])


def test_tree_is_removed_when_the_gate_times_out_or_is_terminated(
    tmp_path: Path, homes: dict[str, str]
) -> None:
    fake = tmp_path / "fake-ruff"  # fault injection: a Ruff that never answers
    fake.write_text("#!/bin/sh\nsleep 60\n")
    fake.chmod(0o755)
    cfg = Path(homes["XDG_CONFIG_HOME"]) / "orchestrate" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text(f'[tools]\nruff = "{fake}"\n')
    repo = new_repo(tmp_path / "r", {"bad.py": BAD_PY})

    res = orchestrate(repo, "gate", "commit", "--timeout", "2", env=clean_env(**homes))
    # Blocked as incomplete (ruff: timed_out), never allowed nor an internal git fault.
    assert res.returncode == 3, res.stdout + res.stderr
    assert _trees(homes) == []

    proc = subprocess.Popen(
        [str(VENV_BIN / "orchestrate"), "gate", "commit"],
        cwd=repo,
        env=clean_env(**homes),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not _trees(homes) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _trees(homes), "the gate never made its tree"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 143
    finally:
        if proc.poll() is None:
            proc.kill()
    assert _trees(homes) == []
