"""Budgets of the host entries and the helpers that enforce them.

Numbers are product contract (DESIGN.md, "Budgets"): the event and scope budgets and
the router's deadlines. The bounds of the text an agent reads (rule ids, task ids, path
labels, the clamp) are render/agent_labels.py.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from orchestrator.deadline import FEEDBACK_DEADLINE_S
from orchestrator.decisions.agent import FAST_SCOPE_BUDGET_EXCEEDED

#: Bytes of a host event read from stdin.
MAX_EVENT_BYTES = 1024 * 1024
#: Fast edit feedback: files, bytes of paths, bytes of scope.
FAST_MAX_FILES = 8
FAST_MAX_PATH_BYTES = 512
FAST_MAX_SCOPE_BYTES = 2048
#: Over the fast budget, one batch check; past this many files even that is not run.
BATCH_MAX_FILES = 256
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
#: A raw path field longer than this is refused before it is looked at.
RAW_PATH_MAX_BYTES = 4096


def gate_deadline_s(env: Mapping[str, str] | None = None) -> float:
    """The pre-tool gate event's deadline: GATE_DEADLINE_S, or the shorter positive
    number of seconds GATE_DEADLINE_ENV names in `env` (default: the process's)."""
    raw = (os.environ if env is None else env).get(GATE_DEADLINE_ENV)
    try:
        value = float(raw) if raw else GATE_DEADLINE_S
    except ValueError:
        return GATE_DEADLINE_S
    return value if 0.0 < value < GATE_DEADLINE_S else GATE_DEADLINE_S


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
