"""From the shell analyser's verdict to what the pre-tool gate judges, and which file
edits it refuses.

`delivery_of` turns a ``judge_index`` analysis into a `ShellDelivery` with absolute
paths: the command's directory after `cd` and `git -C`, and the GIT_* variables and
git options that select its repository, spelled as the environment git will read. A
repository spelling this module does not know is not guessed: it is a fixed reason
word, and the router denies. `protected_target` says whether a file-edit tool aims
at a place no agent may write (git's own folder, the hooks, orchestrate's config).
Pure: the git folders come from the caller, and nothing here executes the command.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from orchestrator.git.grammar import REPOSITORY_OPTIONS
from orchestrator.shell.records import Analysis, Repository
from orchestrator.usecases.pretool import ShellDelivery

#: GIT_* variables naming a path: made absolute against the command's directory.
_PATH_ENV = frozenset(
    {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"}
)
#: GIT_* variables that shape how the repository is read: passed on as they are.
_SHAPING_ENV = frozenset(
    {
        "GIT_LITERAL_PATHSPECS",
        "GIT_GLOB_PATHSPECS",
        "GIT_NOGLOB_PATHSPECS",
        "GIT_ICASE_PATHSPECS",
        "GIT_NAMESPACE",
        "GIT_CONFIG_NOSYSTEM",
        "GIT_ATTR_SOURCE",
    }
)
#: GIT_* variables that change nothing the gate reads (identity, prompts, tracing).
_INERT_ENV_PREFIXES = (
    "GIT_AUTHOR_",
    "GIT_COMMITTER_",
    "GIT_TRACE",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_PAGER",
    "GIT_TERMINAL_PROMPT",
    "GIT_ASKPASS",
    "GIT_SSH",
    "GIT_MERGE_AUTOEDIT",
    "GIT_PROGRESS_DELAY",
    "GIT_FLUSH",
    "GIT_REDIRECT_",
    "GIT_ADVICE",
    "GIT_OPTIONAL_LOCKS",
)
#: git's own options (as the analyser records them) and the variable each stands for.
_OPTION_ENV = {option: var for option, var in REPOSITORY_OPTIONS.items() if var is not None}
#: File names no agent edit may write, wherever they are.
PROTECTED_NAMES = frozenset({"orchestrate.toml", ".orchestrate-secrets-allow"})
#: Folder names no agent edit may write into.
PROTECTED_DIRS = frozenset({".git", ".orchestrate"})


def _place(start: Path, repo: Repository) -> Path | None:
    """The directory the command's git runs in: the shell's, then each `-C`."""
    if repo.cwd is None:
        return None
    here = Path(os.path.normpath(start / repo.cwd))
    for d in repo.chdirs:
        here = Path(os.path.normpath(here / d)) if d else here
    return here


def _environment(here: Path, repo: Repository) -> dict[str, str] | str:
    """The GIT_* variables git will read for `repo`, paths absolute; a reason word when
    a variable or option would change what is read in a way not modelled here."""
    env: dict[str, str] = {}
    for name, value in repo.env_vars:
        if value is None:
            return "repository_unknown"
        if name in _PATH_ENV:
            env[name] = str(Path(os.path.normpath(here / value)))
        elif name in _SHAPING_ENV:
            env[name] = value
        elif not name.startswith(_INERT_ENV_PREFIXES):
            return "git_environment_not_modelled"
    for option in repo.options:
        name, eq, value = option.partition("=")
        var = _OPTION_ENV.get(name)
        if var is None:
            return "git_option_not_modelled"
        if var in _PATH_ENV:
            env[var] = str(Path(os.path.normpath(here / value)))
        else:
            env[var] = value if eq else "1"
    return env


def delivery_of(result: Analysis, start: Path) -> ShellDelivery | str:
    """The delivery a ``judge_index`` analysis describes, run from `start`; else the
    fixed reason word why its surface cannot be prepared."""
    surface, repo = result.surface, result.repository
    if result.verdict != "judge_index" or surface is None or repo is None or not repo.known:
        return "repository_unknown"
    here = _place(start, repo)
    if here is None:
        return "repository_unknown"
    env = _environment(here, repo)
    if isinstance(env, str):
        return env
    if surface.kind == "push":
        return ShellDelivery(
            "push",
            here,
            env,
            remote=surface.remote,
            refspecs=surface.refspecs,
            push_flags=surface.push_flags,
        )
    only = surface.only_paths if surface.kind == "only_paths" else None
    return ShellDelivery("commit", here, env, staging=surface.staging, only_paths=only)


def delivery_kind(result: Analysis) -> str:
    """ "commit" or "push" for the text of a refusal: what the command tries to deliver."""
    kinds = [op.kind for op in result.deliveries]
    return "push" if kinds and all(k == "push" for k in kinds) else "commit"


#: The code points HFS+ ignores in a name (git's is_hfs_dotgit list): `.g\u200cit`
#: names `.git` there.
_HFS_IGNORED = dict.fromkeys(
    [*range(0x200C, 0x2010), *range(0x202A, 0x202F), *range(0x206A, 0x2070), 0xFEFF]
)


def _protected_by_name(path: Path) -> bool:
    parts = [p.translate(_HFS_IGNORED).casefold().rstrip(". ") for p in path.parts]
    return bool(set(parts) & PROTECTED_DIRS) or (bool(parts) and parts[-1] in PROTECTED_NAMES)


def protected_target(raw: object, root: Path | None, git_dirs: Mapping[str, Path]) -> str | None:
    """The fixed reason a file-edit tool may not write `raw`, or None when it may.

    Refused: a path that is not an absolute, bounded string; any path inside a `.git`
    or `.orchestrate` folder, `orchestrate.toml` or `.orchestrate-secrets-allow`, as
    spelled or after resolving links (before or after `..`); any path inside one of `git_dirs` (the
    repository's git folder, common folder and hooks folder, absolute)."""
    if not isinstance(raw, str) or not raw or "\x00" in raw or len(raw) > 4096:
        return "edit_path_undeterminable"
    given = Path(raw)
    if not given.is_absolute():
        if root is None:
            return "edit_path_undeterminable"
        given = root / given
    lexical = Path(os.path.normpath(given))
    try:
        # `lnk/../x` is x beside the link's target for the kernel, beside the link lexically.
        real = Path(os.path.realpath(lexical))
        followed = Path(os.path.realpath(given))
    except (OSError, ValueError):
        return "edit_path_undeterminable"
    for candidate in (lexical, real, followed):
        if _protected_by_name(candidate):
            return "protected_path"
        for place in git_dirs.values():
            if candidate == place or place in candidate.parents:
                return "protected_path"
    return None
