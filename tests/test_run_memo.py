"""Whole-run reuse in a long-lived process (core/run_memo.py), with real Ruff and the
real tree-sitter fallback: an unchanged tree is answered again with every checked
scope `reused`; any change the run depends on (a file's bytes, even with its size and
mtime put back, a new file, a config, the tool behind a wrapper) checks again, and
the per-file reuse then re-checks exactly what changed. Delivery never replays.

The tool wrapper of the last test is a FAKE (fault injection: it reports a version
of its own), running the real Ruff.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import VENV_BIN, eslint_path, git, new_repo, require_tool, set_machine_tool

from orchestrator.core import reuse, run_memo
from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.model.report import Report
from orchestrator.vocab import Purpose, ScopeStatus

FILES = {
    "app/a.py": "import os\n\nx = 1\n",
    "app/b.py": "y = 2\n",
    "data/c.xml": "<k>1</k>\n",
    "ruff.toml": 'lint.select = ["F"]\n',
}


#: The reports `run_memo.replay` answered in this test (see `_replayed`).
_ANSWERED: list[Report] = []


@pytest.fixture(autouse=True)
def _watch_replays(monkeypatch: pytest.MonkeyPatch) -> None:
    real = run_memo.replay

    def replay(request: run_memo.RequestKey | None) -> Report | None:
        answered = real(request)
        if answered is not None:
            _ANSWERED.append(answered)
        return answered

    _ANSWERED.clear()
    monkeypatch.setattr(run_memo, "replay", replay)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    require_tool("ruff", "pip install ruff", path=str(VENV_BIN / "ruff"))
    require_tool("xmllint", "install libxml2-utils (Debian: apt-get install libxml2-utils)")
    root = new_repo(tmp_path / "proj", FILES)
    git(root, "commit", "-qm", "files")
    # The tree was written a moment ago: the racy-write margin would refuse to keep
    # it for two seconds (test_a_tree_written_a_moment_ago_is_not_kept shows that).
    monkeypatch.setattr(reuse, "RACY_NS", 0)
    monkeypatch.setenv(reuse.ENV_SWITCH, "1")
    run_memo.hold()
    try:
        yield root
    finally:
        run_memo.hold(False)


def _lint(root: Path, **kw: object) -> Report:
    return run_lint(LintRequest(project_root=root, paths=["."], cwd=root, **kw))  # type: ignore[arg-type]


def _reused(report: Report) -> dict[tuple[str, str], str | None]:
    return {(s.path, s.checker): s.reused for s in report.scopes if s.status == "checked"}


def _replayed(report: Report) -> bool:
    """Whether the report is a replay: the one `run_memo.replay` answered (every scope
    of a run reused per file looks the same in the report; xmllint's verdict, a
    program's, is reused per file too since its identity is in the fallback's)."""
    replayed = any(r is report for r in _ANSWERED)
    if replayed:
        ts = [s for s in report.scopes if s.checker == "treesitter" and s.status == "checked"]
        assert ts and all(s.reused == reuse.REUSE_REASON for s in ts), ts
    return replayed


def test_an_unchanged_rerun_answers_every_scope_reused(project: Path) -> None:
    first = _lint(project)
    assert not _replayed(first)
    second = _lint(project)
    assert _replayed(second)
    assert set(_reused(second)) == set(_reused(first))
    assert set(_reused(second).values()) == {reuse.REUSE_REASON}
    assert all(s.duration_ms == 0 for s in second.scopes if s.status == ScopeStatus.CHECKED)
    assert [f.model_dump() for f in second.findings] == [f.model_dump() for f in first.findings]
    assert second.coverage == first.coverage
    assert second.generated_at != first.generated_at
    # The caller may change what it got (notes, findings): the kept run is not touched.
    second.notes.append("x")
    second.findings.clear()
    third = _lint(project)
    assert _replayed(third) and "x" not in third.notes and third.findings


def test_an_edit_rechecks_exactly_that_file(project: Path) -> None:
    _lint(project)
    assert _replayed(_lint(project))
    (project / "app/b.py").write_text("import sys\n")
    report = _lint(project)
    assert not _replayed(report)
    ruff = {s.path: s.reused for s in report.scopes if s.checker == "ruff"}
    assert ruff == {"app/a.py": reuse.REUSE_REASON, "app/b.py": None}
    assert any(f.path == "app/b.py" for f in report.findings)


def test_a_rewrite_keeping_size_and_mtime_is_caught(project: Path) -> None:
    """`touch -d` after an edit of the same length: the ctime still moved."""
    target = project / "app/b.py"
    old = target.stat()
    _lint(project)
    assert _replayed(_lint(project))
    target.write_bytes(b"import z\n"[: old.st_size].ljust(old.st_size, b"\n"))
    os.utime(target, ns=(old.st_atime_ns, old.st_mtime_ns))
    assert target.stat().st_size == old.st_size and target.stat().st_mtime_ns == old.st_mtime_ns
    report = _lint(project)
    assert not _replayed(report)
    assert {s.path: s.reused for s in report.scopes if s.checker == "ruff"}["app/b.py"] is None


def test_a_new_file_is_seen(project: Path) -> None:
    _lint(project)
    assert _replayed(_lint(project))
    (project / "app/new.py").write_text("import os\n")  # untracked, not ignored
    report = _lint(project)
    assert not _replayed(report)
    assert "app/new.py" in {s.path for s in report.scopes}


def test_a_config_change_checks_again(project: Path) -> None:
    _lint(project)
    assert _replayed(_lint(project))
    (project / "ruff.toml").write_text('lint.select = ["F", "E"]\n')
    report = _lint(project)
    assert not _replayed(report)
    assert {s.reused for s in report.scopes if s.checker == "ruff"} == {None}


def test_a_change_of_gitignore_checks_again(project: Path) -> None:
    (project / "app/scratch.py").write_text("z = 1\n")  # untracked
    _lint(project)
    assert _replayed(_lint(project))
    (project / ".gitignore").write_text("app/scratch.py\n")
    report = _lint(project)
    assert not _replayed(report)
    assert "app/scratch.py" not in {s.path for s in report.scopes}


def test_delivery_and_switched_off_reuse_never_replay(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for _ in range(3):
        report = _lint(project, purpose=Purpose.DELIVERY)
        assert set(_reused(report).values()) == {None}
    monkeypatch.setenv(reuse.ENV_SWITCH, "0")
    for _ in range(3):
        assert set(_reused(_lint(project)).values()) == {None}


def test_a_cold_process_keeps_nothing(project: Path) -> None:
    run_memo.hold(False)
    _lint(project)
    assert not _replayed(_lint(project))


def test_a_tree_written_a_moment_ago_is_not_kept(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Racy-write rule: a witness whose newest mtime or ctime is within RACY_NS of the
    run is not kept (a write in the same timestamp tick could go unseen)."""
    monkeypatch.setattr(reuse, "RACY_NS", 3600 * 10**9)
    (project / "app/b.py").write_text("y = 3\n")
    _lint(project)
    assert not _replayed(_lint(project))
    monkeypatch.setattr(reuse, "RACY_NS", 0)
    _lint(project)
    assert _replayed(_lint(project))


def test_a_tool_behind_a_wrapper_that_changed_checks_again(project: Path, tmp_path: Path) -> None:
    real = VENV_BIN / "ruff"
    versions = tmp_path / "versions"
    for name, version in (("v1", "ruff 1.0.0"), ("v2", "ruff 2.0.0")):
        fake = versions / name / "ruff"  # fault injection: a Ruff that names its version
        fake.parent.mkdir(parents=True)
        fake.write_text(
            f'#!/bin/sh\nif [ "$1" = "--version" ]; then echo "{version}"; exit 0; fi\n'
            f'exec "{real}" "$@"\n'
        )
        fake.chmod(0o755)
    current = tmp_path / "current"
    current.symlink_to(versions / "v1")
    wrapper = tmp_path / "fake-ruff-shim"
    wrapper.write_text(f'#!/bin/sh\nexec "{current}/ruff" "$@"\n')
    wrapper.chmod(0o755)
    set_machine_tool("ruff", f"{wrapper}")
    _lint(project)
    assert _replayed(_lint(project))
    swapped = tmp_path / "current.new"
    swapped.symlink_to(versions / "v2")
    swapped.replace(current)
    time.sleep(0.01)
    report = _lint(project)
    assert not _replayed(report)
    ruff = [s for s in report.scopes if s.checker == "ruff"]
    assert {s.tool.version for s in ruff if s.tool} == {"ruff 2.0.0"}
    assert {s.reused for s in ruff} == {None}


def test_a_change_in_an_extended_config_outside_the_walked_folder_checks_again(
    project: Path,
) -> None:
    """`app/ruff.toml` extends `../common/base.toml`; a lint of `app` walks `app` only,
    yet the base config decides its findings."""
    (project / "common").mkdir()
    (project / "common/base.toml").write_text('lint.select = ["E"]\n')
    (project / "app/ruff.toml").write_text('extend = "../common/base.toml"\n')
    (project / "app/c.xml").write_text("<k>1</k>\n")  # a fallback scope
    first = run_lint(LintRequest(project_root=project, paths=["app"], cwd=project))
    assert not any(f.rule == "F401" for f in first.findings)
    again = run_lint(LintRequest(project_root=project, paths=["app"], cwd=project))
    assert _replayed(again)
    (project / "common/base.toml").write_text('lint.select = ["F"]\n')
    report = run_lint(LintRequest(project_root=project, paths=["app"], cwd=project))
    assert not _replayed(report)
    assert any(f.rule == "F401" and f.path == "app/a.py" for f in report.findings)


def _fake_bash(path: Path, body: str) -> None:
    """FAKE bash (fault injection): says a real version, then runs `body` for `-n`.
    Rewritten in place, as an installer copying over the program does (its folder's
    listing does not change)."""
    text = (
        '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "GNU bash, version 5.2.15(1)"; '
        f"exit 0; fi\n{body}\n"
    )
    with open(path, "r+b" if path.exists() else "wb") as fh:
        fh.write(text.encode().ljust(200, b"\n"))
    path.chmod(0o755)


BROKEN_SH = "#!/bin/bash\nif true; then\n  echo x\n"


def _parser_project(root: Path, fake: Path) -> Path:
    # c.xml: a file the fallback checks with a program's verdict (xmllint). The
    # shellcheck recipe is switched off: the fallback judges run.sh, as it does for a
    # user without shellcheck.
    files = {"run.sh": BROKEN_SH, "c.xml": "<k>1</k>\n"}
    new_repo(root, {**files, "orchestrate.toml": 'disable_plugins = ["recipes"]\n'})
    set_machine_tool("bash", f"{fake}")
    git(root, "commit", "-qm", "files")
    return root


def _syntax(report: Report) -> tuple[str | None, str | None]:
    scope = next(s for s in report.scopes if s.path == "run.sh" and s.checker == "treesitter")
    return (scope.syntax_evidence, scope.reason)


def test_an_exact_parser_rewritten_in_place_checks_again(project: Path, tmp_path: Path) -> None:
    """The fallback's exact parser (`syntax_parser`) is a tool of the run like a
    scope's `tool`: a new one behind the same path and folder listing is seen."""
    fake = tmp_path / "bin/fake-bash"
    fake.parent.mkdir()
    _fake_bash(fake, "exit 0")  # accepts everything
    root = _parser_project(tmp_path / "sh", fake)
    first = _lint(root)
    assert _syntax(first)[0] == "refuted", _syntax(first)
    assert _replayed(_lint(root))
    _fake_bash(fake, 'exec /bin/bash "$@"')  # the real parser now
    report = _lint(root)
    assert not _replayed(report)
    assert _syntax(report)[0] == "confirmed", _syntax(report)


#: The deadline of a run the parser outlives: each run waits it out, so it is short; the
#: rest of the run (about 0.25 s) must still end well inside it, or its scopes would
#: be timed out and the run left unkept for that reason instead.
DEADLINE_S = 2.0


def test_a_run_that_reached_its_deadline_is_not_kept(project: Path, tmp_path: Path) -> None:
    """A run cut short by its deadline (or a cancelled request) judged less than it
    would have: the next identical request tries again instead of replaying it."""
    fake = tmp_path / "bin/fake-bash"
    fake.parent.mkdir()
    _fake_bash(fake, "sleep 30")  # a parser that outlives the run's deadline
    root = _parser_project(tmp_path / "sh", fake)
    first = _lint(root, timeout=DEADLINE_S)
    assert _syntax(first)[0] == "candidate", _syntax(first)
    assert all(s.status not in run_memo.UNSETTLED for s in first.scopes)
    again = _lint(root, timeout=DEADLINE_S)
    assert not _replayed(again)


def test_a_file_removed_while_the_run_ran_is_not_replayed(project: Path, tmp_path: Path) -> None:
    """A removal leaves no stat behind, only its folder's new mtime: a run during which
    a checked file went away is not kept, so its scope is not answered again."""
    real = VENV_BIN / "ruff"
    gone = project / "app/b.py"
    wrapper = tmp_path / "fake-ruff-removes"  # fault injection: the user removes b.py
    wrapper.write_text(
        '#!/bin/sh\nif [ "$1" = "--version" ]; then exec "' + str(real) + '" "$@"; fi\n'
        f'out=$("{real}" "$@"); rc=$?\nrm -f "{gone}"\nprintf "%s" "$out"\nexit $rc\n'
    )
    wrapper.chmod(0o755)
    set_machine_tool("ruff", f"{wrapper}")
    first = _lint(project)
    assert "app/b.py" in {s.path for s in first.scopes if s.checker == "ruff"}
    assert not gone.exists()
    report = _lint(project)
    assert not _replayed(report)
    assert "app/b.py" not in {s.path for s in report.scopes if s.status == "checked"}


def test_a_module_the_eslint_config_imports_from_another_folder_is_watched(
    project: Path,
) -> None:
    """A flat config is code: `eslint.config.mjs` at the root imports `lint/base.mjs`;
    a lint of `web` alone must still see an edit of that module."""
    eslint_path()
    (project / "lint").mkdir()
    (project / "web").mkdir()
    (project / "web/a.js").write_text("var x = 1;\n")
    (project / "web/c.xml").write_text("<k>1</k>\n")  # a fallback scope
    (project / "lint/base.mjs").write_text('export default { rules: { "no-var": "off" } };\n')
    (project / "eslint.config.mjs").write_text(
        'import base from "./lint/base.mjs";\nexport default [base];\n'
    )
    first = run_lint(LintRequest(project_root=project, paths=["web"], cwd=project))
    eslint = [s for s in first.scopes if s.checker == "eslint"]
    assert [s.status for s in eslint] == ["checked"], eslint
    assert not [f for f in first.findings if f.checker == "eslint"]
    assert _replayed(run_lint(LintRequest(project_root=project, paths=["web"], cwd=project)))
    (project / "lint/base.mjs").write_text('export default { rules: { "no-var": "error" } };\n')
    report = run_lint(LintRequest(project_root=project, paths=["web"], cwd=project))
    assert not _replayed(report)
    assert [f.rule for f in report.findings if f.checker == "eslint"] == ["no-var"]


def test_a_change_of_the_ignore_file_core_excludesfile_names_checks_again(
    project: Path, tmp_path: Path
) -> None:
    """`core.excludesFile` (a global ignore file, anywhere) decides the selection as
    much as a `.gitignore` does."""
    ignores = tmp_path / "global-ignore"
    ignores.write_text("# none yet\n")
    git(project, "config", "core.excludesFile", str(ignores))
    (project / "app/scratch.py").write_text("z = 1\n")  # untracked
    assert "app/scratch.py" in {s.path for s in _lint(project).scopes}
    assert _replayed(_lint(project))
    ignores.write_text("scratch.py\n")
    report = _lint(project)
    assert not _replayed(report)
    assert "app/scratch.py" not in {s.path for s in report.scopes}
