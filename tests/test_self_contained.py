"""The repository stands on its own: tests read only what the checkout carries.

The session guard (tests/sibling_guard.py, armed by the root conftest) refuses reads
beside the checkout; these tests prove it decides right, that it bites, and that a test
which swallows the refusal still fails by name. Child processes escape an audit hook, so
a grep over the tree closes that gap.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import sibling_guard
from helpers import REPO, SCENARIOS, SCHEMAS
from sibling_guard import GuardState, is_sibling_path

# Built from parts so this file does not match its own grep.
SPEC_FOLDER = "sha" + "red"
_FORBIDDEN = re.compile(
    r"\.\./" + SPEC_FOLDER + r"\b"  # ../<spec folder>
    r"|[\"']" + SPEC_FOLDER + r"[\"']\s*\)?\s*/"  # "<spec folder>" / ...
    r"|/\s*[\"']" + SPEC_FOLDER + r"[\"']"  # ... / "<spec folder>"
    r"|\b" + SPEC_FOLDER + r"/(?:schemas|host-schemas|SCENARIOS|DESIGN|STYLE|seeds|hooks|tools)"
)
SCANNED = ["tests", "conformance", "orchestrator", "plugins", "bench", "docs", "examples", ".ci"]
SCANNED_FILES = ["run", "README.md", "pyproject.toml", "conftest.py"]
SKIP_PARTS = {"node_modules", "__pycache__", ".venv", "corpus", ".git", "payloads"}

FAKE = GuardState(
    repo_roots=("/x/repo",),
    parents=("/x",),
    allowed=("/x/tmpbase", "/x/venv"),
)


@pytest.mark.parametrize(
    ("path", "sibling"),
    [
        ("/x/" + SPEC_FOLDER + "/DESIGN.md", True),
        ("/x/main/.git/HEAD", True),
        ("/x", True),  # listing the parent shows the siblings
        ("/x/repo2/a.py", True),  # a name that merely starts like the repo
        ("/x/repo", False),
        ("/x/repo/schemas/codex/stop.command.output.schema.json", False),
        ("/x/repo/../repo/a.py", False),
        ("/x/repo/../" + SPEC_FOLDER + "/a", True),
        ("/x/tmpbase/pytest-0/t/a.py", False),
        ("/x/venv/lib/python3.11/site-packages/x.py", False),
        ("/usr/lib/python3.11/os.py", False),
        ("/proc/self/status", False),
        ("/etc/hosts", False),
        ("/", False),
    ],
)
def test_guard_decides_on_synthetic_paths(path: str, sibling: bool) -> None:
    assert is_sibling_path(path, FAKE) is sibling


def test_an_allowed_folder_above_the_parent_does_not_excuse_siblings() -> None:
    cloned_in_tmp = GuardState(repo_roots=("/tmp/a/repo",), parents=("/tmp/a",), allowed=("/tmp",))
    assert is_sibling_path("/tmp/a/" + SPEC_FOLDER + "/DESIGN.md", cloned_in_tmp)
    assert not is_sibling_path("/tmp/pytest-of-root/pytest-1/t/a.py", cloned_in_tmp)
    assert not is_sibling_path("/tmp/a/repo/a.py", cloned_in_tmp)
    # With the checkout directly in the temporary folder, its entries cannot be told apart.
    in_tmp = GuardState(repo_roots=("/tmp/repo",), parents=("/tmp",), allowed=("/tmp",))
    assert not is_sibling_path("/tmp/tmpab12/x", in_tmp)


def test_guard_resolves_relative_paths_from_the_working_directory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "getcwd", lambda: "/x/repo/tests")
    assert not is_sibling_path("helpers.py", FAKE)
    assert is_sibling_path("../../" + SPEC_FOLDER + "/SCENARIOS.md", FAKE)


@pytest.fixture
def fake_checkout(tmp_path: Path) -> Iterator[Path]:
    """A checkout and a sibling folder, both inside tmp_path, with the guard pointed at
    them for the test's duration (nothing is created beside the real checkout)."""
    repo, sibling = tmp_path / "repo", tmp_path / "sibling"
    repo.mkdir()
    sibling.mkdir()
    (sibling / "DESIGN.md").write_text("spec\n")
    (repo / "own.txt").write_text("own\n")
    saved = replace(sibling_guard.STATE, violations=[])
    sibling_guard.STATE.repo_roots = (str(repo),)
    sibling_guard.STATE.parents = (str(tmp_path),)
    sibling_guard.STATE.allowed = ()
    try:
        yield repo
    finally:
        for name in ("repo_roots", "parents", "allowed"):
            setattr(sibling_guard.STATE, name, getattr(saved, name))


def test_guard_refuses_and_records_a_read_beside_the_checkout(fake_checkout: Path) -> None:
    assert sibling_guard.STATE.armed
    assert (fake_checkout / "own.txt").read_text() == "own\n"
    with pytest.raises(PermissionError, match="outside the repository"):
        (fake_checkout.parent / "sibling" / "DESIGN.md").read_text()
    with pytest.raises(PermissionError):
        os.listdir(fake_checkout.parent / "sibling")
    with pytest.raises(PermissionError):
        os.scandir(fake_checkout.parent)
    # Taken here, so this test does not fail on purpose.
    seen = sibling_guard.take_violations()
    assert len(seen) == 3 and "DESIGN.md" in seen[0]


def test_guard_refuses_the_real_specification_folder() -> None:
    target = REPO.parent / SPEC_FOLDER / "DESIGN.md"
    if not sibling_guard.STATE.parents or not is_sibling_path(str(target), sibling_guard.STATE):
        pytest.skip("the checkout's parent is the temporary folder itself")
    if not target.exists():  # stat is not audited: checking existence is not a read
        pytest.skip("nothing beside this checkout")
    with pytest.raises(PermissionError):
        target.read_text()
    assert sibling_guard.take_violations()


_PROBE = """
import contextlib
from pathlib import Path

import sibling_guard


def test_probe(tmp_path: Path) -> None:
    (tmp_path / "sibling").mkdir()
    (tmp_path / "sibling" / "DESIGN.md").write_text("spec")
    sibling_guard.STATE.repo_roots = (str(tmp_path / "repo"),)
    sibling_guard.STATE.parents = (str(tmp_path),)
    sibling_guard.STATE.allowed = ()
    with contextlib.suppress(OSError):
        (tmp_path / "sibling" / "DESIGN.md").read_text()
"""


def test_a_swallowed_refusal_still_fails_the_test(tmp_path: Path) -> None:
    # A child pytest whose conftest is the root conftest, run on a probe test that reads
    # a sibling and swallows the refusal: the recorded violation must still fail it.
    root = str(REPO / "conftest.py")
    (tmp_path / "conftest.py").write_text(
        "import runpy\n"
        f"ns = runpy.run_path({root!r})\n"
        "globals().update({k: v for k, v in ns.items() if not k.startswith('__')})\n"
    )
    (tmp_path / "test_probe.py").write_text(_PROBE)
    res = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"),
            *("-o", "addopts=", "--rootdir", str(tmp_path), str(tmp_path / "test_probe.py")),
            # Its own temporary root: a pytest given none, on exit, deletes the old runs'
            # folders in the machine's shared one (tens of seconds after a full tier).
            *("--basetemp", str(tmp_path / "basetemp")),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert res.returncode == 1, res.stdout + res.stderr
    assert "test_probe.py::test_probe read outside the repository" in res.stdout
    assert "1 failed" in res.stdout


def _scanned_files() -> Iterator[Path]:
    for name in SCANNED_FILES:
        if (REPO / name).is_file():
            yield REPO / name
    for folder in SCANNED:
        for path in sorted((REPO / folder).rglob("*")):
            if path.is_file() and not SKIP_PARTS.intersection(path.relative_to(REPO).parts):
                yield path


def test_nothing_in_the_tree_builds_a_path_beside_the_checkout() -> None:
    hits = []
    for path in _scanned_files():
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        for lineno, line in enumerate(text.splitlines(), 1):
            if _FORBIDDEN.search(line):
                hits.append(f"{path.relative_to(REPO)}:{lineno}: {line.strip()}")
    assert not hits, "paths beside the checkout:\n" + "\n".join(hits)


def test_the_grep_recognises_the_forms_it_forbids() -> None:
    folder = SPEC_FOLDER
    for bad in (
        f"see ../{folder}/SCENARIOS.md",
        f'REPO.parent / "{folder}" / "schemas"',
        f"Path('{folder}') / 'x'",
        f"{folder}/host-schemas/codex",
    ):
        assert _FORBIDDEN.search(bad), bad
    for fine in ("a shared extension", "shared = tasks.sync()", "URLSession.shared.data"):
        assert not _FORBIDDEN.search(fine), fine


def test_the_carried_copies_are_present() -> None:
    assert (SCHEMAS / "sarif" / "sarif-schema-2.1.0.json").is_file()
    assert len(list((SCHEMAS / "codex").glob("*.schema.json"))) == 9
    for folder in ("sarif", "codex"):
        source = (SCHEMAS / folder / "SOURCE.md").read_text()
        assert "Licence" in source and "https://github.com/" in source
    ids = re.findall(r"^\| ((?:RS|CG)-\d{2}) \|", SCENARIOS.read_text(), re.M)
    assert len(ids) == 52
