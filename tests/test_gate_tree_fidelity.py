"""The private tree of a strict gate shows the checkers each file as the judged surface
(the index, a commit's tree) holds it: its mode, whether it is a link and to what, its
name's case, its depth, and the `.gitattributes` files over it.

A checker sees more of a file than its bytes: Ruff's EXE rules and RuboCop's
`Lint/ScriptPermission` read the executable bit, a config file may be a link to a
shared one. A tree that wrote every blob as a plain 0600 file denied a clean commit of
a 100755 script with a shebang (`EXE001 Shebang is present but file is not
executable`). A link is a link in the tree only where its target stays inside the tree:
one that leaves it is not written, or a file outside the judged surface would decide.
Real git, real Ruff and RuboCop, the real CLI for the gate shapes.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from gate_support import clean_env, orchestrate
from helpers import git, new_repo, require_tool, ruff_directly

from orchestrator.gates.materialise import LOCAL_INSTALLS
from orchestrator.usecases.gate import gate

SCRIPT = "#!/usr/bin/env python3\nprint(1)\n"
RUBY_SCRIPT = "#!/usr/bin/env ruby\n# frozen_string_literal: true\n\nputs 'hi'\n"
EXE_RULES = '[tool.ruff.lint]\nselect = ["EXE"]\n'
RUBOCOP_YML = (
    "AllCops:\n  NewCops: disable\n  SuggestExtensions: false\n"
    "Style/FrozenStringLiteralComment:\n  Enabled: false\n"
)


def _executable(repo: Path, *paths: str) -> None:
    """Mark `paths` 100755 on disk and in the index, as `chmod +x && git add` does."""
    for rel in paths:
        (repo / rel).chmod(0o755)
        git(repo, "update-index", "--chmod=+x", "--", rel)


def _gate(repo: Path, homes: dict[str, str], event: str) -> tuple[int, dict[str, Any]]:
    res = orchestrate(repo, "gate", event, "--format", "json", env=clean_env(**homes))
    return res.returncode, json.loads(res.stdout)


def _findings(report: dict[str, Any], checker: str) -> list[tuple[str, str]]:
    return sorted((f["path"], f["rule"]) for f in report["findings"] if f["checker"] == checker)


def _checkout(repo: Path, dest: Path, rev: str | None = None) -> Path:
    """A real checkout of the index (or of `rev`): what the checkers would see there."""
    if rev is None:
        git(repo, "checkout-index", "-a", f"--prefix={dest}/")
    else:
        git(repo, "worktree", "add", "-q", "--detach", str(dest), rev)
    return dest


def _rubocop_directly(root: Path, rubocop: str) -> list[tuple[str, str]]:
    out = subprocess.run(
        [rubocop, "--format", "json", "--cache", "false", "--force-exclusion"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    return sorted(
        (f["path"], o["cop_name"]) for f in json.loads(out.stdout)["files"] for o in f["offenses"]
    )


@pytest.mark.e2e
def test_an_executable_script_with_a_shebang_passes_gate_commit_and_ci(
    tmp_path: Path, homes: dict[str, str]
) -> None:
    """Failed before: the tree wrote `bin/tool.py` 0600, so Ruff reported EXE001 on a
    clean commit and the gate denied it. The 100644 script keeps its EXE001, as Ruff
    run directly on a checkout reports it."""
    repo = new_repo(
        tmp_path / "r",
        {"pyproject.toml": EXE_RULES, "bin/tool.py": SCRIPT, "scripts/plain.py": SCRIPT},
    )
    _executable(repo, "bin/tool.py")
    expected = ruff_directly(_checkout(repo, tmp_path / "index"))
    assert expected == [("scripts/plain.py", "EXE001")]
    code, report = _gate(repo, homes, "commit")
    assert _findings(report, "ruff") == expected, report["gate"]
    assert code == 1  # the 100644 script's EXE001 blocks, nothing else does
    git(repo, "rm", "-q", "--cached", "scripts/plain.py")
    code, report = _gate(repo, homes, "commit")
    assert code == 0 and _findings(report, "ruff") == [], report["gate"]

    git(repo, "commit", "-q", "-m", "tool")
    code, report = _gate(repo, homes, "ci")
    assert code == 0 and _findings(report, "ruff") == [], report["gate"]


@pytest.mark.e2e
def test_rubocop_script_permission_sees_the_committed_mode(
    tmp_path: Path, homes: dict[str, str]
) -> None:
    """Failed before: RuboCop's Lint/ScriptPermission saw every script as 0600."""
    rubocop = require_tool("rubocop", "apt-get install rubocop (./run setup does)")
    repo = new_repo(
        tmp_path / "r",
        {".rubocop.yml": RUBOCOP_YML, "bin/run.rb": RUBY_SCRIPT, "lib/plain.rb": RUBY_SCRIPT},
    )
    _executable(repo, "bin/run.rb")
    git(repo, "commit", "-q", "-m", "scripts")
    expected = _rubocop_directly(_checkout(repo, tmp_path / "co", "HEAD"), rubocop)
    assert expected == [("lib/plain.rb", "Lint/ScriptPermission")]
    _code, report = _gate(repo, homes, "ci")
    assert _findings(report, "rubocop") == expected, report["gate"]


def _snapshot(root: Path) -> dict[str, tuple[str, ...]]:
    """Every entry under `root` (the linked installs aside): path -> ("link", target)
    or ("file", "100755" | "100644", bytes), as a checker sees it (lstat, never
    followed)."""
    out: dict[str, tuple[str, ...]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in LOCAL_INSTALLS]
        for name in files + [d for d in os.listdir(folder) if os.path.islink(Path(folder, d))]:
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix()
            st = path.lstat()
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(path))
            else:
                mode = "100755" if st.st_mode & stat.S_IXUSR else "100644"
                out[rel] = ("file", mode, path.read_bytes().decode())
    return out


def _surface(repo: Path, rev: str | None) -> dict[str, tuple[str, ...]]:
    """The same view of the judged surface, from git: the index, or `rev`'s tree."""
    args = ["ls-files", "-s", "-z"] if rev is None else ["ls-tree", "-r", "-z", rev]
    out: dict[str, tuple[str, ...]] = {}
    for row in git(repo, *args).split("\0"):
        if not row:
            continue
        meta, path = row.split("\t", 1)
        # ls-files -s: "mode oid stage"; ls-tree: "mode type oid".
        fields = meta.split()
        mode, oid = fields[0], fields[1] if rev is None else fields[2]
        if mode == "120000":
            out[path] = ("link", git(repo, "cat-file", "blob", oid))
        else:
            out[path] = ("file", mode, git(repo, "cat-file", "blob", oid))
    return out


FIDELITY_TREE = {
    "pyproject.toml": EXE_RULES,
    "config/ruff.toml": 'lint.select = ["EXE", "F"]\n',
    "bin/tool.py": SCRIPT,
    "scripts/plain.py": SCRIPT,
    "pkg/Deep/Nested/Mod_Name.PY.py": "x = 1\n",
    "pkg/Deep/.gitattributes": "*.py text eol=lf\n",
    "pkg/deep/lower.py": "y = 2\n",  # a folder differing only in case
    ".gitattributes": "* text=auto\n",
    "outside.py": "x = 1\n",
}
LINKS = {
    "pkg/ruff.toml": "../config/ruff.toml",  # a shared config: a link inside the tree
    "bin/tool_link.py": "tool.py",
    "pkg/escape.py": "../../outside.py",  # leaves the repository
    "pkg/absolute.py": "/etc/hostname",
    # Never links in the tree: git does not follow a linked attributes file, and only
    # the reviewed bytes of the secret allowlist count.
    "pkg/.gitattributes": "../.gitattributes",
    ".orchestrate-secrets-allow": "config/allow.txt",
}


@pytest.mark.parametrize("event", ["commit", "ci"])
def test_every_property_a_checker_sees_matches_the_judged_surface(
    tmp_path: Path, homes: dict[str, str], monkeypatch: pytest.MonkeyPatch, event: str
) -> None:
    """Failed before: modes were lost (all 0600) and links were left out of the tree.
    Each entry's kind, mode, bytes (the `.gitattributes` files among them), name and
    depth in the tree are the judged surface's."""
    repo = new_repo(tmp_path / "r", FIDELITY_TREE)
    _executable(repo, "bin/tool.py")
    for rel, target in LINKS.items():
        os.symlink(target, repo / rel)
        git(repo, "add", "--", rel)
    rev = None
    if event == "ci":
        git(repo, "commit", "-q", "-m", "tree")
        rev = git(repo, "rev-parse", "HEAD").strip()
    seen: list[dict[str, tuple[str, ...]]] = []

    from orchestrator.core import engine

    real = engine.run_lint

    def spy(req: Any) -> Any:
        seen.append(_snapshot(Path(req.project_root)))
        return real(req)

    monkeypatch.setattr(engine, "run_lint", spy)
    gate(event, timeout=120, cwd=repo)
    assert seen, "the gate ran no round"
    tree = seen[0]
    judged = _surface(repo, rev)
    for rel, what in tree.items():
        assert judged.get(rel) == what, (rel, what, judged.get(rel))
    # Every judged regular file of the round is there; inside links are links.
    staged = {p for p, what in judged.items() if what[0] == "file"}
    if event == "commit":
        staged -= {"README.md"}  # committed before: not in the commit's change
    assert staged <= set(tree), sorted(staged - set(tree))
    assert tree["pkg/ruff.toml"] == ("link", "../config/ruff.toml")
    assert tree["bin/tool_link.py"] == ("link", "tool.py")
    # A link leaving the repository is never written: its target is not judged here.
    assert "pkg/escape.py" not in tree and "pkg/absolute.py" not in tree
    assert "pkg/.gitattributes" not in tree and ".orchestrate-secrets-allow" not in tree


@pytest.mark.e2e
def test_a_linked_config_governs_as_in_a_checkout(tmp_path: Path, homes: dict[str, str]) -> None:
    """Failed before: `pkg/ruff.toml`, a link to a shared config, was left out of the
    tree, so Ruff judged `pkg/` by the root config instead of the linked one."""
    files = {
        "pyproject.toml": '[tool.ruff.lint]\nselect = ["E"]\n',
        "config/ruff.toml": 'lint.select = ["F"]\n',
        "pkg/a.py": "import os\n",
    }
    repo = new_repo(tmp_path / "r", files)
    os.symlink("../config/ruff.toml", repo / "pkg" / "ruff.toml")
    git(repo, "add", "--", "pkg/ruff.toml")
    checkout = _checkout(repo, tmp_path / "index")
    expected = ruff_directly(checkout)
    assert expected == [("pkg/a.py", "F401")]
    shutil.rmtree(checkout)
    _code, report = _gate(repo, homes, "commit")
    assert _findings(report, "ruff") == expected, report["gate"]


@pytest.mark.parametrize(
    ("link", "target", "inside"),
    [
        ("pkg/ruff.toml", "../config/ruff.toml", "config/ruff.toml"),
        ("a.py", "b.py", "b.py"),
        ("pkg/a.py", "./sub/../b.py", "pkg/b.py"),
        ("pkg/a.py", "../../outside.py", None),
        ("a.py", "/etc/hostname", None),
        ("a", "..", None),
        ("pkg/a", "..", None),  # the tree's root itself
        ("pkg/py", ".venv/bin/python", None),  # through a linked install: the real project
        ("x", "node_modules/.bin/eslint", None),
        ("x", "", None),
    ],
)
def test_a_link_is_written_only_when_its_target_stays_inside(
    link: str, target: str, inside: str | None
) -> None:
    from orchestrator.gates.materialise import link_inside

    assert link_inside(link, target) == inside


def test_materialised_writes_modes_and_inside_links_only(tmp_path: Path) -> None:
    from orchestrator.gates.materialise import SurfaceFiles, materialised
    from orchestrator.model.checker import FileTarget

    project = tmp_path / "p"
    project.mkdir()
    targets = [
        FileTarget(path="bin/x.py", abs_path=project / "bin/x.py", content=b"#!/bin/sh\n"),
        FileTarget(path="y.py", abs_path=project / "y.py", content=b"y = 1\n"),
    ]
    files = SurfaceFiles(
        modes={"bin/x.py": "100755", "y.py": "100644", "shared/c.toml": "100755"},
        links={"bin/link.py": "x.py", "c.toml": "shared/c.toml", "esc.py": "../esc.py"},
        link_targets={"shared/c.toml": b"c = 1\n"},
    )
    with materialised(project, targets, {}, files) as tree:
        root = tree.root
        assert (root / "bin/x.py").stat().st_mode & 0o777 == 0o700
        assert (root / "y.py").stat().st_mode & 0o777 == 0o600
        assert (root / "shared/c.toml").stat().st_mode & 0o777 == 0o700
        assert os.readlink(root / "bin/link.py") == "x.py"
        assert (root / "c.toml").read_bytes() == b"c = 1\n"
        assert not os.path.lexists(root / "esc.py")
