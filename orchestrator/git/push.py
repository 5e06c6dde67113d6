"""What a push delivers: the pre-push protocol, the pushed ranges, a push not yet made."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from orchestrator.git.objects import Entry, diff_changes, has_commit, read_tree
from orchestrator.git.repo import config_get
from orchestrator.git.runner import Git
from orchestrator.git.surfaces import Surface, add_targets

#: Bytes of pre-push protocol read from stdin.
MAX_PUSH_STDIN = 1024 * 1024
ZERO = "0" * 40


@dataclass(frozen=True)
class PushUpdate:
    """One line of the pre-push protocol."""

    local_ref: str
    local_oid: str
    remote_ref: str
    remote_oid: str

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


def _default_branch_base(git: Git, remote: str | None, oid: str) -> tuple[str | None, str]:
    """Merge base of `oid` with the remote's default branch, and how it was found."""
    candidates: list[str] = []
    if remote and not remote.startswith("-"):
        head = git.answer("symbolic-ref", "--quiet", f"refs/remotes/{remote}/HEAD")
        if head is not None:
            candidates.append(head)
        candidates += [f"refs/remotes/{remote}/main", f"refs/remotes/{remote}/master"]
    for ref in candidates:
        if not has_commit(git, ref):
            continue
        base = git.answer("merge-base", oid, ref)
        if base:
            return base, ref
    return None, ""


def _range_base(git: Git, up: PushUpdate, remote: str | None) -> tuple[str | None, str]:
    """Where one pushed range starts (None: check the whole tree) and a note saying why."""
    label = up.remote_ref
    if up.creates:
        base, ref = _default_branch_base(git, remote, up.local_oid)
        if base:
            return base, f"new branch {label}: compared with its merge base with {ref}"
        return None, f"new branch {label}: no remote default branch in common, whole tree checked"
    if has_commit(git, up.remote_oid):
        return up.remote_oid, ""
    base, ref = _default_branch_base(git, remote, up.local_oid)
    return base, (
        f"{label}: remote commit unknown locally, compared with {ref or 'nothing (whole tree)'}"
    )


def push_surface(git: Git, updates: Sequence[PushUpdate], remote: str | None = None) -> Surface:
    """The files changed in each pushed range, judged at the pushed commit.

    Deleted refs check nothing. A new branch is compared with its merge base with the
    remote's default branch, or checked whole when there is none. When one path is
    pushed with different contents in several refs, each version is checked.
    """
    surface = Surface(root=git.root)
    if not updates:
        surface.notes.append("no pre-push lines on stdin: no ref is being pushed, nothing to check")
    chosen: dict[tuple[str, str], Entry] = {}
    bases: set[str | None] = set()
    for up in updates:
        if up.deletes:
            surface.notes.append(f"push deletes {up.remote_ref}: nothing to check")
            continue
        base, how = _range_base(git, up, remote)
        bases.add(base)
        if how:
            surface.notes.append(how)
        tree = {e.path: e for e in read_tree(git, up.local_oid)}
        if base is None:
            picked = list(tree.values())
        else:
            changes = diff_changes(git, base, up.local_oid)
            picked = [tree[c.path] for c in changes if c.status != "D" and c.path in tree]
        for e in picked:
            chosen.setdefault((e.path, e.oid), e)
    add_targets(git, list(chosen.values()), surface, "pushed commits")
    tips = {up.local_oid for up in updates if not up.deletes}
    surface.source = tips.pop() if len(tips) == 1 else None
    surface.base = bases.pop() if len(bases) == 1 else None
    return surface


def current_push(git: Git) -> tuple[list[PushUpdate], str | None]:
    """The update a plain `git push` of the current branch would make, and the remote.

    Used before the push happens (an agent's shell ``git push``): the range is the
    current branch against its upstream as git knows it locally. No commit: no update.
    """
    head = git.answer("rev-parse", "--verify", "HEAD^{commit}")
    if head is None:
        return [], None
    ref = git.answer("symbolic-ref", "-q", "HEAD") or "HEAD"
    branch = ref.removeprefix("refs/heads/")
    on_branch = ref != "HEAD"
    remote = (config_get(git, f"branch.{branch}.remote") or None) if on_branch else None
    remotes = (git.answer("remote") or "").split()
    if remote is None and remotes:
        remote = "origin" if "origin" in remotes else remotes[0]
    merge = (config_get(git, f"branch.{branch}.merge") or None) if on_branch else None
    remote_ref = merge or ref
    remote_oid = ZERO
    if remote:
        short = remote_ref.removeprefix("refs/heads/")
        known = git.answer(
            "rev-parse", "--verify", "-q", f"refs/remotes/{remote}/{short}^{{commit}}"
        )
        remote_oid = known or ZERO
    if len(head) == 64 and remote_oid == ZERO:
        remote_oid = "0" * 64
    return [PushUpdate(ref, head, remote_ref, remote_oid)], remote
