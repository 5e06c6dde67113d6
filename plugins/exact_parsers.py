"""The exact parser tier: each language's own parser, which only parses, as a table.

A tree-sitter grammar recovers; the language's own parser decides. Files the grammar
flags are handed to the parser listed here for their language (plugins/exact_confirm.py
runs it), which confirms the candidate (a syntax error at the parser's line) or refutes
it (the parser accepts the file). Every entry only parses: none executes the code, loads
project plugins or writes anything, and each says why in `safe`.

Left out on purpose, because checking would run code or read project code:
`perl -c` (runs `BEGIN`/`use` blocks), `ruby -c` is a native checker already, `python
-m py_compile` writes `.pyc` files (Python has Ruff), build tools (`cargo check`, `go
vet`, `tsc` with project plugins, `make -n` runs `$(shell)`), `xmllint --html` (its
HTML 4 parser rejects valid HTML5 elements), `jq` (Python's `json` is as strict and
runs in process), and anything that reads project configuration to decide what to run.

Argument templates are literal argv words (never a shell string): `{file}` is a private
copy of the source in a private temporary folder (a path orchestrate chose, so no `--`
is needed, and `--` stands before it anyway where the tool accepts it), `{config}` an
empty configuration file there, and `{dialect}` one of the entry's dialects (below).
Without `{file}` the source goes on stdin.

Dialects: where the file alone does not say how to parse it (CommonJS or ES module; a
Rust edition the project does not declare), the parser runs once per dialect. A
candidate is confirmed only when every dialect rejects the file, and refuted when any
accepts it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

#: One syntax error a parser reported: 1-based line, optional 1-based column, message.
ErrorLine = tuple[int, int | None, str]


class Garbage(Exception):
    """The parser's output is neither "accepted" nor an error it located: not evidence."""


@dataclass(frozen=True)
class ExactParser:
    """One exact parser: how to run it, read its verdict, identify it, and why it is safe."""

    #: The key of `[tool.orchestrate.tools]` for an explicit path, and the label.
    name: str
    languages: frozenset[str]
    #: The executable looked up on PATH; None for a parser that runs in this process.
    command: str | None
    #: Literal argv words after the executable (see the module docstring).
    argv: tuple[str, ...] = ()
    #: Exit codes of "accepted" and of "rejected with located errors".
    ok_exits: frozenset[int] = frozenset({0})
    error_exits: frozenset[int] = frozenset({1})
    #: Reads the errors from (stdout, stderr); raises Garbage when none can be located.
    errors: Callable[[str, str], list[ErrorLine]] = lambda _o, _e: []
    #: How the version is found: argv words for `TOOL ...`, or a file next to the tool.
    version_args: tuple[str, ...] = ("--version",)
    version_file: str | None = None
    #: The version number in the version text (its first group).
    version_pattern: str = r"(\d+(?:\.\d+)+)"
    #: A companion next to the tool whose output is the language version the parser
    #: implements, when its own version is not (`rustc --version` beside rustfmt).
    language_version: tuple[str, ...] | None = None
    #: Which project declaration the version is compared with (plugins/exact_versions.py).
    declares: str | None = None
    #: The Debian package that provides it (what a missing tool's message names).
    package: str = ""
    #: Why running it on untrusted source is safe.
    safe: str = ""
    #: Environment variables removed before it runs (they could make it run code).
    scrub: tuple[str, ...] = ()
    #: Dialects to try when the file does not decide (see the module docstring).
    dialects: Callable[[str, str | None], tuple[str, ...]] = lambda _p, _d: ("",)
    #: The file name of the private copy (its suffix can matter to the tool).
    copy_name: str = "source"
    #: Extra files this entry is limited to (a shebang test); None: all files of its languages.
    accepts: Callable[[str, bytes], bool] | None = field(default=None)
    #: Why this parser cannot judge a file written in a dialect it does not read (JSX,
    #: Flow, decorators, a template), or None. Such a file keeps its candidates.
    cannot_judge: Callable[[str, bytes], str | None] = lambda _p, _s: None
    #: True when the marks `cannot_judge` looks for can be data of the language itself
    #: (Jinja `{{ }}` inside a YAML scalar, as every Ansible playbook writes them): the
    #: parser still runs, a file it accepts is valid in the language and gets its
    #: verdict, and only its rejection is no evidence (the file may be a template that
    #: parses once rendered), so that file keeps its candidates with the reason.
    judges_if_accepted: bool = False
    #: True when newer versions of the language removed syntax (PHP 8 removed `$s{0}`
    #: and made `match` a keyword): a parser of another major version than the project
    #: declares may refute, not confirm.
    removes_syntax: bool = False
    #: True for an error that is no evidence about this source (it depends on what the
    #: parser did not read); a run whose errors are all discounted gives no verdict.
    discounted: Callable[[ErrorLine, bytes], bool] = lambda _e, _s: False
    #: The largest source an in-process parser reads: it cannot be stopped at the
    #: deadline, so a larger file gets no verdict (None: no limit beyond the grammar's).
    max_bytes: int | None = None
    #: Reads (stdout, stderr) for the parser's own resource limits (nesting depth, node
    #: or attribute size, memory, stack): which one it hit, or None. A parser that stops
    #: at its limit has not found an error in the file, whatever its exit code says, so
    #: the run gives no verdict (the candidate stays, with this reason).
    limit: Callable[[str, str], str | None] = lambda _o, _e: None
    #: Judges every file of its languages by default, not only those the grammar flags
    #: (plugins/treesitter_checker.check_clean): the in-process parsers, and programs
    #: that cost about 2 ms a file and confirmed no valid file of the qualification
    #: corpus with `grammars/confirm_measure.py --clean` (bench/RESULTS.md).
    every_file: bool = False
    #: True for an in-process parser of a format that declares no encoding and whose
    #: structure is ASCII (INI: sections, `key = value`, comments): a file that is not
    #: UTF-8 is read as latin-1 (every byte decodes; the structure is the same), and
    #: the verdict says so. Not for JSON, TOML or YAML: they define UTF-8/Unicode.
    eight_bit: bool = False
    #: How the parser takes files. Empty: one file per process (`argv` above). Else the
    #: argv words after the executable that check many files in one process, `{files}`
    #: standing for the private copies (each its own word): the tool checks every file
    #: it is given, and each line of its output about a file starts with that file's
    #: path, so a line is that file's, read as if the tool had named it `batch_name`
    #: (what the one-file run calls its source) and given to `errors` and `limit`.
    batch_argv: tuple[str, ...] = ()
    batch_name: str = ""
    #: True for an error after which the one-file run reads the source otherwise than
    #: the batch does (gofmt accepts a fragment without a package clause from stdin,
    #: never from a file): a file with such an error is run alone, so its verdict is
    #: the one-file verdict.
    batch_alone: Callable[[str], bool] = lambda _msg: False


def _located(pattern: str, text: str) -> list[ErrorLine]:
    out: list[ErrorLine] = []
    for m in re.finditer(pattern, text, re.MULTILINE):
        col = m.groupdict().get("col")
        out.append((int(m.group("line")), int(col) if col else None, m.group("msg").strip()))
    if not out:
        raise Garbage("no located error in the output")
    return out


def _limit(pattern: str, what: str) -> Callable[[str, str], str | None]:
    """A `limit` reader: `what` when `pattern` (a regex over the parser's own message
    lines, given by `line`) matches stdout or stderr."""
    compiled = re.compile(pattern, re.MULTILINE)

    def read(out: str, err: str) -> str | None:
        return what if compiled.search(out + "\n" + err) else None

    return read


#: xmllint's message lines (`-:1: parser error : ...`), never the source excerpt after
#: them. libxml2 stops at 256 levels of nesting, 10 MB text nodes and attribute values,
#: 50,000-character names, and entity amplification, unless XML_PARSE_HUGE (--huge,
#: not used: it lifts the protections against entity expansion too).
_xmllint_limit = _limit(
    r"^-:\d+: parser error : .*?(?:Excessive depth in document|XML_PARSE_HUGE|"
    r"AttValue length too long|[Hh]uge (?:text node|input lookup)|too (?:long|big)|"
    r"Memory allocation failed|[Aa]mplification|Maximum entity nesting depth exceeded)",
    "its nesting or size limit",
)
#: PHP's parser stack (bison YYMAXDEPTH: "memory exhausted") and the engine's limits.
_php_limit = _limit(
    r"^(?:PHP )?(?:Parse|Fatal) error: (?:memory exhausted|Allowed memory size|"
    r"Maximum (?:function nesting level|call stack size|execution time))",
    "its parser stack or memory limit",
)
#: go/parser's maxNestLev (100,000) and the runtime's stack and memory limits.
_gofmt_limit = _limit(
    r"^<standard input>:\d+:\d+: exceeded max nesting depth$|"
    r"^(?:runtime: goroutine stack exceeds|fatal error: (?:stack overflow|out of memory))",
    "its nesting limit",
)
#: V8's call stack while compiling (deep nesting) and its heap.
_node_limit = _limit(
    r"^(?:RangeError: Maximum call stack size exceeded|"
    r"FATAL ERROR: .*(?:heap|[Oo]ut of memory)|.*JavaScript heap out of memory)",
    "its call stack or heap limit",
)
#: bash's own recursion and allocation limits; dash (sh) only crashes (no verdict).
_shell_limit = _limit(
    r"(?:expression recursion level exceeded|maximum function nesting level exceeded|"
    r"xmalloc: .*cannot allocate|Out of space|Memory exhausted)",
    "its recursion or memory limit",
)
#: rustc's parser on rustfmt's thread: a stack overflow or a failed allocation.
_rustfmt_limit = _limit(
    r"(?:has overflowed its stack|memory allocation of \d+ bytes failed|"
    r"recursion limit reached)",
    "its stack or memory limit",
)


def _bash_errors(_out: str, err: str) -> list[ErrorLine]:
    # `<file>: line 3: syntax error near unexpected token `then'`; the echo line that
    # follows repeats the source and is not read, nor is a warning (an unterminated
    # here-document's warning quotes its delimiter, which may say "unexpected").
    return _located(
        r"^.*/source: line (?P<line>\d+): (?!warning: )(?P<msg>syntax error.*|.*unexpected.*)$",
        err,
    )


def _sh_errors(_out: str, err: str) -> list[ErrorLine]:
    # dash: `<file>: 2: Syntax error: "then" unexpected`
    return _located(r"^.*/source: (?P<line>\d+): (?P<msg>Syntax error:.*)$", err)


def _node_errors(_out: str, err: str) -> list[ErrorLine]:
    # `[stdin]:2` / source excerpt / caret / blank / `SyntaxError: Unexpected token ';'`
    # The excerpt quotes the source, which may itself start with `SyntaxError:` (a
    # label): node's own message is the last such line (only stack frames follow it).
    m = re.search(r"^\[stdin\]:(\d+)\s*$", err, re.MULTILINE)
    msgs = re.findall(r"^(SyntaxError: .*)$", err, re.MULTILINE)
    if not (m and msgs):
        raise Garbage("no located SyntaxError in the output")
    return [(int(m.group(1)), None, msgs[-1])]


def _gofmt_errors(_out: str, err: str) -> list[ErrorLine]:
    return _located(r"^<standard input>:(?P<line>\d+):(?P<col>\d+): (?P<msg>.*)$", err)


def _php_errors(out: str, err: str) -> list[ErrorLine]:
    # `PHP Parse error:  syntax error, unexpected ... in Standard input code on line 3`
    return _located(
        r"^(?:PHP )?(?P<msg>(?:Parse|Fatal) error: .*?) in Standard input code on line (?P<line>\d+)$",
        out + "\n" + err,
    )


def _xmllint_errors(_out: str, err: str) -> list[ErrorLine]:
    # `-:2: parser error : Opening and ending tag mismatch: b line 2 and a`
    return _located(r"^-:(?P<line>\d+): (?P<msg>(?:parser|namespace) error : .*)$", err)


def _rustfmt_errors(_out: str, err: str) -> list[ErrorLine]:
    # `error: expected expression, found `;`` then ` --> <stdin>:2:13`
    out: list[ErrorLine] = []
    for m in re.finditer(
        r"^error(?:\[E\d+\])?: (?P<msg>.*)\n\s*--> <stdin>:(?P<line>\d+):(?P<col>\d+)",
        err,
        re.MULTILINE,
    ):
        out.append((int(m.group("line")), int(m.group("col")), m.group("msg").strip()))
    if not out:
        raise Garbage("no located error in the output")
    return out


def _rust_removed(error: ErrorLine, _src: bytes) -> bool:
    """Syntax a newer toolchain removed (`box` expressions, once unstable): the file may
    be valid for the toolchain it was written for."""
    return "has been removed" in error[2]


def _module_kinds(path: str, declared: str | None) -> tuple[str, ...]:
    # `.mjs`/`.cjs` say it; a `.js` file is what the nearest package.json's `type`
    # says, else either (Node detects ES module syntax).
    suffix = PurePosixPath(path).suffix
    if suffix == ".mjs":
        return ("module",)
    if suffix == ".cjs":
        return ("commonjs",)
    if declared in ("module", "commonjs"):
        return (declared,)
    return ("commonjs", "module")


def _editions(_path: str, declared: str | None) -> tuple[str, ...]:
    # Without a declared edition Cargo's default is 2015; 2021 adds the newer keywords.
    return (declared,) if declared else ("2015", "2021")


#: JSX (`return <div>`, `= <Foo/>`, `(<>`), Flow (`@flow`) and decorators (`@dec` before a
#: class or member): dialects `node --check` does not read.
_JSX = re.compile(rb"(?:[=(,:?&|{}]|\breturn|=>)\s*<(?:[A-Za-z]|>)")
_FLOW = re.compile(rb"@flow\b|^\s*(?:export\s+)?(?:opaque\s+)?type\s+\w+\s*=", re.MULTILINE)
_DECORATOR = re.compile(rb"^\s*@[A-Za-z_$]", re.MULTILINE)


def _js_dialect(_path: str, src: bytes) -> str | None:
    if _JSX.search(src):
        return "JSX: node --check does not parse it"
    if _FLOW.search(src):
        return "Flow types: node --check does not parse them"
    if _DECORATOR.search(src):
        return "decorators: node --check does not parse them"
    return None


#: A DOCTYPE that declares entities outside the file (an external subset, a parameter
#: entity): xmllint reads neither (no --loaddtd), so an entity they declare is unknown.
_EXTERNAL_DTD = re.compile(rb"<!DOCTYPE[^>\[]*(?:SYSTEM|PUBLIC)|<!ENTITY\s+%|%[\w.:-]+;", re.DOTALL)


def _xml_unread_entity(error: ErrorLine, src: bytes) -> bool:
    """An undefined-entity error in a document whose DTD is partly outside the file."""
    return "Entity '" in error[2] and "not defined" in error[2] and bool(_EXTERNAL_DTD.search(src))


_TEMPLATE = re.compile(rb"\{\{|\{%|<%")


def _yaml_dialect(_path: str, src: bytes) -> str | None:
    if _TEMPLATE.search(src):
        return "template syntax ({{ }}, {% %}, <% %>): a template is not YAML until rendered"
    return None


_SHEBANG = re.compile(rb"^#![ \t]*(?:\S*/)?(?:env[ \t]+(?:-\S+[ \t]+)*)?([\w.+-]+)")


def _ini_dialect(_path: str, _src: bytes) -> str | None:
    """INI has no one standard (keys before any section, `\\` continuations, `!include`,
    php.ini's and systemd's extensions): configparser's rejection is no evidence."""
    return "INI has no one standard: a line configparser does not read may be valid to its reader"


#: The names that say Jinja whatever the content (`.twig` is another engine).
JINJA_SUFFIXES = frozenset({".j2", ".jinja", ".jinja2"})


def _jinja_dialect(_path: str, _src: bytes) -> str | None:
    """Jinja, Django and Twig templates share the marks (and the language), and a
    project's own extensions add tags: Jinja2's rejection is no evidence."""
    return (
        "Jinja, Django and Twig share these templates, and extensions add tags: "
        "a template Jinja2 does not read may be valid to its engine"
    )


def _shell_dialect(_path: str, src: bytes) -> str | None:
    """Another shell's script (zsh, ksh, ...) named by its shebang: bash does not judge it."""
    m = _SHEBANG.match(src)
    shell = m.group(1).decode("ascii", "replace") if m else "bash"
    if re.fullmatch(r"(?:bash|sh|dash)[\d.]*", shell):
        return None
    return f"a {shell[:20]} script: bash -n does not judge it"


_SHEBANG_SH = re.compile(rb"^#![ \t]*(?:/usr)?/bin/(?:env[ \t]+)?(?:sh|dash)[ \t]*(?:\r?\n|$)")


def is_posix_sh(_path: str, src: bytes) -> bool:
    """True for a file whose shebang asks for POSIX `sh` (or dash)."""
    return bool(_SHEBANG_SH.match(src))


#: What the pure-Python parsers (tomllib, PyYAML's composer) read within seconds on a
#: loaded machine; JSON's C decoder reads the grammar's largest file in a few.
IN_PROCESS_MAX_BYTES = 512 * 1024

#: The table. The first entry whose languages hold the file's language (and whose
#: `accepts` takes the file) is its exact parser.
PARSERS: tuple[ExactParser, ...] = (
    ExactParser(
        name="sh",
        languages=frozenset({"bash"}),
        command="sh",
        argv=("-n", "--", "{file}"),
        ok_exits=frozenset({0}),
        error_exits=frozenset({2}),
        errors=_sh_errors,
        version_args=(),
        version_file="",  # POSIX sh has no version option: identified by its path
        package="dash",
        safe="`-n` reads commands without executing them; ENV is read by interactive shells only",
        scrub=("ENV", "BASH_ENV"),
        accepts=lambda path, src: is_posix_sh(path, src),
        limit=_shell_limit,
        every_file=True,
    ),
    ExactParser(
        name="bash",
        languages=frozenset({"bash"}),
        command="bash",
        argv=("-O", "extglob", "-n", "--", "{file}"),
        error_exits=frozenset({1, 2}),
        errors=_bash_errors,
        package="bash",
        safe="`-n` (noexec) reads commands without executing them; BASH_ENV, ENV, SHELLOPTS "
        "and BASHOPTS are removed so no start-up file is sourced",
        scrub=("BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS"),
        cannot_judge=_shell_dialect,
        limit=_shell_limit,
        every_file=True,
    ),
    ExactParser(
        name="node",
        languages=frozenset({"javascript"}),
        command="node",
        argv=("--check", "--input-type={dialect}"),
        errors=_node_errors,
        declares="node",
        package="nodejs",
        safe="`--check` compiles the source from stdin without running it; NODE_OPTIONS "
        "(which could preload a script) is removed",
        scrub=("NODE_OPTIONS", "NODE_PATH"),
        dialects=_module_kinds,
        cannot_judge=_js_dialect,
        limit=_node_limit,
    ),
    ExactParser(
        name="gofmt",
        languages=frozenset({"go"}),
        command="gofmt",
        argv=("-e", "-l"),
        error_exits=frozenset({2}),
        errors=_gofmt_errors,
        version_args=(),
        version_file="../VERSION",
        declares="go",
        package="golang-go",
        safe="parses and prints; without `-w` it writes nothing, and it runs no build, "
        "module download or toolchain switch",
        scrub=("GOFLAGS", "GOTOOLCHAIN"),
        limit=_gofmt_limit,
        every_file=True,
        # `gofmt -l -e FILE...` parses every file it is given and prefixes each error
        # with its path; it exits 2 when any file has one.
        batch_argv=("-e", "-l", "--", "{files}"),
        batch_name="<standard input>",
        batch_alone=lambda msg: "expected 'package'" in msg,
    ),
    ExactParser(
        name="php",
        languages=frozenset({"php"}),
        command="php",
        argv=("-n", "-d", "display_errors=stderr", "-d", "error_reporting=-1", "-l"),
        error_exits=frozenset({255}),
        errors=_php_errors,
        version_args=("-n", "-v"),
        declares="php",
        package="php-cli",
        safe="`-l` compiles without executing; `-n` reads no php.ini, so no "
        "auto_prepend_file or extension runs",
        scrub=("PHPRC", "PHP_INI_SCAN_DIR"),
        removes_syntax=True,
        limit=_php_limit,
    ),
    ExactParser(
        name="xmllint",
        languages=frozenset({"xml"}),
        command="xmllint",
        argv=("--noout", "--nonet", "-"),
        error_exits=frozenset({1}),
        errors=_xmllint_errors,
        version_pattern=r"libxml version (\d+)",
        package="libxml2-utils",
        safe="`--noout` writes nothing, `--nonet` loads nothing over the network; without "
        "--valid/--loaddtd/--noent no external DTD or entity is read",
        scrub=("XML_CATALOG_FILES",),
        discounted=_xml_unread_entity,
        limit=_xmllint_limit,
        every_file=True,
    ),
    ExactParser(
        name="rustfmt",
        languages=frozenset({"rust"}),
        command="rustfmt",
        argv=("--check", "--color", "never", "--edition", "{dialect}", "--config-path", "{config}"),
        errors=_rustfmt_errors,
        declares="rust",
        language_version=("rustc", "--version"),
        package="rustfmt",
        safe="source on stdin (no `mod` file is followed, nothing is written); "
        "`--config-path` names an empty file, so no project rustfmt.toml is read; it runs "
        "in a private folder, so no rust-toolchain file picks the toolchain",
        scrub=("RUSTFMT", "RUSTFMT_CONFIG"),
        dialects=_editions,
        discounted=_rust_removed,
        limit=_rustfmt_limit,
    ),
    ExactParser(
        name="json",
        languages=frozenset({"json"}),
        command=None,
        package="",
        safe="Python's json decoder in this process; JSONC files (tsconfig.json, "
        ".vscode/*.json, devcontainer.json) have comments and trailing commas removed first",
        every_file=True,
    ),
    ExactParser(
        name="toml",
        languages=frozenset({"toml"}),
        command=None,
        package="",
        safe="Python's tomllib in this process: builds plain dicts, nothing else; a "
        "duplicate key is an error",
        max_bytes=IN_PROCESS_MAX_BYTES,
        every_file=True,
    ),
    ExactParser(
        name="yaml",
        languages=frozenset({"yaml"}),
        command=None,
        package="",
        safe="PyYAML's safe composer: builds nodes, never objects, so a custom tag (!Ref) "
        "loads and nothing is constructed; a duplicate mapping key is an error",
        cannot_judge=_yaml_dialect,
        judges_if_accepted=True,
        max_bytes=IN_PROCESS_MAX_BYTES,
        every_file=True,
    ),
    ExactParser(
        name="ini",
        languages=frozenset({"ini"}),
        command=None,
        package="",
        safe="Python's configparser in this process, without interpolation: reads sections "
        "and key/value strings, nothing else",
        cannot_judge=_ini_dialect,
        judges_if_accepted=True,
        max_bytes=IN_PROCESS_MAX_BYTES,
        every_file=True,
        eight_bit=True,
    ),
    ExactParser(
        name="jinja",
        languages=frozenset({"jinja"}),
        command=None,
        package="",
        safe="Jinja2's Environment.parse in this process: lexes and parses to a tree; no "
        "template is compiled, rendered or loaded (no loader), so no code runs",
        cannot_judge=_jinja_dialect,
        judges_if_accepted=True,
        # Only where the name says Jinja: an `.html` page whose content has `{{` stays
        # HTML to a gate (decisions/required.level_for_path), and a template verdict
        # says nothing of its HTML.
        accepts=lambda path, _src: PurePosixPath(path).suffix.lower() in JINJA_SUFFIXES,
        max_bytes=IN_PROCESS_MAX_BYTES,
        every_file=True,
    ),
    ExactParser(
        name="markdown",
        languages=frozenset({"markdown"}),
        command=None,
        package="",
        safe="in this process: CommonMark defines every text as a document, so the body "
        "is not parsed; a front matter block at the top (`---` YAML, `+++` TOML) goes to "
        "PyYAML's safe composer or tomllib, which build plain data only",
        # A front matter with template marks (a generator's template of a post) is YAML
        # only once rendered: an acceptance judges, a rejection is no evidence.
        cannot_judge=_yaml_dialect,
        judges_if_accepted=True,
        max_bytes=IN_PROCESS_MAX_BYTES,
        every_file=True,
    ),
)


def parser_for(language: str | None, path: str, src: bytes) -> ExactParser | None:
    """The exact parser of a file of `language` (first table entry that takes it), or None."""
    if not language:
        return None
    for p in PARSERS:
        if language in p.languages and (p.accepts is None or p.accepts(path, src)):
            return p
    return None


def languages() -> frozenset[str]:
    """Every language some exact parser covers."""
    return frozenset(lang for p in PARSERS for lang in p.languages)


def describe(parsers: Sequence[ExactParser] = PARSERS) -> list[dict[str, str]]:
    """The table as rows (name, languages, argv, files, package, safe) for docs and `tools`."""
    return [
        {
            "name": p.name,
            "languages": ", ".join(sorted(p.languages)),
            "argv": " ".join([p.command or "(in process)", *p.argv]),
            "files": "many per process" if p.batch_argv else "one per process",
            "package": p.package,
            "safe": p.safe,
        }
        for p in parsers
    ]
