"""The exact parsers that run in this process: JSON (and JSONC), TOML, YAML, INI, Jinja,
and Markdown's front matter.

Each returns the syntax errors of a source as (line, column, message), an empty list
when the source is valid. None of them builds anything but plain data: JSON and TOML
give dicts and lists, YAML is composed into nodes and never constructed (so a custom
tag such as CloudFormation's `!Ref` loads, and no tag can make an object).

These also find what a grammar misses: a TOML key defined twice, a YAML mapping key
given twice, a JSON trailing comma (or NaN) where the grammar is lenient.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import PurePosixPath
from typing import Any

from orchestrate_plugins.exact_parsers import ErrorLine


class TooDeep(Exception):
    """The source nests deeper than the parser follows: no verdict either way."""


class Lenient(Exception):
    """The source is not strict JSON but is valid JSONC, and nothing says whether its
    reader takes comments: accepted, with that said (a note, never a blocking error)."""


#: Files whose reader takes strict JSON only (npm, Composer): comments are errors there.
STRICT_JSON_NAMES = frozenset(
    {"package.json", "package-lock.json", "npm-shrinkwrap.json", "composer.json", "composer.lock"}
)


#: Files whose JSON dialect is JSONC (comments and trailing commas allowed).
JSONC_NAMES = frozenset(
    {
        "tsconfig.json",
        "jsconfig.json",
        "devcontainer.json",
        ".devcontainer.json",
        "devcontainer-feature.json",
        ".eslintrc.json",
        "babel.config.json",
        ".babelrc",
        "deno.json",
        "deno.jsonc",
        "turbo.json",
        "language-configuration.json",
        "tslint.json",
        "api-extractor.json",
        "typedoc.json",
        ".markdownlint.json",
        "biome.json",
        ".oxlintrc.json",
        "cspell.json",
        ".cspell.json",
        "cspell.config.json",
        "renovate.json",
        ".renovaterc.json",
        ".swcrc",
        "nx.json",
        "project.json",
    }
)
#: Any tsconfig/jsconfig a project `extends` (`tsconfig.base.json`, `tsconfig-base.json`,
#: `tsconfig_app.json`, `base.tsconfig.json`): TypeScript reads every one as JSONC.
_TSCONFIG = re.compile(r"^(?:ts|js)config[._-].*\.json$|^.+[._-](?:ts|js)config\.json$")


def is_jsonc(path: str) -> bool:
    """True for a JSON file read as JSONC: tsconfig/jsconfig (and tsconfig.*.json,
    tsconfig-*.json), .vscode/*.json, devcontainer files, .jsonc, and other well-known
    JSONC names, in any letter case (a case-insensitive file system finds them so)."""
    p = PurePosixPath(path.lower())
    return (
        p.suffix == ".jsonc"
        or p.name in JSONC_NAMES
        or bool(_TSCONFIG.match(p.name))
        or ".vscode" in p.parts[:-1]
        or ".devcontainer" in p.parts[:-1]
    )


_JSONC_TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"'  # a string, kept
    r"|//[^\n]*"  # a line comment
    r"|/\*.*?\*/"  # a block comment
    r"|,(?=\s*(?:/[/*][^\n]*\s*)*[\]}])",  # a trailing comma before ] or }
    re.DOTALL,
)


def strip_jsonc(text: str) -> str:
    """`text` with JSONC comments and trailing commas blanked (same length, newlines kept,
    so positions stay true)."""

    def blank(m: re.Match[str]) -> str:
        token = m.group(0)
        if token.startswith('"'):
            return token
        return re.sub(r"[^\n]", " ", token)

    return _JSONC_TOKEN.sub(blank, text)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json_error(text: str) -> ErrorLine | None:
    try:
        json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        return (exc.lineno, exc.colno, exc.msg)
    except ValueError as exc:
        return (1, None, str(exc))
    except RecursionError:
        raise TooDeep("json: nested deeper than the decoder follows") from None
    return None


def json_errors(text: str, path: str) -> list[ErrorLine]:
    """JSON syntax errors, judged by the file's reader: RFC 8259 (no NaN/Infinity, no
    comment, no trailing comma) for strict readers (`STRICT_JSON_NAMES`); JSONC rules for
    the files `is_jsonc` names. Any other `.json` with comments that is valid as JSONC
    raises Lenient (its reader is not known). A duplicate key is allowed (the RFC says SHOULD)."""
    strict = PurePosixPath(path.lower()).name in STRICT_JSON_NAMES
    if not strict and is_jsonc(path):
        text = strip_jsonc(text)
    error = _json_error(text)
    if error is None:
        return []
    lenient = not strict and not is_jsonc(path) and _has_comment(text)
    if lenient and _json_error(strip_jsonc(text)) is None:
        raise Lenient(
            "valid as JSONC (it has comments) but not as strict JSON; whether its "
            "reader takes comments is not known"
        )
    return [error]


def _has_comment(text: str) -> bool:
    """True when `text` has a `//` or `/* */` comment outside its strings: a sign its
    writer reads it as JSONC (a trailing comma alone is more often a slip)."""
    return any(m.group(0).startswith("/") for m in _JSONC_TOKEN.finditer(text))


_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def toml_errors(text: str, _path: str) -> list[ErrorLine]:
    """TOML 1.0 errors from tomllib; a key or table defined twice is one."""
    try:
        tomllib.loads(text)
    except RecursionError:
        raise TooDeep("toml: nested deeper than tomllib follows") from None
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = _TOML_AT.search(msg)
        if m is None:
            return [(1, None, msg)]
        return [(int(m.group(1)), int(m.group(2)), _TOML_AT.sub("", msg).strip())]
    return []


def _duplicate_keys(root: Any) -> list[ErrorLine]:
    """Mapping keys given twice in a composed YAML node graph (each node visited once)."""
    import yaml

    out: list[ErrorLine] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: set[tuple[str, str]] = set()
            for key, value in node.value:
                stack += [key, value]
                if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
                    continue
                ident = (key.tag, key.value)
                if ident in keys:
                    line = key.start_mark.line + 1
                    out.append(
                        (
                            line,
                            key.start_mark.column + 1,
                            "duplicate mapping key (YAML 1.2: keys are unique)",
                        )
                    )
                keys.add(ident)
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
    return sorted(out)


def yaml_errors(text: str, _path: str) -> list[ErrorLine]:
    """YAML errors from PyYAML's safe composer (no object is constructed), and
    duplicate mapping keys."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        out: list[ErrorLine] = []
        for doc in yaml.compose_all(text, Loader=loader):
            if doc is not None:
                out += _duplicate_keys(doc)
    except yaml.MarkedYAMLError as exc:
        if "nesting depth" in str(exc.problem):
            # libyaml's own limit, not the document's fault: no verdict.
            raise TooDeep("yaml: nested deeper than the composer follows") from None
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        col = mark.column + 1 if mark else None
        return [(line, col, " ".join(str(exc.problem or exc.context or "YAML error").split()))]
    except yaml.YAMLError as exc:
        return [(1, None, " ".join(str(exc).split())[:200])]
    except RecursionError:
        raise TooDeep("yaml: nested deeper than the composer follows") from None
    return out


#: The header put before an INI text whose keys start before any section, so that
#: configparser reads them as one more section (a name no real header line can clash
#: with: sections given twice are allowed anyway).
_TOP_SECTION = "[orchestrate: keys before any section]\n"


def ini_errors(text: str, _path: str) -> list[ErrorLine]:
    """Errors of Python's configparser in its most lenient reading (no interpolation,
    keys without values, sections and keys given twice, `=` or `:`, and keys before the
    first section, as Ansible inventories, .editorconfig and many tools' INI files have
    them): INI has no one standard, so the entry takes only an acceptance as a verdict
    (`judges_if_accepted`)."""
    import configparser

    def read(source: str) -> None:
        parser = configparser.RawConfigParser(
            strict=False, allow_no_value=True, interpolation=None, delimiters=("=", ":")
        )
        parser.read_string(source)

    shift = 0
    try:
        try:
            read(text)
        except configparser.MissingSectionHeaderError:
            # Keys before the first [section]: read them as a section of their own.
            # The header adds one line, so a later error's line is one less.
            shift = 1
            read(_TOP_SECTION + text)
    except configparser.ParsingError as exc:
        line = (exc.errors[0][0] if exc.errors else 1) - shift
        return [(max(1, line), None, "a line that is neither a [section], a key nor a comment")]
    except configparser.Error as exc:
        return [(1, None, type(exc).__name__)]
    return []


#: Jinja's own extensions that add tags (`{% do %}`, `{% break %}`, `{% trans %}`): they
#: only parse here, and Ansible and Flask templates use them.
JINJA_EXTENSIONS = ("jinja2.ext.do", "jinja2.ext.loopcontrols", "jinja2.ext.i18n")


def jinja_errors(text: str, _path: str) -> list[ErrorLine]:
    """Errors of Jinja2's parser (`Environment.parse`: lexes and parses to a tree; no
    template is compiled or rendered). Jinja, Django and Twig share these marks, so the
    entry takes only an acceptance as a verdict (`judges_if_accepted`)."""
    import jinja2

    try:
        jinja2.Environment(extensions=list(JINJA_EXTENSIONS)).parse(text)
    except jinja2.TemplateSyntaxError as exc:
        return [(exc.lineno or 1, None, " ".join((exc.message or "syntax error").split())[:200])]
    except RecursionError:
        raise TooDeep("jinja: nested deeper than the parser follows") from None
    return []


#: Front matter: a block at the very top between `---` lines (YAML; `...` may close it),
#: as Jekyll, Hugo, Docusaurus, Astro and GitHub's renderer read it, or `+++` lines
#: (TOML, Hugo's).
_FRONT_MATTER = re.compile(
    r"\A(?:(?P<yaml>---)|(?P<toml>\+\+\+))[ \t]*\r?\n(?P<body>.*?)^(?(yaml)(?:---|\.\.\.)|\+\+\+)[ \t]*\r?$",
    re.DOTALL | re.MULTILINE,
)


def markdown_errors(text: str, path: str) -> list[ErrorLine]:
    """Errors of a Markdown file's front matter (YAML by PyYAML's safe composer, TOML by
    tomllib), at the file's own lines. The body has none to find: CommonMark defines
    every sequence of characters as a document, so no text after the front matter is a
    syntax error."""
    m = _FRONT_MATTER.match(text)
    if m is None:
        return []
    check = yaml_errors if m.group("yaml") else toml_errors
    return [(line + 1, col, msg) for line, col, msg in check(m["body"], path)]


CHECKS = {
    "json": json_errors,
    "toml": toml_errors,
    "yaml": yaml_errors,
    "ini": ini_errors,
    "jinja": jinja_errors,
    "markdown": markdown_errors,
}


def _dist_version(dist: str) -> str:
    # From the installed distribution's metadata, not by importing it: the fallback's
    # reuse identity asks for every parser's version, on the save-feedback path too,
    # and importing Jinja2 and PyYAML for that took about 30 ms.
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def identity(name: str) -> str:
    """The version of an in-process parser: `python json 3.11.7`, `PyYAML 6.0.1 ...`."""
    py = "{}.{}.{}".format(*sys.version_info[:3])
    if name == "yaml":
        return f"PyYAML {_dist_version('PyYAML')} safe composer (Python {py})"
    if name == "ini":
        return f"python configparser {py}"
    if name == "jinja":
        return f"Jinja2 {_dist_version('Jinja2')} parser (Python {py})"
    if name == "markdown":
        # The body needs no parser (every text is CommonMark); the front matter's are named.
        v = _dist_version("PyYAML")
        return f"Markdown: front matter read by PyYAML {v} and tomllib (Python {py})"
    return f"python {'tomllib' if name == 'toml' else 'json'} {py}"


#: The reason of a verdict on a file read as latin-1 (`ExactParser.eight_bit`).
READ_AS_LATIN1 = "not UTF-8: read as latin-1 (an 8-bit encoding; the format's structure is ASCII)"


def decode(src: bytes, eight_bit: bool = False) -> tuple[str, bool]:
    """`src` as text (UTF-8, BOM allowed), and whether it was read as latin-1 instead
    (only when `eight_bit` and it is not UTF-8). Raises UnicodeDecodeError otherwise."""
    try:
        return src.decode("utf-8-sig"), False
    except UnicodeDecodeError:
        if not eight_bit:
            raise
        return src.decode("latin-1"), True


def errors(name: str, src: bytes, path: str, eight_bit: bool = False) -> list[ErrorLine]:
    """The errors `name`'s in-process parser finds in `src` (UTF-8, BOM allowed; with
    `eight_bit`, latin-1 when it is not UTF-8: `decode`).
    Raises TooDeep when the parser hit its own limit (nesting, memory): no verdict."""
    text, _ = decode(src, eight_bit)
    try:
        return CHECKS[name](text, path)
    except (RecursionError, MemoryError):
        raise TooDeep(f"{name}: beyond what the parser holds (nesting or memory)") from None
