"""A move-to-archive onto the file it moves text out of is refused, however spelled.

Failed before: a report whose `dest_path` equalled its `path` validated, derived to
auto and ran on a tracked clean file: the archive was written, then the rest of the
same file over it, and the moved text was kept nowhere.
"""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

import pytest
from hygiene_helpers import by_id, commit_all, digest, edit, entry, report, settle

from orchestrator.hygiene import apply as engine
from orchestrator.hygiene import service
from orchestrator.hygiene.validate import validate_hygiene
from orchestrator.model.report import utc_now

TEXT = "old text\nsecond\nthird\n"


def _move(path: str, dest: str, repo: Path) -> dict:
    mv = edit("move-to-archive", dest_path=dest)
    return entry("move-to-archive", path, exact_edit=mv, anchor_digest=digest(repo / path, 1, 2))


def _clean(repo: Path, e: dict) -> service.CleanResult:
    rep = report([e], generated_at=utc_now(), root=str(repo))
    path = repo / ".orchestrate" / "runs" / "r.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rep))
    settle()
    return service.clean(repo, path, engine.Options())


@pytest.fixture
def repo(git_repo: Path) -> Path:
    (git_repo / "notes").mkdir()
    (git_repo / "notes" / "work.md").write_text(TEXT)
    commit_all(git_repo)
    return git_repo


#: Spellings of notes/work.md that are, or may be, the same path: exact, `./`, `..`,
#: `//`, a trailing slash, other case, Unicode folding (full-width letters, NFD).
SPELLINGS = [
    "notes/work.md",
    "./notes/work.md",
    "notes/./work.md",
    "notes/../notes/work.md",
    "notes//work.md",
    "notes/work.md/",
    "Notes/Work.MD",
    "NOTES/WORK.md",
    "notes/ｗｏｒｋ.md",
]


@pytest.mark.parametrize("dest", SPELLINGS)
def test_the_validator_refuses_a_move_onto_itself(repo: Path, dest: str) -> None:
    e = _move("notes/work.md", dest, repo)
    got, reasons = validate_hygiene(report([e]))
    assert got is None
    assert any("dest_path" in r for r in reasons), reasons


def test_the_validator_refuses_unicode_forms_of_the_same_name(repo: Path) -> None:
    name = unicodedata.normalize("NFC", "notes/café.md")
    (repo / name).write_text(TEXT)
    commit_all(repo)
    e = _move(name, unicodedata.normalize("NFD", name), repo)
    got, reasons = validate_hygiene(report([e]))
    assert got is None and reasons, (
        "NFC and NFD spellings are one file on a normalising file system"
    )


def test_clean_does_not_lose_the_text_of_a_self_move(repo: Path) -> None:
    res = _clean(repo, _move("notes/work.md", "notes/work.md", repo))
    assert res.outcome is None and res.reasons
    assert (repo / "notes" / "work.md").read_text() == TEXT


@pytest.mark.parametrize("how", ["file-link", "folder-link", "hard-link"])
def test_clean_refuses_an_archive_that_is_the_moved_file_on_disk(repo: Path, how: str) -> None:
    if how == "file-link":
        os.symlink("work.md", repo / "notes" / "alias.md")
        dest = "notes/alias.md"
    elif how == "folder-link":
        os.symlink("notes", repo / "same")
        dest = "same/work.md"
    else:
        os.link(repo / "notes" / "work.md", repo / "notes" / "hard.md")
        dest = "notes/hard.md"
    commit_all(repo)
    res = _clean(repo, _move("notes/work.md", dest, repo))
    assert res.outcome is None, "a move onto the file itself must be refused before it runs"
    assert any("dest_path" in r for r in res.reasons), res.reasons
    assert (repo / "notes" / "work.md").read_text() == TEXT


def test_a_move_into_a_real_archive_still_applies(repo: Path) -> None:
    (repo / "notes" / "archive.md").write_text("# Archive\n")
    commit_all(repo)
    res = _clean(repo, _move("notes/work.md", "notes/archive.md", repo))
    assert res.outcome is not None, res.reasons
    [result] = by_id(res.outcome).values()
    assert result.status == "applied", result.reason
    assert (repo / "notes" / "archive.md").read_text() == "# Archive\nold text\nsecond\n"
    assert (repo / "notes" / "work.md").read_text() == "third\n"
