"""Shared pieces of the secret-scan tests: synthetic tokens and a direct runner.

Secret-shaped values are assembled at run time so these files themselves stay clean.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from orchestrate_plugins import secrets_checker as sc

from orchestrator.deadline import Deadline
from orchestrator.model.checker import FileOutcome, FileTarget, RunContext
from orchestrator.vocab import Purpose

AWS_KEY = "AKIA" + "Q7XZ" * 4
GH_TOKEN = "ghp" + "_" + "a1B2" * 9
SLACK = "xoxb" + "-" + "1234567890-abcdefghij"
STRIPE = "sk" + "_live_" + "Z" * 24
GITLAB = "glpat" + "-" + "x" * 20
KEY_BODY = "MIIEow" + "IBAAKCAQEA" * 6
PEM = "-----BEGIN " + f"RSA PRIVATE KEY-----\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----\n"
OPENSSH = "-----BEGIN " + "OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"


def run_scan(
    files: Mapping[str, bytes],
    seconds: float = 30.0,
    root: Path = Path("/nonexistent"),
    purpose: Purpose = Purpose.FEEDBACK,
    surface_files: Mapping[str, bytes] | None = None,
) -> list[FileOutcome]:
    """Plan and run the secret checker over in-memory `files` under `root`."""
    checker = sc.SecretsChecker()
    targets = [FileTarget(path=p, abs_path=root / p, content=c) for p, c in files.items()]
    ctx = RunContext(
        project_root=root,
        deadline=Deadline.after(seconds),
        purpose=purpose,
        surface_files=surface_files,
    )
    out: list[FileOutcome] = []
    for batch in checker.plan(targets, ctx).batches:
        out += checker.run(batch, ctx)
    return out


def rules_of(outcome: FileOutcome) -> list[tuple[str, int | None]]:
    """(rule, line) of each finding of `outcome`."""
    return [(f.rule, f.line) for f in outcome.findings]
