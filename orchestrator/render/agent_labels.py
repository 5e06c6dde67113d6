"""The bounded labels of every text an agent reads: the one filter between a report and
a host.

Numbers are product contract (DESIGN.md, "Budgets"). Everything that goes back into
an agent's context passes through these helpers: rule ids, task ids and path labels
are filtered to a safe alphabet and bounded; the whole text is clamped. A value that
does not fit is dropped or replaced by a fixed marker, never partially echoed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

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
#: Changed config files named in a gate text.
MAX_CONFIG_LABELS = 4


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
    """A language name of the plugin alphabet, else None."""
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


def is_plain_path(rel_path: str) -> bool:
    """True when `rel_path` is its own label: every character of the ordinary file-name
    alphabet (nothing a shell expands, quotes or splits on) and within the label's length."""
    return (
        bool(rel_path)
        and len(rel_path) <= PATH_LABEL_MAX_CHARS
        and _LABEL_UNSAFE.search(rel_path) is None
    )


def escape(text: str) -> str:
    """`text` with every non-printable character (newlines, escapes, bidi controls)
    shown as "?": nothing sent to a host can start a line or steer a terminal."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def clamp(text: str, limit: int = CONTEXT_MAX_CHARS) -> str:
    """`text` cut to `limit` characters (an ellipsis marks the cut)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
