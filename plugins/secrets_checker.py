"""Secret scanning: sensitive file names and secret-shaped content, on any surface.

A policy-tier checker: it claims every file beside whatever language checker claims
it, and on a delivery surface its findings block. A finding carries the rule, the
path and the line only; its message is the rule's fixed description. The matched
value never leaves this module (not in a message, a fingerprint or a reason).
No global skip flag disables it: it declares itself `essential`, and the plugin host
loads an essential checker's plugin even when a block list names it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from orchestrator.api import (
    MAX_FILE_BYTES,
    Batch,
    CheckerPlan,
    FileOutcome,
    FileTarget,
    Finding,
    Probe,
    RunContext,
    ScopeStatus,
    Severity,
    Tier,
    ToolIdentity,
    fingerprint,
    hookimpl,
    outcome_for_all,
)
from orchestrator.api import ORCHESTRATE_VERSION as __version__

NAME = "secrets"
#: Identity of the rule set; bump when a rule changes what it matches.
RULESET_VERSION = "1"
#: Only this many leading bytes are scanned for content rules (names are always checked);
#: a longer file is reported `partial`, never silently clean.
SCAN_LIMIT = MAX_FILE_BYTES
#: Files with a NUL byte in this prefix are binary: name rules only.
BINARY_PROBE = 8192


@dataclass(frozen=True)
class Rule:
    """A secret rule: an id, its fixed description, and what it matches."""

    id: str
    description: str
    pattern: re.Pattern[bytes] | None = None


PRIVATE_KEY_BLOCK = Rule(
    "secret-private-key-block",
    "a private key block (PEM) is in the file",
    re.compile(rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
)
AWS_ACCESS_KEY = Rule(
    "secret-aws-access-key-id",
    "a cloud access key id (AWS shape) is in the file",
    re.compile(
        rb"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}(?![A-Z0-9])"
    ),
)
KNOWN_TOKEN = Rule(
    "secret-known-token",
    "an access token with a known provider prefix is in the file",
    re.compile(
        rb"(?<![A-Za-z0-9_])(?:"
        rb"gh[pousr]_[A-Za-z0-9]{36,255}"
        rb"|github_pat_[A-Za-z0-9_]{22,255}"
        rb"|xox[abposr]-[A-Za-z0-9-]{10,255}"
        rb"|(?:sk|rk)_live_[A-Za-z0-9]{16,255}"
        rb"|glpat-[A-Za-z0-9_-]{20,255}"
        rb"|AIza[0-9A-Za-z_-]{35}"
        rb"|npm_[A-Za-z0-9]{36}"
        rb"|sk-ant-[A-Za-z0-9_-]{20,255}"
        rb"|sk-proj-[A-Za-z0-9_-]{20,255}"
        rb"|hf_[A-Za-z0-9]{34,255}"
        rb")"
    ),
)
DOTENV_ASSIGNMENT = Rule(
    "secret-dotenv-file",
    "a .env file with variable assignments is staged",
    re.compile(rb"^[ \t]*(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_.]*[ \t]*=[ \t]*\S", re.MULTILINE),
)
PRIVATE_KEY_FILE = Rule("secret-private-key-file", "a private key file (ssh key name) is staged")
KEY_STORE_FILE = Rule("secret-key-store-file", "a certificate or key store file is staged")

CONTENT_RULES = (PRIVATE_KEY_BLOCK, AWS_ACCESS_KEY, KNOWN_TOKEN)
RULES = (*CONTENT_RULES, DOTENV_ASSIGNMENT, PRIVATE_KEY_FILE, KEY_STORE_FILE)

_KEY_FILE_NAMES = frozenset(
    {"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk"}
)
_KEY_STORE_SUFFIXES = (".pem", ".p12", ".pfx", ".keystore", ".jks")
#: .env templates are meant to be committed; their content rules still apply.
_DOTENV_TEMPLATES = (".example", ".sample", ".template", ".dist")


def _is_dotenv(name: str) -> bool:
    if name == ".env":
        return True
    if name.startswith(".env.") or name.endswith(".env"):
        return not name.endswith(_DOTENV_TEMPLATES)
    return False


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def scan(path: str, data: bytes | None) -> list[tuple[Rule, int | None]]:
    """Every (rule, line) hit for `path` with bytes `data`; at most one hit per rule and line.

    `data` None means the content could not be read: name rules only.
    """
    hits: list[tuple[Rule, int | None]] = []
    name = PurePosixPath(path).name
    lowered = name.lower()
    if lowered in _KEY_FILE_NAMES:
        hits.append((PRIVATE_KEY_FILE, None))
    if lowered.endswith(_KEY_STORE_SUFFIXES):
        hits.append((KEY_STORE_FILE, None))
    if data is None or b"\0" in data[:BINARY_PROBE]:
        return hits
    body = data[:SCAN_LIMIT]
    if _is_dotenv(lowered):
        m = DOTENV_ASSIGNMENT.pattern.search(body)  # type: ignore[union-attr]
        if m is not None:
            hits.append((DOTENV_ASSIGNMENT, _line_of(body, m.start())))
    for rule in CONTENT_RULES:
        seen: set[int] = set()
        for m in rule.pattern.finditer(body):  # type: ignore[union-attr]
            line = _line_of(body, m.start())
            if line not in seen:
                seen.add(line)
                hits.append((rule, line))
    return hits


def _finding(path: str, rule: Rule, line: int | None, nth: int) -> Finding:
    # The fingerprint anchors on rule, path and occurrence index: never on the value.
    return Finding(
        checker=NAME,
        rule=rule.id,
        severity=Severity.ERROR,
        path=path,
        line=line,
        message=rule.description,
        blocking=True,
        fingerprint=fingerprint(NAME, rule.id, path, str(nth)),
    )


class SecretsChecker:
    """The built-in secret scanner (policy tier, in-process, no external tool)."""

    name = NAME
    tier = Tier.POLICY
    #: Language-blind: it claims every file, whatever checker judges its language.
    languages: frozenset[str] = frozenset()
    #: The secret scan has no global skip: a block list cannot switch it off.
    essential = True

    def probe(self, root: Path) -> Probe:
        """In-process rules: there is no tool to find and nothing to configure."""
        return Probe()

    def claims(self, target: FileTarget) -> bool:
        """Every file: sensitive names matter whatever the language."""
        return True

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        """One in-process batch for all files; nothing to resolve."""
        if not targets:
            return CheckerPlan()
        return CheckerPlan(batches=(Batch(targets=tuple(targets), label=NAME),))

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        """Scan each file before the deadline; the rest of the batch is timed_out."""
        tool = ToolIdentity(path=None, version=f"orchestrate-{__version__}/rules-{RULESET_VERSION}")
        outcomes: list[FileOutcome] = []
        for i, target in enumerate(batch.targets):
            if ctx.deadline.expired():
                rest = batch.targets[i:]
                outcomes += outcome_for_all(
                    self, rest, ScopeStatus.TIMED_OUT, "deadline passed before the secret scan"
                )
                break
            outcomes.append(self._scan_one(target, tool))
        return outcomes

    def _scan_one(self, target: FileTarget, tool: ToolIdentity) -> FileOutcome:
        data: bytes | None
        reason: str | None = None
        status = ScopeStatus.CHECKED
        try:
            data = target.read_bytes(SCAN_LIMIT + 1)
        except OSError as exc:
            data = None
            status = ScopeStatus.TOOL_ERROR
            reason = f"file could not be read ({type(exc).__name__})"
        if data is not None and len(data) > SCAN_LIMIT:
            data = data[:SCAN_LIMIT]
            status = ScopeStatus.PARTIAL
            reason = f"only the first {SCAN_LIMIT} bytes were scanned"
        hits = scan(target.path, data)
        findings = tuple(
            _finding(target.path, rule, line, n) for n, (rule, line) in enumerate(hits)
        )
        return FileOutcome(
            path=target.path,
            checker=NAME,
            status=status,
            reason=reason,
            findings=findings,
            tool=tool,
            language=target.language,
        )


@hookimpl
def orchestrate_checkers() -> list[SecretsChecker]:
    """The secret scanner."""
    return [SecretsChecker()]
