"""Unit tests of the hygiene pieces: rulebook, sections, frontmatter, journal, paths, lint fixes."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from hygiene_helpers import by_id, clean, commit_all, digest, edit, entry, report, settle

from orchestrator.hygiene import apply as engine
from orchestrator.hygiene import content, dedupe, journal, rulebook, service, validate
from orchestrator.model.edits import Anchor
from orchestrator.model.report import Finding, Report, ScanInfo, utc_now


def test_project_rule_replaces_default_and_mode_replace() -> None:
    cfg = rulebook.build_config(
        {
            "rules": [
                {
                    "id": "plans",
                    "glob": "todo/*.md",
                    "lifetime": "delete-once-served",
                    "served_when": "merged",
                }
            ]
        }
    )
    plans = next(r for r in cfg.rules if r.id == "plans")
    assert plans.globs == ["todo/*.md"] and plans.served_when == "merged"
    assert {r.id for r in cfg.rules} >= {"scratch", "merge-leftovers"}
    only = rulebook.build_config(
        {"mode": "replace", "rules": [{"id": "x", "glob": "*.tmp", "lifetime": "keep"}]}
    )
    assert [r.id for r in only.rules] == ["x"]
    assert ".git" in only.excluded_dirs


@pytest.mark.parametrize(
    "rule",
    [
        {
            "id": "a",
            "glob": "*",
            "lifetime": "delete-once-served",
            "served_when": "x",
            "served_when_path": "y",
        },
        {"id": "a", "glob": "*", "lifetime": "delete-once-served"},
        {"id": "a", "glob": "*", "lifetime": "temporary"},
        {"id": "a", "glob": "*", "lifetime": "keep", "action": "extract-then-delete"},
        {"id": "a", "glob": "*", "lifetime": "keep", "bogus": 1},
    ],
)
def test_invalid_rules_are_usage_errors(rule: dict) -> None:
    with pytest.raises(rulebook.RulebookError):
        rulebook.build_config({"rules": [rule]})


def test_pyproject_rulebook_is_used(git_repo: Path) -> None:
    (git_repo / "pyproject.toml").write_text(
        '[tool.orchestrate.hygiene]\nmode = "replace"\n'
        '[[tool.orchestrate.hygiene.rules]]\nid = "drafts"\nglob = "drafts/*.txt"\n'
        'lifetime = "delete-once-served"\nserved_when_path = "published/{name}"\n'
    )
    (git_repo / "drafts").mkdir()
    (git_repo / "drafts" / "a.txt").write_text("a\n")
    (git_repo / "published").mkdir()
    (git_repo / "published" / "a.txt").write_text("a\n")
    (git_repo / "x.bak").write_text("not a rule any more\n")
    commit_all(git_repo)
    rep = service.check(git_repo).report
    assert [(e.path, e.safety_tier) for e in rep.entries] == [("drafts/a.txt", "auto")]


def test_sections_ignore_fences_and_short_bodies() -> None:
    doc = b"# T\n\n```\n# not a heading\n```\n## A\none\n\n## B\nx\ny\n\n\n"
    secs = dedupe.sections("d.md", doc)
    assert [(s.start, s.end) for s in secs] == [(1, 5), (9, 11)]
    assert dedupe.parse_ref("d.md#L9-L11") == ("d.md", Anchor(start_line=9, end_line=11))
    assert dedupe.parse_ref("d.md#L3-L1") is None


def test_frozen_frontmatter() -> None:
    assert content.is_frozen_bytes(b"---\ntitle: x\nhygiene: frozen\n---\nbody")
    assert content.is_frozen_bytes(b'---\nHygiene: "frozen"\n---\n')
    assert not content.is_frozen_bytes(b"hygiene: frozen\n")
    assert not content.is_frozen_bytes(b"---\nhygiene: temporary\n---\n")


def test_journal_restores_a_tree_byte_for_byte(tmp_path: Path) -> None:
    root = tmp_path / "p"
    d = root / "scratch" / "old"
    (d / "sub").mkdir(parents=True)
    (d / "sub" / "b.bin").write_bytes(bytes(range(256)))
    (d / "x.sh").write_text("#!/bin/sh\n")
    (d / "x.sh").chmod(0o750)
    (d / "empty").mkdir()
    digest_before = content.tree_digest(d)
    j = journal.Journal.create(root, utc_now())
    image = journal.snapshot_path(d, j.blobs)
    j.record("op", "delete", [("scratch/old", "absent", image)])
    journal.remove_path(d, j.dir / "trash")
    assert not d.exists()
    rows = journal.Journal.open(root, j.run_id).undo()
    assert rows == [("op", "scratch/old", "restored")]
    assert content.tree_digest(d) == digest_before
    assert (d / "x.sh").stat().st_mode & 0o777 == 0o750
    with pytest.raises(FileNotFoundError):
        journal.Journal.open(root, "../../etc")


def test_undo_leaves_a_path_changed_after_the_clean(git_repo: Path) -> None:
    doc = git_repo / "doc.md"
    doc.write_text("a\nold\n")
    commit_all(git_repo)
    e = entry("replace-text", "doc.md", anchor_digest=digest(doc, 1, 2))
    settle()
    out = clean(git_repo, report([e], generated_at=utc_now()))
    assert doc.read_text() == "a\nnew\n"
    doc.write_text("someone else's edit\n")
    rows = service.undo(git_repo, out.run_id or "")
    assert rows[0][2].startswith("not restored")
    assert doc.read_text() == "someone else's edit\n"


@pytest.mark.parametrize("bad", ["../x.md", "/etc/passwd", ".git/config", "a\\b", ".orchestrate/x"])
def test_unsafe_paths_make_the_report_invalid(bad: str) -> None:
    assert validate.validate_hygiene(report([entry("delete-range", bad)]))[0] is None
    mv = entry("move-to-archive", exact_edit=edit("move-to-archive", dest_path=bad))
    assert validate.validate_hygiene(report([mv]))[0] is None


def test_symlinked_path_is_skipped(git_repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("a\nold\n")
    (git_repo / "link.md").symlink_to(outside)
    commit_all(git_repo)
    e = entry("replace-text", "link.md", anchor_digest=digest(outside, 1, 2))
    settle()
    res = by_id(clean(git_repo, report([e], generated_at=utc_now()), approve_all_confirm=True))[
        e["id"]
    ]
    assert res.status == "skipped" and "unsafe" in res.reason
    assert outside.read_text() == "a\nold\n"


def test_dedupe_verifies_the_canonical_text(git_repo: Path) -> None:
    # Two hygiene-managed notes (rule plans): the pair a dedupe may fold without asking.
    (git_repo / "notes").mkdir()
    (git_repo / "notes/canon.md").write_text("## S\nx\ny\n")
    (git_repo / "notes/doc.md").write_text("## S\nx\ny\n")
    commit_all(git_repo)
    e = entry(
        "dedupe",
        "notes/doc.md",
        exact_edit=edit(
            "dedupe", anchor={"start_line": 1, "end_line": 3}, canonical_ref="notes/canon.md#L1-L3"
        ),
        evidence={
            "scanner_proven": True,
            "placement_rule": "dedupe-scope",
            "kept_in": "hygiene-managed",
        },
        anchor_digest=digest(git_repo / "notes/doc.md", 1, 3),
    )
    assert e["safety_tier"] == "auto"
    (git_repo / "notes/canon.md").write_text("## S\nx\nchanged\n")
    commit_all(git_repo, "canon changed")
    settle()
    res = by_id(clean(git_repo, report([e], generated_at=utc_now())))[e["id"]]
    assert res.status == "skipped" and "canonical_ref" in res.reason
    assert (git_repo / "notes/doc.md").read_text() == "## S\nx\ny\n"


def test_insert_frontmatter_into_existing_frontmatter(git_repo: Path) -> None:
    doc = git_repo / "doc.md"
    doc.write_text("---\ntitle: T\n---\nbody\n")
    commit_all(git_repo)
    e = entry("insert-frontmatter", "doc.md", anchor_digest=digest(doc))
    settle()
    assert by_id(clean(git_repo, report([e], generated_at=utc_now())))[e["id"]].status == "applied"
    assert doc.read_text() == "---\ntitle: T\nhygiene: frozen\n---\nbody\n"


def test_lint_report_fixes_use_the_same_engine(git_repo: Path) -> None:
    """A lint report's safe fix (replace-text with columns) applies; an unsafe one waits."""
    (git_repo / "m.py").write_text("import os\nx = 1 == None\n")
    commit_all(git_repo)
    settle()
    safe = Finding(
        checker="ruff",
        rule="F401",
        severity="error",
        path="m.py",
        line=1,
        column=1,
        fingerprint="a" * 16,
        op_type="deterministic",
        is_destructive=False,
        is_reversible=True,
        safety_tier="auto",
        exact_edit={
            "kind": "replace-text",
            "anchor": {"start_line": 1, "end_line": 2},
            "match": "import os\n",
            "replacement": "",
            "start_column": 1,
            "end_column": 1,
        },
    )
    unsafe = Finding(
        checker="ruff",
        rule="E711",
        severity="error",
        path="m.py",
        line=2,
        column=10,
        fingerprint="b" * 16,
        op_type="deterministic",
        is_destructive=False,
        is_reversible=False,
        safety_tier="confirm",
        exact_edit={
            "kind": "replace-text",
            "anchor": {"start_line": 2, "end_line": 2},
            "match": "== None",
            "replacement": "is None",
        },
    )
    rep = Report(
        scan=ScanInfo(project_root=str(git_repo)), findings=[safe, unsafe], generated_at=utc_now()
    )
    path = git_repo / ".orchestrate" / "lint.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(rep.model_dump_json())
    out = service.clean(git_repo, path, engine.Options())
    assert out.outcome is not None, out.reasons
    assert {r.id: r.status for r in out.outcome.results} == {
        "a" * 16: "applied",
        "b" * 16: "pending",
    }
    assert (git_repo / "m.py").read_text() == "x = 1 == None\n"
    lying = json.loads(path.read_text())
    lying["findings"][1]["safety_tier"] = "auto"
    assert validate.validate_any(lying)[0] is None


def test_dry_run_changes_nothing(git_repo: Path) -> None:
    doc = git_repo / "doc.md"
    doc.write_text("keep\nold\n")
    commit_all(git_repo)
    e = entry("replace-text", "doc.md", anchor_digest=digest(doc, 1, 2))
    settle()
    mtime = os.stat(doc).st_mtime_ns
    res = by_id(clean(git_repo, report([e], generated_at=utc_now()), dry_run=True))[e["id"]]
    assert res.status == "would_apply"
    assert "-old\n+new\n" in res.diff and res.diff.startswith("--- a/doc.md\n+++ b/doc.md\n")
    assert doc.read_text() == "keep\nold\n" and os.stat(doc).st_mtime_ns == mtime
    assert not (git_repo / ".orchestrate" / "journal").exists()


def _ruff_report(repo: Path) -> Path:
    from helpers import require_tool

    from orchestrator.core.engine import LintRequest, run_lint

    require_tool("ruff", "pip install ruff", path=str(Path(sys.executable).parent / "ruff"))
    rep = run_lint(LintRequest(project_root=repo, paths=[str(repo / "m.py")]))
    assert rep.findings and any(f.exact_edit for f in rep.findings), rep.scopes
    path = repo / ".orchestrate" / "lint.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(rep.model_dump_json())
    return path


def test_real_ruff_fixes_apply_in_sequence_and_never_overlap(git_repo: Path) -> None:
    (git_repo / "m.py").write_text("import os\nimport sys\n\nprint(1)\n")
    commit_all(git_repo)
    settle()
    out = service.clean(git_repo, _ruff_report(git_repo), engine.Options())
    assert out.outcome is not None, out.reasons
    assert [r.status for r in out.outcome.results] == ["applied", "applied"]
    assert (git_repo / "m.py").read_text() == "\nprint(1)\n"
    # Two fixes on the same span (isort + unused import): the second is not stacked blind.
    (git_repo / "m.py").write_text("import os\nx = 1 == None\n")
    commit_all(git_repo, "again")
    settle()
    out = service.clean(git_repo, _ruff_report(git_repo), engine.Options())
    assert out.outcome is not None
    statuses = sorted(r.status for r in out.outcome.results)
    assert statuses == ["applied", "skipped"]
    assert any("overlaps" in r.reason for r in out.outcome.results)
    assert service.undo(git_repo, out.outcome.run_id or "")[0][2] == "restored"
    assert (git_repo / "m.py").read_text() == "import os\nx = 1 == None\n"


@pytest.mark.parametrize(
    "doubt", ["rulebook_invalid", "rule_unproven", "generated", "not_tracked_clean"]
)
def test_an_apply_doubt_is_an_input_of_the_one_tier_derivation(doubt: str) -> None:
    """What the apply step finds live makes an otherwise auto op ask, in derive_safety_tier."""
    from orchestrator.model.edits import derive_safety_tier, tier_for_edit

    assert derive_safety_tier("deterministic", False, True) == "auto"
    assert derive_safety_tier("deterministic", False, True, doubts=frozenset({doubt})) == "confirm"  # type: ignore[arg-type]
    assert tier_for_edit("deterministic", "replace-text") == "auto"
    assert tier_for_edit("deterministic", "replace-text", doubts=frozenset({doubt})) == "confirm"  # type: ignore[arg-type]


def test_the_apply_step_writes_no_tier_of_its_own() -> None:
    """Every tier hygiene/apply.py returns comes from the one derivation, not a literal."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(engine))
    literal_tiers = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Return)
        and isinstance(node.value, ast.Tuple)
        and isinstance(node.value.elts[0], ast.Constant)
        and node.value.elts[0].value in ("auto", "confirm")
    ]
    assert literal_tiers == []
