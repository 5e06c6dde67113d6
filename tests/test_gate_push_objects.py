"""Every pushed object is judged, whatever names it: the pre-push gate walks every object
the remote lacks (`git rev-list --objects` over the pushed tip against what the remote
holds) and scans every blob and message, not only the files of commit ranges.

Generated as an adversary would: each object type (blob, tree, nested tree, commit,
commit message, annotated tag of each, tag of a tag, notes commit) pushed to each ref
kind (a branch, a tag, a notes ref, a custom ref, a remote-tracking ref on the remote),
each carrying a fake AWS key; and the same shapes without the key, which must not be
denied. Real git objects in a real repository with a real bare remote; the gate runs
in-process with git's pre-push lines.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from gate_support import commit_files, readme_pushed
from helpers import git
from secrets_support import AWS_KEY

from orchestrator.render.output import json_chunks
from orchestrator.usecases.gate import gate
from orchestrator.vocab import GateDecision

ZERO = "0" * 40

#: The ref kinds a push can name on the remote.
REMOTE_REFS = (
    "refs/heads/pushed",
    "refs/tags/pushed",
    "refs/notes/pushed",
    "refs/custom/pushed",
    "refs/remotes/origin/pushed",
)


def _git_in(repo: Path, *args: str, stdin: str | None = None) -> str:
    import subprocess

    res = subprocess.run(
        ["git", *args], cwd=repo, input=stdin, capture_output=True, text=True, check=True
    )
    return res.stdout.strip()


def _blob(repo: Path, text: str) -> str:
    return _git_in(repo, "hash-object", "-w", "--stdin", stdin=text)


def _tree(repo: Path, entries: dict[str, tuple[str, str]]) -> str:
    """A tree of `entries` (name -> (kind, oid))."""
    lines = "".join(
        f"{'040000' if kind == 'tree' else '100644'} {kind} {oid}\t{name}\n"
        for name, (kind, oid) in entries.items()
    )
    return _git_in(repo, "mktree", stdin=lines)


def _tag(repo: Path, target: str, message: str) -> str:
    """An annotated tag object on `target` whose message is `message` (no ref kept)."""
    kind = _git_in(repo, "cat-file", "-t", target)
    text = (
        f"object {target}\ntype {kind}\ntag scratch\n"
        "tagger Test <test@example.invalid> 1700000000 +0000\n\n"
        f"{message}\n"
    )
    return _git_in(repo, "mktag", stdin=text)


def _content(secret: bool) -> str:
    return f"aws key {AWS_KEY}\n" if secret else "nothing to hide here\n"


def _mk_blob(repo: Path, secret: bool) -> str:
    return _blob(repo, _content(secret))


def _mk_tree(repo: Path, secret: bool) -> str:
    return _tree(repo, {"keys.txt": ("blob", _mk_blob(repo, secret))})


def _mk_nested_tree(repo: Path, secret: bool) -> str:
    inner = _tree(repo, {"deep": ("tree", _mk_tree(repo, secret))})
    return _tree(repo, {"a": ("tree", inner)})


def _mk_root_commit(repo: Path, secret: bool) -> str:
    return _git_in(repo, "commit-tree", _mk_tree(repo, secret), "-m", "unrelated root")


def _mk_message_commit(repo: Path, secret: bool) -> str:
    tree = _git_in(repo, "rev-parse", "HEAD^{tree}")
    return _git_in(repo, "commit-tree", tree, "-p", "HEAD", "-m", _content(secret))


def _mk_tag_of(make: Callable[[Path, bool], str]) -> Callable[[Path, bool], str]:
    def build(repo: Path, secret: bool) -> str:
        return _tag(repo, make(repo, secret), "a clean tag message")

    return build


def _mk_secret_message_tag_of_tree(repo: Path, secret: bool) -> str:
    return _tag(repo, _mk_tree(repo, False), _content(secret))


def _mk_secret_message_tag_of_blob(repo: Path, secret: bool) -> str:
    return _tag(repo, _mk_blob(repo, False), _content(secret))


def _mk_tag_of_tag_of_blob(repo: Path, secret: bool) -> str:
    return _tag(repo, _tag(repo, _mk_blob(repo, secret), "inner"), "outer")


def _mk_notes_commit(repo: Path, secret: bool) -> str:
    git(repo, "notes", "--ref=refs/notes/scratch", "add", "-f", "-m", _content(secret), "HEAD")
    return _git_in(repo, "rev-parse", "refs/notes/scratch")


OBJECTS: dict[str, Callable[[Path, bool], str]] = {
    "blob": _mk_blob,
    "tree": _mk_tree,
    "nested-tree": _mk_nested_tree,
    "root-commit": _mk_root_commit,
    "commit-message": _mk_message_commit,
    "tag-of-blob": _mk_tag_of(_mk_blob),
    "tag-of-tree": _mk_tag_of(_mk_tree),
    "tag-of-commit": _mk_tag_of(_mk_root_commit),
    "tag-message-on-tree": _mk_secret_message_tag_of_tree,
    "tag-message-on-blob": _mk_secret_message_tag_of_blob,
    "tag-of-tag-of-blob": _mk_tag_of_tag_of_blob,
    "notes-commit": _mk_notes_commit,
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with one commit, and `origin` (a real bare remote) holding main."""
    return readme_pushed(tmp_path)[0]


def _push(repo: Path, oid: str, remote_ref: str, remote_oid: str = ZERO) -> tuple[str, str]:
    line = f"{remote_ref} {oid} {remote_ref} {remote_oid}\n"
    result = gate("push", timeout=120, cwd=repo, remote="origin", stdin=line.encode())
    report = result.report
    assert report.gate is not None
    text = b"".join(json_chunks(report)).decode()
    return str(report.gate.decision), text


@pytest.mark.parametrize("remote_ref", REMOTE_REFS)
@pytest.mark.parametrize("kind", sorted(OBJECTS))
def test_a_pushed_object_carrying_a_key_is_denied(repo: Path, kind: str, remote_ref: str) -> None:
    oid = OBJECTS[kind](repo, True)
    decision, text = _push(repo, oid, remote_ref)
    assert decision == GateDecision.DENY, text
    assert "secret-aws-access-key-id" in text
    assert AWS_KEY not in text


@pytest.mark.parametrize("remote_ref", REMOTE_REFS)
@pytest.mark.parametrize("kind", sorted(OBJECTS))
def test_the_same_object_without_a_key_is_not_denied(
    repo: Path, kind: str, remote_ref: str
) -> None:
    oid = OBJECTS[kind](repo, False)
    decision, text = _push(repo, oid, remote_ref)
    assert decision != GateDecision.DENY, text
    assert "secret-" not in text


def test_what_the_remote_holds_is_not_judged_again(repo: Path) -> None:
    """The walk stops at the remote's commit: a key the remote already holds (pushed
    before the hooks) is not a finding of a clean push on top of it."""
    old = commit_files(repo, {"keys.txt": _content(True)}, "keys")
    git(repo, "push", "-q", "origin", "main")
    tip = commit_files(repo, {"notes.txt": "clean\n"}, "clean")
    decision, text = _push(repo, tip, "refs/heads/main", old)
    assert decision != GateDecision.DENY, text
    assert "secret-" not in text


def test_a_blob_is_named_by_its_path_in_the_pushed_tree(repo: Path) -> None:
    """A blob walked at a path keeps that name, so a rule reading the name applies: a
    `.env` file in a pushed tree is a `.env` file."""
    env = _blob(repo, "TOKEN=abc\n")
    tree = _tree(repo, {"conf": ("tree", _tree(repo, {".env": ("blob", env)}))})
    decision, text = _push(repo, tree, "refs/custom/conf")
    assert decision == GateDecision.DENY, text
    assert "secret-dotenv-file" in text and "conf/.env" in text
