"""The gate decision: the one place a delivery verdict is computed from a report.

``allow`` needs complete required coverage and no blocking finding. Missing,
timed-out, partial, unsafe, errored, unconfigured or unqualified evidence on a
required scope makes the gate ``incomplete``; blocking findings make it ``deny``.
When both hold the decision is ``incomplete`` (the exit-code precedence: incomplete
over findings) and the reasons name both. An incomplete gate says what to do to
restore the evidence and never claims the code has errors (CG-08).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from orchestrator.decisions.coverage import is_checked, is_failed_check
from orchestrator.decisions.findings import blocking_findings, has_blocking, is_blocking
from orchestrator.decisions.required import NATIVE, NONE, SYNTAX, level_for_path
from orchestrator.model.generated import is_generated
from orchestrator.model.report import Finding, Gate, Report, Scope
from orchestrator.vocab import GateDecision, ScopeStatus, SyntaxEvidence, SyntaxStatus, Tier

#: Reasons listed one by one before they are summarised.
MAX_LISTED = 12


@dataclass(frozen=True)
class Gap:
    """One required scope without sufficient evidence."""

    path: str
    what: str  # "ruff: missing", "secret scan: timed_out", ...
    recovery: str
    #: False for a file no requirement covers: listed as unverified, never blocking.
    required: bool = True


def _recovery(s: Scope, language: str | None) -> str:
    """What a user does to turn this scope's status into evidence."""
    tool = s.checker
    if s.status == ScopeStatus.MISSING:
        return (
            s.hint or f"install {tool} (or set its path in the user config's [tools]), then re-run"
        )
    if s.status == ScopeStatus.CONFIGURATION_REQUIRED:
        return s.hint or f"configure {tool} for this project, then re-run"
    if s.status == ScopeStatus.TOOL_ERROR:
        return s.hint or f"repair the {tool} installation or its configuration, then re-run"
    if s.status == ScopeStatus.TIMED_OUT:
        return (
            f"{tool} did not finish in time: check that {tool} runs and returns (restore the "
            "toolchain if it hangs), then re-run; a slow run needs a longer --timeout or "
            "fewer files at once"
        )
    if s.status == ScopeStatus.PARTIAL:
        return f"re-run; {tool} produced only part of its output"
    if s.status == ScopeStatus.UNSAFE:
        return "the path was refused (outside the project, symlink escape, not a regular file, too large or nested too deep): fix or exclude it"
    if s.status == ScopeStatus.UNQUALIFIED:
        lang = language or "this language"
        return (
            f"no qualified grammar for {lang}: add a native checker, or accept the gap with "
            f'[tool.orchestrate.required] {lang} = "none"'
        )
    # `not_run` with a hint: the checker said what would close the gap (a config a
    # strict gate never runs); re-running the gate would not.
    return s.hint or "re-run the gate"


def _policy_gaps(
    path: str, policy: list[Scope], lang_scopes: list[Scope], language: str | None
) -> list[Gap]:
    """Required everywhere: a policy check ran (the secret scan is the built-in one),
    every policy scope is checked, and no language scope was refused as unsafe."""
    gaps: list[Gap] = []
    if not policy:
        gaps.append(
            Gap(
                path,
                "policy checks (the secret scan): did not run",
                "make sure the essential plugins load (orchestrate plugins), then re-run",
            )
        )
    for s in policy:
        if not is_checked(s):
            gaps.append(Gap(path, f"{s.checker}: {s.status}", _recovery(s, language)))
    for s in lang_scopes:
        if s.status == ScopeStatus.UNSAFE:
            gaps.append(Gap(path, f"{s.checker}: unsafe", _recovery(s, language)))
    return gaps


def _native_gaps(path: str, short: list[Scope], language: str | None) -> list[Gap]:
    """Native required and no native checker ran completely: why, per native scope."""
    natives = [s for s in short if s.tier == Tier.NATIVE]
    if natives:
        return [Gap(path, f"{s.checker}: {s.status}", _recovery(s, language)) for s in natives]
    return [
        Gap(
            path,
            f"no native checker for {language}",
            f"install a native checker plugin for {language}, or set "
            f'[tool.orchestrate.required] {language} = "syntax"',
        )
    ]


def _syntax_gaps(
    path: str, lang_scopes: list[Scope], short: list[Scope], language: str | None
) -> list[Gap]:
    """Syntax required: a complete syntax check without recovery nodes is enough, and so
    is one whose candidates the language's own parser refuted. A confirmed syntax error
    is no gap: its finding blocks (decisions/findings.is_blocking)."""
    fallback = [s for s in lang_scopes if s.tier == Tier.FALLBACK and is_checked(s)]
    if any(
        s.syntax == SyntaxStatus.SUSPECTED_ISSUE and s.syntax_evidence != SyntaxEvidence.CONFIRMED
        for s in fallback
    ):
        return [
            Gap(
                path,
                "suspected syntax issue (unconfirmed candidate)",
                f"confirm with the native compiler or linter for {language}, repair, then re-run",
            )
        ]
    if fallback:
        return []
    if short:
        return [Gap(path, f"{s.checker}: {s.status}", _recovery(s, language)) for s in short]
    return [Gap(path, f"no {SYNTAX} evidence", "re-run the gate")]


def _kind(scopes: list[Scope]) -> str:
    """What a file without a language is, as the surface named it ("symlink: ...")."""
    for s in scopes:
        if s.tier is None and s.status == ScopeStatus.UNSUPPORTED and s.reason:
            kind, sep, _ = s.reason.partition(":")
            if sep and kind.isalpha():
                return kind
    return "unrecognised language"


def _undeterminable(scopes: list[Scope]) -> list[Scope]:
    """Scopes refused before any checker, that carry their own recovery step."""
    return [s for s in scopes if s.tier is None and s.status == ScopeStatus.NOT_RUN and s.hint]


def _file_gaps(
    path: str, scopes: list[Scope], required: Mapping[str, str], native: Collection[str]
) -> list[Gap]:
    """The gaps of one file: policy first, then its language's required level."""
    language = next((s.language for s in scopes if s.language), None)
    # Policy checks guard every delivered file, whatever its language; they are known
    # by their tier, never by a checker's name.
    policy = [s for s in scopes if s.tier == Tier.POLICY]
    # A project recipe only adds findings: its scopes are no evidence of the file's
    # required level, and its not running (new policy, untrusted) is no gap of it.
    lang_scopes = [s for s in scopes if s not in policy and s.tier != Tier.PROJECT]
    undeterminable = _undeterminable(lang_scopes)
    if undeterminable:
        # An entry the surface could run nothing on (a submodule, a pushed ref whose base
        # is unknown) says itself why and what to do: not a missing secret scan.
        gaps = _policy_gaps(path, policy, lang_scopes, language) if policy else []
        return gaps + [Gap(path, s.reason or "not run", s.hint or "") for s in undeterminable]
    gaps = _policy_gaps(path, policy, lang_scopes, language)
    if any(is_generated(s.checker, s.status, s.reason, s.tier) for s in lang_scopes):
        # Generated (a lock file, linguist-generated, minified): linters skip it, the
        # policy checks above still cover it; listed as unverified, never blocking.
        gaps.append(Gap(path, "not required: generated", "", required=False))
        return gaps
    if policy and not lang_scopes:
        # A version judged for policy alone (one a pushed or merged commit adds and a
        # later one replaces, a link's target text): nothing else of it is delivered.
        return gaps
    level, raised_by = level_for_path(path, language, required, native)
    if raised_by is not None:
        own = _level_gaps(path, level, lang_scopes, language or raised_by)
        return gaps + _raised_gaps(path, own, language, raised_by, level)
    return gaps + _level_gaps(path, level, lang_scopes, language)


def _raised_gaps(
    path: str, gaps: list[Gap], language: str | None, raised_by: str, level: str
) -> list[Gap]:
    """Gaps of a file whose extension, not its content, set the level: say so and how
    to accept the content's language (content alone never lowers a requirement)."""
    ext = PurePosixPath(path).suffix.lower()
    why = (
        f"content says {language or 'undecided'}, and {ext} files need {level} evidence"
        f" here (as {raised_by})"
    )
    accept = f'to accept them as they are, set [tool.orchestrate.required] {raised_by} = "none"'
    return [
        Gap(g.path, f"{g.what} ({why})", f"add a checker for {language or raised_by}, or {accept}")
        if g.required
        else g
        for g in gaps
    ]


def _level_gaps(path: str, level: str, lang_scopes: list[Scope], language: str | None) -> list[Gap]:
    """The gaps of a file's language scopes under `level`."""
    gaps: list[Gap] = []
    if level == NONE:
        if not any(is_checked(s) for s in lang_scopes):
            gaps.append(
                Gap(path, f"not required: {language or _kind(lang_scopes)}", "", required=False)
            )
        return gaps
    if any(s.tier == Tier.NATIVE and is_checked(s) for s in lang_scopes):
        # One native verdict is not all of them: a second native checker the project
        # configured (RuboCop beside `ruby -c`) that failed or is absent left its part
        # of the file unjudged.
        unjudged = [
            s
            for s in lang_scopes
            if s.tier == Tier.NATIVE and (is_failed_check(s) or s.status == ScopeStatus.MISSING)
        ]
        return gaps + [
            Gap(path, f"{s.checker}: {s.status}", _recovery(s, language)) for s in unjudged
        ]
    short = [s for s in lang_scopes if not is_checked(s) and s.status != ScopeStatus.UNSAFE]
    if level == NATIVE:
        return gaps + _native_gaps(path, short, language)
    return gaps + _syntax_gaps(path, lang_scopes, short, language)


def coverage_gaps(
    report: Report, required: Mapping[str, str], native: Collection[str] = ()
) -> list[Gap]:
    """Every required scope of `report` that lacks complete evidence."""
    by_file: dict[str, list[Scope]] = defaultdict(list)
    for s in report.scopes:
        by_file[s.path].append(s)
    gaps: list[Gap] = []
    for path in sorted(by_file):
        gaps += _file_gaps(path, by_file[path], required, native)
    return gaps


def evaluate_gate(
    report: Report, required: Mapping[str, str], native: Collection[str] = ()
) -> Gate:
    """The delivery decision for `report` under `required` coverage, with reasons and recovery.

    `native` names the languages the loaded native checkers declare; they need native
    evidence by default, besides the default policy's languages (decisions/required.py).
    """
    blocking = blocking_findings(report)
    all_gaps = coverage_gaps(report, required, native)
    gaps = [g for g in all_gaps if g.required]
    optional = [g for g in all_gaps if not g.required]
    failed_plugins = [p.name for p in report.plugin_failures]
    reasons: list[str] = []
    recovery: list[str] = []
    if not report.scopes and not failed_plugins:
        return Gate(
            decision=GateDecision.NOT_APPLICABLE,
            reasons=["nothing to check on this surface"],
        )
    if blocking:
        files = len({f.path for f in blocking})
        reasons.append(f"{len(blocking)} blocking finding(s) in {files} file(s)")
        for f in blocking[:MAX_LISTED]:
            where = f"{f.path}:{f.line}" if f.line else f.path
            reasons.append(f"finding: {where} {f.checker}/{f.rule}")
        if len(blocking) > MAX_LISTED:
            reasons.append(f"... and {len(blocking) - MAX_LISTED} more finding(s)")
        recovery.append(
            "fix the findings (orchestrate lint <paths> shows them), stage the fixes, re-run"
        )
    if failed_plugins:
        reasons.append(f"plugin(s) failed to load: {', '.join(sorted(failed_plugins))}")
        recovery.append("run `orchestrate plugins` and repair the failing plugin, then re-run")
    if gaps:
        reasons.append(
            f"required coverage incomplete for {len({g.path for g in gaps})} file(s): "
            "evidence is missing, this does not mean the code has errors"
        )
        for g in gaps[:MAX_LISTED]:
            reasons.append(f"not verified: {g.path} ({g.what})")
        if len(gaps) > MAX_LISTED:
            reasons.append(f"... and {len(gaps) - MAX_LISTED} more unverified scope(s)")
        for g in gaps:
            if g.recovery not in recovery:
                recovery.append(g.recovery)
    if gaps or failed_plugins:
        decision = GateDecision.INCOMPLETE
    elif blocking:
        decision = GateDecision.DENY
    else:
        decision = GateDecision.ALLOW
        reasons.append("required coverage complete and no blocking finding")
    if optional:
        names = ", ".join(
            f"{g.path} ({g.what.removeprefix('not required: ')})" for g in optional[:5]
        )
        more = f" and {len(optional) - 5} more" if len(optional) > 5 else ""
        reasons.append(f"unverified, not required by the project's coverage: {names}{more}")
    return Gate(decision=decision, reasons=reasons, recovery=recovery)


__all__ = [
    "NATIVE",
    "SYNTAX",
    "Gap",
    "coverage_gaps",
    "evaluate_gate",
    "is_blocking",
]


def legacy_blocks(report: Report, skipped: bool) -> bool:
    """Whether the legacy-v1 protocol blocks (exit 2) on `report`.

    Legacy-v1 blocks on blocking findings only; missing evidence fails open (CG-07).
    When a skip took the language gate away, only what the policy checks found (the
    secret scan is never skipped) blocks (CG-04).
    """
    if skipped:
        return bool(policy_findings(report))
    return has_blocking(report)


def policy_findings(report: Report) -> list[Finding]:
    """Findings of the policy checkers (tier policy: the secret scan), in report order."""
    policy = {s.checker for s in report.scopes if s.tier == Tier.POLICY}
    return [f for f in report.findings if f.checker in policy]
