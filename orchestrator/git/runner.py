"""The one way orchestrate runs git: literal argv, one deadline, bounded output.

Every git question in the project goes through `Git`: it never builds a shell string,
it runs under the caller's `Deadline` (the whole process group is killed when it
passes), and it drops output past a budget instead of buffering without limit.
Callers put ``--`` before pathspecs (the listing readers do it for them), so a path
that looks like an option stays a path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.procs import ProcResult, run_bounded

#: Output budget of listing commands (ls-files, ls-tree, diff, status) on huge trees.
LISTING_BUDGET = 256 * 1024 * 1024
#: Output budget of one-line answers (rev-parse, config, symbolic-ref).
SMALL_BUDGET = 64 * 1024


class GitError(Exception):
    """Git could not answer: the surface cannot be established (an internal fault)."""


def git_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment git runs with: the caller's, with a relative index made absolute.

    Git exports ``GIT_INDEX_FILE`` to hooks, sometimes relative to the hook's cwd; the
    gate may run git elsewhere, so the path is pinned here. Optional locks are off (a
    read must not rewrite the index under a running commit) and messages are in the C
    locale, so parsing never depends on the user's language. Replace refs and grafts are
    off: what the gate reads is what git commits and pushes. No fsmonitor hook runs.
    """
    out = dict(os.environ if env is None else env)
    index = out.get("GIT_INDEX_FILE")
    if index and not os.path.isabs(index):
        out["GIT_INDEX_FILE"] = os.path.abspath(index)
    out.setdefault("GIT_OPTIONAL_LOCKS", "0")
    out["LC_ALL"] = "C"
    # The gate must read the objects git stores and sends. Replace refs and a grafts
    # file make `cat-file`, `diff` and `rev-list` show other content and history than
    # `write-tree`, `commit` and `pack-objects` store and push: a secret staged beside
    # `git replace <its blob> <a clean blob>` would be judged clean and pushed as is.
    out["GIT_NO_REPLACE_OBJECTS"] = "1"
    out["GIT_GRAFT_FILE"] = os.devnull
    # An fsmonitor hook is a program the repository's config names, run by any git
    # that refreshes the index: inside a gate it could kill the hook (a host reads a
    # hook killed by a signal as "go on") or say no file changed. Git scans instead.
    count = out.get("GIT_CONFIG_COUNT", "0")
    if count.isdigit():
        out[f"GIT_CONFIG_KEY_{count}"] = "core.fsmonitor"
        out[f"GIT_CONFIG_VALUE_{count}"] = "false"
        out["GIT_CONFIG_COUNT"] = str(int(count) + 1)
    return out


class Git:
    """A git runner bound to a working folder, one deadline and one environment."""

    def __init__(self, root: Path, deadline: Deadline, env: Mapping[str, str] | None = None):
        self.root = root
        self.deadline = deadline
        self.env = git_env(env)

    def run(
        self,
        *args: str,
        stdin: bytes | None = None,
        budget: int = LISTING_BUDGET,
        check: bool = True,
    ) -> ProcResult:
        """Run ``git ARGS`` in `root`; with `check`, any failure raises `GitError`.

        A failure is a spawn error, the deadline passing, output over `budget`, or a
        non-zero exit; the error text is bounded and names which one it was.
        """
        res = run_bounded(
            ["git", *args],
            deadline=self.deadline,
            stdin=stdin,
            cwd=self.root,
            env=self.env,
            output_budget=budget,
        )
        if check and not succeeded(res):
            raise GitError(_describe(args, res))
        return res

    def ok(self, *args: str) -> bool:
        """True when ``git ARGS`` exits 0 within the deadline and a 1 MiB budget."""
        return succeeded(self.run(*args, check=False, budget=1024 * 1024))

    def out(self, *args: str) -> str:
        """Stdout of ``git ARGS`` as stripped text; `GitError` when git fails."""
        return self.run(*args).stdout.decode("utf-8", "surrogateescape").strip()

    def answer(self, *args: str) -> str | None:
        """Stdout of a one-line ``git ARGS`` as stripped text; None when git fails or
        prints nothing (a question git cannot answer here, never an error)."""
        res = self.run(*args, check=False, budget=SMALL_BUDGET)
        if not succeeded(res):
            return None
        return res.stdout.decode("utf-8", "surrogateescape").strip() or None


def succeeded(res: ProcResult) -> bool:
    """True when a git run finished in time, within budget, and exited 0."""
    return res.ok and res.returncode == 0


def _describe(args: Sequence[str], res: ProcResult) -> str:
    what = f"git {args[0] if args else ''}"
    if res.spawn_error:
        return f"{what}: could not start git ({res.spawn_error})"
    if res.timed_out:
        return f"{what}: timed out"
    if res.over_budget:
        return f"{what}: output over budget"
    err = " ".join(res.stderr.decode("utf-8", "replace").split())[:200]
    return f"{what}: exit {res.returncode}: {err}"
