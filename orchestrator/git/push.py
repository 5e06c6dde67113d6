"""What a push delivers: the pre-push protocol, the pushed ranges, a push not yet made."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from orchestrator.git.history import (
    Added,
    Message,
    added_blobs,
    network_value,
    pushed_objects,
    range_commits,
    read_messages,
    shallow_boundary,
    tag_chain,
)
from orchestrator.git.objects import Entry, has_commit, object_sizes, read_tree
from orchestrator.git.repo import config_get
from orchestrator.git.runner import Git
from orchestrator.git.surfaces import (
    Surface,
    add_history,
    add_messages,
    add_objects,
    add_targets,
)
from orchestrator.model.checker import MAX_FILE_BYTES
from orchestrator.model.report import Scope
from orchestrator.vocab import MAX_PUSH_STDIN, ScopeStatus

ZERO = "0" * 40


@dataclass(frozen=True)
class PushUpdate:
    """One line of the pre-push protocol."""

    local_ref: str
    local_oid: str
    remote_ref: str
    remote_oid: str
    #: True when `remote_oid` comes from a remote-tracking ref, not from git's pre-push line.
    claimed: bool = False
    #: Why a claimed `remote_oid` differs from the remote-tracking ref's current value.
    note: str = field(default="", compare=False)

    @property
    def deletes(self) -> bool:
        return set(self.local_oid) == {"0"}

    @property
    def creates(self) -> bool:
        return set(self.remote_oid) == {"0"}


def parse_push_lines(data: bytes) -> list[PushUpdate]:
    """Parse ``<local ref> <local oid> <remote ref> <remote oid>`` lines; ValueError if malformed."""
    if len(data) > MAX_PUSH_STDIN:
        raise ValueError("pre-push input larger than 1 MiB")
    updates: list[PushUpdate] = []
    for raw in data.decode("utf-8", "surrogateescape").splitlines():
        if not raw.strip():
            continue
        parts = raw.split()
        if len(parts) != 4 or not all(_is_oid(p) for p in (parts[1], parts[3])):
            raise ValueError(
                "malformed pre-push line (want: local-ref local-oid remote-ref remote-oid)"
            )
        updates.append(PushUpdate(*parts))
    return updates


def _is_oid(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def tracking_bases(git: Git, remote: str | None) -> tuple[list[str], list[str]]:
    """What the remote-tracking refs of `remote` say the remote holds: the commits git
    recorded there by its own fetches and pushes (a local claim the remote may not
    match), and notes naming each ref that was moved otherwise."""
    if not remote or remote.startswith("-"):
        return [], []
    listing = git.out(
        "for-each-ref",
        "--format=%(refname)%00%(symref)",
        "--end-of-options",
        f"refs/remotes/{remote}/",
    )
    bases: list[str] = []
    notes: list[str] = []
    for line in listing.splitlines():
        ref, _, symref = line.partition("\0")
        if symref:
            continue
        value, current = network_value(git, ref, remote)
        if value is None:
            notes.append(f"{ref} has no fetch or push on record: not taken as the remote's state")
            continue
        if not current:
            notes.append(
                f"{ref} was moved by something other than a fetch or push: its last fetched "
                f"or pushed commit {value[:12]} is taken instead"
            )
        if value not in bases and has_commit(git, value):
            bases.append(value)
    return bases, notes


def _claim(remote: str | None, bases: Sequence[str]) -> str:
    if bases:
        held = (
            f"the commits no remote-tracking ref of {remote} holds (as git's own fetches "
            "and pushes recorded them)"
        )
    else:
        held = f"every commit of the ref (no remote-tracking ref of {remote or 'the remote'} records one)"
    return f"{held}: a local claim, the remote itself was not asked"


def _unknown_base(up: PushUpdate, remote: str | None) -> Scope:
    return Scope(
        path=up.remote_ref,
        checker="selection",
        status=ScopeStatus.NOT_RUN,
        reason=(
            f"the remote's commit {up.remote_oid[:12]} is not in this repository: "
            "what the push adds to the remote cannot be determined"
        ),
        hint=f"fetch from the remote first (git fetch {remote or '<remote>'}), then push again",
    )


def _onto(git: Git, tip: str, bases: Sequence[str], remote: str | None) -> str | None:
    """The commit a ref without a known remote commit is delivered onto, for the policy
    a strict gate also reads there: the tip's merge base with the remote's default
    branch as recorded locally, else with the first remote-tracking commit it shares."""
    if not bases:
        return None
    default = git.answer("rev-parse", "--verify", "-q", f"refs/remotes/{remote}/HEAD^{{commit}}")
    ordered = sorted(bases, key=lambda b: b != default)
    for base in ordered:
        found = git.answer("merge-base", "--end-of-options", tip, base)
        if found:
            return found
    return None


def _range(
    git: Git, up: PushUpdate, remote: str | None, surface: Surface
) -> tuple[list[str], str | None]:
    """The commits one pushed ref excludes (what the remote holds), and the commit it is
    delivered onto (None when there is none)."""
    label = up.remote_ref
    if up.note:
        surface.notes.append(up.note)
    if not up.creates and has_commit(git, up.remote_oid):
        if up.claimed:
            surface.notes.append(
                f"{label}: range from refs/remotes/{remote}/{label.removeprefix('refs/heads/')} "
                f"({up.remote_oid[:12]}): a local claim, the remote itself was not asked; "
                "git's pre-push gate judges the remote's real commit"
            )
        return [up.remote_oid], up.remote_oid
    bases, notes = tracking_bases(git, remote)
    surface.notes += notes
    if up.creates:
        surface.notes.append(f"new ref {label}: the range is {_claim(remote, bases)}")
    else:
        surface.refused.append(_unknown_base(up, remote))
        surface.notes.append(
            f"{label}: remote commit unknown locally; also checked {_claim(remote, bases)}"
        )
    return bases, _onto(git, up.local_oid, bases, remote)


def push_surface(git: Git, updates: Sequence[PushUpdate], remote: str | None = None) -> Surface:
    """What each pushed ref delivers: the tip's version of every path the range's
    commits touch, judged whole, and every other blob those commits add, scanned for
    secrets (a secret added in one pushed commit and removed in the next is pushed).

    The range is the commits of the tip the remote lacks: git's pre-push lines carry
    the remote's commit per ref. A new ref is compared with what the remote-tracking
    refs record (a local claim, said in the notes); a remote commit this repository
    lacks leaves the push undeterminable (a `not_run` scope). Deleted refs check
    nothing. One path pushed in several versions has each version checked. The message
    of every pushed commit, and of each pushed annotated tag (a tag's commit is judged
    as a range like a branch's tip), is scanned for secrets too.
    """
    surface = Surface(root=git.root)
    if not updates:
        surface.notes.append("no pre-push lines on stdin: no ref is being pushed, nothing to check")
    chosen: dict[tuple[str, str], Entry] = {}
    added: list[Added] = []
    pushed: dict[str, None] = {}
    tags: list[Message] = []
    bases: set[str | None] = set()
    walked: dict[str, tuple[str, str]] = {}
    for up in updates:
        if up.deletes:
            surface.notes.append(f"push deletes {up.remote_ref}: nothing to check")
            continue
        exclude, base = _range(git, up, remote, surface)
        bases.add(base)
        commits = range_commits(git, up.local_oid, exclude)
        for oid in shallow_boundary(git, commits):
            surface.notes.append(
                f"{up.remote_ref}: commit {oid[:12]} is a shallow boundary of this repository "
                "(.git/shallow: its parents are not here); git delivers nothing below it, "
                "so it was judged as a root commit, every file of its tree "
                "(`git fetch --unshallow` gives the full range)"
            )
        pushed.update(dict.fromkeys(commits))
        tags += [t for t in tag_chain(git, up.local_oid, MAX_FILE_BYTES) if t not in tags]
        news = added_blobs(git, commits)
        touched = {a.entry.path for a in news}
        if commits and not touched:
            surface.notes.append(f"{up.remote_ref}: {len(commits)} commit(s) that add no file")
        if commits:
            for e in read_tree(git, up.local_oid):
                if e.path in touched:
                    chosen.setdefault((e.path, e.oid), e)
        else:
            surface.notes += _no_commit_note(git, up)
        added += news
        # Whatever the ref names (a tree, a blob, a tag of either, a notes commit), git
        # sends every object the remote lacks: each is judged, not only commit ranges.
        for oid, name in pushed_objects(git, up.local_oid, exclude):
            walked.setdefault(oid, (name, up.remote_ref))
    delivered = set(chosen.values())
    add_targets(git, list(delivered), surface, "pushed commits")
    history = _unique(added)
    add_history(git, history, surface, delivered)
    covered = {e.oid for e in delivered} | {a.entry.oid for a in history}
    kinds = object_sizes(git, list(walked), ("blob", "commit", "tag"))
    blobs = {o: walked[o] for o, (kind, _size) in kinds.items() if kind == "blob"}
    add_objects(git, {o: w for o, w in blobs.items() if o not in covered}, surface)
    pushed.update(dict.fromkeys(o for o, (kind, _s) in kinds.items() if kind == "commit"))
    known = {t.oid for t in tags}
    extra = [o for o, (kind, _s) in kinds.items() if kind == "tag" and o not in known]
    tags += [m for m in read_messages(git, extra, MAX_FILE_BYTES)[0] if m.kind == "tag"]
    add_messages(git, list(pushed), tags, surface)
    tips = {up.local_oid for up in updates if not up.deletes}
    # The governing files are read from the one pushed commit; a tree or a blob pushed
    # alone holds none of the project's (the checkers then run on their defaults).
    tip = tips.pop() if len(tips) == 1 else None
    surface.source = tip if tip is not None and has_commit(git, tip) else None
    surface.base = bases.pop() if len(bases) == 1 else None
    return surface


def _no_commit_note(git: Git, up: PushUpdate) -> list[str]:
    """The note on a pushed ref whose object reaches no new commit and is no commit
    itself (a tree, a blob, a tag of either); none for a commit the remote has."""
    sizes = object_sizes(git, [up.local_oid], ("blob", "tree", "tag"))
    if up.local_oid not in sizes:
        return []
    kind = sizes[up.local_oid][0]
    return [
        f"{up.remote_ref}: names a {kind} ({up.local_oid[:12]}), not a commit: every object "
        "it delivers is scanned for secrets (no checker lints a file outside a commit)"
    ]


def _unique(added: Sequence[Added]) -> list[Added]:
    seen: set[Entry] = set()
    out: list[Added] = []
    for a in added:
        if a.entry not in seen:
            seen.add(a.entry)
            out.append(a)
    return out


def current_push(git: Git) -> tuple[list[PushUpdate], str | None]:
    """The update a plain `git push` of the current branch would make, and the remote.

    Used before the push happens (an agent's shell ``git push``): the range is the
    current branch against its upstream as git's own fetches and pushes last recorded
    it in the remote-tracking ref (a local claim: a ref moved otherwise, such as by
    `git update-ref`, is not believed). The remote is the one git pushes to:
    `branch.NAME.pushRemote`, else `remote.pushDefault`, else the branch's remote, else
    `origin`; pushing to another remote than the branch's own (a triangular set-up),
    git sends the branch under its own name. No commit: no update.
    """
    head = git.answer("rev-parse", "--verify", "HEAD^{commit}")
    if head is None:
        return [], None
    ref = git.answer("symbolic-ref", "-q", "HEAD") or "HEAD"
    branch = ref.removeprefix("refs/heads/")
    on_branch = ref != "HEAD"
    upstream = (config_get(git, f"branch.{branch}.remote") or None) if on_branch else None
    remote = (config_get(git, f"branch.{branch}.pushRemote") or None) if on_branch else None
    remote = remote or config_get(git, "remote.pushDefault") or upstream
    remotes = (git.answer("remote") or "").split()
    if remote is None and remotes:
        remote = "origin" if "origin" in remotes else remotes[0]
    merge = (config_get(git, f"branch.{branch}.merge") or None) if on_branch else None
    triangular = upstream is not None and remote != upstream
    remote_ref = ref if triangular else (merge or ref)
    remote_oid = ZERO
    note = ""
    if remote and not remote.startswith("-"):
        tracking = f"refs/remotes/{remote}/{remote_ref.removeprefix('refs/heads/')}"
        value, current = network_value(git, tracking, remote)
        remote_oid = value or ZERO
        if value and not current:
            note = (
                f"{tracking} was moved by something other than a fetch or push: its last "
                f"fetched or pushed commit {value[:12]} is taken as the remote's"
            )
        elif value is None and has_commit(git, tracking):
            note = f"{tracking} has no fetch or push on record: not taken as the remote's state"
    if len(head) == 64 and remote_oid == ZERO:
        remote_oid = "0" * 64
    return [PushUpdate(ref, head, remote_ref, remote_oid, claimed=True, note=note)], remote
