"""The git settings and environment variables that make git run a program.

Facts about git only, no verdict: a setting here names a command git runs for the user
(a hook folder, an fsmonitor, a diff, textconv, filter or merge driver, a pager or
editor, an ssh command, the program on the other end of a fetch or push, a credential
helper, a signing program) or lets a URL run one (`protocol.allow`, `ext::`). The
agent's pre-tool gate (`orchestrator.shell.git_rules`) refuses a command that sets
one; nothing here runs git.
"""

from __future__ import annotations

import fnmatch
import shlex
from collections.abc import Sequence

#: Keys (casefolded; `*` stands for a subsection, dots included) whose value is a
#: program git runs, or a folder of programs (hooks; `init.templateDir`, whose `hooks`
#: `git init` copies into a repository, even an existing one), or a switch that lets a URL run
#: one. `include.*` / `includeIf.*` read another file that may set any of these.
PROGRAM_KEYS: tuple[str, ...] = (
    "core.fsmonitor",
    "core.hookspath",
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "core.askpass",
    "core.gitproxy",
    "core.alternaterefscommand",
    "sequence.editor",
    "pager.*",
    "diff.external",
    "diff.*.command",
    "diff.*.textconv",
    "difftool.*.cmd",
    "difftool.*.path",
    "merge.*.driver",
    "mergetool.*.cmd",
    "mergetool.*.path",
    "filter.*",
    "credential.helper",
    "credential.*.helper",
    "gpg.program",
    "gpg.*.program",
    "gpg.ssh.defaultkeycommand",
    "uploadpack.packobjectshook",
    "remote.*.uploadpack",
    "remote.*.receivepack",
    "remote.*.vcs",
    "protocol.allow",
    "protocol.*.allow",
    "url.*.insteadof",
    "url.*.pushinsteadof",
    "submodule.*.update",
    "trailer.*.command",
    "trailer.*.cmd",
    "interactive.difffilter",
    "sendemail.*",
    "imap.tunnel",
    "web.browser",
    "browser.*",
    "man.viewer",
    "man.*",
    "instaweb.*",
    "guitool.*",
    "hook.*",
    "lfs.customtransfer.*",
    "lfs.extension.*",
    "include.*",
    "includeif.*",
    "init.templatedir",
)
#: Sections holding a program setting: renaming another section onto one sets it.
PROGRAM_SECTIONS = frozenset(k.split(".", 1)[0] for k in PROGRAM_KEYS)

#: Values that run nothing, or only a program that shows text (a pager that is
#: `cat`, `less` or `more`, an editor that is `true` or `:`), and booleans.
_HARMLESS_WORDS = frozenset(
    {"", "cat", "less", "more", "true", "false", ":", "yes", "no", "on", "off", "0", "1"}
)
_SHOWING_PROGRAMS = frozenset({"cat", "less", "more"})

#: Environment variables whose value is a program (or a folder of programs) git runs.
PROGRAM_ENV = frozenset(
    {
        "GIT_EXTERNAL_DIFF",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_PAGER",
        "PAGER",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "EDITOR",
        "VISUAL",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "GIT_PROXY_COMMAND",
        "GIT_EXEC_PATH",
        "GIT_TEMPLATE_DIR",
        "LESSOPEN",
        "LESSCLOSE",
        "BROWSER",
    }
)
#: Environment variables naming a configuration file git reads (any setting may be in it).
CONFIG_FILE_ENV = frozenset({"GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"})


#: Configuration files git reads by itself for every repository of the user or the
#: machine (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`, `/etc/gitconfig`): written
#: by any program but git, they may set any program setting or remote URL unseen.
USER_CONFIG_NAMES = frozenset({".gitconfig", "gitconfig"})


def is_user_config_file(parts: Sequence[str]) -> bool:
    """Whether a path (its parts, casefolded) names a configuration file git reads for
    every repository: `.gitconfig`, `gitconfig`, `git/config` in any folder, or a
    folder holding one (`.config`, `.config/git`: a link or a copy replaces the file).
    Parts may be patterns (`.gitconf*`): they count if they could match."""
    if not parts:
        return False
    last = parts[-1]
    if any(fnmatch.fnmatchcase(name, last) for name in (*USER_CONFIG_NAMES, ".config")):
        return True  # the file, or the XDG folder that holds `git/config`
    parent = parts[-2] if len(parts) >= 2 else ""
    in_git = fnmatch.fnmatchcase("git", parent) and fnmatch.fnmatchcase("config", last)
    git_folder = fnmatch.fnmatchcase(".config", parent) and fnmatch.fnmatchcase("git", last)
    return in_git or git_folder


def runs_program(key: str) -> bool:
    """Whether setting config `key` (any case) can make git run a program."""
    k = key.casefold()
    return any(fnmatch.fnmatchcase(k, pattern) for pattern in PROGRAM_KEYS)


def harmless_value(key: str, value: str | None) -> bool:
    """Whether `value` (None: unknown) for the program setting `key` runs nothing the
    user did not already run: a boolean, an empty value, a text-showing pager; a
    `protocol.*.allow` that is `never` or is about a transport other than `ext`; a
    URL rewrite to an ordinary URL."""
    if value is None:
        return False
    k = key.casefold()
    v = value.strip().casefold()
    if k.startswith("protocol."):
        return k not in ("protocol.allow", "protocol.ext.allow") or v == "never"
    if k.startswith("url."):
        return "::" not in k and "::" not in v
    if k.startswith(("include.", "includeif.", "hook.", "filter.", "core.hookspath")):
        return False
    if v in _HARMLESS_WORDS:
        return True
    try:
        words = shlex.split(v)
    except ValueError:
        return False
    return bool(words) and words[0] in _SHOWING_PROGRAMS and all(w[:1] == "-" for w in words[1:])


def harmless_env(name: str, value: str | None) -> bool:
    """Whether environment variable `name` set to `value` (None: unknown) runs no program
    beyond git's own: not a program variable, or one holding a harmless value."""
    if name == "GIT_ALLOW_PROTOCOL":
        return value is not None and "ext" not in value.casefold().split(":")
    if name not in PROGRAM_ENV:
        return True
    return name not in ("GIT_EXEC_PATH", "GIT_TEMPLATE_DIR") and harmless_value("env", value)


def parameter_pairs(value: str) -> list[tuple[str, str]] | None:
    """The (key, value) pairs `GIT_CONFIG_PARAMETERS` sets (git's own `'key'='value'`
    quoting, or `'key=value'` as older git writes it; a key alone is set to true, ""), or
    None when it cannot be read."""
    try:
        words = shlex.split(value)
    except ValueError:
        return None
    pairs: list[tuple[str, str]] = []
    for word in words:
        key, eq, val = word.partition("=")
        if not key.strip():
            return None
        pairs.append((key.strip(), val if eq else ""))
    return pairs


__all__ = [
    "CONFIG_FILE_ENV",
    "PROGRAM_ENV",
    "PROGRAM_KEYS",
    "PROGRAM_SECTIONS",
    "USER_CONFIG_NAMES",
    "harmless_env",
    "harmless_value",
    "is_user_config_file",
    "parameter_pairs",
    "runs_program",
]
