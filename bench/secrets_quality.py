"""Secret-scan quality: recall on synthetic provider tokens, false positives on real code.

Recall: for each provider format, `--per-format` tokens with random bodies (seeded),
each embedded in a Python, YAML, JSON or shell file; a token counts as found when the
engine reports anything for its file. Precision: every regular file under the real
corpora on this machine (the Python standard library, the venv's site-packages and
ESLint's node_modules) is scanned; every file flagged is a commit that would be
blocked. The alternative engine (detect-secrets, default settings, when installed) is
about 300 times slower per file, so it runs on a seeded sample of the corpus, and our
rules are counted on the same sample beside it.

Prints counts and paths with rule ids only: never a matched value.

    .venv/bin/python bench/secrets_quality.py [--sample 600] [--seed 7] [--no-alternative]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import string
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from orchestrate_plugins import secrets_checker as sc

ROOT = Path(__file__).resolve().parent.parent
MAX_BYTES = 16 * 1024 * 1024
UPPER = string.ascii_uppercase + string.digits
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"

Engine = Callable[[Path, bytes], list[str]]


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _pem(rng: random.Random, kind: str) -> str:
    body = "\n".join(_r(rng, B64, 64) for _ in range(8))
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----"


def _jwt(rng: random.Random) -> str:
    head = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    return f"{head}.eyJ{_r(rng, URLSAFE, 60)}.{_r(rng, URLSAFE, 43)}"


#: Provider format -> a generator of one synthetic token (assembled, never stored).
FORMATS: dict[str, Callable[[random.Random], str]] = {
    "aws-access-key-id": lambda g: "AKIA" + _r(g, UPPER, 16),
    "aws-secret-access-key": lambda g: "aws_secret_access_key = " + _r(g, B64, 40),
    "github-pat-classic": lambda g: "ghp_" + _r(g, ALNUM, 36),
    "github-pat-fine-grained": lambda g: "github_pat_" + _r(g, ALNUM, 22) + "_" + _r(g, ALNUM, 59),
    "github-oauth": lambda g: "gho_" + _r(g, ALNUM, 36),
    "gitlab-pat": lambda g: "glpat-" + _r(g, URLSAFE, 20),
    "slack-bot-token": lambda g: (
        f"xoxb-{_r(g, string.digits, 12)}-{_r(g, string.digits, 13)}-" + _r(g, ALNUM, 24)
    ),
    "slack-webhook": lambda g: (
        f"https://hooks.slack.com/services/T{_r(g, UPPER, 10)}/B"
        + f"{_r(g, UPPER, 10)}/{_r(g, ALNUM, 24)}"
    ),
    "stripe-live-secret": lambda g: "sk_live_" + _r(g, ALNUM, 24),
    "stripe-restricted": lambda g: "rk_live_" + _r(g, ALNUM, 24),
    "google-api-key": lambda g: "AIza" + _r(g, URLSAFE, 35),
    "private-key-rsa": lambda g: _pem(g, "RSA PRIVATE KEY"),
    "private-key-openssh": lambda g: _pem(g, "OPENSSH PRIVATE KEY"),
    "private-key-pkcs8": lambda g: _pem(g, "PRIVATE KEY"),
    "private-key-ec": lambda g: _pem(g, "EC PRIVATE KEY"),
    "private-key-pgp": lambda g: _pem(g, "PGP PRIVATE KEY BLOCK"),
    "jwt": _jwt,
    "npm-token": lambda g: "npm_" + _r(g, ALNUM, 36),
    "generic-password-assignment": lambda g: "password = " + _r(g, ALNUM + "!#%", 20),
    "generic-api-key-assignment": lambda g: "api_key: " + _r(g, ALNUM, 32),
    "generic-secret-hex": lambda g: "client_secret = " + _r(g, "0123456789abcdef", 40),
}

#: (file name, template) pairs a token is embedded in; `{v}` is the token line or value.
CONTEXTS = (
    ("settings.py", 'import os\n\nVALUE = "{v}"\n'),
    ("config.yml", "service:\n  name: api\n  value: '{v}'\n"),
    ("app.json", '{{"name": "api", "value": "{v}"}}\n'),
    ("deploy.sh", "#!/bin/sh\nexport VALUE='{v}'\n"),
)


def _embed(token: str, template: str) -> str:
    # An assignment-shaped token ("name = value") keeps its own name in each context.
    if " = " in token or ": " in token:
        name, value = token.replace(": ", " = ", 1).split(" = ", 1)
        return template.replace("VALUE", name).replace("value", name).format(v=value)
    return template.format(v=token)


def synthetic(per_format: int, seed: int) -> Iterator[tuple[str, str, bytes]]:
    """(format, file name, content) for each synthetic token."""
    rng = random.Random(seed)
    for fmt, make in FORMATS.items():
        for i in range(per_format):
            name, template = CONTEXTS[i % len(CONTEXTS)]
            yield fmt, name, _embed(make(rng), template).encode()


def corpus_roots() -> list[Path]:
    """The real code on this machine used as the precision corpus."""
    roots = [Path(sysconfig.get_paths()["stdlib"]), Path(sysconfig.get_paths()["purelib"])]
    roots.append((ROOT / "tools" / "eslint" / "node_modules").resolve())
    return [r for r in roots if r.is_dir()]


def corpus_files(roots: list[Path]) -> Iterator[Path]:
    """Every regular file under `roots` (symlinks not followed), in a stable order."""
    seen: set[Path] = set()
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files):
                path = Path(folder, name)
                if path not in seen and path.is_file() and not path.is_symlink():
                    seen.add(path)
                    yield path


def ours(path: Path, data: bytes) -> list[str]:
    """Rule ids our scanner reports for one file."""
    return [rule.id for rule, _line in sc.scan(path.as_posix(), data)]


#: A candidate considered and not adopted: a keyword assignment with a high-entropy
#: value (the "generic" class). Measured here so the decision can be re-checked.
GENERIC = re.compile(
    rb"(?i:password|passwd|pwd|secret|token|api_?key|access_?key|auth)[A-Za-z0-9_]{0,20}"
    rb"[\"']?[ \t]*[:=][ \t]*[\"']?([A-Za-z0-9+/=_!#%.-]{16,})"
)


def _entropy(value: bytes) -> float:
    counts = Counter(value)
    return -sum(c / len(value) * math.log2(c / len(value)) for c in counts.values())


def generic_candidate(path: Path, data: bytes) -> list[str]:
    """The generic-assignment candidate alone (value entropy >= 3.5 bits per byte)."""
    hits = (m.group(1) for m in GENERIC.finditer(data))
    return ["generic-assignment" for v in hits if _entropy(v) >= 3.5][:1]


def detect_secrets_engine() -> Engine | None:
    """detect-secrets with its default settings, or None when it is not installed."""
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        return None

    def run(path: Path, data: bytes) -> list[str]:
        with default_settings():
            found = SecretsCollection()
            found.scan_file(str(path))
            return [secret.type for _name, secret in found]

    return run


def recall(engine: Engine, per_format: int, seed: int) -> dict[str, tuple[int, int]]:
    """format -> (found, total)."""
    out: dict[str, list[int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n, (fmt, name, content) in enumerate(synthetic(per_format, seed)):
            path = Path(tmp, str(n), name)
            path.parent.mkdir()
            path.write_bytes(content)
            hit = bool(engine(path, content))
            row = out.setdefault(fmt, [0, 0])
            row[0] += hit
            row[1] += 1
    return {k: (v[0], v[1]) for k, v in out.items()}


def precision(engine: Engine, files: list[Path]) -> tuple[int, Counter[str], list[str], float]:
    """(files scanned, files flagged per rule, flagged paths, seconds)."""
    flagged: Counter[str] = Counter()
    paths: list[str] = []
    start = time.perf_counter()
    scanned = 0
    for path in files:
        try:
            if path.stat().st_size > MAX_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        scanned += 1
        rules = sorted(set(engine(path, data)))
        for rule in rules:
            flagged[rule] += 1
        if rules:
            paths.append(f"{path} [{', '.join(rules)}]")
    return scanned, flagged, paths, time.perf_counter() - start


def _print_recall(name: str, rows: dict[str, tuple[int, int]]) -> None:
    found = sum(f for f, _t in rows.values())
    total = sum(t for _f, t in rows.values())
    print(f"\n## recall: {name}: {found}/{total} ({100 * found / total:.1f}%)")
    for fmt, (f, t) in rows.items():
        print(f"  {fmt:30} {f:3}/{t}")


def _print_precision(name: str, result: tuple[int, Counter[str], list[str], float]) -> None:
    scanned, flagged, paths, seconds = result
    print(
        f"\n## false positives: {name}: {len(paths)} of {scanned} files flagged ({seconds:.1f} s)"
    )
    for rule, count in flagged.most_common():
        print(f"  {rule:40} {count} file(s)")
    for line in paths[:40]:
        print(f"    {line}")
    if len(paths) > 40:
        print(f"    ... {len(paths) - 40} more")


def main(argv: list[str] | None = None) -> int:
    """Print recall and false-positive counts; exit 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-format", type=int, default=20)
    ap.add_argument("--sample", type=int, default=600, help="corpus files for the alternative")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-alternative", action="store_true")
    args = ap.parse_args(argv)

    roots = corpus_roots()
    files = list(corpus_files(roots))
    print("corpus roots: " + ", ".join(str(r) for r in roots) + f" ({len(files)} files)")
    _print_recall("orchestrate rules", recall(ours, args.per_format, args.seed))
    _print_precision("orchestrate rules, full corpus", precision(ours, files))
    _print_recall(
        "generic-assignment candidate (not adopted)",
        recall(generic_candidate, args.per_format, args.seed),
    )
    _print_precision(
        "generic-assignment candidate (not adopted), full corpus",
        precision(generic_candidate, files),
    )

    alt = None if args.no_alternative else detect_secrets_engine()
    if alt is None:
        print("\n(detect-secrets not installed or disabled: alternative not measured)")
        return 0
    sample = random.Random(args.seed).sample(files, min(args.sample, len(files)))
    _print_recall("detect-secrets 1.x default settings", recall(alt, args.per_format, args.seed))
    _print_precision(f"orchestrate rules, sample of {len(sample)}", precision(ours, sample))
    _print_precision(f"detect-secrets, sample of {len(sample)}", precision(alt, sample))
    return 0


if __name__ == "__main__":
    sys.exit(main())
