"""The wording of everything an agent reads: edit feedback, gate answers, refusals.

Every text here is built from fixed phrases, counts, vocabulary words, safe rule / task
ids and validated path labels (render/agent_labels.py); nothing from an event or a
tool's free text is copied in. The hosts' router and the MCP server both speak through
these functions, so an agent reads the same words whichever way it asked.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from orchestrator.decisions import suppressions
from orchestrator.decisions.agent import FAST_SCOPE_BUDGET_EXCEEDED
from orchestrator.decisions.coverage import is_checked, syntax_only_languages
from orchestrator.decisions.exits import gate_blocks
from orchestrator.decisions.findings import is_blocking, is_confirmed_syntax
from orchestrator.render import agent_labels as L
from orchestrator.vocab import GateDecision, ScopeStatus

if TYPE_CHECKING:  # annotations only: a hook must start without the engine
    from orchestrator.model.report import Report, Scope
    from orchestrator.usecases.lint import LintResult
    from orchestrator.usecases.tasks import RepairTargets

#: (task id, observation word, reason word or None) of each repair re-check, in order.
Observed = tuple[tuple[str, str, str | None], ...]

FEEDBACK_ONLY = "feedback only, not a delivery pass; delivery not_evaluated"


PROMPT_ADVICE = (
    "orchestrate: prompt received; no check ran for it (source check not_run, delivery "
    "not_evaluated). Fast feedback runs after each confirmed file edit; the strict gate "
    "runs when a real `git commit` or `git push` is executed, on the real index or ref. "
    "For a full check run: orchestrate lint"
)


def scope_counts(report: Report) -> dict[str, Counter[str]]:
    """checker (safe name) -> status -> count."""
    out: dict[str, Counter[str]] = {}
    for s in report.scopes:
        out.setdefault(L.safe_checker(s.checker), Counter())[str(s.status)] += 1
    return out


def describe_scopes(report: Report) -> str:
    """Per checker, how many scopes of each status: "ruff: checked 2; secrets: ..."."""
    parts = []
    for checker, counts in sorted(scope_counts(report).items()):
        inner = ", ".join(f"{st} {n}" for st, n in sorted(counts.items()))
        parts.append(f"{checker}: {inner}")
    return "; ".join(parts) or "no scopes"


def findings_line(report: Report) -> str:
    """The findings of `report` counted: blocking, confirmed syntax, candidates, rules."""
    n = len(report.findings)
    blocking = sum(1 for f in report.findings if is_blocking(f))
    candidates = sum(1 for f in report.findings if f.candidate)
    confirmed = sum(1 for f in report.findings if is_confirmed_syntax(f))
    rules = L.safe_rule_ids(f.rule for f in report.findings)
    exact = f", syntax errors confirmed {confirmed}" if confirmed else ""
    line = f"findings {n} (blocking {blocking}{exact}, syntax candidates {candidates})"
    return line + (f"; rules {', '.join(rules)}" if rules else "")


#: Characters of edit feedback the finding locations may take (the whole context is
#: clamped to `agent_labels.CONTEXT_MAX_CHARS`); past it, how many were left out.
LOCATIONS_MAX_CHARS = 600


def shown_locations(report: Report, budget: int = LOCATIONS_MAX_CHARS) -> tuple[list[str], int]:
    """The findings' locations that fit in `budget` characters (at most
    LOCATIONS_MAX_CHARS), blocking ones first, each `path:line:column rule` (the column
    only where the tool gave one: Ruby's parser gives lines), bounded path labels and
    safe rule ids only (never a message or source); and how many findings there are."""
    budget = min(budget, LOCATIONS_MAX_CHARS)
    items = sorted(
        report.findings,
        key=lambda f: (not is_blocking(f), f.path, f.line or 0, f.column or 0),
    )
    shown: list[str] = []
    used = 0
    for f in items:
        pos = L.path_label(f.path)
        if f.line:
            pos += f":{f.line}" + (f":{f.column}" if f.column else "")
        item = f"{pos} {L.safe_rule_id(f.rule) or 'rule?'}"
        if used + len(item) + 2 > budget:
            break
        shown.append(item)
        used += len(item) + 2
    return shown, len(items)


def locations_line(report: Report, budget: int = LOCATIONS_MAX_CHARS) -> str:
    """Where the findings are (`shown_locations` within `budget`), then how many were
    left out ("" without findings)."""
    shown, total = shown_locations(report, budget)
    if not total:
        return ""
    if not shown:
        return f"locations of {total} findings not shown (context budget)"
    more = total - len(shown)
    return "at " + ", ".join(shown) + (f" (+{more} more not shown)" if more else "")


def languages_line(report: Report) -> str:
    """The safe language names of `report`'s scopes, bounded ("" for none)."""
    langs = sorted({lang for s in report.scopes if (lang := L.safe_language(s.language))})
    return ", ".join(langs[: L.MAX_LANGUAGES])


#: How many recovery hints an agent gets (each at most HINT_MAX_CHARS).
MAX_HINTS = 3
HINT_MAX_CHARS = 160


def _exit_words(code: int | None) -> str:
    """`exit 2`, `signal 11` (a negative return code is the signal that ended it), or
    `no exit status`: numbers only, never the tool's output."""
    if code is None:
        return "no exit status"
    return f"signal {-code}" if code < 0 else f"exit {code}"


def _cut(text: str, limit: int = HINT_MAX_CHARS) -> str:
    """`text` within `limit` characters: cut at a word boundary, marked " ...", never
    in the middle of a word (a cut path or command reads as another one)."""
    if len(text) <= limit:
        return text
    head = text[: limit - 4]
    return (head.rsplit(" ", 1)[0] if " " in head else head) + " ..."


#: The Ruby checker's hint when the project pins another version (plugins/ruby_checker).
_RUBY_PIN_HINT = re.compile(r"confirm with ruby (.+) \(the project's pinned version\)", re.DOTALL)
#: A version an agent may read: digits and dots, an optional pre-release word; anything
#: else a version file holds is "a different version", never echoed.
_STRICT_VERSION = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,4}){0,3}(?:-?(?:preview|rc|p)[0-9]{1,4})?")
_RUBY_RUNNING = re.compile(r"ruby ([0-9]{1,3}(?:\.[0-9]{1,4}){0,3})")
_RUBY_PIN_FILES = (".ruby-version", ".tool-versions")


def _ruby_pin_advice(s: Scope) -> str:
    """The project-version check of a Ruby scope whose parser is not the version the
    project pins: `ruby: project asks .ruby-version X, running Y: ...`, X and Y only
    when they match a strict version pattern ("" when the versions agree)."""
    if s.checker != "ruby" or not is_checked(s) or not s.hint:
        return ""
    m = _RUBY_PIN_HINT.fullmatch(s.hint)
    if m is None:
        return ""
    want = m.group(1) if _STRICT_VERSION.fullmatch(m.group(1)) else None
    running = _RUBY_RUNNING.match(s.tool.version or "") if s.tool else None
    names = {f.rsplit("/", 1)[-1] for f in s.config_files}
    pin_file = next((n for n in _RUBY_PIN_FILES if n in names), "its version file")
    have = running.group(1) if running else "an unidentified version"
    confirm = f"ruby {want}" if want else "the pinned version"
    return (
        f"ruby: project asks {pin_file} {want or 'a different version'}, running {have}: "
        f"confirm the syntax with {confirm}"
    )


def _gap_advice(s: Scope) -> str:
    """The fixed recovery phrase of one scope ("" for none): the plugin's own install or
    configuration hint for a missing or unconfigured tool (printable ASCII, bounded), a
    phrase with the checker's name for a failed, late or candidates-only one, and the
    Ruby project-version check."""
    checker = L.safe_checker(s.checker)
    if s.status in (ScopeStatus.MISSING, ScopeStatus.CONFIGURATION_REQUIRED) and s.hint:
        return "".join(ch for ch in s.hint if ch.isprintable() and ch.isascii())
    if s.status == ScopeStatus.TOOL_ERROR:
        return (
            f"{checker} failed ({_exit_words(s.exit_code)}): re-run; if it fails again, "
            f"repair or reinstall {checker}"
        )
    if s.status == ScopeStatus.TIMED_OUT:
        return f"{checker} did not finish before the deadline: re-run, or check fewer files"
    if s.status == ScopeStatus.UNQUALIFIED:
        lang = L.safe_language(s.language) or "this language"
        return f"only syntax candidates for {lang}: native lint recommended"
    return _ruby_pin_advice(s)


def recovery_hints(report: Report) -> list[str]:
    """What to do about each kind of gap, first seen first, then the languages only
    syntax was checked for, at most MAX_HINTS of HINT_MAX_CHARS each; then whether
    results were reused (same identity)."""
    seen: list[str] = []
    for s in report.scopes:
        hint = _cut(_gap_advice(s))
        if hint and hint not in seen:
            seen.append(hint)
    for lang in syntax_only_languages(report.scopes):
        if safe := L.safe_language(lang):
            seen.append(f"{safe}: only syntax checked, no linter ran: native lint recommended")
    out = seen[:MAX_HINTS]
    if reused := sum(1 for s in report.scopes if s.reused):
        out.append(
            f"{reused} result(s) reused: source, configuration, tool, rules and scope unchanged"
        )
    return out


def tasks_line(task_ids: Sequence[str]) -> str:
    """The first safe task ids and how many more ("" for none)."""
    ids = [t for t in (L.safe_task_id(x) for x in task_ids) if t][: L.MAX_TASK_IDS]
    if not ids:
        return ""
    more = len(task_ids) - len(ids)
    return "tasks " + ", ".join(ids) + (f" (+{more} more)" if more > 0 else "")


def repair_pieces(targets: RepairTargets | None, observed: Observed) -> list[str]:
    """What the edit's repair re-checks observed, in fixed words, ids and path labels."""
    if targets is None:
        return []
    if targets.over_budget:
        return [
            f"task facts over the hook budget ({word(targets.over_budget) or 'over_budget'}): "
            "repair re-check not run; run orchestrate task verify ID (list: orchestrate next)"
        ]
    if not observed:
        return []
    labels = " ".join(L.path_label(p) for p in sorted(targets.paths))
    seen = "; ".join(f"{t} {o}" + (f" ({r})" if r else "") for t, o, r in observed)
    pieces = [
        f"repair re-check by the original checker, files {len(targets.paths)}: {labels}",
        f"task verify {seen}",
        "no task is closed by this hook; other checkers and other findings of these "
        "files are not reported here",
    ]
    if deferred := tasks_line(targets.deferred):
        pieces.append(f"not re-checked in this event: {deferred}; run orchestrate task verify ID")
    return pieces


def unsafe_paths(report: Report) -> list[str]:
    """The paths `report` holds as `unsafe` scopes (sorted, each once).

    Lint's selection made that decision (core/selection.py); the host only names what
    it decided, so a hook and `orchestrate lint` on the same path never disagree.
    """
    return sorted({s.path for s in report.scopes if s.status == ScopeStatus.UNSAFE})


def unsafe_piece(report: Report) -> str:
    """The unsafe paths named by bounded, escaped labels: a count and the first few."""
    paths = unsafe_paths(report)
    if not paths:
        return ""
    labels = " ".join(L.path_label(p) for p in paths[: L.MAX_UNSAFE_LABELS])
    more = len(paths) - L.MAX_UNSAFE_LABELS
    return f"unsafe, not checked, {len(paths)}: {labels}" + (f" (+{more} more)" if more > 0 else "")


def report_pieces(report: Report, per_file: bool, paths: Sequence[str]) -> list[str]:
    """The fast check's own lines: scope, scopes, unsafe paths, findings, languages."""
    head = "orchestrate fast check" if per_file else "orchestrate batch check"
    if per_file:
        scope_text = f"files {len(paths)}: " + " ".join(L.path_label(p) for p in paths)
    else:
        # One batch: counts only, never a truncated per-file list.
        scope_text = f"files {len(paths)} ({FAST_SCOPE_BUDGET_EXCEEDED}, one batch check)"
    pieces = [
        f"{head} ({FEEDBACK_ONLY})",
        scope_text,
        f"scopes: {describe_scopes(report)}",
    ]
    # Named even in a batch (where the file list is only a count): an unsafe path is
    # the one a person must look at, since no checker read it.
    if unsafe := unsafe_piece(report):
        pieces.append(unsafe)
    pieces.append(findings_line(report))
    if langs := languages_line(report):
        pieces.append(f"languages {langs}")
    return pieces


def edit_context(
    per_file: bool,
    paths: Sequence[str],
    result: LintResult | None,
    repair: tuple[RepairTargets | None, Observed],
    reasons: Sequence[str],
    incomplete: bool,
) -> str:
    """The edit feedback an agent reads: the fast check of `paths` (or one batch when
    not `per_file`), the repair re-checks, why it is incomplete, and how to re-check."""
    targets, observed = repair
    repaired = targets.paths if targets else frozenset()
    fast_paths = [p for p in paths if p not in repaired]
    if result is not None:
        pieces = report_pieces(result.report, per_file, fast_paths)
    else:
        pieces = [f"orchestrate repair check ({FEEDBACK_ONLY})"]
    if incomplete:
        why = ", ".join(r for r in reasons if r != FAST_SCOPE_BUDGET_EXCEEDED)
        pieces.append("coverage incomplete" + (f" ({why})" if why else ""))
    if result is not None and (added := suppressions.note(result.suppressions, L.path_label)):
        pieces.append(added)
    if result is not None and (
        edited := suppressions.config_note(result.config_edits, L.path_label)
    ):
        pieces.append(edited)
    if result is not None and (hints := recovery_hints(result.report)):
        pieces.append("recovery: " + " / ".join(hints))
    if result is not None and (t := tasks_line(result.task_ids)):
        pieces.append(t)
    pieces.extend(repair_pieces(targets, observed))
    task_ids = result.task_ids if result is not None else ()
    pieces.append(f"re-check: {recheck_command(paths if per_file else (), task_ids)}")
    if result is not None and per_file:
        # Where the findings are, after the findings count, in what the context budget
        # leaves: the re-check command at the end is never the part that is cut. A batch
        # check gives counts only, never a per-file list (CG-24).
        left = L.CONTEXT_MAX_CHARS - len(". ".join(pieces) + ".") - 2
        at = next((i + 1 for i, p in enumerate(pieces) if p.startswith("findings ")), None)
        if at is not None and (where := locations_line(result.report, left)):
            pieces.insert(at, where)
    return ". ".join(pieces) + "."


def recheck_command(paths: Sequence[str], task_ids: Sequence[str]) -> str:
    """The command an agent may paste to check `paths` again.

    `orchestrate lint --feedback -- PATH...` only when every path is its own label (an
    ordinary file-name alphabet, nothing replaced or cut: `$(curl x|sh).py` or a name
    with a newline never becomes a command); otherwise `orchestrate task verify ID` for
    the edit's tasks, or `orchestrate lint` with no path. `--` stands before the paths, so
    a file named `--output=x` is a path, never an option."""
    if paths and all(L.is_plain_path(p) for p in paths):
        return "orchestrate lint --feedback -- " + " ".join(paths)
    ids = [t for t in (L.safe_task_id(x) for x in task_ids) if t][: L.MAX_TASK_IDS]
    if paths and ids:
        return " / ".join(f"orchestrate task verify {t}" for t in ids)
    return "orchestrate lint"


def agent_fields(
    report: Report,
    paths: Sequence[str],
    task_ids: Sequence[str],
    added: Mapping[str, Mapping[str, int]],
    config_edits: Sequence[str],
) -> dict[str, Any]:
    """What edit feedback says, as structured fields (the MCP lint tool's `agent`), in
    the same bounds and escaping: the locations that fit LOCATIONS_MAX_CHARS and how
    many were left out, the re-check command, the recovery hints, the suppressions the
    change adds (known markers only) and the checker config files it edits."""
    shown, total = shown_locations(report)
    return {
        "locations": shown,
        "locations_not_shown": total - len(shown),
        "recheck": recheck_command(paths, task_ids),
        "recovery": recovery_hints(report),
        "suppressions_added": [
            {"path": L.path_label(p), "marker": k, "count": n}
            for p, m in sorted(added.items())[: suppressions.NAMED_FILES]
            for k, n in sorted(m.items())
            if k in suppressions.MARKERS
        ],
        "config_edited": [
            L.path_label(p) for p in sorted(config_edits)[: suppressions.NAMED_FILES]
        ],
    }


def agent_lines(fields: Mapping[str, Any], locations_budget: int) -> list[str]:
    """The pieces of text `agent_fields` adds to a summary: where, suppressions, config
    edits, recovery, re-check (locations within `locations_budget` characters)."""
    pieces = []
    shown, more = list(fields["locations"]), int(fields["locations_not_shown"])
    while shown and len(", ".join(shown)) + 3 > locations_budget:
        shown.pop()
        more += 1
    if shown:
        pieces.append("at " + ", ".join(shown) + (f" (+{more} more not shown)" if more else ""))
    elif more:
        pieces.append(f"locations of {more} findings not shown (context budget)")
    if fields["suppressions_added"]:
        per: dict[str, dict[str, int]] = {}
        for row in fields["suppressions_added"]:
            per.setdefault(row["path"], {})[row["marker"]] = row["count"]
        pieces.append(suppressions.note(per, str) or "")
    if note := suppressions.config_note(fields["config_edited"], str):
        pieces.append(note)
    if fields["recovery"]:
        pieces.append("recovery: " + " / ".join(fields["recovery"]))
    pieces.append(f"re-check: {fields['recheck']}")
    return [p for p in pieces if p]


def edit_message(result: LintResult | None, observed: Observed, incomplete: bool) -> str:
    """The person's one line of edit feedback: counts, rules, re-checks, completeness."""
    parts = []
    if result is not None:
        findings = result.report.findings
        rules = L.safe_rule_ids(f.rule for f in findings)
        parts.append(f"{len(findings)} finding(s)" + (f" [{', '.join(rules)}]" if rules else ""))
        if unsafe := unsafe_paths(result.report):
            parts.append(f"unsafe {len(unsafe)}")
    if observed:
        parts.append("task re-check " + ", ".join(f"{t} {o}" for t, o, _ in observed))
    return (
        "orchestrate: "
        + "; ".join(parts)
        + (", coverage incomplete" if incomplete else "")
        + " (edit feedback, not a delivery pass)"
    )


#: Characters the gate's suppression note may take in the agent's gate text.
SUPPRESSION_NOTE_MAX_CHARS = 300


def gate_text(kind: str, report: Report, configs: Sequence[str] = ()) -> tuple[str, str]:
    """The strict gate's (context, message) for an agent: verdict, findings, scopes, the
    suppressions the change adds, recovery hints, and the changed config files it was
    judged with."""
    decision = str(report.gate.decision)
    what = "commit" if kind == "commit" else "push"
    pieces = [f"orchestrate strict {what} gate: {decision}"]
    changed = L.config_labels(configs)
    if changed:
        pieces.append(f"judged with a changed {changed} (its own copy in this {what})")
    pieces.append(findings_line(report))
    pieces.append(f"scopes: {describe_scopes(report)}")
    # The gate's own note (decisions/suppressions.note, labels made printable there).
    if added := next((n for n in report.notes if n.startswith(suppressions.NOTE_PREFIX)), None):
        pieces.append(_cut(added, SUPPRESSION_NOTE_MAX_CHARS))
    if report.gate.decision == GateDecision.INCOMPLETE:
        pieces.append(
            "required coverage incomplete: this does not mean the code has errors; restore "
            "the toolchain"
        )
    if hints := recovery_hints(report):
        pieces.append("recovery: " + " / ".join(hints))
    if gate_blocks(report.gate.decision):
        pieces.append(f"the {what} was refused. Fix, then re-run: orchestrate gate {what}")
    message = f"orchestrate {what} gate: {decision}" + (f" (changed {changed})" if changed else "")
    return ". ".join(pieces) + ".", message


def unjudged_why(kind: str, cause: str, detail: str | None) -> tuple[str, str]:
    """(why, reason word) of a delivery whose surface could not be read
    (usecases/agent.DeliveryUnjudged): what the agent can do instead."""
    if cause == "policy_undeterminable":
        why = f"cannot determine whether this {kind} changes the gate's own policy"
        return why, "policy_change_undeterminable"
    if cause == "push_undeterminable":
        why = (
            f"cannot determine what this push sends ({detail or 'push'}): push "
            "the current branch with a plain `git push`, or let the pre-push hook judge it"
        )
        return why, detail or "push_undeterminable"
    why = (
        "cannot determine what this command commits: its own staging step fails. "
        "Stage and commit in separate commands"
    )
    return why, "staging_replay_failed"


def word(value: object) -> str | None:
    """A short snake_case vocabulary word, else None."""
    if isinstance(value, str) and 0 < len(value) <= 40 and value.replace("_", "a").isalnum():
        return value if value.isascii() else None
    return None
