"""Where a strict gate's policy comes from: the base commit and the judged surface.

Never the working tree: an untracked `orchestrate.toml` or an unstaged `ruff.toml`
changes no verdict. The base is HEAD for a commit (HEAD's parent for an amend,
gates/amend.py), the remote's commit (or the merge base a new branch is compared with)
for a push, and the first parent for `gate ci` (the revision itself for a root commit). The effective policy is the stricter of the
two (`decisions/policy.py`). The only settings taken from the machine are absolute
tool paths, and only from the machine (core/tool_paths: the user-level config's
`[tools]` and `ORCHESTRATE_TOOL_<NAME>`), never from the base or the surface: they can
name a tool but never change what a gate requires.

A policy checker's allowlist is reviewed policy too (`reviewed_files`): the local
strict gates (commit, push, the pre-tool gate) apply only the entries the base holds
as well, and name the entries the surface adds; `gate ci` (the reviewed boundary)
applies the revision's allowlist and names the entries it adds in the gate reasons.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from orchestrator.core.config import CONFIG_FILES, config_from_files
from orchestrator.core.selection import escaped_name
from orchestrator.decisions.policy import changed_settings, stricter_disabled
from orchestrator.decisions.required import required_coverage
from orchestrator.errors import UsageError
from orchestrator.git.runner import Git
from orchestrator.git.surfaces import Surface, read_files_at
from orchestrator.vocab import BASELINE_FILE

#: The gates a delivery passes before any review: an allowlist entry the surface adds
#: counts there only once the base holds it.
LOCAL_EVENTS = frozenset({"commit", "push"})
#: Shown fingerprints per reason line (the rest are counted).
MAX_NAMED = 50

#: A policy checker's `reviewed_policy_file`: (name, base bytes, surface bytes) ->
#: (the bytes a local gate applies, the entries the surface adds).
Reviewer = Callable[[str, "bytes | None", "bytes | None"], "tuple[bytes | None, tuple[str, ...]]"]


@dataclass(frozen=True)
class Change:
    """One difference between the base and the judged surface: a short name for the
    gate's reason line, and the sentence for the notes."""

    name: str
    line: str


@dataclass
class PolicyInputs:
    """The two configs a strict gate's policy is made of, and where they come from."""

    base: str | None
    base_config: dict[str, Any]
    surface_config: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    @property
    def disabled(self) -> list[str]:
        """The plugins both sides switch off: the only ones the gate leaves off."""
        return stricter_disabled(self.base_config, self.surface_config)


def base_commit(git: Git, event: str, surface: Surface) -> str | None:
    """The commit whose committed policy a strict gate also applies (see module docs);
    None when there is none (no commit yet, a push whose base is not known locally)."""
    if event == "commit":
        if surface.amends:
            return surface.base  # the amended commit's parent (None: it is a root)
        return git.answer("rev-parse", "--verify", "-q", "HEAD^{commit}")
    if event == "ci" and surface.revision:
        parent = git.answer("rev-parse", "--verify", "-q", f"{surface.revision}^1^{{commit}}")
        return parent or surface.revision
    return surface.base


def _config_at(git: Git, source: str) -> dict[str, Any]:
    label = "the index" if source == "index" else f"commit {source[:12]}"
    return config_from_files(read_files_at(git, source, CONFIG_FILES), label=label)


def policy_inputs(git: Git, event: str, surface: Surface) -> PolicyInputs:
    """orchestrate's settings at the base and at the surface's source, never the work tree.

    With no base: a first commit's policy is its own (there is nothing else committed);
    a push onto a base not known locally, or several pushed tips, is held to the
    default policy wherever the surface does not ask for more. A base whose config
    does not parse is held to the defaults too (so the commit that repairs it can
    pass); a surface whose config does not parse is a usage error.
    """
    judged = _config_at(git, surface.source) if surface.source else {}
    required_coverage(judged)  # a malformed judged table is the user's to fix, now
    base = base_commit(git, event, surface)
    if base is not None:
        try:
            committed = _config_at(git, base)
            required_coverage(committed)
        except UsageError:
            note = "the base's orchestrate config is malformed: the defaults stand in for it"
            return PolicyInputs(base, {}, judged, [note])
        return PolicyInputs(base, committed, judged)
    if event == "commit":
        note = "no commit yet: the policy is the one the first commit carries"
        return PolicyInputs(None, judged, judged, [note])
    note = "no base commit known: the policy is the stricter of the defaults and the surface's"
    return PolicyInputs(None, {}, judged, [note])


def config_changes(
    git: Git,
    inputs: PolicyInputs,
    governing: Mapping[str, bytes],
    candidates: Sequence[str],
    allowlists: Sequence[str],
    reviewed: bool = False,
) -> list[Change]:
    """What differs between the base and the judged surface: orchestrate's settings,
    each governing config file, the secret allowlist. `governing` is the surface's copy
    of the `candidates` paths (a path it lacks is not held there); with `reviewed`, an
    allowlist applies only the entries the base holds too (`reviewed_files`)."""
    if inputs.base is None:
        return []
    lines: list[Change] = []
    keys = changed_settings(inputs.base_config, inputs.surface_config)
    if keys:
        names = ", ".join(escaped_name(k) for k in keys)
        line = f"orchestrate settings differ from the base in {names}: the stricter policy applies"
        lines.append(Change("orchestrate settings", line))
    before = read_files_at(git, inputs.base, candidates)
    for path in sorted(set(before) | set(governing)):
        if before.get(path) == governing.get(path):
            continue
        how = "added" if path not in before else "removed" if path not in governing else "changed"
        what = "secret allowlist" if path in allowlists else "config file"
        name = escaped_name(path)
        used = (
            "only the entries the base holds too apply"
            if reviewed and path in allowlists
            else "the judged surface's copy is used"
        )
        if path.rsplit("/", 1)[-1] == BASELINE_FILE:
            # A baseline committed in the change must not hide that change's findings.
            what, used = "findings baseline", "only the base's copy hides findings"
        elif path == ".gitattributes":
            # Its generated-file marks are policy: the change's own exempt nothing.
            used = (
                "the judged surface's copy is used; a file is generated by attribute only "
                "where the base marks it too"
            )
        line = f"{what} {name} {how} since the base: {used}"
        lines.append(Change(name, line))
    return lines


@dataclass
class Reviewed:
    """The governing files a gate applies, and a line per allowlist naming the entries
    the judged surface adds since the base (notes and gate reasons)."""

    applied: dict[str, bytes]
    notes: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)


def _named(entries: Sequence[str]) -> str:
    shown = ", ".join(entries[:MAX_NAMED])
    return shown + (f" and {len(entries) - MAX_NAMED} more" if len(entries) > MAX_NAMED else "")


def reviewed_files(
    git: Git,
    event: str,
    base: str | None,
    governing: Mapping[str, bytes],
    reviewers: Mapping[str, Reviewer],
) -> Reviewed:
    """The `governing` files a strict gate applies: at a local gate (LOCAL_EVENTS) each
    allowlist (a file named in `reviewers`, by base name) keeps only the entries the
    `base` commit holds too (no base: none); `gate ci` keeps the surface's copy. Either
    way the entries the surface adds are named (the reviewer vouches they are safe to
    print)."""
    out = Reviewed(dict(governing))
    paths = [p for p in sorted(governing) if p.rsplit("/", 1)[-1] in reviewers]
    if not paths:
        return out
    before = read_files_at(git, base, paths) if base else {}
    local = event in LOCAL_EVENTS
    verb = "committed" if event == "commit" else "pushed"
    for path in paths:
        review = reviewers[path.rsplit("/", 1)[-1]]
        applied, added = review(path.rsplit("/", 1)[-1], before.get(path), governing[path])
        name = escaped_name(path)
        if local:
            if applied is None:
                out.applied.pop(path, None)
            else:
                out.applied[path] = applied
        if not added:
            continue
        if local:
            out.notes.append(
                f"{name}: allowlist entries added in this change apply once the allowlist "
                f"change is {verb} on its own: commit it first (not applied here: "
                f"{_named(added)})"
            )
            out.reasons.append(f"{name} entries added in this change not applied: {_named(added)}")
        else:
            out.reasons.append(
                f"{name} entries added since the base, applied for review: {_named(added)}"
            )
    return out


__all__ = [
    "LOCAL_EVENTS",
    "Change",
    "PolicyInputs",
    "Reviewed",
    "Reviewer",
    "base_commit",
    "config_changes",
    "policy_inputs",
    "reviewed_files",
]
