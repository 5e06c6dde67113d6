"""Code actions: a report's fixes as LSP WorkspaceEdits, by the one edit engine and tiers.

The tier of each fix comes from the same derivation `orchestrate fix` uses
(hygiene/service.lint_entries -> model/edits.tier_for_fix), and the new text from the
same code the apply engine writes with (hygiene/apply.edited), applied to the buffer
the report judged. An auto-tier fix is the preferred quick fix; a confirm-tier fix is
offered only as its own, labelled action the user has to pick, never preferred.
Nothing is written: the editor applies the edit to its buffer (and can undo it).
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.workspace import TextDocument

from orchestrator.hygiene.apply import edited, generated_file
from orchestrator.hygiene.service import lint_entries
from orchestrator.model.edits import SafetyTier
from orchestrator.model.report import Finding, Report, rule_label
from orchestrator.safetext import printable

#: Titles are bounded: a tool's message is untrusted and can be long.
TITLE_MESSAGE_CHARS = 80


def text_edit(doc: TextDocument, new: str) -> types.TextEdit:
    """One edit turning the buffer `doc` into `new`: the changed middle between the
    common prefix and suffix, in the client's position units."""
    old = doc.source
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    span = types.Range(
        start=doc.client_position_at_offset(start), end=doc.client_position_at_offset(end_old)
    )
    return types.TextEdit(range=span, new_text=new[start:end_new])


def _overlaps(f: Finding, want: types.Range) -> bool:
    """Whether the finding's lines meet the asked range (0-based, inclusive)."""
    first = (f.line or 1) - 1
    last = (f.end_line or f.line or 1) - 1
    return not (last < want.start.line or first > want.end.line)


def _title(f: Finding, tier: SafetyTier) -> str:
    message = printable(f.message)[:TITLE_MESSAGE_CHARS]
    label = printable(rule_label(f.checker, f.rule))
    if tier == "auto":
        return f"orchestrate: fix {label} ({message})"
    return f"orchestrate: review first, unsafe fix for {label} (confirm tier: may change behaviour)"


def _tier(root: Path, rel: str, tier: SafetyTier) -> SafetyTier:
    """A generated file's fix asks first, as in `fix` (edit its source instead)."""
    if tier == "auto" and generated_file(root, rel):
        return "confirm"
    return tier


def code_actions(
    report: Report, rel: str, root: Path, doc: TextDocument, want: types.Range
) -> list[types.CodeAction]:
    """The fixes of `rel`'s findings that meet `want` and still fit the buffer `doc`:
    auto-tier fixes first (preferred), then confirm-tier ones (never preferred)."""
    findings = [f for f in report.findings if f.path == rel and _overlaps(f, want)]
    by_id = {f.fingerprint: f for f in findings}
    data = doc.source.encode("utf-8", "surrogateescape")
    out: list[tuple[int, types.CodeAction]] = []
    for entry in lint_entries(report.model_copy(update={"findings": findings})):
        f = by_id.get(entry.id)
        if f is None or entry.exact_edit is None:
            continue
        new = edited(data, entry.exact_edit)
        if new is None:
            continue  # the buffer moved on since the check: the next check offers it again
        tier = _tier(root, rel, entry.safety_tier)
        action = types.CodeAction(
            title=_title(f, tier),
            kind=types.CodeActionKind.QuickFix,
            edit=types.WorkspaceEdit(
                changes={doc.uri: [text_edit(doc, new.decode("utf-8", "surrogateescape"))]}
            ),
            is_preferred=tier == "auto",
            data={"fingerprint": f.fingerprint, "tier": tier},
        )
        out.append((0 if tier == "auto" else 1, action))
    out.sort(key=lambda pair: pair[0])
    return [a for _rank, a in out]
