"""Hygiene data safety under a hostile report or journal.

A report (often model-written) and a journal file are untrusted input. No op may touch
the project root itself, `.git/**`, `.orchestrate/**` or anything outside the root, in
any spelling of those paths; a journal is validated as a whole before undo touches
anything; the dry run predicts exactly what the real run does.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import socket
import stat
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import git, run_cli
from hygiene_helpers import by_id, clean, commit_all, digest, edit, entry, report, settle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from orchestrator.errors import UsageError
from orchestrator.hygiene import apply as engine
from orchestrator.hygiene import content, journal, service, validate
from orchestrator.hygiene.hygiene_report import Entry
from orchestrator.model.report import utc_now
from orchestrator.workspace import workspace_dir

# Spellings of the protected places: the root, .git, .orchestrate and outside.
HOSTILE = [
    ".",
    "./",
    "./.",
    "a/..",
    "",
    ".git",
    ".git/",
    "./.git/config",
    ".//.git/config",
    "a/../.git/hooks/x",
    ".GIT/config",
    ".Git/hooks/pre-commit",
    ".git./config",
    ".git /config",
    "git~1/config",
    ".g\u200cit/config",
    "\uff0egit/config",
    "vendor/lib/.git/config",
    ".git\0/config",
    "doc.md\0",
    ".git\\config",
    "..\\outside\\victim.txt",
    "/etc/passwd",
    "//etc/passwd",
    "C:/x",
    "../outside/victim.txt",
    "a/../../outside/victim.txt",
    ".orchestrate",
    ".orchestrate/journal",
    "./.orchestrate/journal/",
    ".ORCHESTRATE/journal",
    "doc.md/",
    "doc.md/.",
    "./doc.md",
    "a//doc.md",
    " ",
    "a/.../b",
]


def _hygiene_report(root: Path, entries: list[dict[str, Any]]) -> dict[str, Any]:
    return report(entries, generated_at=utc_now(), root=str(root))


@pytest.mark.parametrize("bad", HOSTILE)
def test_every_spelling_of_a_protected_path_is_refused_by_the_validator(bad: str) -> None:
    """Failed before: '.', './.git/config', '.GIT/config' and others passed validation."""
    rep = validate.validate_hygiene(report([entry("delete", bad)]))
    assert rep[0] is None and any("path" in r for r in rep[1])
    for field, value in (
        ("dest_path", {"kind": "move-to-archive", "dest_path": bad}),
        ("target_document", {"kind": "extract-then-delete", "target_document": bad}),
        ("canonical_ref", {"kind": "dedupe", "canonical_ref": bad + "#L1-L2"}),
    ):
        kind = value.pop("kind")
        e = entry(kind, "doc.md", exact_edit=edit(kind, **value))
        got, reasons = validate.validate_hygiene(report([e]))
        assert got is None, (field, bad)
        assert any(field in r for r in reasons), reasons


@pytest.mark.parametrize("bad", HOSTILE)
def test_every_spelling_is_refused_again_at_apply_time(tmp_path: Path, bad: str) -> None:
    """The apply engine does not rely on the validator having run."""
    with pytest.raises(engine._Skip):
        engine.resolve(tmp_path, bad)


@pytest.mark.e2e
def test_an_approved_delete_of_the_root_keeps_the_repository(git_repo: Path) -> None:
    """Failed before: an approved `delete .` renamed and removed the whole repository."""
    settle()
    rep = _hygiene_report(git_repo, [entry("delete", ".", id="root")])
    path = git_repo.parent / "hostile.json"
    path.write_text(json.dumps(rep))
    proc = run_cli(["clean", str(path), "--approve-all-confirm", "--no-input"], cwd=git_repo)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "unsafe path" in proc.stderr
    assert (git_repo / ".git" / "HEAD").is_file() and (git_repo / "README.md").is_file()


def test_fix_never_writes_into_git_config(git_repo: Path) -> None:
    """Failed before: `./.git/config` passed the `.git` rule and a fix wrote into it."""
    config = git_repo / ".git" / "config"
    before = config.read_bytes()
    first = before.decode().splitlines(keepends=True)[0]
    e = entry(
        "replace-text",
        "./.git/config",
        exact_edit=edit(
            "replace-text",
            anchor={"start_line": 1, "end_line": 1},
            match=first,
            replacement=first + "\tfsmonitor = touch /tmp/pwned\n",
        ),
    )
    path = git_repo.parent / "hostile.json"
    path.write_text(json.dumps(_hygiene_report(git_repo, [e])))
    res = service.clean(git_repo, path, engine.Options(approve_all_confirm=True))
    assert res.outcome is None and res.reasons
    assert config.read_bytes() == before


@pytest.mark.parametrize("where", ["git", "outside"])
def test_a_symlinked_parent_is_refused(git_repo: Path, tmp_path: Path, where: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "config").write_text("a\nold\n")
    (git_repo / "link").symlink_to(git_repo / ".git" if where == "git" else outside)
    target = (git_repo / "link" / "config").resolve()
    before = target.read_bytes()
    e = entry("replace-text", "link/config", anchor_digest=digest(target, 1, 2))
    settle()
    out = clean(git_repo, _hygiene_report(git_repo, [e]), approve_all_confirm=True)
    res = by_id(out)[e["id"]]
    assert res.status == "skipped" and "unsafe" in res.reason
    assert target.read_bytes() == before


# ---- hostile journals -------------------------------------------------------------


def _blob(j: journal.Journal, data: bytes) -> str:
    d = hashlib.sha256(data).hexdigest()
    (j.blobs / d).write_bytes(data)
    return d


def _hostile_journal(root: Path, changes: list[dict[str, Any]]) -> str:
    j = journal.Journal.create(root, utc_now())
    j.data["records"].append({"op_id": "x", "kind": "delete", "state": "done", "changes": changes})
    j._save()
    return j.run_id


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "outside" / "victim.txt"
    victim.parent.mkdir(exist_ok=True)
    victim.write_text("precious\n")
    return victim


def _restore_file(rel: str, after: str) -> list[dict[str, Any]]:
    blob = hashlib.sha256(b"pwned\n").hexdigest()
    return [{"path": rel, "after": after, "before": {"type": "file", "blob": blob, "mode": 0o644}}]


@pytest.mark.e2e
def test_undo_refuses_a_journal_that_climbs_out(git_repo: Path, tmp_path: Path) -> None:
    """Failed before: a hand-written journal with ../outside/victim.txt deleted the victim."""
    victim = _victim(tmp_path)
    rel = "../outside/victim.txt"
    after = "file:" + content.sha256(victim.read_bytes())
    run_id = _hostile_journal(
        git_repo, [{"path": rel, "after": after, "before": {"type": "absent"}}]
    )
    with pytest.raises(UsageError, match="journal"):
        service.undo(git_repo, run_id)
    assert victim.read_text() == "precious\n"
    proc = run_cli(["clean", "--undo", run_id], cwd=git_repo)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert victim.read_text() == "precious\n"


def test_undo_refuses_an_absolute_journal_path(git_repo: Path, tmp_path: Path) -> None:
    """Failed before: an absolute path in the journal was written."""
    target = tmp_path / "outside" / "new.txt"
    target.parent.mkdir()
    j = journal.Journal.create(git_repo, utc_now())
    _blob(j, b"pwned\n")
    j.data["records"].append(
        {
            "op_id": "x",
            "kind": "delete",
            "state": "done",
            "changes": _restore_file(str(target), "absent"),
        }
    )
    j._save()
    with pytest.raises(UsageError):
        service.undo(git_repo, j.run_id)
    assert not target.exists()


@pytest.mark.parametrize(
    "image",
    [
        {"type": "file", "blob": "../../../../etc/hostname", "mode": 0o644},
        {"type": "file", "blob": "0" * 64, "mode": 0o104755},
        {
            "type": "dir",
            "mode": 0o755,
            "dirs": [],
            "links": [],
            "files": [{"rel": "../escape.txt", "blob": "0" * 64, "mode": 0o644}],
        },
        {
            "type": "dir",
            "mode": 0o755,
            "dirs": [{"rel": "/abs", "mode": 0o755}],
            "files": [],
            "links": [],
        },
        {
            "type": "dir",
            "mode": 0o755,
            "dirs": [],
            "files": [],
            "links": [{"rel": "l", "target": "/etc"}, {"rel": "l/x", "target": "y"}],
        },
        {"type": "device"},
        "not an image",
    ],
)
def test_undo_refuses_a_malformed_journal_whole(git_repo: Path, image: Any) -> None:
    (git_repo / "keep.txt").write_text("keep\n")
    changes = [
        {
            "path": "keep.txt",
            "after": "file:" + content.sha256(b"keep\n"),
            "before": {"type": "absent"},
        },
        {"path": "new", "after": "absent", "before": image},
    ]
    run_id = _hostile_journal(git_repo, changes)
    with pytest.raises(UsageError):
        service.undo(git_repo, run_id)
    assert (
        git_repo / "keep.txt"
    ).read_text() == "keep\n"  # nothing touched, not even the valid one
    assert not (git_repo / "new").exists()


def test_the_journal_cannot_be_deleted_by_an_op(git_repo: Path) -> None:
    e = entry("delete", ".orchestrate/journal")
    assert validate.validate_hygiene(report([e]))[0] is None
    assert journal.journal_root(git_repo).is_relative_to(git_repo / ".orchestrate")


@pytest.mark.parametrize("linked", [".orchestrate", ".orchestrate/journal"])
def test_a_symlinked_workspace_is_refused(git_repo: Path, tmp_path: Path, linked: str) -> None:
    """The journal must really live inside the project, out of every op's reach."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if linked == ".orchestrate/journal":
        workspace_dir(git_repo)
    (git_repo / linked).symlink_to(elsewhere)
    rep = git_repo.parent / "r.json"
    rep.write_text(json.dumps(_hygiene_report(git_repo, [])))
    with pytest.raises(UsageError, match="symlink"):
        service.clean(git_repo, rep, engine.Options())
    with pytest.raises(UsageError, match="symlink"):
        service.undo(git_repo, "20260101T000000Z-abcdef")
    assert list(elsewhere.iterdir()) == []


# ---- report sanity ------------------------------------------------------------------


def _refused(repo: Path, rep: Any, raw: str | None = None) -> list[str]:
    path = repo.parent / "report.json"
    path.write_text(raw if raw is not None else json.dumps(rep))
    res = service.clean(repo, path, engine.Options())
    assert res.outcome is None
    return res.reasons


def test_unknown_schema_version_is_refused(git_repo: Path) -> None:
    rep = _hygiene_report(git_repo, [])
    rep["schema_version"] = "9.0"
    assert any("schema_version" in r for r in _refused(git_repo, rep))


def test_generated_at_in_the_future_is_refused(git_repo: Path) -> None:
    """Failed before: a future generated_at switched the mtime guard off."""
    rep = report([], generated_at="2999-01-01T00:00:00Z", root=str(git_repo))
    assert any("future" in r for r in _refused(git_repo, rep))


def test_a_report_of_another_repository_is_refused(git_repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    rep = _hygiene_report(other, [])
    assert any("project_root" in r for r in _refused(git_repo, rep))


@pytest.mark.e2e
def test_deep_nesting_is_a_usage_error_not_a_crash(git_repo: Path) -> None:
    """Failed before: RecursionError, exit 4."""
    raw = '{"entries": ' + "[" * 100000 + "]" * 100000 + "}"
    assert any("nest" in r for r in _refused(git_repo, None, raw))
    path = git_repo.parent / "deep.json"
    path.write_text(raw)
    proc = run_cli(["clean", str(path), "--no-input"], cwd=git_repo)
    assert proc.returncode == 2, proc.stderr


# ---- dry run predicts the real run -------------------------------------------------


def test_dry_run_predicts_overlapping_edits_exactly(git_repo: Path) -> None:
    """Failed before: 3 overlapping edits 'would apply'; the real run applied 1."""
    doc = git_repo / "doc.md"
    doc.write_text("one old\ntwo old\nthree\n")
    commit_all(git_repo)
    anchor = {"start_line": 1, "end_line": 2}
    entries = [
        entry(
            "replace-text",
            "doc.md",
            id=f"e{i}",
            exact_edit=edit("replace-text", anchor=anchor, match=m, replacement="x"),
            anchor_digest=digest(doc, 1, 2),
        )
        for i, m in enumerate(("one old\ntwo", "old\ntwo old", "one old\ntwo old"))
    ]
    settle()
    rep = _hygiene_report(git_repo, entries)
    dry = {r.id: r.status for r in clean(git_repo, rep, dry_run=True).results}
    real = {r.id: r.status for r in clean(git_repo, rep).results}
    assert dry == {k: ("would_apply" if v == "applied" else v) for k, v in real.items()}
    assert sorted(real.values()) == ["applied", "skipped", "skipped"]


def test_dry_run_sees_an_earlier_delete(git_repo: Path) -> None:
    (git_repo / "old").mkdir()
    (git_repo / "old" / "a.md").write_text("a\nold\n")
    commit_all(git_repo)
    rm = entry("delete", "old", id="rm", anchor_digest=content.tree_digest(git_repo / "old"))
    rm["exact_edit"]["anchor"] = {"start_line": 1, "end_line": 1, "whole": True}
    fix = entry(
        "replace-text", "old/a.md", id="fix", anchor_digest=digest(git_repo / "old" / "a.md", 1, 2)
    )
    settle()
    rep = _hygiene_report(git_repo, [rm, fix])
    dry = {
        r.id: r.status for r in clean(git_repo, rep, dry_run=True, approve_all_confirm=True).results
    }
    real = {r.id: r.status for r in clean(git_repo, rep, approve_all_confirm=True).results}
    assert dry == {k: ("would_apply" if v == "applied" else v) for k, v in real.items()}


# ---- interrupted undo, special files, hard links -----------------------------------


def test_stray_temporaries_are_cleaned_on_the_next_run(git_repo: Path) -> None:
    """Failed before: a kill -9 during undo left a `.NAME.xxxx.tmp` in the project."""
    doc = git_repo / "doc.md"
    doc.write_text("a\nold\n")
    commit_all(git_repo)
    e = entry("replace-text", "doc.md", anchor_digest=digest(doc, 1, 2))
    settle()
    out = clean(git_repo, _hygiene_report(git_repo, [e]))
    stray = git_repo / ".doc.md.k3j_9x0q.tmp"  # what a killed atomic write leaves
    stray.write_text("half")
    user = [
        git_repo / ".doc.md.tmp",
        git_repo / "notes.k3j_9x0q.tmp",
        git_repo / ".other.md.k3j_9x0q.tmp",
    ]
    for p in user:
        p.write_text("mine")
    rows = service.undo(git_repo, out.run_id or "")
    assert rows[0][2] == "restored"
    assert not stray.exists()
    assert all(p.read_text() == "mine" for p in user)  # never a user's file


def test_undo_says_what_it_cannot_restore(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Failed before: FIFOs/sockets in a deleted folder were dropped and undo said 'restored';
    hard links came back as separate files."""
    d = git_repo / "scratch"
    d.mkdir()
    (d / "a.txt").write_text("a\n")
    os.mkfifo(d / "pipe")
    monkeypatch.chdir(d)  # a short relative name: AF_UNIX paths are length-bounded
    sock = socket.socket(socket.AF_UNIX)
    sock.bind("sock")
    sock.close()
    monkeypatch.chdir(git_repo)
    (git_repo / "hard.txt").write_text("h\n")
    os.link(git_repo / "hard.txt", git_repo / "hard2.txt")
    j = journal.Journal.create(git_repo, utc_now())
    img = journal.snapshot_path(d, j.blobs)
    hard = journal.snapshot_path(git_repo / "hard.txt", j.blobs)
    j.record("op", "delete", [("scratch", "absent", img), ("hard.txt", "absent", hard)])
    journal.remove_path(d, j.dir / "trash")
    (git_repo / "hard.txt").unlink()
    rows = service.undo(git_repo, j.run_id)
    by_path = {p: o for _op, p, o in rows}
    assert by_path["scratch/pipe"].startswith("not restored") and "FIFO" in by_path["scratch/pipe"]
    assert (
        by_path["scratch/sock"].startswith("not restored") and "socket" in by_path["scratch/sock"]
    )
    assert not by_path["hard.txt"].startswith("restored") and "hard link" in by_path["hard.txt"]
    assert (d / "a.txt").read_text() == "a\n" and (git_repo / "hard.txt").read_text() == "h\n"
    assert stat.S_ISREG((git_repo / "hard.txt").stat().st_mode)


def _alarm(signum: int, frame: Any) -> None:
    raise TimeoutError("blocked on a FIFO")


def test_a_special_file_is_never_read_or_deleted_as_a_folder(git_repo: Path) -> None:
    """Failed before: the digest read blocked on the FIFO (and a FIFO's image was a folder)."""
    os.mkfifo(git_repo / "pipe")
    e = entry("delete", "pipe", anchor_digest="0" * 64)
    settle()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(10)
    try:
        out = clean(git_repo, _hygiene_report(git_repo, [e]), approve_all_confirm=True)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    res = by_id(out)[e["id"]]
    assert res.status == "skipped" and "FIFO" in res.reason, res.reason
    assert stat.S_ISFIFO(os.lstat(git_repo / "pipe").st_mode)


# ---- fuzz: no spelling ever touches a protected place -------------------------------

_TARGETS = [
    [],  # the root
    [".git"],
    [".git", "config"],
    [".git", "hooks", "pre-commit"],
    [".orchestrate"],
    [".orchestrate", "journal", "old-run", "journal.json"],
    ["..", "outside", "victim.txt"],
    ["..", "outside"],
]


def _case(s: str, flips: list[bool]) -> str:
    return "".join(c.upper() if f else c for c, f in zip(s, flips + [False] * len(s), strict=False))


@st.composite
def hostile_paths(draw: st.DrawFn, outside: str) -> str:
    parts = list(draw(st.sampled_from(_TARGETS)))
    if parts and parts[0] == ".." and draw(st.booleans()):
        return outside + "/" + "/".join(parts[1:])  # absolute
    flips = draw(st.lists(st.booleans(), max_size=12))
    parts = [_case(p, flips) if p != ".." else p for p in parts]
    out: list[str] = []
    for p in parts:
        out += draw(st.lists(st.sampled_from([".", "", "sub/.."]), max_size=2))
        out.append(p)
    tail = draw(st.sampled_from(["", "/", "/.", "//", "\0", " ", "."]))
    lead = draw(st.sampled_from(["", "./", ".//"]))
    path = lead + "/".join(out) + tail
    if draw(st.booleans()):
        path = path.replace("/", "\\")
    return path


def _snapshot(top: Path) -> dict[str, Any]:
    """Every folder and file under `top` with its mode and bytes; new journal runs and
    lock files (this run's own bookkeeping) are left out."""
    out: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        rel_dir = os.path.relpath(dirpath, top)
        if rel_dir.endswith(os.path.join(".orchestrate", "journal")):
            dirnames[:] = [d for d in dirnames if d == "old-run"]
        out[rel_dir] = ("dir", os.lstat(dirpath).st_mode)
        for name in filenames:
            p = os.path.join(dirpath, name)
            rel = os.path.join(rel_dir, name)
            if name.endswith(".lock") or name == "report.json":
                continue
            with open(p, "rb") as fh:
                out[rel] = ("file", os.lstat(p).st_mode, fh.read())
    return out


@pytest.fixture(scope="module")
def fuzz_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    top = tmp_path_factory.mktemp("fuzz")
    repo = top / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "doc.md").write_text("a\nold\n")
    workspace_dir(repo)
    (repo / ".orchestrate" / "runs").mkdir()
    (repo / ".orchestrate" / "journal" / "old-run").mkdir(parents=True)
    (repo / ".orchestrate" / "journal" / "old-run" / "journal.json").write_text("{}")
    (top / "outside").mkdir()
    (top / "outside" / "victim.txt").write_text("precious\n")
    return repo


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_fuzz_no_report_or_journal_path_touches_a_protected_place(
    fuzz_repo: Path, data: st.DataObject
) -> None:
    top = fuzz_repo.parent
    outside = str(top / "outside")
    before = _snapshot(top)
    paths = data.draw(st.lists(hostile_paths(outside), min_size=1, max_size=3))
    whole = {"start_line": 1, "end_line": 1, "whole": True}
    entries = []
    for i, p in enumerate(paths):
        kind = data.draw(st.sampled_from(["delete", "replace-text", "move-to-archive"]))
        if kind == "delete":
            e = entry("delete", p, id=f"d{i}")
            e["exact_edit"]["anchor"] = whole
        elif kind == "replace-text":
            e = entry("replace-text", p, id=f"r{i}")
        else:
            e = entry(
                "move-to-archive",
                "doc.md",
                id=f"m{i}",
                exact_edit=edit("move-to-archive", dest_path=p),
                anchor_digest=digest(fuzz_repo / "doc.md", 1, 2),  # only dest_path is hostile
            )
        entries.append(e)
    rep_path = fuzz_repo / ".orchestrate" / "runs" / "report.json"
    rep_path.parent.mkdir(parents=True, exist_ok=True)
    rep_path.write_text(json.dumps(report(entries, generated_at=utc_now(), root=str(fuzz_repo))))
    for dry in (True, False):
        res = service.clean(
            fuzz_repo, rep_path, engine.Options(approve_all_confirm=True, dry_run=dry)
        )
        if res.outcome is not None:
            assert all(r.status != "applied" for r in res.outcome.results)
    # The engine itself, without the validator in front of it, refuses them too.
    models = []
    for e in entries:
        with contextlib.suppress(ValidationError):  # the schema refuses an empty dest_path
            models.append(Entry.model_validate(e))
    for dry in (True, False):
        opts = engine.Options(approve_all_confirm=True, dry_run=dry, require_clean_git=False)
        got = engine.apply(fuzz_repo, models, time.time(), opts)
        assert all(r.status not in ("applied", "would_apply") for r in got.results), got
    victim = top / "outside" / "victim.txt"
    j = journal.Journal.create(fuzz_repo, utc_now())
    changes = [
        {
            "path": p,
            "after": "file:" + content.sha256(victim.read_bytes()),
            "before": {"type": "absent"},
        }
        for p in paths
    ]
    j.data["records"].append({"op_id": "x", "kind": "delete", "state": "done", "changes": changes})
    j._save()
    with pytest.raises(UsageError):
        service.undo(fuzz_repo, j.run_id)
    assert _snapshot(top) == before


# ---- the validator refuses what seed 000 does not allow (issue 32) -------------------


@pytest.mark.parametrize("kind", ["delete", "extract-then-delete"])
def test_a_lifecycle_delete_with_a_partial_line_anchor_is_refused(
    git_repo: Path, kind: str
) -> None:
    """Failed before: accepted, and clean then removed the whole file without a prompt.
    Seed 000: delete carries a full-file (or whole-directory) anchor."""
    doc = git_repo / "plan.md"
    doc.write_text("one\ntwo\nthree\nfour\n")
    (git_repo / "plan.done").write_text("")
    commit_all(git_repo)
    e = entry(kind, "plan.md", exact_edit=edit(kind, anchor={"start_line": 2, "end_line": 3}))
    got, reasons = validate.validate_hygiene(report([e], root=str(git_repo)))
    assert got is None
    assert any("full-file" in r and "anchor" in r for r in reasons), reasons
    settle()
    rep = report([e], root=str(git_repo))
    assert any("full-file" in r for r in _refused(git_repo, rep))
    # Even approved, nothing outside what the user approved is ever deleted.
    path = git_repo.parent / "partial.json"
    path.write_text(json.dumps(rep))
    res = service.clean(git_repo, path, engine.Options(approve_all_confirm=True))
    assert res.outcome is None
    assert doc.read_text() == "one\ntwo\nthree\nfour\n"


def test_a_whole_anchor_must_start_at_line_one() -> None:
    e = entry(
        "delete", exact_edit=edit("delete", anchor={"start_line": 3, "end_line": 4, "whole": True})
    )
    got, reasons = validate.validate_hygiene(report([e]))
    assert got is None and any("full-file" in r for r in reasons), reasons


@pytest.mark.parametrize("field", ["scope_globs", "excluded_dirs", "files_scanned"])
def test_a_report_without_the_seed_scan_fields_is_refused(git_repo: Path, field: str) -> None:
    """Failed before: scope_globs, excluded_dirs and files_scanned had defaults."""
    rep = report([], root=str(git_repo))
    del rep["scan"][field]
    got, reasons = validate.validate_hygiene(rep)
    assert got is None
    assert any(f"scan.{field}" in r and "required" in r.lower() for r in reasons), reasons
    assert any(f"scan.{field}" in r for r in _refused(git_repo, rep))


def test_a_report_with_every_scan_field_still_validates() -> None:
    assert validate.validate_hygiene(report([entry("delete")]))[0] is not None
