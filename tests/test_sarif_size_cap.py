"""SARIF's size cap (render/sarif.py): code scanning refuses an upload over 10 MB
gzip-compressed, so a log that could be that large is measured through a compressor
and cut to fit, in order of need (notifications, then results with errors first, then
artifacts), each cut named in a notification. In process: reports built here, under a
cap of 1 MB (the same code as at 10 MB, a tenth of the work), and the real cap's value."""

from __future__ import annotations

import base64
import gzip
import json
import random

import jsonschema
import pytest
from helpers import sarif_schema

from orchestrator.model.report import Finding, Report, ScanInfo, Scope
from orchestrator.render import sarif
from orchestrator.render.sarif import MAX_GZIP_BYTES, sarif_chunks, to_sarif
from orchestrator.vocab import ScopeStatus, Severity


def _noise(rng: random.Random, n: int) -> str:
    """`n` characters that hardly compress (a tool's output is untrusted: anything)."""
    return base64.b64encode(rng.randbytes(n)).decode()[:n].replace("/", "_").replace("+", "-")


#: The cap these tests run under, and the room kept below it.
CAP = 1_000_000


@pytest.fixture(autouse=True)
def small_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sarif, "MAX_GZIP_BYTES", CAP)
    monkeypatch.setattr(sarif, "_GZIP_RESERVE", 64 * 1024)


def test_the_cap_is_code_scannings_ten_megabytes() -> None:
    assert MAX_GZIP_BYTES == 10_000_000  # 10 MB compressed, under 10 MiB


def _gzip_size(log: dict) -> int:
    return len(gzip.compress(json.dumps(log, indent=2, ensure_ascii=False).encode()))


def _ids(log: dict) -> set[str]:
    notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    return {n["descriptor"]["id"] for n in notes}


def _findings(rng: random.Random, warnings: int, errors: int, size: int) -> list[Finding]:
    """`warnings` warnings first in report order, then `errors` errors, each message
    `size` characters of noise."""
    return [
        Finding(
            checker="fake",
            rule=f"R{i % 7}",
            severity=Severity.WARNING if i < warnings else Severity.ERROR,
            path=f"src/f{i % 40}.py",
            line=1 + i,
            message=_noise(rng, size),
            fingerprint=f"{i:016x}",
        )
        for i in range(warnings + errors)
    ]


def _report(findings: list[Finding], scopes: list[Scope] | None = None) -> Report:
    scopes = scopes or [
        Scope(path=f"src/f{i}.py", checker="fake", status=ScopeStatus.CHECKED, language="python")
        for i in range(40)
    ]
    return Report(scan=ScanInfo(project_root="/p"), scopes=scopes, findings=findings)


def test_results_that_would_exceed_the_upload_cap_are_cut_errors_first() -> None:
    rng = random.Random(7)
    # About 1.4 MB of noise compressed: 350 warnings, then 60 errors at the end.
    report = _report(_findings(rng, 350, 60, 4_000))
    log = to_sarif(report)
    assert _gzip_size(log) <= CAP
    results = log["runs"][0]["results"]
    assert 100 < len(results) < 410
    assert sum(r["level"] == "error" for r in results) == 60  # every error was kept
    assert "results_truncated" in _ids(log)
    (note,) = [
        n
        for n in log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        if n["descriptor"]["id"] == "results_truncated"
    ]
    assert "gzip-compressed" in note["message"]["text"]
    assert note["message"]["text"].startswith(f"{410 - len(results)} of 410 results left out")
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is False
    schema = sarif_schema()  # valid SARIF (the first results stand for the rest: same shape)
    sample = {**log, "runs": [{**log["runs"][0], "results": results[:50]}]}
    jsonschema.validators.validator_for(schema)(schema).validate(sample)
    # The streamed text is the same log.
    assert json.loads("".join(sarif_chunks(report))) == log


def test_notifications_come_before_results_and_artifacts_go_first() -> None:
    rng = random.Random(11)
    # 500 scopes not checked, each with a long noisy path (3,000 characters): the
    # notifications alone are over the cap.
    scopes = [
        Scope(
            path=f"{_noise(rng, 3_000)}/{i}.py",
            checker="fake",
            status=ScopeStatus.TOOL_ERROR,
            reason="tool crashed",
            language="python",
        )
        for i in range(500)
    ]
    report = _report(_findings(rng, 0, 5, 10), scopes)
    log = to_sarif(report)
    assert _gzip_size(log) <= CAP
    ids = _ids(log)
    assert {"notifications_truncated", "artifacts_truncated", "results_truncated"} <= ids
    run = log["runs"][0]
    assert run["artifacts"] == [] and run["results"] == []
    kept = [
        n
        for n in run["invocations"][0]["toolExecutionNotifications"]
        if n["descriptor"]["id"] == "tool_error"
    ]
    assert 50 < len(kept) < 500
    assert run["invocations"][0]["properties"]["coverage"]  # the counts are all still there
    assert json.loads("".join(sarif_chunks(report))) == log


def test_a_log_that_only_looks_large_is_measured_and_kept_whole() -> None:
    # The bound says it may be large (long messages), but it compresses well: nothing cut.
    findings = [
        Finding(
            checker="fake",
            rule="R",
            severity=Severity.WARNING,
            path="a.py",
            line=1 + i,
            message="x" * 2_000,
            fingerprint=f"{i:016x}",
        )
        for i in range(600)
    ]
    log = to_sarif(_report(findings))
    assert len(log["runs"][0]["results"]) == 600
    assert _ids(log) == set()
    assert len(log["runs"][0]["artifacts"]) == 40


def test_a_small_log_is_never_measured(monkeypatch) -> None:
    def fail(*_a: object) -> None:
        raise AssertionError("measured a log that cannot be near the cap")

    monkeypatch.setattr(sarif, "_fit", fail)
    log = to_sarif(_report(_findings(random.Random(1), 200, 20, 200)))
    assert len(log["runs"][0]["results"]) == 220
