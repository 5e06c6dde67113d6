"""evaluate_gate on hand-built reports: allow, deny, incomplete, and honest reasons."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orchestrator.decisions.exits import gate_exit as exit_code_for
from orchestrator.decisions.gate import evaluate_gate, is_blocking
from orchestrator.decisions.required import level_for, required_coverage
from orchestrator.errors import UsageError
from orchestrator.model.report import Finding, PluginFailure, Report, ScanInfo, Scope
from orchestrator.vocab import GateDecision, ScopeStatus, Severity, SyntaxStatus, Tier

S = ScopeStatus


def _scope(path: str, checker: str, tier: Tier | None, status: S, lang: str | None, **kw) -> Scope:  # type: ignore[no-untyped-def]
    return Scope(path=path, checker=checker, tier=tier, status=status, language=lang, **kw)


def _secrets(path: str, status: S = S.CHECKED) -> Scope:
    return _scope(path, "secrets", Tier.POLICY, status, None)


def _report(scopes: list[Scope], findings: list[Finding] = ()) -> Report:  # type: ignore[assignment]
    return Report(scan=ScanInfo(project_root="/p"), scopes=scopes, findings=list(findings))


def _finding(path: str, **kw) -> Finding:  # type: ignore[no-untyped-def]
    base = {"checker": "ruff", "rule": "F401", "severity": Severity.ERROR, "blocking": True}
    base.update(kw)
    return Finding(path=path, **base)


def _py(status: S = S.CHECKED, **kw) -> list[Scope]:  # type: ignore[no-untyped-def]
    return [_scope("a.py", "ruff", Tier.NATIVE, status, "python", **kw), _secrets("a.py")]


def test_allow_needs_complete_required_coverage() -> None:
    gate = evaluate_gate(_report(_py()), {})
    assert gate.decision is GateDecision.ALLOW
    assert exit_code_for(gate.decision) == 0


def test_blocking_finding_denies() -> None:
    gate = evaluate_gate(_report(_py(), [_finding("a.py", line=3)]), {})
    assert gate.decision is GateDecision.DENY
    assert "finding: a.py:3 ruff/F401" in gate.reasons
    assert exit_code_for(gate.decision) == 1


@pytest.mark.parametrize("status", [S.TOOL_ERROR, S.TIMED_OUT, S.PARTIAL, S.MISSING])
def test_a_second_native_checker_that_did_not_judge_leaves_the_gate_incomplete(status: S) -> None:
    """Failed before: one checked native scope allowed the file whatever the others said."""
    scopes = [
        _scope("a.rb", "ruby", Tier.NATIVE, S.CHECKED, "ruby"),
        _scope("a.rb", "rubocop", Tier.NATIVE, status, "ruby", hint="install rubocop"),
        _secrets("a.rb"),
    ]
    gate = evaluate_gate(_report(scopes), {})
    assert gate.decision is GateDecision.INCOMPLETE
    assert any(f"rubocop: {status}" in r for r in gate.reasons)


def test_a_second_native_checker_excluding_the_file_keeps_the_gate_open() -> None:
    scopes = [
        _scope("a.rb", "ruby", Tier.NATIVE, S.CHECKED, "ruby"),
        _scope("a.rb", "rubocop", Tier.NATIVE, S.NOT_RUN, "ruby", reason="excluded"),
        _secrets("a.rb"),
    ]
    assert evaluate_gate(_report(scopes), {}).decision is GateDecision.ALLOW


def test_missing_tool_is_incomplete_with_recovery_not_an_error_claim() -> None:
    scopes = [
        *_py(S.MISSING, hint="install Ruff (pip install ruff)"),
        _scope("a.py", "treesitter", Tier.FALLBACK, S.CHECKED, "python", syntax=SyntaxStatus.CLEAN),
    ]
    gate = evaluate_gate(_report(scopes), {})
    assert gate.decision is GateDecision.INCOMPLETE
    assert exit_code_for(gate.decision) == 3
    assert gate.recovery == ["install Ruff (pip install ruff)"]
    text = " ".join(gate.reasons)
    assert "does not mean the code has errors" in text
    assert "finding" not in text


@pytest.mark.parametrize(
    ("status", "hint_word"),
    [
        (S.CONFIGURATION_REQUIRED, "configure"),
        (S.TOOL_ERROR, "repair"),
        (S.TIMED_OUT, "--timeout"),
        (S.PARTIAL, "re-run"),
    ],
)
def test_each_gap_has_its_recovery(status: S, hint_word: str) -> None:
    gate = evaluate_gate(_report(_py(status)), {})
    assert gate.decision is GateDecision.INCOMPLETE
    assert any(hint_word in r for r in gate.recovery)


def test_unsafe_scope_and_secret_scan_gaps_are_incomplete() -> None:
    unsafe = [_scope("x.py", "selection", None, S.UNSAFE, None), _secrets("x.py")]
    assert evaluate_gate(_report(unsafe), {}).decision is GateDecision.INCOMPLETE
    no_secret_scan = [_scope("a.py", "ruff", Tier.NATIVE, S.CHECKED, "python")]
    gate = evaluate_gate(_report(no_secret_scan), {})
    assert gate.decision is GateDecision.INCOMPLETE
    assert any("secret scan" in r for r in gate.reasons)
    timed = [
        _scope("a.py", "ruff", Tier.NATIVE, S.CHECKED, "python"),
        _secrets("a.py", S.TIMED_OUT),
    ]
    assert evaluate_gate(_report(timed), {}).decision is GateDecision.INCOMPLETE


def test_both_findings_and_gaps_keep_both_and_say_incomplete() -> None:
    scopes = [*_py(), _scope("b.py", "ruff", Tier.NATIVE, S.MISSING, "python"), _secrets("b.py")]
    gate = evaluate_gate(_report(scopes, [_finding("a.py")]), {})
    assert gate.decision is GateDecision.INCOMPLETE
    assert any("blocking finding" in r for r in gate.reasons)
    assert any("not verified: b.py" in r for r in gate.reasons)


def test_syntax_level_languages() -> None:
    clean = [
        _scope("m.go", "treesitter", Tier.FALLBACK, S.CHECKED, "go", syntax=SyntaxStatus.CLEAN),
        _secrets("m.go"),
    ]
    assert evaluate_gate(_report(clean), {}).decision is GateDecision.ALLOW
    suspect = [
        _scope(
            "m.go",
            "treesitter",
            Tier.FALLBACK,
            S.CHECKED,
            "go",
            syntax=SyntaxStatus.SUSPECTED_ISSUE,
        ),
        _secrets("m.go"),
    ]
    cand = _finding(
        "m.go", checker="treesitter", rule="syntax-error", candidate=True, blocking=False
    )
    gate = evaluate_gate(_report(suspect, [cand]), {})
    assert gate.decision is GateDecision.INCOMPLETE  # a candidate is unconfirmed, not a denial
    # A qualified language's file left unqualified (json is qualified on real code).
    unq = [_scope("x.json", "treesitter", Tier.FALLBACK, S.UNQUALIFIED, "json"), _secrets("x.json")]
    assert evaluate_gate(_report(unq), {}).decision is GateDecision.INCOMPLETE
    assert evaluate_gate(_report(unq), {"json": "none"}).decision is GateDecision.ALLOW


def test_configured_levels() -> None:
    syntax_only = [
        *_py(S.MISSING),
        _scope("a.py", "treesitter", Tier.FALLBACK, S.CHECKED, "python", syntax=SyntaxStatus.CLEAN),
    ]
    assert evaluate_gate(_report(syntax_only), {"python": "syntax"}).decision is GateDecision.ALLOW
    go = [_scope("m.go", "treesitter", Tier.FALLBACK, S.CHECKED, "go"), _secrets("m.go")]
    gate = evaluate_gate(_report(go), {"go": "native"})
    assert gate.decision is GateDecision.INCOMPLETE
    assert any("no native checker for go" in r for r in gate.reasons)


def test_unknown_files_need_only_the_secret_scan() -> None:
    scopes = [_scope("notes.txt", "selection", None, S.UNSUPPORTED, None), _secrets("notes.txt")]
    assert evaluate_gate(_report(scopes), {}).decision is GateDecision.ALLOW


def test_nothing_to_check_and_plugin_failures() -> None:
    assert evaluate_gate(_report([]), {}).decision is GateDecision.NOT_APPLICABLE
    rep = _report(_py())
    rep.plugin_failures = [PluginFailure(name="eslint", reason="ImportError")]
    assert evaluate_gate(rep, {}).decision is GateDecision.INCOMPLETE


def test_required_config_parsing() -> None:
    assert required_coverage({"required": {"python": "syntax", "default": "none"}}) == {
        "python": "syntax",
        "default": "none",
    }
    with pytest.raises(UsageError):
        required_coverage({"required": {"python": "nativ"}})
    with pytest.raises(UsageError):
        required_coverage({"required": "native"})
    assert level_for("python", {}) == "native"
    assert level_for("go", {}) == "syntax"
    assert level_for(None, {}) == "none"
    assert level_for("go", {"default": "none"}) == "none"


def test_candidates_never_block() -> None:
    assert not is_blocking(_finding("a.go", candidate=True))
    assert is_blocking(_finding("a.py", blocking=False))  # a native error blocks
    assert not is_blocking(_finding("a.py", blocking=False, severity=Severity.WARNING))


_statuses = st.sampled_from(list(ScopeStatus))


@given(st.lists(st.tuples(st.sampled_from(["a.py", "b.js", "c.go"]), _statuses), max_size=6))
def test_allow_only_when_every_native_scope_is_checked(rows: list[tuple[str, ScopeStatus]]) -> None:
    langs = {"a.py": "python", "b.js": "javascript", "c.go": "go"}
    scopes = []
    for path, status in rows:
        tier = Tier.FALLBACK if path == "c.go" else Tier.NATIVE
        scopes.append(_scope(path, f"chk-{path}", tier, status, langs[path]))
    scopes += [_secrets(p) for p in {p for p, _ in rows}]
    gate = evaluate_gate(_report(scopes), {})
    if gate.decision is GateDecision.ALLOW:
        for path in {p for p, _ in rows}:
            assert any(
                s.path == path and s.status is S.CHECKED for s in scopes if s.tier != Tier.POLICY
            )


def test_unqualified_languages_are_listed_not_required_by_default() -> None:
    scopes = [
        _scope("README.md", "treesitter", Tier.FALLBACK, S.UNQUALIFIED, "markdown"),
        _secrets("README.md"),
    ]
    gate = evaluate_gate(_report(scopes), {})
    assert gate.decision is GateDecision.ALLOW
    assert any("unverified, not required" in r and "README.md" in r for r in gate.reasons)
    assert (
        evaluate_gate(_report(scopes), {"markdown": "syntax"}).decision is GateDecision.INCOMPLETE
    )


def test_declared_native_languages_need_native_evidence() -> None:
    """A language a loaded native checker declares (a third-party YAML linter) needs
    native evidence at the gate; the default policy's languages always do, even when
    their checker is not loaded (switching a checker off never lowers a requirement)."""
    yaml_syntax_only = [
        _scope("c.yml", "treesitter", Tier.FALLBACK, S.CHECKED, "yaml", syntax=SyntaxStatus.CLEAN),
        _secrets("c.yml"),
    ]
    assert evaluate_gate(_report(yaml_syntax_only), {}).decision is GateDecision.ALLOW
    gate = evaluate_gate(_report(yaml_syntax_only), {}, {"yaml"})
    assert gate.decision is GateDecision.INCOMPLETE
    assert any("no native checker for yaml" in r for r in gate.reasons)
    assert level_for("python", {}, ()) == "native"


def test_policy_checks_are_known_by_tier_not_name() -> None:
    """Any policy-tier scope is the file's policy evidence; none at all is a gap."""
    other_policy = [
        _scope("a.py", "ruff", Tier.NATIVE, S.CHECKED, "python"),
        _scope("a.py", "licence-scan", Tier.POLICY, S.CHECKED, None),
    ]
    assert evaluate_gate(_report(other_policy), {}).decision is GateDecision.ALLOW
    no_policy = [_scope("a.py", "ruff", Tier.NATIVE, S.CHECKED, "python")]
    gate = evaluate_gate(_report(no_policy), {})
    assert gate.decision is GateDecision.INCOMPLETE
    assert any("policy checks" in r for r in gate.reasons)


def test_legacy_blocks_in_one_place() -> None:
    from orchestrator.decisions.gate import legacy_blocks

    secret = _finding("a.py", checker="secrets", rule="aws-access-key-id")
    lint = _finding("a.py")
    with_secret = _report(_py(), [secret])
    with_lint = _report(_py(), [lint])
    assert legacy_blocks(with_secret, skipped=True) and legacy_blocks(with_secret, skipped=False)
    assert not legacy_blocks(with_lint, skipped=True)  # the skip takes the language gate away
    assert legacy_blocks(with_lint, skipped=False)
    assert not legacy_blocks(_report(_py(S.MISSING)), skipped=False)  # fails open (CG-07)
