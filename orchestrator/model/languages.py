"""Language detection and the fallback grammar manifest.

`detect_language()` maps a path (and its first bytes, `HEAD_BYTES` of them) to a
`Detection`: the language, how it was decided (`filename`, `extension`, `shebang`,
`heuristic`) and, when undecided, why. Order: special file names, then a shared
extension's content heuristic (`SNIFFED`; the manifest's `[[shared]]` tables list
which extensions several languages share), then the extension, then the shebang
line, then `identify`'s extension table for names the manifest does not know.
When a heuristic cannot decide, the answer is "ambiguous: .m could be Objective-C,
MATLAB, ..." - an unsupported scope - rather than valid code parsed with the wrong
grammar and flagged as broken. A content classifier (magika) is deliberately not
used: see docs/languages.md.

`detect()` is the manifest-only view: the language when a bundled grammar covers it.
`grammar_info()` reads `orchestrate_grammars/manifest.toml`. This module never
imports tree-sitter, so detection stays cheap for the CLI.
"""

from __future__ import annotations

import io
import json
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

from orchestrator.vocab import DetectedBy

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
    #: What to run to confirm a syntax candidate: the language's compiler or linter.
    confirm: str = ""
    #: Why the grammar is not qualified, or what it covers (free text from the manifest).
    note: str = ""
    #: A template language (Jinja, ERB, EJS) found in .html/.xml/.css by its syntax.
    template: bool = False
    #: Why the grammar's candidates are not reported at all: on released code most of
    #: the files it flags are valid (the manifest's evidence). Empty for every grammar
    #: whose candidates are reported.
    unreliable: str = ""


def _manifest_file() -> Path | None:
    """The manifest as a file on disk, or None when the package is not plain files."""
    import orchestrate_grammars

    where = getattr(orchestrate_grammars, "__file__", None)
    path = Path(where).parent / "manifest.toml" if where else None
    return path if path is not None and path.is_file() else None


def _parsed_copy(path: Path) -> tuple[Path, list[Any]] | None:
    """Where the parsed manifest is kept (the user's cache folder) and the stamp of the
    manifest it holds: path, change time, size, inode and the digest of its bytes (an
    edit that keeps the change time and size still changes the digest)."""
    import hashlib

    from orchestrator.workspace import user_cache_root

    try:
        st = path.stat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
    stamp = [str(path), st.st_mtime_ns, st.st_size, st.st_ino, digest]
    key = hashlib.sha256(str(path).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return user_cache_root() / f"grammar-manifest-{key}.json", stamp


#: Whether the parsed copy in the user's cache folder may stand in for the manifest
#: in this process, and whether it did (`manifest_from_its_file`).
_COPY = {"trusted": True, "used": False}


def manifest_from_its_file() -> None:
    """From now on this process reads the manifest from its own file, never from the
    parsed copy in the user's cache folder, and drops what it derived from that copy.

    The copy is data anything running as the user can write (an agent, a planted file
    with the right stamp): it decides languages and which of them a gate requires, so
    a strict gate calls this before it detects a file's language."""
    _COPY["trusted"] = False
    if _COPY["used"]:
        _COPY["used"] = False
        for derived in (_manifest_data, manifest, shared_defaults, shared_extensions):
            derived.cache_clear()
        _by_extension.cache_clear()
        _by_filename.cache_clear()


def _strs(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _well_formed(data: Any) -> bool:
    """Whether `data` has the shape this module reads of the manifest (a copy in the
    user's cache folder of another shape is a miss, never a crash)."""
    if not isinstance(data, dict):
        return False
    rows, shared, names = data.get("language", []), data.get("shared", []), data.get("names", {})
    if not (isinstance(rows, list) and isinstance(shared, list) and isinstance(names, dict)):
        return False
    texts = ("grammar", "confirm", "note", "unreliable")
    for row in rows:
        if not (isinstance(row, dict) and isinstance(row.get("language"), str)):
            return False
        if not all(isinstance(row.get(k, ""), str) for k in texts):
            return False
        if not (_strs(row.get("extensions", [])) and _strs(row.get("filenames", []))):
            return False
    for row in shared:
        if not (isinstance(row, dict) and isinstance(row.get("extension"), str)):
            return False
        if not (_strs(row.get("languages")) and isinstance(row.get("default", ""), str)):
            return False
    return all(isinstance(v, str) for v in names.values())


@cache
def _manifest_data() -> Mapping[str, Any]:
    """The manifest's tables, parsed once per process and, across processes, once per
    manifest file: the TOML parse is kept as JSON (about 20 times faster to read) in the
    user's cache folder under the manifest's stamp; any other stamp or shape re-parses.
    A strict gate never reads the copy (`manifest_from_its_file`)."""
    path = _manifest_file()
    copy = _parsed_copy(path) if path is not None else None
    if copy is not None and _COPY["trusted"]:
        try:
            kept = json.loads(copy[0].read_bytes())
            if isinstance(kept, dict) and kept.get("stamp") == copy[1]:
                data = kept.get("manifest")
                if _well_formed(data):
                    _COPY["used"] = True
                    return data
        except (OSError, ValueError, RecursionError):
            pass
    if path is not None:
        text = path.read_text("utf-8")
    else:
        text = resources.files("orchestrate_grammars").joinpath("manifest.toml").read_text("utf-8")
    data = tomllib.loads(text)
    if copy is not None:
        from orchestrator.workspace import atomic_write

        blob = json.dumps({"stamp": copy[1], "manifest": data}).encode()
        if json.loads(blob)["manifest"] == data:  # only what JSON holds as TOML gave it
            try:
                copy[0].parent.mkdir(parents=True, exist_ok=True)
                atomic_write(copy[0], blob, mode=0o600, durable=False)
            except OSError:
                pass
    return data


@cache
def manifest() -> Mapping[str, GrammarInfo]:
    """All manifest entries by language id (read once per process)."""
    out: dict[str, GrammarInfo] = {}
    for row in _manifest_data().get("language", []):
        info = GrammarInfo(
            language=row["language"],
            grammar=row.get("grammar", row["language"]),
            extensions=tuple(e.lower() for e in row.get("extensions", ())),
            filenames=tuple(row.get("filenames", ())),
            qualified=bool(row.get("qualified", False)),
            confirm=str(row.get("confirm", "")),
            note=str(row.get("note", "")),
            template=bool(row.get("template", False)),
            unreliable=str(row.get("unreliable", "")),
        )
        out[info.language] = info
    return out


@cache
def shared_defaults() -> Mapping[str, str]:
    """Extension -> the language it holds unless content says otherwise (`[[shared]]`
    `default`), for the shared extensions that have one."""
    rows = _manifest_data().get("shared", [])
    return {row["extension"].lower(): row["default"] for row in rows if "default" in row}


@cache
def shared_extensions() -> Mapping[str, tuple[str, ...]]:
    """Extension -> the languages that use it, from the manifest's `[[shared]]` tables."""
    return {
        row["extension"].lower(): tuple(row["languages"])
        for row in _manifest_data().get("shared", [])
    }


def display_name(language: str) -> str:
    """The human name of a language id (`objc` -> `Objective-C`), else the id itself."""
    names: Mapping[str, str] = _manifest_data().get("names", {})
    return names.get(language, language)


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


def extension_of(language: str) -> str | None:
    """The first extension the manifest gives `language` (`.py` for python), the name
    an unnamed buffer of that language is judged under; None for an unknown language."""
    info = manifest().get(language)
    if info is None or not info.extensions:
        return None
    return info.extensions[0]


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
    # Perl 6 is Raku (no bundled grammar), never Perl: checked before the version digits
    # are stripped from the name.
    "perl6": "raku",
    "raku": "raku",
    "rakudo": "raku",
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


def _search(pattern: bytes, head: bytes, flags: int = re.M) -> bool:
    return re.search(pattern, head, flags) is not None


_OBJC_HINTS = rb"^\s*(@interface|@implementation|@protocol|@end|@class|#import)\b|NS_ASSUME_NONNULL"
_CPP_HINTS = (
    rb"^\s*(class\s+\w+\s*[:{]|namespace\b|template\s*<|(public|private|protected)\s*:)"
    rb"|std::|\bnullptr\b|\bconstexpr\b|\bvirtual\b|#include\s*<(iostream|string|vector|memory|map)>"
)


#: Comments and string or character literals of C-family code (a comment that runs
#: past the head ends there).
_C_NOISE = re.compile(
    rb"/\*.*?(?:\*/|\Z)|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S
)
#: What a C header carries for C++ readers only: `#ifdef __cplusplus` ... `#endif`.
_CPLUSPLUS_ONLY = re.compile(
    rb"^[ \t]*#[ \t]*if(?:def[ \t]+__cplusplus|[ \t]+defined[ \t]*\(?[ \t]*__cplusplus)\b"
    rb".*?^[ \t]*#[ \t]*endif\b",
    re.S | re.M,
)


def c_code(head: bytes) -> bytes:
    """`head` without comments, string and character literals, and `#ifdef
    __cplusplus` blocks: what a C-family file's code says, so that a word in its prose
    ("virtual memory", "namespace") or its C++ guard (`extern "C" {`) names no dialect."""
    return _CPLUSPLUS_ONLY.sub(b"\n", _C_NOISE.sub(b" ", head))


def _sniff_h(head: bytes) -> str | None:
    """A `.h` file is C unless its code (`c_code`: not its comments, literals or
    `__cplusplus` guard) has Objective-C or C++ markers, as linguist decides."""
    code = c_code(head)
    if _search(_OBJC_HINTS, code):
        return "objc"
    if _search(_CPP_HINTS, code):
        return "cpp"
    return "c"


def _sniff_hh(head: bytes) -> str | None:
    return "hack" if _text(head).lstrip().startswith("<?hh") else "cpp"


_MERCURY_HINTS = (
    rb"^:-\s*(module|interface|implementation|import_module|use_module|pred|func|type|mode)\b"
)
_MATHEMATICA_HINTS = rb"^\s*\(\*|^\s*BeginPackage\[|^\s*\w+\[[\w_, ]*_[\w, ]*\]\s*:="
_MUMPS_FIRST_LINE = rb"[%A-Za-z][A-Za-z0-9]*(\([^)]*\))?[ \t]+;"
_MUMPS_COMMANDS = rb"^[ \t]+(S|SET|W|WRITE|Q|QUIT|D|DO|K|KILL|N|NEW|I|IF|F|FOR|G|GOTO)[ :]"
_MATLAB_HINTS = rb"^\s*(function\b|%|classdef\b|end\s*$)"


def _sniff_m(head: bytes) -> str | None:
    if _search(_OBJC_HINTS, head):
        return "objc"
    if _search(_MERCURY_HINTS, head):
        return "mercury"  # before MATLAB: Mercury comments also start with %
    if _search(_MATHEMATICA_HINTS, head):
        return "mathematica"
    if re.match(_MUMPS_FIRST_LINE, head) or len(re.findall(_MUMPS_COMMANDS, head, re.M)) >= 2:
        return "mumps"
    if _search(_MATLAB_HINTS, head):
        return "matlab"
    return None


def _sniff_ts(head: bytes) -> str | None:
    # Qt Linguist translations are XML with a `.ts` extension.
    start = _text(head).lstrip()
    if start.startswith(("<?xml", "<TS", "<!DOCTYPE TS")):
        return "xml"
    return "typescript"


def _sniff_tsx(head: bytes) -> str | None:
    # Tiled tile sets (`<tileset ...>`) are XML with a `.tsx` extension.
    start = _text(head).lstrip()
    if start.startswith(("<?xml", "<tileset", "<!DOCTYPE")):
        return "xml"
    return "tsx"


_RAKU_HINTS = (
    rb"^\s*use\s+v6\b|^\s*unit\s+(module|class|role|grammar|package)\b"
    rb"|^\s*(grammar|role)\s+[\w:]+|\bhas\s+[$@%][.!]\w|\bis\s+export\b|^\s*sub\s+MAIN\b"
)
_PERL_HINTS = (
    rb"^\s*(use\s+(strict|warnings)|my\s+[$@%]|sub\s+\w+|package\s+[\w:]+;|1;\s*$|=head1|=pod)"
)
_PROLOG_HINTS = rb"^\s*:-|^\w+\([^)]*\)\s*:-"


def _sniff_pm(head: bytes) -> str | None:
    if _text(head).lstrip().startswith("/* XPM */"):
        return "xpm"
    if _search(_RAKU_HINTS, head):
        return "raku"
    return "perl" if _search(_PERL_HINTS, head) else None


def _sniff_pl(head: bytes) -> str | None:
    if shebang_language(head) == "perl":
        return "perl"
    if _search(_RAKU_HINTS, head):
        return "raku"
    if _search(_PROLOG_HINTS, head):
        return "prolog"
    return "perl" if _search(_PERL_HINTS, head) else None


_GLSL_HINTS = (
    rb"^\s*#version\s+\d+|^\s*precision\s+(lowp|mediump|highp)\b|\bgl_\w+"
    rb"|^\s*(uniform|varying|attribute)\s+\w+|^\s*layout\s*\("
)
_FSHARP_HINTS = (
    rb"^\s*(module|namespace|open)\s+[\w.]+\s*$|^\s*let\s+(rec\s+|mutable\s+)?\w+"
    rb"|^\s*type\s+\w+|^\s*\[<\w+|\|>|printfn\b"
)
_FORTH_HINTS = rb"^:\s+\S+|^\\\s|\s;\s*$"


def _sniff_fs(head: bytes) -> str | None:
    if _search(_GLSL_HINTS, head):
        return "glsl"
    if _search(_FSHARP_HINTS, head):
        return "fsharp"
    if _search(_FORTH_HINTS, head):
        return "forth"
    return None


def _sniff_cs(head: bytes) -> str | None:
    # Smalltalk change sets: `!Foo methodsFor: 'x'!` chunks.
    if re.search(rb"methodsFor:|instanceVariableNames:", head):
        return "smalltalk"
    return "csharp"


def _sniff_ex(head: bytes) -> str | None:
    # Euphoria uses `.ex` too.
    if _search(rb"^\s*(include\s+std/|procedure\s|end\s+(procedure|function|if|for)\b)", head):
        return "euphoria"
    return "elixir"


_REZ_HINTS = rb"^\s*(resource|data|type|read|include)\s+'[^']{4}'|#include\s+[<\"][\w/]+\.r[>\"]"
_R_HINTS = rb"<-|\blibrary\(|\brequire\(|\bfunction\s*\(|\bc\("
_CPP_LINES = rb"^#\s*(include|define|if|ifdef|ifndef|endif|pragma)\b"


def _sniff_r(head: bytes) -> str | None:
    if re.match(rb"\s*REBOL\s*\[", head, re.I):
        return "rebol"
    if _search(_REZ_HINTS, head):
        return "rez"
    if _search(_CPP_LINES, head) and not _search(_R_HINTS, head):
        return None  # preprocessor lines and no R: Rez without its usual markers?
    return "r"


def _sniff_rs(head: bytes) -> str | None:
    if _text(head).lstrip().startswith("<"):
        return "xml"
    if _search(rb"^\s*#pragma\s+(version\s*\(|rs\s)|\brs_allocation\b|\brsGetElementAt", head):
        return "renderscript"
    return "rust"


_SQL_DIALECTS = (
    ("tsql", rb"^\s*GO\s*$|\[dbo\]|\bNVARCHAR\b|^\s*DECLARE\s+@|\bBEGIN\s+TRAN"),
    ("plsql", rb"\bVARCHAR2\b|^\s*/\s*$|CREATE\s+(OR\s+REPLACE\s+)?PACKAGE\b|\bNUMBER\s*\("),
    # MySQL before PostgreSQL: its procedures often change the DELIMITER to $$.
    ("mysql", rb"`\w+`|\bENGINE\s*=|\bAUTO_INCREMENT\b|^\s*DELIMITER\b"),
    ("postgresql", rb"\$\$|\bLANGUAGE\s+plpgsql\b|\bSERIAL\b|::\w+"),
    ("sqlite", rb"^\s*PRAGMA\b|\bAUTOINCREMENT\b"),
)


def _sniff_sv(head: bytes) -> str | None:
    # SystemVerilog never starts with markup; a page served by content negotiation in
    # Swedish is named `help.html.sv` (docbook-xsl ships one).
    return "html" if _text(head).lstrip().startswith("<") else "verilog"


def _sniff_sql(head: bytes) -> str | None:
    for dialect, pattern in _SQL_DIALECTS:
        if re.search(pattern, head, re.M | re.I):
            return dialect
    return "sql"


def _sniff_yaml(head: bytes) -> str | None:
    # YAML forbids tabs for indentation; OpenRA's MiniYAML indents with them.
    return "miniyaml" if _search(rb"^\t+\S", head) else "yaml"


def _sniff_d(head: bytes) -> str | None:
    # Compiler-generated make dependency files: `foo.o: foo.c foo.h \`
    if re.match(rb"\s*[^\s:]+\.o\s*:", head):
        return "make"
    if _search(rb"^\s*(module\s+[\w.]+;|import\s+std\.)", head):
        return "d"
    if _search(rb"^\s*\w+:[\w*]*:[\w*]*:\w+|^\s*(BEGIN|END)\s*$|^#!\S*dtrace", head):
        return "dtrace"
    return None


# Template syntax: front matter, ERB/EJS tags, Handlebars blocks, Jinja/Liquid tags.
_FRONT_MATTER = re.compile(rb"---[ \t]*\r?\n(.*?\r?\n)?---[ \t]*(\r?\n|$)", re.S)
_ERB_OR_EJS = re.compile(rb"<%[=#-]?")
_RUBY_IN_TAGS = re.compile(rb"<%[-=]?\s*(end\b|.*\bdo\s*(\|[^|]*\|)?\s*-?%>|if\b(?!\s*\()|@\w)")
_HANDLEBARS = re.compile(rb"\{\{[#/>!^]|\{\{\{")
_LIQUID = re.compile(
    rb"\{%-?\s*(assign|capture|endcapture|unless|endunless|case|when|include\s+[\w./-]+\s*-?%\}|"
    rb"comment|endcomment|raw)\b|\{\{[^}]*\|\s*\w+:\s|\{\{-?\s*(site|page|forloop|paginator)\.\w"
)
_JINJA = re.compile(rb"\{%-?\s*\w|\{\{|\{#")
#: A PHP page named .html/.xml: PHP's grammar reads the markup around its tags as text.
#: Only markup is asked (a stylesheet's comment saying "e.g. <?php ?>" is no PHP), and
#: a tag inside a markup comment does not count.
_PHP = re.compile(rb"<\?(php\b|=)", re.I)
_MARKUP_COMMENT = re.compile(rb"<!--.*?(-->|\Z)", re.S)


def _php(head: bytes) -> bool:
    return bool(_PHP.search(_MARKUP_COMMENT.sub(b"", head)))


def _template(head: bytes, php: bool = False) -> str | None:
    """The template engine whose syntax `head` holds, or None for plain markup; `php`
    also asks for PHP tags (markup only)."""
    if _FRONT_MATTER.match(head.lstrip(b"\xef\xbb\xbf")):
        return "liquid"  # Jekyll front matter: the page goes through Liquid
    if php and _php(head):
        return "php"
    if _ERB_OR_EJS.search(head):
        return "erb" if _RUBY_IN_TAGS.search(head) else "ejs"
    if _HANDLEBARS.search(head):
        return "handlebars"
    if _LIQUID.search(head):
        return "liquid"
    if _JINJA.search(head):
        return "jinja"
    return None


def _markup(plain: str) -> Callable[[bytes], str | None]:
    php = plain != "css"

    def sniff(head: bytes) -> str | None:
        return _template(head, php) or plain

    return sniff


#: Extensions several languages share: the content decides (None = undecided).
#: The manifest's `[[shared]]` tables list the languages each may answer.
SNIFFED: dict[str, Callable[[bytes], str | None]] = {
    ".h": _sniff_h,
    ".hh": _sniff_hh,
    ".m": _sniff_m,
    ".pm": _sniff_pm,
    ".pl": _sniff_pl,
    ".fs": _sniff_fs,
    ".r": _sniff_r,
    ".rs": _sniff_rs,
    ".sql": _sniff_sql,
    ".sv": _sniff_sv,
    ".ts": _sniff_ts,
    ".tsx": _sniff_tsx,
    ".yaml": _sniff_yaml,
    ".yml": _sniff_yaml,
    ".cs": _sniff_cs,
    ".ex": _sniff_ex,
    ".d": _sniff_d,
    ".html": _markup("html"),
    ".htm": _markup("html"),
    ".xml": _markup("xml"),
    ".css": _markup("css"),
}


#: Extensions of data formats whose files never open with `#!` (in INI it would be a
#: comment): a file so named whose first line names an interpreter is that language's
#: script (ansible-core's tests name Python modules `a.ini`), not a file of the format.
SCRIPT_FIRST = frozenset({".ini"})


@dataclass(frozen=True)
class Detection:
    """What detection settled for one file.

    `language` may name a language no bundled grammar covers (`mercury`): the file
    is then unsupported under its own name. `undecided` says why there is no
    language when detection could not decide ("ambiguous: .m could be ...").
    """

    language: str | None = None
    detected_by: DetectedBy | None = None
    undecided: str | None = None

    def target_fields(self) -> dict[str, Any]:
        """The `FileTarget` fields this detection fills."""
        return {
            "language": self.language,
            "detected_by": self.detected_by,
            "undecided": self.undecided,
        }


def ambiguity(ext: str) -> str:
    """The reason for an undecided shared extension: 'ambiguous: .m could be MATLAB, ...'."""
    names = ", ".join(display_name(lang) for lang in shared_extensions().get(ext, ()))
    return f"ambiguous: {ext} could be {names}" if names else f"ambiguous: {ext}"


# Tags identify adds that name no language.
_GENERIC_TAGS = frozenset(
    {
        "text",
        "binary",
        "header",
        "executable",
        "non-executable",
        "file",
        "symlink",
        "directory",
        "shell",
    }
)
_IDENTIFY_NAMES = {"c++": "cpp", "c#": "csharp", "f#": "fsharp", "objective-c": "objc",
                   "twig": "jinja", "ts": "typescript"}  # fmt: skip


def _one_tag(tags: set[str]) -> str | None:
    named = {_IDENTIFY_NAMES.get(t, t) for t in tags - _GENERIC_TAGS}
    return named.pop() if len(named) == 1 else None


def _identify_extension(name: str) -> str | None:
    """The language `identify` (pre-commit's table) gives this file name, if exactly one
    and no bundled grammar covers it: a name for an unsupported file, never a grammar
    choice (`.v` is Verilog there, and Coq and V here; `.sc` Scala, and SuperCollider)."""
    from identify import identify  # lazy: only for names the manifest does not know

    lang = _one_tag(identify.tags_from_filename(name))
    return lang if lang not in manifest() else None


def _identify_interpreter(head: bytes) -> str | None:
    """The language of a `#!` interpreter our table lacks (awk, csh, escript, ...)."""
    if not head.startswith(b"#!"):
        return None
    from identify import identify

    words = identify.parse_shebang(io.BytesIO(head))
    return _one_tag(identify.tags_from_interpreter(words[0])) if words else None


def detect_language(path: str, head: bytes = b"") -> Detection:
    """The language of `path` and how it was decided, from its name and first bytes.

    Reads only `head[:HEAD_BYTES]`. Order: special file names (Makefile, Dockerfile,
    Gemfile...), a shared extension's content heuristic (with no head it stays
    undecided unless the manifest names a `default`), the extension (a `SCRIPT_FIRST`
    one yields to a shebang line), the shebang line, then identify's table. A shared
    extension the heuristic cannot settle is undecided with the reason
    "ambiguous: <ext> could be <languages>" rather than guessed.
    """
    p = PurePosixPath(path.replace("\\", "/"))
    name = p.name
    head = head[:HEAD_BYTES]
    by_name = _by_filename()
    if name in by_name:
        return Detection(by_name[name], DetectedBy.FILENAME)
    if name.startswith("Dockerfile.") or name.endswith(".dockerfile"):
        return Detection("dockerfile", DetectedBy.FILENAME)
    ext = p.suffix.lower()
    if ext in SNIFFED:
        if not head.strip() and ext in shared_defaults():
            return Detection(shared_defaults()[ext], DetectedBy.EXTENSION)
        lang = SNIFFED[ext](head) if head else None
        if lang is None:
            return Detection(undecided=ambiguity(ext))
        return Detection(lang, DetectedBy.HEURISTIC)
    lang = _by_extension().get(ext)
    if lang is not None:
        script = shebang_language(head) if ext in SCRIPT_FIRST else None
        if script is not None:
            return Detection(script, DetectedBy.SHEBANG)
        return Detection(lang, DetectedBy.EXTENSION)
    lang = shebang_language(head) or _identify_interpreter(head)
    if lang is not None:
        return Detection(lang, DetectedBy.SHEBANG)
    lang = _identify_extension(name) if ext else None
    if lang is not None:
        return Detection(lang, DetectedBy.EXTENSION)
    return Detection()


@cache
def known_languages() -> frozenset[str]:
    """Every language name `detect_language` can give a file: the manifest's languages
    and those its `[[shared]]` tables name (every content heuristic answers one of
    them), the shebang table's, `dockerfile`, and the names of identify's tags. A
    `[required]` key outside this set never matches a file (config_model refuses it)."""
    from identify import identify  # lazy: only a configuration with `[required]` asks

    names = set(manifest()) | {"dockerfile"}
    names |= {lang for langs in shared_extensions().values() for lang in langs}
    names |= {lang for lang in _SHEBANG_INTERPRETERS.values() if lang}
    names |= {_IDENTIFY_NAMES.get(t, t) for t in identify.ALL_TAGS - _GENERIC_TAGS}
    return frozenset(names)


def needs_head(path: str) -> bool:
    """True when `detect()` needs the file's first bytes to decide (shared or no extension)."""
    p = PurePosixPath(path)
    if p.name in _by_filename():
        return False
    ext = p.suffix.lower()
    return ext in SNIFFED or ext in SCRIPT_FIRST or ext not in _by_extension()


def detect(path: str, head: bytes = b"") -> str | None:
    """The language of `path` when a bundled grammar covers it, else None.

    The manifest-only view of `detect_language`: a language detected by name but
    without a grammar (Mercury, Forth, ...) and an undecided file both give None.
    """
    lang = detect_language(path, head).language
    return lang if lang in manifest() else None
