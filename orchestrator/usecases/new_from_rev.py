"""`lint --new-from-rev REV`: judge each finding new or unchanged against REV.

The change side is the lint that just ran. For a finding in a file that differs from
the merge-base of REV and HEAD, the merge-base side is that file's version there
(found through git's rename detection), linted in a private tree with the governing
files of that commit (gates/materialise.py: never a checkout of the work tree); a file
the change left as it is has the same findings at the merge-base. REV's tip is judged
the same way for the files REV changed since the merge-base. The classification
itself is `decisions/new_findings.baseline_state`; an unchanged finding does not block
(decisions/findings.py). Where a checker's sides cannot be compared (its
configuration differs between them, or a side's run of it was not complete), all its
findings are new and a note says so.

A change of a checker's configuration is judged with the stricter of the two: the
files the change touched that such a checker governs are linted once more, with the
change's bytes under the merge-base's governing files, and what that run finds and the
change's own run does not (a rule the change turned off, a path it excluded) is added
as new. So `ignore = ["F401"]` beside a new `import os` still blocks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.core import plugin_host
from orchestrator.core.config import CONFIG_FILES
from orchestrator.core.plugin_host import PluginSet
from orchestrator.deadline import Deadline
from orchestrator.decisions.coverage import is_checked
from orchestrator.decisions.new_findings import baseline_state
from orchestrator.errors import UsageError
from orchestrator.gates.materialise import materialised, read_governing
from orchestrator.git.changed import Moves, merge_base, moves
from orchestrator.git.repo import NoRepository, open_repo
from orchestrator.git.surfaces import Surface, revision_files
from orchestrator.model import languages
from orchestrator.model.checker import MAX_FILE_BYTES, FileTarget
from orchestrator.model.report import Finding, Report, finding_key
from orchestrator.safetext import printable
from orchestrator.tasks.baseline import fingerprints
from orchestrator.vocab import BaselineState, Tier

#: How long resolving REV and its merge-base may take.
RESOLVE_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Revisions:
    """REV as the user named it, the merge-base of HEAD and REV, and REV's commit."""

    rev: str
    base: str
    tip: str


def revisions(root: Path, rev: str, head: str = "HEAD") -> Revisions | str:
    """The `Revisions` of `rev` against `head` (the work tree's HEAD, or the commit a
    gate judges) in the repository at `root`, or why its merge-base is unknown (a
    shallow clone: the run is then incomplete, exit 3). No repository, or a `rev` that
    names no commit, is a usage error."""
    try:
        git = open_repo(Deadline.after(RESOLVE_TIMEOUT_S), root)
        base, tip, problem = merge_base(git, rev, head)
    except NoRepository as exc:
        raise UsageError(f"--new-from-rev needs a git repository: {exc}") from None
    except ValueError as exc:
        raise UsageError(f"--new-from-rev: {exc}") from None
    if problem or base is None or tip is None:
        return problem
    return Revisions(rev, base, tip)


@dataclass(frozen=True)
class _Side:
    """What one side (a commit) holds of the findings asked about: each with its
    fingerprint (at the path now), and the checkers whose run there was not complete."""

    found: tuple[tuple[Finding, str], ...]
    incomplete: frozenset[str]

    @property
    def prints(self) -> frozenset[str]:
        return frozenset(fp for _f, fp in self.found)


def _side(
    paths: Mapping[str, str],
    found: Surface,
    governing: Mapping[str, bytes],
    root: Path,
    plugins: PluginSet,
    deadline: Deadline,
    config: Mapping[str, Any] | None = None,
) -> _Side:
    """Lint `found`'s targets (one side's versions of `paths`: its path -> the path now)
    in a private tree with that side's `governing` files; their findings with their
    fingerprints as if at the path now, read against those targets' bytes."""
    from orchestrator.core.engine import LintRequest, run_lint

    if not found.targets:
        return _Side((), frozenset())
    contents = {paths[t.path]: t.read_bytes() for t in found.targets}
    with materialised(found.root, found.targets, governing) as tree:
        req = LintRequest(
            project_root=tree.root,
            cwd=tree.root,
            targets=tree.targets,
            timeout=max(1.0, deadline.remaining()),
            plugins=plugins,
            config=config,
        )
        part = run_lint(req)
    moved = [f.model_copy(update={"path": paths[f.path]}) for f in part.findings if f.path in paths]
    incomplete = frozenset(s.checker for s in part.scopes if s.path in paths and not is_checked(s))
    return _Side(tuple(fingerprints(moved, root, contents)), incomplete)


def _worktree_files(root: Path, paths: Iterable[str]) -> Surface:
    """The work tree's regular files among `paths` as targets carrying their bytes (a
    link, a folder, a path through a linked folder or one over the file limit is left
    out: the change's own run judged it as it stands)."""
    surface = Surface(root=root)
    top = root.resolve()
    for rel in sorted(set(paths)):
        where = root / rel
        try:
            if where.is_symlink() or where.parent.resolve() != (top / rel).parent:
                continue
            data = where.read_bytes() if where.is_file() else None
        except OSError:
            continue
        if data is None or len(data) > MAX_FILE_BYTES:
            continue
        detection = languages.detect_language(rel, data[: languages.HEAD_BYTES])
        surface.targets.append(
            FileTarget(
                path=rel,
                abs_path=where,
                **(detection.target_fields() if detection else {}),
                content=data,
                size=len(data),
            )
        )
    return surface


def _configs_moved(report: Report, *sides: Moves) -> set[str]:
    """The checkers whose configuration differs on some side: a file a scope names as
    governing it, changed or gone; orchestrate's own settings changed: every checker."""
    touched = set().union(*(m.changed | m.gone for m in sides))
    checkers = {s.checker for s in report.scopes}
    if touched & set(CONFIG_FILES):  # orchestrate's settings (a pyproject.toml counts whole)
        return checkers
    return {s.checker for s in report.scopes if set(s.config_files) & touched}


def judge_new(
    report: Report,
    root: Path,
    revs: Revisions,
    deadline: Deadline,
    revision: str | None = None,
    config: Mapping[str, Any] | None = None,
    plugins: PluginSet | None = None,
) -> None:
    """Set each finding's `baseline_state` against `revs` (in place) and add the notes
    saying how many are new and why a checker's findings are all new. The change side
    is the work tree, or the commit `revision` (a gate's); `config` and `plugins`, when
    given (a strict gate's policy), are what the other sides run with too. `GitError`
    when git cannot answer."""
    git = open_repo(deadline, root)
    now = moves(git, revs.base, revision)
    ahead = moves(git, revs.base, revs.tip)
    policy = {(s.path, s.checker) for s in report.scopes if s.tier == Tier.POLICY}
    judged = [f for f in report.findings if (f.path, f.checker) not in policy]
    for f in report.findings:
        f.baseline_state = BaselineState.NEW
    moved = _configs_moved(report, now, ahead)
    if not judged and not moved:
        report.notes.append(_summary(revs, report.findings))
        return
    at_base_path = {f.path: now.older.get(f.path, f.path) for f in judged}
    renamed_on_tip = {old: new for new, old in ahead.older.items()}
    loaded = plugins or plugin_host.load()
    # orchestrate's own settings come along with every tree (materialise.BASE_GOVERNING).
    names = sorted(loaded.config_names())

    def side(commit: str, paths: Mapping[str, str], found: Surface | None = None) -> _Side:
        """`paths` linted under `commit`'s governing files: `commit`'s versions of them,
        or the versions `found` holds."""
        found = found or revision_files(git, commit, paths)
        governing = read_governing(git, commit, [t.path for t in found.targets], names)
        return _side(paths, found, governing, root, loaded, deadline, config)

    base_paths = {b: p for p, b in at_base_path.items() if p in now.changed}
    base = side(revs.base, base_paths)
    tip_paths = {
        renamed_on_tip.get(b, b): p
        for p, b in at_base_path.items()
        if b in ahead.changed or b in ahead.gone
    }
    tip = side(revs.tip, tip_paths)
    # The stricter of the two configurations: the touched files a moved checker governs,
    # the change's bytes under the merge-base's governing files.
    touched = {
        s.path
        for s in report.scopes
        if s.checker in moved and s.path in now.changed and s.tier != Tier.POLICY
    }
    change = revision_files(git, revision, touched) if revision else _worktree_files(root, touched)
    stricter = side(revs.base, {p: p for p in touched}, change)
    apart = moved | base.incomplete | tip.incomplete
    # The change side's lines: the work tree's, or the judged commit's bytes.
    contents = None
    if revision is not None:
        held = revision_files(git, revision, {f.path for f in judged})
        contents = {t.path: t.read_bytes() for t in held.targets}
    judged_prints = fingerprints(judged, root, contents)
    ours = {fp for _f, fp in judged_prints}
    hidden = [f for f, fp in stricter.found if f.checker in moved and fp not in ours]
    for f in hidden:
        f.baseline_state = BaselineState.NEW
    if hidden:
        report.findings = sorted([*report.findings, *hidden], key=finding_key)
    at_base_prints, at_tip_prints = base.prints, tip.prints
    for f, fp in judged_prints:
        # Unchanged since the merge-base: the same bytes, so the same findings there.
        at_base = f.path not in now.changed or fp in at_base_prints
        # REV's tip: judged where REV changed the file since the merge-base, else as
        # the merge-base holds it.
        t = renamed_on_tip.get(at_base_path[f.path], at_base_path[f.path])
        at_tip = fp in at_tip_prints if t in tip_paths else at_base
        f.baseline_state = baseline_state(at_base, at_tip, f.checker not in apart)
    for name in sorted(moved & {f.checker for f in judged}):
        report.notes.append(
            f"--new-from-rev: {printable(name)}'s configuration differs from {printable(revs.rev)}'s "
            "merge-base or tip: all its findings are new"
        )
    for name in sorted({f.checker for f in hidden}):
        count = sum(f.checker == name for f in hidden)
        report.notes.append(
            f"--new-from-rev: {count} finding(s) of {printable(name)} found under "
            f"{printable(revs.rev)}'s merge-base configuration and not under the change's: a "
            "configuration change does not hide them (they are new)"
        )
    for name in sorted(stricter.incomplete & moved):
        report.notes.append(
            f"--new-from-rev: {printable(name)} did not complete under the merge-base's "
            "configuration: findings that configuration would report may be missing"
        )
    for name in sorted((base.incomplete | tip.incomplete) - moved):
        report.notes.append(
            f"--new-from-rev: {printable(name)} did not complete on the base side: all its "
            "findings are new"
        )
    report.notes.append(_summary(revs, report.findings))


def _summary(revs: Revisions, findings: list[Finding]) -> str:
    new = sum(f.baseline_state == BaselineState.NEW for f in findings)
    return (
        f"--new-from-rev {printable(revs.rev)}: {new} new finding(s), {len(findings) - new} "
        f"unchanged (merge-base {revs.base[:12]}, tip {revs.tip[:12]}); unchanged ones do "
        "not block"
    )


__all__ = ["Revisions", "judge_new", "revisions"]
