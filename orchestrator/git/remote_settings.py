"""The git settings and variables that change what git's record of a remote means.

Facts about git only, no verdict. The reflog of a remote-tracking ref keeps the words
git was given, not where they led: a remote whose URL was changed (or rewritten by
``url.*.insteadOf``) still records ``fetch origin`` while storing what another
repository holds, and ``GIT_REFLOG_ACTION`` writes any subject on any ref move. The
push gates no longer read that record (they ask the remote itself,
`orchestrator.git.push.remote_holds`); the agent's pre-tool gate
(`orchestrator.shell.git_rules`) still refuses a command that changes one of these,
so that no record a person reads is forged either. Nothing here runs git.
"""

from __future__ import annotations

import fnmatch

#: Keys (casefolded; `*` stands for a subsection, dots included) that decide where a
#: remote's name leads: its URLs and the URL rewrites applied to every remote.
LOCATION_KEYS: tuple[str, ...] = (
    "remote.*.url",
    "remote.*.pushurl",
    "url.*.insteadof",
    "url.*.pushinsteadof",
)
#: Sections whose renaming or removal moves a name onto another location (a section
#: `remote.evil` renamed `remote.origin` keeps origin's refs under evil's URL).
LOCATION_SECTIONS = frozenset({"remote", "url"})
#: Environment variables that set the subject git writes into a reflog.
REFLOG_ENV = frozenset({"GIT_REFLOG_ACTION"})


def moves_remote(key: str) -> bool:
    """Whether setting or unsetting config `key` (any case) changes where a remote's
    name leads (its URL, push URL, or a URL rewrite)."""
    k = key.casefold()
    return any(fnmatch.fnmatchcase(k, pattern) for pattern in LOCATION_KEYS)


def section_of(name: str) -> str:
    """The section part of a config key or section name (`remote` of `Remote.x.url`)."""
    return name.split(".", 1)[0].casefold()


__all__ = ["LOCATION_KEYS", "LOCATION_SECTIONS", "REFLOG_ENV", "moves_remote", "section_of"]
