"""Shell-command classification (is this a git commit / push?) and git re-scoping.

The command text is untrusted: it is tokenized (never executed, never echoed) only to
decide whether a strict delivery gate applies. When tokenizing fails, a conservative
pattern decides, so an odd spelling cannot slip a commit past the gate.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.git.listing import status
from orchestrator.git.runner import Git, GitError

MAX_COMMAND_CHARS = 64 * 1024
_WRAPPERS = {"sudo", "env", "command", "exec", "time", "nohup", "nice", "xargs"}
_SHELLS = {"sh", "bash", "zsh", "dash", "ksh"}
_GIT_OPTS_WITH_ARG = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"}
_SEPARATORS = {";", "&&", "||", "|", "&", "(", ")", "|&", ";;"}
_FALLBACK = re.compile(r"\bgit\b[^\n;&|]*?\b(commit|push)\b")
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _segments(command: str) -> list[list[str]] | None:
    out: list[list[str]] = []
    for line in command.splitlines() or [""]:
        try:
            lex = shlex.shlex(line, posix=True, punctuation_chars=True)
            lex.whitespace_split = True
            lex.commenters = ""
            tokens = list(lex)
        except ValueError:
            return None
        current: list[str] = []
        for tok in tokens:
            if tok in _SEPARATORS or set(tok) <= set(";&|()"):
                if current:
                    out.append(current)
                current = []
            else:
                current.append(tok)
        if current:
            out.append(current)
    return out


def _kind_of(tokens: list[str], depth: int) -> list[str]:
    i = 0
    while i < len(tokens) and (_ASSIGN.match(tokens[i]) or tokens[i] in _WRAPPERS):
        i += 1
    if i >= len(tokens):
        return []
    prog = os.path.basename(tokens[i])
    if prog in _SHELLS and depth < 3:
        for j in range(i + 1, len(tokens) - 1):
            if tokens[j].startswith("-") and "c" in tokens[j][1:]:
                return git_delivery_kinds(tokens[j + 1], depth + 1)
        return []
    if prog != "git":
        return []
    i += 1
    while i < len(tokens) and tokens[i].startswith("-"):
        opt = tokens[i]
        i += 2 if opt in _GIT_OPTS_WITH_ARG else 1
    if i < len(tokens) and tokens[i] in ("commit", "push"):
        return [tokens[i]]
    return []


def git_delivery_kinds(command: str, depth: int = 0) -> list[str]:
    """The delivery gates a shell command calls for: "commit" and/or "push", in order."""
    if not isinstance(command, str) or not command:
        return []
    if len(command) > MAX_COMMAND_CHARS or "\x00" in command:
        # Too large or odd to tokenize safely: decide conservatively.
        return sorted(set(_FALLBACK.findall(command[:MAX_COMMAND_CHARS])))
    segments = _segments(command)
    if segments is None:
        return sorted(set(_FALLBACK.findall(command)))
    kinds: list[str] = []
    for seg in segments:
        for k in _kind_of(seg, depth):
            if k not in kinds:
                kinds.append(k)
    return kinds


def git_delivery_kind(command: str) -> str | None:
    """The first gate a command calls for (commit before push), or None."""
    kinds = git_delivery_kinds(command)
    if "commit" in kinds:
        return "commit"
    return "push" if "push" in kinds else None


def git_changed_paths(root: Path, deadline: Deadline) -> list[str] | None:
    """Changed or untracked regular files under `root` (project-relative, sorted), from
    `git status --porcelain -z`; None when git cannot tell (no repository, timeout).

    Deleted paths, paths outside `root` (through a link) and orchestrate's own
    workspace are left out: only files a checker could read now are listed.
    """
    git = Git(root, deadline)
    top = git.answer("rev-parse", "--show-toplevel")
    try:
        entries = status(git, ".") if top is not None else None
    except GitError:
        entries = None
    if top is None or entries is None:
        return None
    toplevel = Path(top).resolve()
    paths: list[str] = []
    for entry in entries:
        if entry.deleted:
            continue
        try:
            real = (toplevel / entry.path).resolve()
            rel = real.relative_to(root)
            if not stat.S_ISREG(os.stat(real).st_mode):
                continue
        except (OSError, ValueError, RuntimeError):
            continue
        posix = rel.as_posix()
        if not posix.startswith(".orchestrate/"):
            paths.append(posix)
    return sorted(set(paths))
