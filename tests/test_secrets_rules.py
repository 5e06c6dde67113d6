"""The rules' precision and reach, as measured by bench/secrets_quality.py: what real
code holds that is not a secret stays clean, and the provider formats the first rule
set missed are found. Each case is a shape seen in the measured corpus or formats."""

from __future__ import annotations

import pytest
from orchestrate_plugins import secrets_checker as sc
from secrets_support import KEY_BODY, rules_of, run_scan

from orchestrator.vocab import ScopeStatus

B64_40 = "wJalrXUtnFEMIK7MDENGbPxRfiCY" + "Q1w2E3r4T5y6"
HEADER = "-----BEGIN " + "OPENSSH PRIVATE KEY-----"


@pytest.mark.parametrize(
    ("path", "text"),
    [
        # A parser's header constants (cryptography's ssh.py), no key material.
        ("ssh.py", f'_SK_START = b"{HEADER}"\n_SK_END = b"-----END OPENSSH PRIVATE KEY-----"\n'),
        # A certificate bundle named .pem (certifi's cacert.pem).
        ("certs/cacert.pem", "-----BEGIN CERTIFICATE-----\nMIIFazCCA1OgAwIBAgIR\n"),
        # AWS's documentation placeholders and IAM unique ids (not credentials).
        ("docs/iam.rst", "AccessKeyId: AKIAIOSFODNN7EXAMPLE\nUserId: AIDAJQABLZS4A3QDU576Q\n"),
        ("docs/sts.rst", "AKIAI44QH8DHBEXAMPLE\nAROAJIKPFTA72SWU4L7T\nANPAJ4AE5446DAEXAMPL\n"),
        ("docs/keys.md", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"),
    ],
)
def test_real_code_that_holds_no_secret_stays_clean(path: str, text: str) -> None:
    [outcome] = run_scan({path: text.encode()})
    assert outcome.status is ScopeStatus.CHECKED
    assert outcome.findings == ()


@pytest.mark.parametrize(
    ("path", "text", "rule", "line"),
    [
        ("site.pem", f"-----BEGIN PRIVATE KEY-----\n{KEY_BODY}\n", "secret-private-key-block", 1),
        (
            "sa.json",
            '{"type": "service_account",\n "private_key": "-----BEGIN PRIVATE KEY-----\\n'
            + KEY_BODY
            + '\\n-----END PRIVATE KEY-----\\n"}\n',
            "secret-private-key-block",
            2,
        ),
        (
            "legacy.key",
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
            f"DEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\n{KEY_BODY}\n",
            "secret-private-key-block",
            1,
        ),
        (
            "deploy.sh",
            f"export AWS_SECRET_ACCESS_KEY={B64_40}\n",
            "secret-aws-secret-access-key",
            1,
        ),
        ("cfg.yml", f"aws:\n  aws_secret_key: '{B64_40}'\n", "secret-aws-secret-access-key", 2),
        (
            "notify.py",
            "URL = 'https://hooks.slack.com/services/"
            + "T0A1B2C3D/B0A1B2C3D/"
            + "a1b2c3d4e5f6g7h8i9j0k1l2'\n",
            "secret-webhook-url",
            1,
        ),
        (
            "client.js",
            "const t = 'eyJhbGciOiJIUzI1NiJ9."
            + "eyJzdWIiOiIxMjM0NTY3ODkwIn0."
            + "dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk';\n",
            "secret-jwt",
            1,
        ),
    ],
)
def test_formats_the_first_rule_set_missed(path: str, text: str, rule: str, line: int) -> None:
    [outcome] = run_scan({path: text.encode()})
    assert (rule, line) in rules_of(outcome)


def test_rule_ids_keep_the_strict_pattern() -> None:
    import re

    ids = [r.id for r in sc.RULES]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"secret-[a-z0-9-]{1,24}", i) for i in ids), ids
