"""Shared helpers of the built-in checkers: rule links and descriptions, text spans,
Ruby files, the folders that hold a batch. (Tool lookup, version probes and config digests are public, in
`orchestrator.api`.)"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from orchestrator.api import FileTarget

_DOC_URL = re.compile(r"https?://[!-~]{1,2000}")
_DESCRIPTION_CHARS = 300


def doc_url(value: object) -> str | None:
    """A rule documentation URL as the tool gave it, when it is a plain http(s) URL of
    printable ASCII without spaces (at most 2,000 characters); None otherwise."""
    return value if isinstance(value, str) and _DOC_URL.fullmatch(value) else None


def rule_description(value: object) -> str | None:
    """A tool's one-line rule description: whitespace collapsed, at most 300 characters;
    None when it is not a non-empty string."""
    if not isinstance(value, str) or not value.split():
        return None
    return " ".join(value.split())[:_DESCRIPTION_CHARS]


def line_starts(text: str) -> list[int]:
    """Character offsets at which each line (1-based index - 1) starts."""
    starts = [0]
    find = text.find
    i = find("\n")
    while i != -1:  # str.find runs in C: no per-character Python loop
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts


def offset_of(starts: list[int], text: str, line: int, column: int) -> int:
    """Character offset of a 1-based (line, column), clamped to the text."""
    if line - 1 >= len(starts):
        return len(text)
    return min(len(text), starts[max(0, line - 1)] + max(0, column - 1))


#: Ruby files by suffix and by well-known name, for the Ruby checkers (ruby -c, RuboCop).
RUBY_SUFFIXES = (".rb", ".rake", ".gemspec", ".ru")
RUBY_FILENAMES = frozenset({"Gemfile", "Rakefile", "Guardfile", "Capfile", "Vagrantfile"})


def is_ruby_file(target: FileTarget) -> bool:
    """Ruby by the detected language, else by suffix or well-known name."""
    if target.language is not None:
        return target.language == "ruby"
    p = PurePosixPath(target.path)
    return p.suffix in RUBY_SUFFIXES or p.name in RUBY_FILENAMES


def top_folders(paths: Iterable[str]) -> list[Path]:
    """The folders of `paths` (project-relative), without any folder inside another of
    them, shallowest first: what a listing of the folders must walk to see every one
    (a folder inside one already listed adds nothing)."""
    folders = sorted({Path(p).parent for p in paths}, key=lambda p: len(p.parts))
    tops: list[Path] = []
    for f in folders:
        if not any(f.is_relative_to(top) for top in tops):
            tops.append(f)
    return tops
