"""Identity-keyed reuse of fast feedback, through the real engine and real Ruff.

A fake ruff (fault injection: it lies about its version) wraps the real one.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import VENV_BIN, require_tool

from orchestrator.core import reuse
from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.decisions.coverage import REUSABLE_STATUSES
from orchestrator.model.checker import FileOutcome, FileTarget
from orchestrator.model.report import Finding, Report, Scope
from orchestrator.vocab import Purpose, ScopeStatus

SRC = "import os\n\nx = 1\n"


def _ruff() -> str:
    return require_tool("ruff", "pip install ruff", path=str(VENV_BIN / "ruff"))


def _lint(root: Path, **kw: object) -> Report:
    return run_lint(LintRequest(project_root=root, paths=["a.py"], cwd=root, **kw))  # type: ignore[arg-type]


def _ruff_scope(report: Report) -> Scope:
    (scope,) = [s for s in report.scopes if s.checker == "ruff"]
    return scope


@pytest.fixture
def project(tmp_path: Path) -> Path:
    _ruff()
    (tmp_path / "a.py").write_text(SRC)
    return tmp_path


def test_same_edit_twice_reuses_and_says_so(project: Path) -> None:
    first = _lint(project)
    assert _ruff_scope(first).status == ScopeStatus.CHECKED
    assert _ruff_scope(first).reused is None
    second = _lint(project)
    scope = _ruff_scope(second)
    assert scope.status == ScopeStatus.CHECKED
    assert scope.reused == reuse.REUSE_REASON == "identity equal"
    assert [f.model_dump() for f in second.findings] == [f.model_dump() for f in first.findings]
    assert scope.tool == _ruff_scope(first).tool


def test_one_byte_invalidates(project: Path) -> None:
    _lint(project)
    (project / "a.py").write_text(SRC + " ")
    assert _ruff_scope(_lint(project)).reused is None
    assert _ruff_scope(_lint(project)).reused == reuse.REUSE_REASON


def test_ruff_config_change_invalidates(project: Path) -> None:
    (project / "ruff.toml").write_text('[lint]\nselect = ["F"]\n')
    _lint(project)
    assert _ruff_scope(_lint(project)).reused == reuse.REUSE_REASON
    (project / "ruff.toml").write_text('[lint]\nselect = ["F", "E"]\n')
    assert _ruff_scope(_lint(project)).reused is None


def _fake_ruff(path: Path, version: str) -> None:
    path.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "--version" ]; then echo "ruff {version}"; exit 0; fi\n'
        f'exec "{_ruff()}" "$@"\n'
    )
    path.chmod(0o755)


def test_ruff_version_change_invalidates(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    fake = tmp_path_factory.mktemp("bin") / "fake_ruff"
    _fake_ruff(fake, "0.0.1")
    tools = {"ruff": str(fake)}
    first = _lint(project, tools=tools)
    assert _ruff_scope(first).tool.version == "ruff 0.0.1"  # type: ignore[union-attr]
    assert _ruff_scope(_lint(project, tools=tools)).reused == reuse.REUSE_REASON
    _fake_ruff(fake, "0.0.2")
    st = fake.stat()
    os.utime(fake, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
    changed = _lint(project, tools=tools)
    assert _ruff_scope(changed).tool.version == "ruff 0.0.2"  # type: ignore[union-attr]
    assert _ruff_scope(changed).reused is None


def test_delivery_never_reuses(project: Path) -> None:
    _lint(project)
    _lint(project, purpose=Purpose.DELIVERY)
    assert _ruff_scope(_lint(project, purpose=Purpose.DELIVERY)).reused is None


def test_cache_is_safe_to_delete_and_corrupt_entries_are_misses(project: Path) -> None:
    _lint(project)
    shutil.rmtree(reuse.cache_dir(project))
    assert _ruff_scope(_lint(project)).reused is None
    index = reuse.index_path(project)
    assert [p.name for p in reuse.cache_dir(project).iterdir()] == [index.name]
    index.write_text('{"schema": "orchestrate.reuse/3", "entries": ')
    report = _lint(project)
    assert _ruff_scope(report).reused is None
    assert _ruff_scope(report).status == ScopeStatus.CHECKED
    header = index.read_text().splitlines()[0]
    assert json.loads(header)["schema"] == reuse.INDEX_SCHEMA  # rewritten whole
    assert _ruff_scope(_lint(project)).reused == reuse.REUSE_REASON


def test_switch_off(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _lint(project)
    monkeypatch.setenv(reuse.ENV_SWITCH, "0")
    assert _ruff_scope(_lint(project)).reused is None


def _parts(**kw: str) -> reuse.KeyParts:
    base = {
        "source_digest": "s",
        "config_digest": "c",
        "tool_path": "/t",
        "tool_version": "1",
        "rules": "r",
        "path": "a.py",
        "checker": "ruff",
        "purpose": "feedback",
    }
    base.update(kw)
    return reuse.KeyParts(**base)


@pytest.mark.parametrize(
    "status", [s for s in ScopeStatus if s not in REUSABLE_STATUSES], ids=lambda s: str(s)
)
def test_incomplete_results_are_never_stored(tmp_path: Path, status: ScopeStatus) -> None:
    outcome = FileOutcome(path="a.py", checker="ruff", status=status)
    assert reuse.store(tmp_path, _parts(), outcome) is False
    assert reuse.lookup(tmp_path, _parts()) is None


@pytest.mark.parametrize("status", sorted(REUSABLE_STATUSES), ids=lambda s: str(s))
def test_complete_results_are_stored_unless_their_checker_refuses(
    tmp_path: Path, status: ScopeStatus
) -> None:
    """`checked` and the fallback's `unqualified` (a complete parse) are kept and handed
    back as they were; an outcome marked `reusable=False` is not kept."""
    outcome = FileOutcome(path="a.py", checker="ruff", status=status, reason="why")
    assert reuse.store(tmp_path, _parts(), outcome.with_(reusable=False)) is False
    assert reuse.lookup(tmp_path, _parts()) is None
    assert reuse.store(tmp_path, _parts(), outcome)
    hit = reuse.lookup(tmp_path, _parts())
    assert hit is not None
    assert (hit.outcome.status, hit.outcome.reason) == (status, "why")


def test_every_identity_part_matters(tmp_path: Path) -> None:
    outcome = FileOutcome(path="a.py", checker="ruff", status=ScopeStatus.CHECKED)
    assert reuse.store(tmp_path, _parts(), outcome)
    assert reuse.lookup(tmp_path, _parts()) is not None
    for field in ("source_digest", "config_digest", "tool_path", "tool_version", "rules"):
        assert reuse.lookup(tmp_path, _parts(**{field: "other"})) is None, field
    assert reuse.lookup(tmp_path, _parts(completeness="partial")) is None
    assert reuse.lookup(tmp_path, _parts(), max_age_s=-1) is None
    assert reuse.store(tmp_path, _parts(purpose="delivery"), outcome) is False


def test_cache_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reuse, "MAX_ENTRIES", 16)
    outcome = FileOutcome(path="a.py", checker="ruff", status=ScopeStatus.CHECKED)
    index = reuse.ReuseIndex.load(tmp_path)
    for i in range(reuse.MAX_ENTRIES * 4):
        path = f"m{i}.py"
        reuse.store(index, _parts(path=path), outcome.with_(path=path))
    assert index.save()
    assert len(reuse.ReuseIndex.load(tmp_path).entries) == reuse.MAX_ENTRIES
    # The newest results are the ones kept.
    assert reuse.lookup(tmp_path, _parts(path=path)) is not None
    assert reuse.lookup(tmp_path, _parts(path="m0.py")) is None


# --- the persistent index: a cold process answers an unchanged tree from one file ----


def _aged(root: Path, seconds: float = 600.0) -> None:
    """Every file's mtime set `seconds` in the past: old enough for its stat to be kept."""
    past = time.time() - seconds
    for f in root.rglob("*.py"):
        os.utime(f, (past, past))


def _tree(root: Path, n: int) -> None:
    for i in range(n):
        folder = root / f"pkg{i % 7}"
        folder.mkdir(exist_ok=True)
        (folder / f"m{i}.py").write_text(f"import os\n\nvalue_{i} = {i}\n")


def _lint_all(root: Path) -> Report:
    return run_lint(LintRequest(project_root=root, paths=["."], cwd=root))


def test_a_tree_larger_than_the_old_cache_is_reused_whole(tmp_path: Path) -> None:
    # The slot cache held 512 results, and a run with more files skipped it entirely.
    _ruff()
    _tree(tmp_path, 600)
    first = _lint_all(tmp_path)
    ruff = [s for s in first.scopes if s.checker == "ruff"]
    assert len(ruff) == 600 and all(s.reused is None for s in ruff)
    second = _lint_all(tmp_path)
    again = [s for s in second.scopes if s.checker == "ruff"]
    assert [s.reused for s in again] == [reuse.REUSE_REASON] * 600
    assert [s.status for s in again] == [ScopeStatus.CHECKED] * 600
    assert [f.model_dump() for f in second.findings] == [f.model_dump() for f in first.findings]
    assert [p.name for p in reuse.cache_dir(tmp_path).iterdir()] == [reuse.INDEX_NAME]


def test_an_unchanged_file_is_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _ruff()
    _tree(tmp_path, 20)
    _aged(tmp_path)
    _lint_all(tmp_path)
    digested: list[str] = []
    real = FileTarget.digest

    def spy(self: FileTarget) -> str:
        digested.append(self.path)
        return real(self)

    monkeypatch.setattr(FileTarget, "digest", spy)
    report = _lint_all(tmp_path)
    assert {s.reused for s in report.scopes if s.checker == "ruff"} == {reuse.REUSE_REASON}
    assert digested == []  # the stat kept with each entry stood in for the bytes
    # A touched file (same bytes, new mtime) is read, found equal, and reused.
    touched = tmp_path / "pkg0" / "m0.py"
    os.utime(touched, (time.time() - 300, time.time() - 300))
    report = _lint_all(tmp_path)
    assert digested == ["pkg0/m0.py"]
    assert all(s.reused for s in report.scopes if s.checker == "ruff")


def test_a_rewrite_keeping_size_and_mtime_is_still_seen(tmp_path: Path) -> None:
    _ruff()
    (tmp_path / "a.py").write_text("import os\n")
    _aged(tmp_path)
    assert _lint(tmp_path).findings
    st = (tmp_path / "a.py").stat()
    (tmp_path / "a.py").write_text("x = 12345\n")  # as long as "import os\n"
    os.utime(tmp_path / "a.py", ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime put back
    assert (tmp_path / "a.py").stat().st_size == st.st_size
    report = _lint(tmp_path)
    assert _ruff_scope(report).reused is None
    assert report.findings == []


def test_a_recently_written_file_is_digested_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Racily clean: written within the timestamp tick margin, its stat cannot tell a
    # later write in the same tick apart, so it is never trusted for it.
    _ruff()
    (tmp_path / "a.py").write_text(SRC)
    _lint(tmp_path)
    entry = reuse.ReuseIndex.load(tmp_path).get("a.py", "ruff")
    assert entry is not None and entry["stat"] is None
    assert _ruff_scope(_lint(tmp_path)).reused == reuse.REUSE_REASON
    _aged(tmp_path)
    _lint(tmp_path)  # now old enough: the stat is kept with the entry
    entry = reuse.ReuseIndex.load(tmp_path).get("a.py", "ruff")
    assert entry is not None and entry["stat"] == reuse.stat_key((tmp_path / "a.py").stat())


def _rewrite_entry(path: Path, key: str, damage: Callable[[dict[str, Any]], None]) -> None:
    """Rewrite the index line of `key` with `damage` applied to its fields (`at`,
    `stat`, `parts`, `outcome`), the way a tampering writer would."""
    lines = path.read_bytes().splitlines(keepends=True)
    for i, line in enumerate(lines[1:], start=1):  # after the header
        head, _tab, body = line.rstrip(b"\n").partition(b"\t")
        k, at, stat, digest = json.loads(head)
        if k == key:
            entry = {**json.loads(body), "at": at, "stat": stat}
            damage(entry)
            new_head = json.dumps([k, entry.pop("at"), entry.pop("stat"), digest])
            lines[i] = new_head.encode() + b"\t" + json.dumps(entry).encode() + b"\n"
    path.write_bytes(b"".join(lines))


@pytest.mark.parametrize(
    "damage",
    [
        lambda e: e["outcome"]["findings"].append({"rule": 1}),
        lambda e: e["outcome"]["scope"].update(status="timed_out"),
        lambda e: e.update(at="yesterday"),
        lambda e: e["outcome"].update(notes=[1]),
    ],
    ids=["malformed finding", "incomplete status", "bad time", "bad notes"],
)
def test_a_tampered_entry_is_a_miss_and_is_replaced(tmp_path: Path, damage: object) -> None:
    _ruff()
    (tmp_path / "a.py").write_text(SRC)
    _aged(tmp_path)
    first = _lint(tmp_path)
    _rewrite_entry(reuse.index_path(tmp_path), "ruff\x00a.py", damage)  # type: ignore[arg-type]
    report = _lint(tmp_path)
    assert _ruff_scope(report).reused is None
    assert [f.model_dump() for f in report.findings] == [f.model_dump() for f in first.findings]
    assert _ruff_scope(_lint(tmp_path)).reused == reuse.REUSE_REASON


def test_an_oversized_index_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _ruff()
    (tmp_path / "a.py").write_text(SRC)
    _lint(tmp_path)
    monkeypatch.setattr(reuse, "MAX_INDEX_BYTES", 64)
    assert _ruff_scope(_lint(tmp_path)).reused is None


def test_an_index_over_its_size_keeps_the_newest_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outcome = FileOutcome(path="a.py", checker="ruff", status=ScopeStatus.CHECKED)
    index = reuse.ReuseIndex.load(tmp_path)
    for i in range(40):
        path = f"m{i:02}.py"
        reuse.store(index, _parts(path=path), outcome.with_(path=path))
        index.entries[f"ruff\x00{path}"].at = time.time() - 1000 + i  # m39 is the newest
    one = len(index.entries["ruff\x00m00.py"].body)
    monkeypatch.setattr(reuse, "MAX_INDEX_BYTES", one * 12)
    assert index.save()
    kept = sorted(reuse.ReuseIndex.load(tmp_path).entries)
    assert 0 < len(kept) <= 12 and kept[-1] == "ruff\x00m39.py"
    assert "ruff\x00m00.py" not in kept


def test_two_writers_keep_each_others_results(tmp_path: Path) -> None:
    outcome = FileOutcome(path="a.py", checker="ruff", status=ScopeStatus.CHECKED)
    one = reuse.ReuseIndex.load(tmp_path)
    two = reuse.ReuseIndex.load(tmp_path)
    reuse.store(one, _parts(path="a.py"), outcome)
    reuse.store(two, _parts(path="b.py"), outcome.with_(path="b.py"))
    assert one.save() and two.save()
    assert reuse.lookup(tmp_path, _parts(path="a.py")) is not None
    assert reuse.lookup(tmp_path, _parts(path="b.py")) is not None


def test_outcome_notes_survive_reuse(tmp_path: Path) -> None:
    outcome = FileOutcome(path="a.py", checker="ruff", status=ScopeStatus.CHECKED, notes=("n",))
    assert reuse.store(tmp_path, _parts(), outcome)
    hit = reuse.lookup(tmp_path, _parts())
    assert hit is not None and hit.outcome.notes == ("n",)


def test_a_message_json_escapes_is_stored_and_read_back(tmp_path: Path) -> None:
    finding = Finding(checker="ruff", rule="X1", severity="error", path="a.py", message="\udc80!")
    outcome = FileOutcome(
        path="a.py", checker="ruff", status=ScopeStatus.CHECKED, findings=(finding,)
    )
    assert reuse.store(tmp_path, _parts(), outcome)
    hit = reuse.lookup(tmp_path, _parts())
    assert hit is not None and hit.outcome.findings[0].message == "\udc80!"


def test_a_loaded_index_keeps_entries_undecoded_until_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # At 10,000 files a dict per entry cost about 40 MB: the index holds each result
    # as its raw bytes and decodes only the entries of the files looked up.
    outcome = FileOutcome(path="a.py", checker="ruff", status=ScopeStatus.CHECKED, notes=("n",))
    index = reuse.ReuseIndex.load(tmp_path)
    for i in range(50):
        path = f"m{i:02}.py"
        reuse.store(index, _parts(path=path), outcome.with_(path=path))
    assert index.save()
    decoded: list[bytes] = []
    real = reuse._parse

    def spy(blob: bytes) -> object:
        decoded.append(blob)
        return real(blob)

    monkeypatch.setattr(reuse, "_parse", spy)
    loaded = reuse.ReuseIndex.load(tmp_path)
    assert len(loaded.entries) == 50 and decoded == []
    assert all(isinstance(e.body, bytes) for e in loaded.entries.values())
    hit = reuse.lookup(loaded, _parts(path="m07.py"))
    assert hit is not None and hit.outcome.path == "m07.py" and hit.outcome.notes == ("n",)
    assert decoded == [loaded.entries["ruff\x00m07.py"].body]  # that one entry only
    # A miss on another identity of a changed file decodes nothing either.
    assert reuse.lookup(loaded, _parts(path="m08.py", source_digest="other")) is None
    assert len(decoded) == 1
    # Written back from the raw pieces, the untouched entries read back the same.
    loaded.dirty = True
    assert loaded.save()
    again = reuse.ReuseIndex.load(tmp_path)
    assert {k: e.body for k, e in again.entries.items()} == {
        k: e.body for k, e in loaded.entries.items()
    }


def test_a_malformed_line_is_a_miss_for_that_entry_only(tmp_path: Path) -> None:
    outcome = FileOutcome(path="a.py", checker="ruff", status=ScopeStatus.CHECKED)
    assert reuse.store(tmp_path, _parts(path="a.py"), outcome)
    assert reuse.store(tmp_path, _parts(path="b.py"), outcome.with_(path="b.py"))
    path = reuse.index_path(tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) == 3  # the header and one line per entry
    path.write_bytes(lines[0] + b"[not json\t{}\n" + lines[2] + lines[1][:20])
    index = reuse.ReuseIndex.load(tmp_path)
    assert index.dirty  # rewritten by the next save
    assert reuse.lookup(index, _parts(path="b.py")) is not None
    assert reuse.lookup(index, _parts(path="a.py")) is None


def test_reused_findings_are_held_as_compactly_as_fresh_ones(tmp_path: Path) -> None:
    # A reused run holds every reused finding at once: each model shares one fields
    # set with its class (as a fresh run's findings do) instead of a set of its own.
    from orchestrator.model.edits import Anchor, ReplaceText

    edit = ReplaceText(
        kind="replace-text", anchor=Anchor(start_line=1, end_line=1), match="a", replacement="b"
    )
    findings = tuple(
        Finding(
            checker="ruff", rule=f"X{i}", severity="error", path="a.py", line=i, exact_edit=edit
        )
        for i in (1, 2)
    )
    outcome = FileOutcome(
        path="a.py", checker="ruff", status=ScopeStatus.CHECKED, findings=findings
    )
    assert reuse.store(tmp_path, _parts(), outcome)
    hit = reuse.lookup(tmp_path, _parts())
    assert hit is not None
    a, b = hit.outcome.findings
    assert [f.model_dump() for f in (a, b)] == [f.model_dump() for f in findings]
    assert a.__pydantic_fields_set__ is b.__pydantic_fields_set__
    assert a.exact_edit is not None and b.exact_edit is not None
    assert a.exact_edit.__pydantic_fields_set__ is b.exact_edit.__pydantic_fields_set__
    anchors = [f.exact_edit.anchor for f in (a, b)]  # type: ignore[union-attr]
    assert anchors[0].__pydantic_fields_set__ is anchors[1].__pydantic_fields_set__


def _ruby_scope(report: Report) -> Scope:
    (scope,) = [s for s in report.scopes if s.checker == "ruby"]
    return scope


def test_ruby_reuses_and_a_pin_change_invalidates(tmp_path: Path) -> None:
    """`ruby -c` declares its identity (the tool and the version pins governing each
    file): the same edit twice is reused, and a changed pin is not."""
    require_tool("ruby", "apt-get install ruby")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "a.rb").write_text("x = 1\n")

    def lint() -> Scope:
        report = run_lint(LintRequest(project_root=tmp_path, paths=["lib/a.rb"], cwd=tmp_path))
        return _ruby_scope(report)

    first = lint()
    assert first.status == ScopeStatus.CHECKED and first.reused is None
    assert lint().reused == reuse.REUSE_REASON
    (tmp_path / "lib" / ".ruby-version").write_text("2.0\n")  # a pin the note reads
    assert lint().reused is None
    assert lint().reused == reuse.REUSE_REASON


def test_example_yamllint_reuses_and_a_config_change_invalidates(tmp_path: Path) -> None:
    """The example plugin declares its identity (yamllint's version and the project's
    config): the same edit twice is reused, a changed config is not."""
    pytest.importorskip("orchestrate_yamllint")
    (tmp_path / ".yamllint").write_text("extends: default\n")
    (tmp_path / "a.yaml").write_text("---\nkey: value\n")

    def lint() -> Scope:
        report = run_lint(LintRequest(project_root=tmp_path, paths=["a.yaml"], cwd=tmp_path))
        (scope,) = [s for s in report.scopes if s.checker == "yamllint"]
        return scope

    first = lint()
    assert first.status == ScopeStatus.CHECKED and first.reused is None
    assert lint().reused == reuse.REUSE_REASON
    (tmp_path / ".yamllint").write_text("extends: relaxed\n")
    assert lint().reused is None
    assert lint().reused == reuse.REUSE_REASON


def test_example_yamllint_never_reuses_under_a_config_reading_other_files(
    tmp_path: Path,
) -> None:
    """A config that extends a file of its own or reads ignores from another file depends
    on bytes the identity does not hold: no reuse."""
    pytest.importorskip("orchestrate_yamllint")
    (tmp_path / "base.yaml").write_text("extends: default\n")
    (tmp_path / ".yamllint").write_text("extends: base.yaml\n")
    (tmp_path / "a.yaml").write_text("---\nkey: value\n")
    for _ in range(2):
        report = run_lint(LintRequest(project_root=tmp_path, paths=["a.yaml"], cwd=tmp_path))
        (scope,) = [s for s in report.scopes if s.checker == "yamllint"]
        assert scope.status == ScopeStatus.CHECKED and scope.reused is None


def _rubocop_scope(root: Path) -> Scope:
    report = run_lint(LintRequest(project_root=root, paths=["lib/a.rb"], cwd=root))
    (scope,) = [s for s in report.scopes if s.checker == "rubocop"]
    return scope


def test_rubocop_reuses_and_a_config_or_pin_change_invalidates(tmp_path: Path) -> None:
    """RuboCop declares its identity (the tool, the config chain, the options file and
    what it infers the target Ruby from): reused when equal, a miss when one changes."""
    require_tool("rubocop", "apt-get install rubocop")
    (tmp_path / "lib").mkdir()
    (tmp_path / ".rubocop.yml").write_text("AllCops:\n  NewCops: disable\n")
    (tmp_path / "lib" / "a.rb").write_text("x = 1\n")
    first = _rubocop_scope(tmp_path)
    assert first.status == ScopeStatus.CHECKED and first.reused is None
    assert _rubocop_scope(tmp_path).reused == reuse.REUSE_REASON
    (tmp_path / ".ruby-version").write_text("2.7\n")  # the target Ruby RuboCop infers
    assert _rubocop_scope(tmp_path).reused is None
    assert _rubocop_scope(tmp_path).reused == reuse.REUSE_REASON
    (tmp_path / ".rubocop.yml").write_text("AllCops:\n  NewCops: enable\n")
    assert _rubocop_scope(tmp_path).reused is None


def test_rubocop_never_reuses_beside_a_gemspec(tmp_path: Path) -> None:
    """A gemspec (RuboCop may read the target Ruby from it, and it may be code) holds
    bytes the identity does not: no reuse."""
    require_tool("rubocop", "apt-get install rubocop")
    (tmp_path / "lib").mkdir()
    (tmp_path / ".rubocop.yml").write_text("AllCops:\n  NewCops: disable\n")
    (tmp_path / "lib" / "a.rb").write_text("x = 1\n")
    (tmp_path / "x.gemspec").write_text("")
    for _ in range(2):
        scope = _rubocop_scope(tmp_path)
        assert scope.status == ScopeStatus.CHECKED and scope.reused is None
