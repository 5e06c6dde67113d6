"""The secret scan's rules: ids, fixed descriptions and what each matches.

Rule ids are stable (they reach reports, allowlists and agents' context) and match
`secret-[a-z0-9-]+`. A rule that changes what it matches bumps `RULESET_VERSION`.
Content rules match bytes (tokens are ASCII); `secrets_decode` turns UTF-16/32 text
and binaries into views these patterns can read. Which rules exist, and which were
left out, was decided by bench/secrets_quality.py (recall on synthetic tokens of each
provider format, false positives on real code): see bench/RESULTS.md.

Every pattern starts with a literal, so the regex engine skips to candidate positions
(a leading look-behind or alternation scans every byte: ten times slower); the
"not preceded by" check comes after the literal, as a look-behind over it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

#: Identity of the rule set; bump when a rule changes what it matches.
RULESET_VERSION = "5"  # 5: paths and compressed content are scanned too


@dataclass(frozen=True)
class Rule:
    """A secret rule: an id, its fixed description, and the patterns it matches."""

    id: str
    description: str
    patterns: tuple[re.Pattern[bytes], ...] = ()

    def finditer(self, data: bytes) -> Iterator[re.Match[bytes]]:
        """Every match of every pattern in `data`, in order of position."""
        found = [m for p in self.patterns for m in p.finditer(data)]
        return iter(sorted(found, key=lambda m: m.start()))


def _token(prefix: bytes, body: bytes, before: bytes = rb"A-Za-z0-9_") -> re.Pattern[bytes]:
    """`prefix` + `body`, not preceded by a byte of class `before`, nor followed by one
    that would continue the body."""
    n = len(prefix)
    guard = rb"(?<![" + before + rb"]" + rb"." * n + rb")" if n else b""
    return re.compile(re.escape(prefix) + guard + body, re.DOTALL)


#: Key material must follow the header (after optional `Name: value` header lines,
#: with real or escaped newlines): a parser's header constant is not a key.
#:
#: Every rule is written so that the input splits into its quantified parts in one
#: way only, which keeps Python's backtracking engine linear (tests/test_secrets_redos.py
#: checks every rule against inputs built from its own pieces). A header line's value
#: runs to its line break and the line break is required after it: the value class
#: holds no byte a separator or a line break starts with. (The first rule set let a
#: value hold blanks and be followed by any blank, so `a: b a: b ...` split
#: exponentially many ways: 30 repeats took 93 s.)
_SEP = rb"(?:[ \t\r\n]|\\[rn])+"
_BREAK = rb"(?:[\r\n]|\\[rn])"
_BLANKS = rb"(?:[ \t\r\n]|\\[rn])*"
PRIVATE_KEY_BLOCK = Rule(
    "secret-private-key-block",
    "a private key block (PEM) is in the file",
    (
        re.compile(
            rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            + _SEP
            + rb"(?:[A-Za-z][A-Za-z0-9-]*: [^\r\n\\]*"
            + _BREAK
            + _BLANKS
            + rb")*[A-Za-z0-9+/=]{32}"
        ),
    ),
)
#: Access key ids only (long-term AKIA, temporary ASIA, bearer ABIA, context ACCA), not
#: the IAM unique ids (AIDA, AROA, ANPA...), which are identifiers, not credentials.
#: AWS's documentation keys (..EXAMPLE) are placeholders.
AWS_ACCESS_KEY = Rule(
    "secret-aws-access-key-id",
    "a cloud access key id (AWS shape) is in the file",
    (
        re.compile(
            rb"A(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])(?<![A-Z0-9]....)(?![A-Z0-9]{0,10}EXAMPL)"
            rb"[A-Z0-9]{16}(?![A-Z0-9])"
        ),
    ),
)
_AWS_SECRET_TAIL = (
    rb"[A-Za-z0-9_.-]{0,20}(?i:secret)[A-Za-z0-9_.-]{0,20}[\"']?[ \t]*[:=][ \t]*[\"']?"
    rb"(?![A-Za-z0-9/+]{0,33}EXAMPLE)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
)
AWS_SECRET_KEY = Rule(
    "secret-aws-secret-access-key",
    "a cloud secret access key (AWS shape) is assigned in the file",
    tuple(re.compile(p + _AWS_SECRET_TAIL) for p in (rb"aws", rb"AWS", rb"Aws")),
)
_B = rb"(?![A-Za-z0-9])"
KNOWN_TOKEN = Rule(
    "secret-known-token",
    "an access token with a known provider prefix is in the file",
    (
        re.compile(rb"gh[pousr]_(?<![A-Za-z0-9_]....)[A-Za-z0-9]{36,255}" + _B),
        _token(b"github_pat_", rb"[A-Za-z0-9_]{22,255}"),
        re.compile(rb"xox[abposr]-(?<![A-Za-z0-9_].....)[A-Za-z0-9-]{10,255}"),
        re.compile(rb"[sr]k_live_(?<![A-Za-z0-9_]........)[A-Za-z0-9]{16,255}"),
        _token(b"glpat-", rb"[A-Za-z0-9_-]{20,255}"),
        _token(b"AIza", rb"[0-9A-Za-z_-]{35}"),
        _token(b"npm_", rb"[A-Za-z0-9]{36}" + _B),
        _token(b"sk-ant-", rb"[A-Za-z0-9_-]{20,255}"),
        _token(b"sk-proj-", rb"[A-Za-z0-9_-]{20,255}"),
        _token(b"hf_", rb"[A-Za-z0-9]{34,255}"),
    ),
)
WEBHOOK_URL = Rule(
    "secret-webhook-url",
    "a webhook URL with its secret path is in the file",
    (
        re.compile(
            rb"hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Z0-9]{6,12}/[A-Z0-9]{6,12}/"
            rb"[A-Za-z0-9]{20,}"
        ),
        re.compile(rb"discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,}"),
    ),
)
JWT = Rule(
    "secret-jwt",
    "a signed JSON web token is in the file",
    (
        _token(
            b"eyJ",
            rb"[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{20,}",
            rb"A-Za-z0-9_-",
        ),
    ),
)
DOTENV_ASSIGNMENT = Rule(
    "secret-dotenv-file",
    "a .env file with variable assignments is staged",
    (re.compile(rb"^[ \t]*(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_.]*[ \t]*=[ \t]*\S", re.MULTILINE),),
)
PRIVATE_KEY_FILE = Rule("secret-private-key-file", "a private key file (ssh key name) is staged")
KEY_STORE_FILE = Rule("secret-key-store-file", "a certificate or key store file is staged")

CONTENT_RULES: tuple[Rule, ...] = (
    PRIVATE_KEY_BLOCK,
    AWS_ACCESS_KEY,
    AWS_SECRET_KEY,
    KNOWN_TOKEN,
    WEBHOOK_URL,
    JWT,
)
RULES: tuple[Rule, ...] = (*CONTENT_RULES, DOTENV_ASSIGNMENT, PRIVATE_KEY_FILE, KEY_STORE_FILE)
