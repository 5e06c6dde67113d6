"""The push an agent's `git push` is about to make (usecases/gate.py reads it).

For a push seen before it happens, the pushed range is the current branch against
its upstream as git knows it locally; the installed pre-push hook still checks the
exact ranges git reports.
"""

from __future__ import annotations

from orchestrator.git.surface import Git, PushUpdate

ZERO = "0" * 40


def _out(git: Git, *args: str) -> str | None:
    res = git.run(*args, check=False, budget=64 * 1024)
    if not res.ok or res.returncode != 0:
        return None
    return res.stdout.decode("utf-8", "surrogateescape").strip() or None


def current_push(git: Git) -> tuple[list[PushUpdate], str | None]:
    """The update a plain `git push` of the current branch would make, and the remote."""
    head = _out(git, "rev-parse", "--verify", "HEAD^{commit}")
    if head is None:
        return [], None
    ref = _out(git, "symbolic-ref", "-q", "HEAD") or "HEAD"
    branch = ref.removeprefix("refs/heads/")
    remote = _out(git, "config", "--get", f"branch.{branch}.remote") if ref != "HEAD" else None
    remotes = (_out(git, "remote") or "").split()
    if remote is None and remotes:
        remote = "origin" if "origin" in remotes else remotes[0]
    merge = _out(git, "config", "--get", f"branch.{branch}.merge") if ref != "HEAD" else None
    remote_ref = merge or ref
    remote_oid = ZERO
    if remote:
        short = remote_ref.removeprefix("refs/heads/")
        known = _out(
            git, "rev-parse", "--verify", "-q", f"refs/remotes/{remote}/{short}^{{commit}}"
        )
        remote_oid = known or ZERO
    if len(head) == 64 and remote_oid == ZERO:
        remote_oid = "0" * 64
    return [PushUpdate(ref, head, remote_ref, remote_oid)], remote
