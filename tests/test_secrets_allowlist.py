"""The reviewed escape hatch: a committed allowlist of finding fingerprints.

A listed finding is not blocking and every use is named in the report notes; an
entry allows one match, never more; strict runs read the allowlist only from the
judged surface; nothing (message, fingerprint input, note) carries the secret value.
"""

from __future__ import annotations

from pathlib import Path

from orchestrate_plugins import secrets_checker as sc
from secrets_support import AWS_KEY, GH_TOKEN, run_scan

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.vocab import Purpose

ALLOW = sc.ALLOWLIST_FILE


def _fingerprints(files: dict[str, bytes]) -> list[str]:
    return [f.fingerprint for o in run_scan(files) for f in o.findings]


def test_parse_allowlist_takes_fingerprints_and_names_bad_lines_by_number() -> None:
    data = (
        b"# reviewed\n\n"
        b"0123456789abcdef  secret-known-token  tests/fixture.py  revoked fixture\n"
        b"not-a-fingerprint " + AWS_KEY.encode() + b"\n"
        b"0123456789ABCDEF\n"
    )
    allow = sc.parse_allowlist(data)
    assert allow.fingerprints == {"0123456789abcdef"}
    [problem] = allow.problems
    assert "4, 5" in problem
    assert AWS_KEY not in problem and "not-a-fingerprint" not in problem


def test_oversized_allowlist_is_not_applied() -> None:
    allow = sc.parse_allowlist(b"0123456789abcdef\n" * 20000)
    assert allow.fingerprints == frozenset()
    assert allow.problems


def test_listed_finding_is_allowed_and_named_in_notes(tmp_path: Path) -> None:
    files = {"tests/fixture.py": f"K = '{AWS_KEY}'\nT = '{GH_TOKEN}'\n".encode()}
    aws_fp, gh_fp = _fingerprints(files)
    (tmp_path / ALLOW).write_text(f"{aws_fp} secret-aws-access-key-id tests/fixture.py ok\n")
    [outcome] = run_scan(files, root=tmp_path)
    assert [f.fingerprint for f in outcome.findings] == [gh_fp]
    [note] = outcome.notes
    assert aws_fp in note and "secret-aws-access-key-id" in note and "tests/fixture.py:1" in note
    assert AWS_KEY not in note


def test_an_entry_allows_one_match_only(tmp_path: Path) -> None:
    one = {"a.py": f"K = '{AWS_KEY}'\n".encode()}
    [fp] = _fingerprints(one)
    (tmp_path / ALLOW).write_text(fp + "\n")
    # A second key of the same rule lands above the reviewed one: one still blocks.
    two = {"a.py": f"NEW = 'AKIA{'B' * 16}'\nK = '{AWS_KEY}'\n".encode()}
    [outcome] = run_scan(two, root=tmp_path)
    assert len(outcome.findings) == 1 and len(outcome.notes) == 1
    # The same entry does not reach another file.
    [other] = run_scan({"b.py": one["a.py"]}, root=tmp_path)
    assert len(other.findings) == 1 and other.notes == ()


def test_fingerprint_input_holds_no_value() -> None:
    first = _fingerprints({"a.py": f"K = '{AWS_KEY}'\n".encode()})
    other = _fingerprints({"a.py": f"\n\nK = 'AKIA{'C' * 16}'\n".encode()})
    assert first == other  # same rule, path and ordinal: the value took no part


def test_delivery_ignores_a_working_tree_allowlist(tmp_path: Path) -> None:
    files = {"a.py": f"K = '{AWS_KEY}'\n".encode()}
    [fp] = _fingerprints(files)
    (tmp_path / ALLOW).write_text(fp + "\n")
    [outcome] = run_scan(files, root=tmp_path, purpose=Purpose.DELIVERY)
    assert [f.fingerprint for f in outcome.findings] == [fp]
    assert any("judged surface" in n for n in outcome.notes)


def test_delivery_applies_the_judged_surface_allowlist_only(tmp_path: Path) -> None:
    files = {"a.py": f"K = '{AWS_KEY}'\n".encode()}
    [fp] = _fingerprints(files)
    (tmp_path / ALLOW).write_text(fp + "\n")  # working tree says allow ...
    [outcome] = run_scan(files, root=tmp_path, purpose=Purpose.DELIVERY, surface_files={})
    assert len(outcome.findings) == 1  # ... the surface has no allowlist: blocked
    [outcome] = run_scan(
        files, root=tmp_path, purpose=Purpose.DELIVERY, surface_files={ALLOW: fp.encode()}
    )
    assert outcome.findings == () and len(outcome.notes) == 1


def test_allowlist_uses_reach_the_report_notes(tmp_path: Path) -> None:
    (tmp_path / "fixture.py").write_text(f"K = '{AWS_KEY}'\n")
    (tmp_path / "other.py").write_text(f"T = '{GH_TOKEN}'\n")
    req = LintRequest(project_root=tmp_path, only_checkers=frozenset({"secrets"}))
    before = run_lint(req)
    fp = next(f.fingerprint for f in before.findings if f.path == "fixture.py")
    (tmp_path / ALLOW).write_text(f"{fp} secret-aws-access-key-id fixture.py reviewed\n")
    report = run_lint(req)
    assert [f.path for f in report.findings] == ["other.py"]
    assert [n for n in report.notes if ALLOW in n] == [
        f"secret allowed by {ALLOW}: secret-aws-access-key-id in fixture.py:1 (fingerprint {fp})"
    ]
    dumped = report.model_dump_json()
    assert AWS_KEY not in dumped and GH_TOKEN not in dumped
