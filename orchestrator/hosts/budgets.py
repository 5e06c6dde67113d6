"""Budgets of the host entries and the helpers that enforce them.

Numbers are product contract (DESIGN.md, "Budgets"). Everything that goes back into
an agent's context passes through these helpers: rule ids, task ids and path labels
are filtered to a safe alphabet and bounded; the whole text is clamped. A value that
does not fit is dropped or replaced by a fixed marker, never partially echoed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from orchestrator.deadline import FEEDBACK_DEADLINE_S

#: Bytes of a host event read from stdin.
MAX_EVENT_BYTES = 1024 * 1024
#: Fast edit feedback: files, bytes of paths, bytes of scope.
FAST_MAX_FILES = 8
FAST_MAX_PATH_BYTES = 512
FAST_MAX_SCOPE_BYTES = 2048
#: Over the fast budget, one batch check; past this many files even that is not run.
BATCH_MAX_FILES = 256
#: Text returned into an agent's context.
CONTEXT_MAX_CHARS = 1200
MAX_RULE_IDS = 3
RULE_ID_MAX_CHARS = 32
MAX_LANGUAGES = 8
PATH_LABEL_MAX_CHARS = 128
#: Unsafe paths named one by one in edit feedback; past it a count says how many more.
MAX_UNSAFE_LABELS = 4
MAX_TASK_IDS = 5
#: The human line (systemMessage) is shorter still.
MESSAGE_MAX_CHARS = 300
#: Seconds: the router's own deadlines, below the host timeouts in hooks/.
FAST_DEADLINE_S = FEEDBACK_DEADLINE_S
#: The whole pre-tool gate event (`git commit` / `git push` about to run): reading the
#: command, replaying its staging, the policy read and the strict gate share this one
#: deadline; the gate keeps a share of it for its own work after the checkers
#: (usecases/gate.finish_reserve), so a hung checker is killed and the hook answers.
GATE_DEADLINE_S = 100.0
VERIFY_DEADLINE_S = 20.0
#: Reading which governing files a prepared commit changes (a few git calls), at most.
POLICY_DEADLINE_S = 10.0
#: Seconds each host's hook timeout (hooks/) must leave beyond the router's deadline of
#: that event: the interpreter's start-up and imports before the deadline starts, the
#: last kill of a checker's process tree, the private tree's removal and the answer's
#: rendering after it. tests/test_hook_budgets.py checks every shipped hook config.
ANSWER_MARGIN_S = 10.0
#: Test-only: seconds that replace GATE_DEADLINE_S for one `orchestrate hook` process
#: when shorter (a longer or malformed value is ignored), so a test shows the hook
#: answering at its deadline without waiting for the real one. It can only make the
#: gate stricter (less time: more `timed_out`, which blocks), never let more through.
GATE_DEADLINE_ENV = "ORCHESTRATE_TEST_GATE_DEADLINE_S"
#: Changed config files named in a gate text.
MAX_CONFIG_LABELS = 4
#: A raw path field longer than this is refused before it is looked at.
RAW_PATH_MAX_BYTES = 4096

FAST_SCOPE_BUDGET_EXCEEDED = "fast_scope_budget_exceeded"


def gate_deadline_s(env: Mapping[str, str] | None = None) -> float:
    """The pre-tool gate event's deadline: GATE_DEADLINE_S, or the shorter positive
    number of seconds GATE_DEADLINE_ENV names in `env` (default: the process's)."""
    raw = (os.environ if env is None else env).get(GATE_DEADLINE_ENV)
    try:
        value = float(raw) if raw else GATE_DEADLINE_S
    except ValueError:
        return GATE_DEADLINE_S
    return value if 0.0 < value < GATE_DEADLINE_S else GATE_DEADLINE_S


# A rule id: words of letters and digits joined by "-" or "_", at most three of them
# separated by "/" (`F401`, `no-unused-vars`, `@scope/rule`, `Style/StringLiterals`,
# `secret-aws-access-key-id`, `syntax/error`). No ".", ":", spaces or a second "@":
# a tool's free text shaped like a rule id (`x_run:curl@evil.sh`) is dropped.
_RULE_WORD = r"[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*"
_RULE_RE = re.compile(rf"^@?{_RULE_WORD}(?:/{_RULE_WORD}){{0,2}}$")
_TASK_RE = re.compile(r"^T-[0-9a-f]{12}$")
_CHECKER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")
_LANG_RE = re.compile(r"^[a-z0-9][a-z0-9_+#.-]{0,31}$")
# A config file name (`ruff.toml`, `.rubocop.yml`, `pyproject.toml [tool.orchestrate]`).
_CONFIG_RE = re.compile(r"^[A-Za-z0-9._-]{1,40}(?: \[[a-z.]{1,24}\])?$")
# Path labels keep ordinary file-name characters; anything else becomes "?".
_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9._/+@=,-]")


@dataclass(frozen=True)
class FastPlan:
    """How a confirmed edit is checked: per file, or one batch with a stated reason."""

    paths: tuple[str, ...]
    per_file: bool
    reason: str | None = None
    path_bytes: int = 0
    scope_bytes: int = 0


def scope_bytes(paths: Sequence[str]) -> int:
    """Bytes of the scope description: every path plus its separator."""
    return sum(len(p.encode("utf-8", "surrogateescape")) + 1 for p in paths)


def plan_fast_scope(paths: Iterable[str]) -> FastPlan:
    """Per-file fast check when within budget; else the whole set as ONE batch.

    Never truncates: the batch holds every path; the reason says why it is a batch.
    """
    unique = tuple(sorted(set(paths)))
    pbytes = sum(len(p.encode("utf-8", "surrogateescape")) for p in unique)
    sbytes = scope_bytes(unique)
    within = (
        len(unique) <= FAST_MAX_FILES
        and pbytes <= FAST_MAX_PATH_BYTES
        and sbytes <= FAST_MAX_SCOPE_BYTES
    )
    return FastPlan(
        paths=unique,
        per_file=within,
        reason=None if within else FAST_SCOPE_BUDGET_EXCEEDED,
        path_bytes=pbytes,
        scope_bytes=sbytes,
    )


def safe_rule_id(rule: object) -> str | None:
    """The rule id when it is short and of the strict rule-id shape above, else None."""
    if isinstance(rule, str) and len(rule) <= RULE_ID_MAX_CHARS and _RULE_RE.match(rule):
        return rule
    return None


def safe_rule_ids(rules: Iterable[object]) -> list[str]:
    """At most MAX_RULE_IDS distinct safe rule ids, sorted."""
    out = sorted({r for r in (safe_rule_id(x) for x in rules) if r})
    return out[:MAX_RULE_IDS]


def safe_task_id(value: object) -> str | None:
    """A task id of the store's form (T- plus 12 hex), else None."""
    return value if isinstance(value, str) and _TASK_RE.match(value) else None


def safe_checker(value: object) -> str:
    """A checker name of the plugin alphabet, else a fixed marker."""
    return value if isinstance(value, str) and _CHECKER_RE.match(value) else "checker?"


def safe_language(value: object) -> str | None:
    return value if isinstance(value, str) and _LANG_RE.match(value) else None


def config_labels(names: Iterable[object]) -> str:
    """At most MAX_CONFIG_LABELS distinct config file names of a strict shape, sorted
    and joined ("" for none); a count says how many more there were."""
    safe = sorted({n for n in names if isinstance(n, str) and _CONFIG_RE.match(n)})
    more = len(safe) - MAX_CONFIG_LABELS
    text = ", ".join(safe[:MAX_CONFIG_LABELS])
    return text + (f" (+{more} more)" if more > 0 else "")


def path_label(rel_path: str) -> str:
    """A bounded label for a validated project-relative path.

    Characters outside an ordinary file-name alphabet become "?"; a label over
    PATH_LABEL_MAX_CHARS keeps its head and tail around an ellipsis.
    """
    label = _LABEL_UNSAFE.sub("?", rel_path)
    if len(label) > PATH_LABEL_MAX_CHARS:
        keep = PATH_LABEL_MAX_CHARS - 1
        label = label[: keep // 2] + "…" + label[-(keep - keep // 2) :]
    return label


def escape(text: str) -> str:
    """`text` with every non-printable character (newlines, escapes, bidi controls)
    shown as "?": nothing sent to a host can start a line or steer a terminal."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def clamp(text: str, limit: int = CONTEXT_MAX_CHARS) -> str:
    """`text` cut to `limit` characters (an ellipsis marks the cut)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
