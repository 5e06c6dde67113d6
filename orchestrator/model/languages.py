"""Language detection and the fallback grammar manifest.

`detect()` maps a path (and, where an extension is shared, the file's first bytes)
to a language id. Shared extensions are explicit (`SNIFFED`): when the content does
not settle the question we return None - an unsupported scope - rather than parse
valid code with the wrong grammar and flag it as broken.

`grammar_info()` reads `orchestrate_grammars/manifest.toml`. This module never
imports tree-sitter, so detection stays cheap for the CLI.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import PurePosixPath

#: Bytes of a file's beginning that content sniffing looks at.
HEAD_BYTES = 4096


@dataclass(frozen=True)
class GrammarInfo:
    """One manifest entry: a language, its bundled grammar, and whether it is qualified."""

    language: str
    grammar: str
    extensions: tuple[str, ...]
    filenames: tuple[str, ...] = ()
    qualified: bool = False


@cache
def manifest() -> Mapping[str, GrammarInfo]:
    """All manifest entries by language id (read once per process)."""
    text = resources.files("orchestrate_grammars").joinpath("manifest.toml").read_text("utf-8")
    data = tomllib.loads(text)
    out: dict[str, GrammarInfo] = {}
    for row in data.get("language", []):
        info = GrammarInfo(
            language=row["language"],
            grammar=row.get("grammar", row["language"]),
            extensions=tuple(e.lower() for e in row.get("extensions", ())),
            filenames=tuple(row.get("filenames", ())),
            qualified=bool(row.get("qualified", False)),
        )
        out[info.language] = info
    return out


def grammar_info(language: str | None) -> GrammarInfo | None:
    """The manifest entry for `language`, or None when no bundled grammar covers it."""
    if not language:
        return None
    return manifest().get(language)


@cache
def _by_extension() -> Mapping[str, str]:
    table: dict[str, str] = {}
    for info in manifest().values():
        for ext in info.extensions:
            # A shared extension must be sniffed; the first manifest entry is only a
            # placeholder that `SNIFFED` overrides.
            table.setdefault(ext, info.language)
    return table


@cache
def _by_filename() -> Mapping[str, str]:
    return {name: info.language for info in manifest().values() for name in info.filenames}


# --- content sniffing --------------------------------------------------------------

_SHEBANG_INTERPRETERS: dict[str, str | None] = {
    "sh": "bash",
    "bash": "bash",
    "dash": "bash",
    "ksh": None,  # not bash: say unsupported rather than guess
    "zsh": None,
    "python": "python",
    "python2": "python",
    "python3": "python",
    "ruby": "ruby",
    "node": "javascript",
    "nodejs": "javascript",
    "perl": "perl",
    "php": "php",
    "lua": "lua",
    "Rscript": "r",
    "julia": "julia",
    "elixir": "elixir",
    "fish": "fish",
    "pwsh": "powershell",
}


def shebang_language(head: bytes) -> str | None:
    """Language named by a `#!` line (`/usr/bin/env -S python3 -u` included), else None."""
    if not head.startswith(b"#!"):
        return None
    first = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    words = first.split()
    if not words:
        return None
    prog = words[0].rsplit("/", 1)[-1]
    if prog == "env":
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        if not rest:
            return None
        prog = rest[0].rsplit("/", 1)[-1]
    prog = re.sub(r"[0-9.]+$", "", prog) if prog not in _SHEBANG_INTERPRETERS else prog
    return _SHEBANG_INTERPRETERS.get(prog)


def _text(head: bytes) -> str:
    return head[:HEAD_BYTES].decode("utf-8", "replace").lstrip("\ufeff")


_CPP_HINTS = re.compile(
    rb"^\s*(class\s+\w+\s*[:{]|namespace\b|template\s*<|(public|private|protected)\s*:)"
    rb"|std::|\bnullptr\b|\bconstexpr\b|\bvirtual\b|#include\s*<(iostream|string|vector|memory|map)>",
    re.M,
)
_OBJC_HINTS = re.compile(rb"^\s*(@interface|@implementation|@protocol|@end|#import)\b", re.M)


def _sniff_h(head: bytes) -> str | None:
    if _OBJC_HINTS.search(head):
        return "objc"
    if _CPP_HINTS.search(head):
        return "cpp"
    return "c"


_MATLAB_HINTS = re.compile(rb"^\s*(function\s|%|end\s*$|classdef\b)", re.M)


def _sniff_m(head: bytes) -> str | None:
    if _OBJC_HINTS.search(head):
        return "objc"
    if _MATLAB_HINTS.search(head):
        return "matlab"
    return None  # Mathematica, Mercury, Limbo... share `.m`: not ours to judge


def _sniff_ts(head: bytes) -> str | None:
    # Qt Linguist translations are XML with a `.ts` extension.
    start = _text(head).lstrip()
    if start.startswith(("<?xml", "<TS", "<!DOCTYPE TS")):
        return "xml"
    return "typescript"


_PERL_HINTS = re.compile(
    rb"^\s*(use\s+(strict|warnings)|my\s+[$@%]|sub\s+\w+|package\s+[\w:]+;)", re.M
)
_PROLOG_HINTS = re.compile(rb"^\s*:-|^\w+\([^)]*\)\s*:-", re.M)


def _sniff_pl(head: bytes) -> str | None:
    if shebang_language(head) == "perl":
        return "perl"
    if _PROLOG_HINTS.search(head):
        return None
    return "perl" if _PERL_HINTS.search(head) else None


def _sniff_cs(head: bytes) -> str | None:
    # Smalltalk change sets: `!Foo methodsFor: 'x'!` chunks.
    if re.search(rb"methodsFor:|instanceVariableNames:", head):
        return None
    return "csharp"


def _sniff_ex(head: bytes) -> str | None:
    # Euphoria uses `.ex` too.
    if re.search(
        rb"^\s*(include\s+std/|procedure\s|end\s+(procedure|function|if|for)\b)", head, re.M
    ):
        return None
    return "elixir"


def _sniff_r(head: bytes) -> str | None:
    if re.match(rb"\s*REBOL\s*\[", head, re.I):
        return None
    return "r"


def _sniff_d(head: bytes) -> str | None:
    # Compiler-generated make dependency files: `foo.o: foo.c foo.h \`
    if re.match(rb"\s*[^\s:]+\.o\s*:", head):
        return "make"
    if re.search(rb"^\s*(module\s+[\w.]+;|import\s+std\.)", head, re.M):
        return "d"
    return None


#: Extensions several languages share: the content decides (None = not ours).
SNIFFED: dict[str, Callable[[bytes], str | None]] = {
    ".h": _sniff_h,
    ".m": _sniff_m,
    ".ts": _sniff_ts,
    ".pl": _sniff_pl,
    ".cs": _sniff_cs,
    ".ex": _sniff_ex,
    ".r": _sniff_r,
    ".d": _sniff_d,
}


def needs_head(path: str) -> bool:
    """True when `detect()` needs the file's first bytes to decide (shared or no extension)."""
    p = PurePosixPath(path)
    if p.name in _by_filename():
        return False
    ext = p.suffix.lower()
    return ext in SNIFFED or ext not in _by_extension()


def detect(path: str, head: bytes = b"") -> str | None:
    """The language of `path`, or None when no manifest language fits with confidence.

    Order: special file names (Makefile, Dockerfile, Gemfile...), then the extension;
    a shared extension is settled by sniffing `head` (its first bytes; with no head it
    stays undecided -> None); a file with an unknown or no extension may still name
    its interpreter in a shebang line.
    """
    p = PurePosixPath(path.replace("\\", "/"))
    name = p.name
    by_name = _by_filename()
    if name in by_name:
        return by_name[name]
    if name.startswith("Dockerfile.") or name.endswith(".dockerfile"):
        return "dockerfile" if "dockerfile" in manifest() else None
    ext = p.suffix.lower()
    if ext in SNIFFED:
        if not head:
            return None
        lang = SNIFFED[ext](head[:HEAD_BYTES])
        return lang if lang in manifest() else None
    lang = _by_extension().get(ext)
    if lang is not None:
        return lang
    lang = shebang_language(head)
    return lang if lang in manifest() else None
