"""The secret scanner: names, content shapes, redaction, deadlines."""

from __future__ import annotations

from pathlib import Path

import pytest
from orchestrate_plugins import secrets_checker as sc
from secrets_support import AWS_KEY, GH_TOKEN, GITLAB, KEY_BODY, OPENSSH, PEM, SLACK, STRIPE

from orchestrator.deadline import Deadline
from orchestrator.model.checker import FileTarget, RunContext
from orchestrator.vocab import ScopeStatus, Severity, Tier


def _run(files: dict[str, bytes], seconds: float = 30.0) -> list:
    checker = sc.SecretsChecker()
    targets = [
        FileTarget(path=p, abs_path=Path("/nonexistent") / p, content=c) for p, c in files.items()
    ]
    ctx = RunContext(project_root=Path("/nonexistent"), deadline=Deadline.after(seconds))
    plan = checker.plan(targets, ctx)
    out = []
    for batch in plan.batches:
        out += checker.run(batch, ctx)
    return out


def _rules(outcome) -> list[tuple[str, int | None]]:
    return [(f.rule, f.line) for f in outcome.findings]


def test_checker_shape() -> None:
    checker = sc.orchestrate_checkers()[0]
    assert checker.name == "secrets"
    assert checker.tier is Tier.POLICY
    assert checker.claims(FileTarget(path="x.bin", abs_path=Path("/x.bin")))


@pytest.mark.parametrize(
    ("path", "text", "rule", "line"),
    [
        ("a.py", f"x = 1\nKEY = '{AWS_KEY}'\n", "secret-aws-access-key-id", 2),
        ("b.js", f"const t = '{GH_TOKEN}';\n", "secret-known-token", 1),
        ("c.yml", f"a: 1\nb: 2\nslack: {SLACK}\n", "secret-known-token", 3),
        ("d.rb", f"STRIPE = '{STRIPE}'\n", "secret-known-token", 1),
        ("e.toml", f'token = "{GITLAB}"\n', "secret-known-token", 1),
        ("keys/server.txt", "\n" + PEM, "secret-private-key-block", 2),
        ("notes.md", OPENSSH, "secret-private-key-block", 1),
        ("config/.env", "# comment\nDB_PASSWORD=hunter2\n", "secret-dotenv-file", 2),
        (".env.production", "export API=abc\n", "secret-dotenv-file", 1),
    ],
)
def test_content_rules(path: str, text: str, rule: str, line: int) -> None:
    [outcome] = _run({path: text.encode()})
    assert outcome.status is ScopeStatus.CHECKED
    assert (rule, line) in _rules(outcome)


@pytest.mark.parametrize(
    ("path", "rule"),
    [
        ("home/.ssh/id_rsa", "secret-private-key-file"),
        ("id_ed25519", "secret-private-key-file"),
        ("client.p12", "secret-key-store-file"),
        ("x.PFX", "secret-key-store-file"),
        ("android/release.keystore", "secret-key-store-file"),
        ("app.jks", "secret-key-store-file"),
    ],
)
def test_name_rules_even_for_binary(path: str, rule: str) -> None:
    [outcome] = _run({path: b"\0\1\2binary"})
    assert (rule, None) in _rules(outcome)


def test_clean_files_and_near_misses() -> None:
    files = {
        "ok.py": b"import os\nprint(os.getcwd())\n",
        "id_rsa.pub": b"ssh-ed25519 AAAA user@host\n",
        ".env.example": b"DB_PASSWORD=\n",
        "empty.env": b"# nothing here\n",
        "short.py": b"k = 'AKIA1234'\nt = 'ghp_short'\n",
        "pubkey.txt": b"-----BEGIN PUBLIC KEY-----\n",
    }
    for outcome in _run(files):
        assert outcome.findings == (), outcome.path
        assert outcome.status is ScopeStatus.CHECKED


def test_findings_are_redacted_and_blocking() -> None:
    text = f"a = '{AWS_KEY}'\nb = '{GH_TOKEN}'\n{PEM}".encode()
    [outcome] = _run({"leak.py": text})
    assert {f.rule for f in outcome.findings} == {
        "secret-aws-access-key-id",
        "secret-known-token",
        "secret-private-key-block",
    }
    dumped = " ".join(f.model_dump_json() for f in outcome.findings) + repr(outcome)
    for secret in (AWS_KEY, GH_TOKEN, KEY_BODY):
        assert secret not in dumped
    for f in outcome.findings:
        assert f.blocking and f.severity is Severity.ERROR
        description = next(r.description for r in sc.RULES if r.id == f.rule)
        assert f.message == f"{description} (fingerprint {f.fingerprint})"
        assert f.path == "leak.py"


def test_staged_content_wins_over_disk(tmp_path: Path) -> None:
    disk = tmp_path / "a.py"
    disk.write_text(f"k = '{AWS_KEY}'\n")
    checker = sc.SecretsChecker()
    ctx = RunContext(project_root=tmp_path, deadline=Deadline.after(10))
    staged = FileTarget(path="a.py", abs_path=disk, content=b"k = 1\n")
    [outcome] = checker.run(checker.plan([staged], ctx).batches[0], ctx)
    assert outcome.findings == ()
    on_disk = FileTarget(path="a.py", abs_path=disk)
    [outcome] = checker.run(checker.plan([on_disk], ctx).batches[0], ctx)
    assert [f.rule for f in outcome.findings] == ["secret-aws-access-key-id"]


def test_unreadable_file_is_tool_error(tmp_path: Path) -> None:
    checker = sc.SecretsChecker()
    ctx = RunContext(project_root=tmp_path, deadline=Deadline.after(10))
    gone = FileTarget(path="gone.py", abs_path=tmp_path / "gone.py")
    [outcome] = checker.run(checker.plan([gone], ctx).batches[0], ctx)
    assert outcome.status is ScopeStatus.TOOL_ERROR


def test_expired_deadline_times_out() -> None:
    outcomes = _run({"a.py": b"x\n", "b.py": b"y\n"}, seconds=0)
    assert {o.status for o in outcomes} == {ScopeStatus.TIMED_OUT}


def test_oversized_file_is_partial(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sc, "SCAN_LIMIT", 64)
    [outcome] = _run({"big.txt": b"a" * 100 + AWS_KEY.encode()})
    assert outcome.status is ScopeStatus.PARTIAL
    assert outcome.findings == ()
