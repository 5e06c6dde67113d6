"""What a push delivers: the pre-push protocol, the pushed ranges, a push not yet made."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from orchestrator.git.history import (
    Added,
    Message,
    added_blobs,
    pushed_objects,
    range_commits,
    read_messages,
    shallow_boundary,
    tag_chain,
)
from orchestrator.git.objects import (
    Entry,
    has_commit,
    is_full_object_id,
    object_sizes,
    read_tree,
)
from orchestrator.git.repo import config_get
from orchestrator.git.runner import Git, succeeded
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
    #: True when `remote_oid` comes from asking the remote before the push, not from
    #: git's pre-push line.
    claimed: bool = False
    #: A note on how `remote_oid` was established.
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
        if len(parts) != 4 or not all(is_full_object_id(p) for p in (parts[1], parts[3])):
            raise ValueError(
                "malformed pre-push line (want: local-ref local-oid remote-ref remote-oid)"
            )
        updates.append(PushUpdate(*parts))
    return updates


@dataclass(frozen=True)
class RemoteHolds:
    """What the remote said it holds when asked (`remote_holds`)."""

    #: Each advertised ref and the object it names; None when the remote was not asked.
    refs: dict[str, str] | None
    #: The advertised commits this repository has too, the remote's HEAD first: what
    #: git's push leaves out of what it sends.
    commits: tuple[str, ...] = ()
    #: Why the remote could not be asked (never the remote's own text).
    reason: str = ""


#: Answers of remotes, reused within one run (one deadline): the pre-tool gate asks
#: for the same push several times in one check. At most `MAX_ASKED` are kept.
_ASKED: dict[tuple[str, str, float], RemoteHolds] = {}
MAX_ASKED = 32


def remote_holds(git: Git, where: str | None) -> RemoteHolds:
    """What the remote at `where` (the URL git pushes to, or a remote's name) holds,
    as it advertises its refs right now (`Git.ask_remote`, ``git ls-remote``).

    No local record is taken as the remote's state: a remote-tracking ref, its reflog
    ("fetch origin: fast-forward", written as well by ``git update-ref -m``, by
    ``GIT_REFLOG_ACTION`` or by a fetch whose URL was overridden for one run) and
    ``FETCH_HEAD`` are files anything running here can write. A remote that cannot be
    asked (unreachable, a transport other than git's own, a credential it would need,
    the deadline) holds nothing as far as the gate knows: the caller judges every
    commit of the ref (fail closed)."""
    if not where:
        return RemoteHolds(None, reason="no remote is named")
    if where.startswith("-"):
        return RemoteHolds(None, reason="its name starts with '-'")
    key = (str(git.root), where, git.deadline.at)
    if key in _ASKED:
        return _ASKED[key]
    res = git.ask_remote(where)
    if not succeeded(res):
        why = "timed out" if res.timed_out else "over budget" if res.over_budget else "failed"
        return RemoteHolds(None, reason=f"git ls-remote {why}")
    refs: dict[str, str] = {}
    for line in res.stdout.decode("utf-8", "surrogateescape").splitlines():
        oid, _, ref = line.partition("\t")
        if is_full_object_id(oid) and ref:
            refs[ref] = oid
    order = [refs["HEAD"]] if "HEAD" in refs else []
    wanted = list(dict.fromkeys([*order, *refs.values()]))
    kinds = object_sizes(git, wanted, ("commit",))
    holds = RemoteHolds(refs, tuple(o for o in wanted if o in kinds))
    if len(_ASKED) >= MAX_ASKED:
        _ASKED.clear()
    _ASKED[key] = holds
    return holds


def push_url(git: Git, remote: str) -> str | None:
    """The URL a push to `remote` (a configured remote's name) goes to, as git
    resolves it (``remote get-url --push``: its push URL, rewrites applied); None
    when `remote` names no configured remote."""
    if remote.startswith("-"):
        return None
    return git.answer("remote", "get-url", "--push", "--end-of-options", remote)


def _held(holds: RemoteHolds | None) -> str:
    if holds is None or holds.refs is None:
        why = holds.reason if holds is not None else "no remote is named"
        return (
            f"every commit of the ref: the remote could not be asked what it holds ({why}), "
            "and no local record (a remote-tracking ref, its reflog) is taken as its state"
        )
    return (
        "the commits none of the remote's refs holds, as the remote advertised them (git ls-remote)"
    )


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


#: Remote commits tried, in order, for the commit a new ref is delivered onto.
MAX_ONTO_BASES = 64


def _onto(git: Git, tip: str, bases: Sequence[str]) -> str | None:
    """The commit a ref without a known remote commit is delivered onto, for the policy
    a strict gate also reads there: the tip's merge base with the remote's HEAD as the
    remote advertised it, else with the first remote commit it shares."""
    for base in bases[:MAX_ONTO_BASES]:
        found = git.answer("merge-base", "--end-of-options", tip, base)
        if found:
            return found
    return None


def _range(
    git: Git, up: PushUpdate, remote: str | None, holds: RemoteHolds | None, surface: Surface
) -> tuple[list[str], str | None]:
    """The commits one pushed ref excludes (what the remote holds), and the commit it is
    delivered onto (None when there is none)."""
    label = up.remote_ref
    if up.note:
        surface.notes.append(up.note)
    if not up.creates and has_commit(git, up.remote_oid):
        if up.claimed:
            surface.notes.append(
                f"{label}: range from the remote's commit {up.remote_oid[:12]} as the remote "
                "advertised it before the push; git's pre-push gate judges the push's real range"
            )
        return [up.remote_oid], up.remote_oid
    bases = list(holds.commits) if holds is not None and holds.refs is not None else []
    if up.creates:
        surface.notes.append(f"new ref {label}: the range is {_held(holds)}")
    else:
        surface.refused.append(_unknown_base(up, remote))
        surface.notes.append(f"{label}: remote commit unknown locally; also checked {_held(holds)}")
    return bases, _onto(git, up.local_oid, bases)


def push_surface(
    git: Git, updates: Sequence[PushUpdate], remote: str | None = None, url: str | None = None
) -> Surface:
    """What each pushed ref delivers: the tip's version of every path the range's
    commits touch, judged whole, and every other blob those commits add, scanned for
    secrets (a secret added in one pushed commit and removed in the next is pushed).

    The range is the commits of the tip the remote lacks: git's pre-push lines carry
    the remote's commit per ref. A new ref is compared with what the remote holds, as
    it advertises it when asked (`remote_holds`: `url` as git passes it to pre-push,
    else `remote`; never a local record); a remote commit this repository lacks leaves
    the push undeterminable (a `not_run` scope). Deleted refs check
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
    unknown = [
        up
        for up in updates
        if not up.deletes and (up.creates or not has_commit(git, up.remote_oid))
    ]
    holds = remote_holds(git, url or remote) if unknown else None
    for up in updates:
        if up.deletes:
            surface.notes.append(f"push deletes {up.remote_ref}: nothing to check")
            continue
        exclude, base = _range(git, up, remote, holds, surface)
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
    current branch against the remote's commit of that ref, as the remote advertises
    it when asked at its push URL (`remote_holds`; no local record is believed: a
    remote-tracking ref and its reflog are files anything can write). A remote that
    cannot be asked leaves the remote's commit unknown: every commit of the branch is
    judged. The remote is the one git pushes to: `branch.NAME.pushRemote`, else
    `remote.pushDefault`, else the branch's remote, else `origin`; pushing to another
    remote than the branch's own (a triangular set-up), git sends the branch under its
    own name. No commit: no update.
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
    zero = "0" * len(head)
    remote_oid = zero
    if remote and not remote.startswith("-"):
        holds = remote_holds(git, push_url(git, remote))
        remote_oid = (holds.refs or {}).get(remote_ref, zero)
    return [PushUpdate(ref, head, remote_ref, remote_oid, claimed=True)], remote
