"""The secret scan's rules: ids, fixed descriptions and what each matches.

Rule ids are stable (they reach reports, allowlists and agents' context) and match
`secret-[a-z0-9-]+`. A rule that changes what it matches bumps `RULESET_VERSION`.
Content rules match bytes (tokens are ASCII); `secrets_decode` turns UTF-16/32 text
and binaries into views these patterns can read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Identity of the rule set; bump when a rule changes what it matches.
RULESET_VERSION = "2"


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

CONTENT_RULES: tuple[Rule, ...] = (PRIVATE_KEY_BLOCK, AWS_ACCESS_KEY, KNOWN_TOKEN)
RULES: tuple[Rule, ...] = (*CONTENT_RULES, DOTENV_ASSIGNMENT, PRIVATE_KEY_FILE, KEY_STORE_FILE)
