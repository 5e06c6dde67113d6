"""Known false alarms of qualified grammars, removed before recovery regions are reported.

A grammar parses one text; the languages below allow what their grammar cannot see:

* C/C++: the preprocessor. Conditional branches split braces (`#ifdef __cplusplus` /
  `}` / `#endif`), macro invocations stand as declarations without a semicolon
  (`U_NAMESPACE_BEGIN`, `EXPORT_SYMBOL(x)`) and macros sit inside declarations
  (`__THROW`, `U_EXPORT2`). The source is re-parsed with those constructs blanked
  (same length, newlines kept, so rows and columns stay true); a region is dropped
  when a blanked parse shows no region on any of its lines. Blanking only removes
  candidates: a region a blanked parse shows anew is never reported.
* SCSS: a stylesheet Jekyll (or another static site generator) processes opens
  with YAML front matter (`---` lines; Jekyll compiles a Sass file only when it has
  one, often empty), which the generator removes before Sass reads the file. The
  source is re-parsed with that block blanked; a region is dropped when the blanked
  parse shows none on its lines, so an error after the front matter is still reported.
* HTML: HTML5 lets optional end tags be left out (`<p>`, `<li>`, `<html>`, ...) and
  allows a bare `>` in text, and a `&` that starts no character reference (`Q & A`);
  the grammar reports all three.

Each filter only drops regions; it never adds one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

#: HTML5 elements whose end tag may be omitted (WHATWG "optional tags").
OPTIONAL_END_TAGS = frozenset(
    [
        "html",
        "head",
        "body",
        "p",
        "li",
        "dt",
        "dd",
        "tr",
        "td",
        "th",
        "option",
        "optgroup",
        "thead",
        "tbody",
        "tfoot",
        "colgroup",
        "caption",
        "rt",
        "rp",
        "rb",
        "rtc",
    ]
)

_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(\w+)", re.MULTILINE)
_CONDITIONAL_OPEN = {b"if", b"ifdef", b"ifndef"}
_CONDITIONAL_ELSE = {b"elif", b"else", b"elifdef", b"elifndef"}
#: A line that is one macro-like name, optionally called: `U_NAMESPACE_BEGIN`, `FOO(a, b)`.
_MACRO_LINE_START = re.compile(rb"^[ \t]*([A-Z_][A-Z0-9_]*)[ \t]*(\(|$)", re.MULTILINE)
#: Macro-like names inside declarations: `__THROW`, `__attribute_pure__`, `__nonnull ((1))`,
#: `__wur`, `U_EXPORT2`, `PNG_RESTRICT`, `OF((args))`; names such as `__s` or
#: `__ctype_get_mb_cur_max (void)` stay.
_MACRO_TOKEN = re.compile(
    rb"\b(__[A-Z]\w*|__\w+__|__\w+(?=[ \t]*\(\()|__wur|__restrict|__extension__"
    rb"|__owur|[A-Z][A-Z0-9]*_[A-Z0-9_]*|[A-Z][A-Z0-9]+(?=[ \t]*\(\())\b"
)
_NAME_START = re.compile(rb"[A-Za-z_]")


def _blank(buf: bytearray, start: int, end: int) -> None:
    for i in range(start, end):
        if buf[i] not in b"\r\n":
            buf[i] = 0x20


def _lines(src: bytes) -> list[tuple[int, int]]:
    """(start, end) byte offsets of each logical line; a backslash-newline continues it."""
    out = []
    pos = 0
    n = len(src)
    while pos < n:
        end = src.find(b"\n", pos)
        end = n if end < 0 else end
        while end < n and end > pos and src[end - 1 : end] == b"\\":
            nxt = src.find(b"\n", end + 1)
            end = n if nxt < 0 else nxt
        out.append((pos, end))
        pos = end + 1
    return out


def mask_conditionals(src: bytes) -> bytes:
    """`src` with conditional directives blanked and only each conditional's first branch kept."""
    buf = bytearray(src)
    skipping: list[bool] = []
    for start, end in _lines(src):
        m = _DIRECTIVE.match(src, start, end)
        word = m.group(1) if m else b""
        if word in _CONDITIONAL_OPEN:
            skipping.append(False)
        elif word in _CONDITIONAL_ELSE and skipping:
            skipping[-1] = True
        elif word == b"endif" and skipping:
            skipping.pop()
        elif not any(skipping):
            continue
        _blank(buf, start, end)
    return bytes(buf)


def _close_paren(src: bytes, open_at: int) -> int:
    """Offset just past the parenthesis matching the one at `open_at`, or -1."""
    depth = 0
    for i in range(open_at, len(src)):
        c = src[i]
        if c == 0x28:
            depth += 1
        elif c == 0x29:
            depth -= 1
            if depth == 0:
                return i + 1
        elif c in b";{}":
            return -1
    return -1


def mask_macro_lines(src: bytes) -> bytes:
    """`src` with macro invocations that stand alone as a line (no `;`) blanked."""
    buf = bytearray(src)
    for start, end in _lines(src):
        m = _MACRO_LINE_START.match(src, start, end)
        if not m or _DIRECTIVE.match(src, start, end):
            continue
        stop = end
        if m.group(2) == b"(":
            stop = _close_paren(src, m.start(2))
            if stop < 0:
                continue
            line_end = src.find(b"\n", stop)
            line_end = len(src) if line_end < 0 else line_end
            if src[stop:line_end].strip():
                continue  # `FOO(x);` or `FOO(x) {`: ordinary code, not a bare invocation
        _blank(buf, start, stop)
    return bytes(buf)


def _attribute_position(text: bytes, start: int, stop: int) -> bool:
    """A name placed as a qualifier: another name follows it, or it follows `)`."""
    after = text[stop:].lstrip()
    before = text[:start].rstrip()
    return bool(_NAME_START.match(after)) or before.endswith(b")")


def mask_macro_names(src: bytes, *, everywhere: bool = False) -> bytes:
    """`src` with macro-like names blanked, with an argument group when one follows.

    By default only names in a qualifier position (`U_CAPI int f`, `f(void) __THROW;`,
    `x * PNG_RESTRICT p`), so type names such as `EVP_MD *md` stay; `everywhere`
    blanks every macro-like name.
    """
    buf = bytearray(src)
    for start, end in _lines(src):
        if _DIRECTIVE.match(src, start, end):
            continue  # `#define FOO_H` keeps its names
        for m in _MACRO_TOKEN.finditer(src, start, end):
            stop = m.end()
            gap = len(src[stop:end]) - len(src[stop:end].lstrip(b" \t"))
            if src[stop + gap : stop + gap + 1] == b"(":
                paren = _close_paren(src, stop + gap)
                stop = paren if paren > 0 else stop
            if everywhere or _attribute_position(src, m.start(), stop):
                _blank(buf, m.start(), stop)
    return bytes(buf)


def _rows(node: Any) -> tuple[int, int]:
    return node.start_point[0], node.end_point[0]


def _overlaps(rows: tuple[int, int], others: Sequence[tuple[int, int]]) -> bool:
    return any(a <= rows[1] and rows[0] <= b for a, b in others)


def drop_preprocessor_regions(
    nodes: Sequence[Any], src: bytes, reparse: Callable[[bytes], Sequence[Any]]
) -> list[Any]:
    """The C/C++ recovery nodes still seen when preprocessor constructs are blanked.

    `reparse` parses a same-length variant and returns its recovery nodes. Variants
    blank more and more (conditionals; bare macro lines; macro-like names in qualifier
    position; every macro-like name). A node is kept only when every variant shows a
    recovery node on one of its lines: blanking can remove candidates, never add one.
    """
    if not nodes:
        return []
    first = mask_conditionals(src)
    lines = mask_macro_lines(first)
    variants = (
        lambda: first,
        lambda: lines,
        lambda: mask_macro_names(lines),
        lambda: mask_macro_names(lines, everywhere=True),
    )
    kept = list(nodes)
    for make in variants:
        variant = make()
        seen = [_rows(n) for n in reparse(variant)]
        kept = [n for n in kept if _overlaps(_rows(n), seen)]
        if not kept:
            break
    return kept


#: Jekyll's front matter: a `---` line at the very start, up to the next `---` (or
#: `...`) line (Jekyll's own pattern, jekyll/document.rb YAML_FRONT_MATTER_REGEXP).
_FRONT_MATTER = re.compile(
    rb"\A---[ \t]*\r?\n(?:.*?\r?\n)??(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.DOTALL
)


def mask_front_matter(src: bytes) -> bytes | None:
    """`src` with its leading front matter blanked (same length, newlines kept), or
    None when it has none."""
    m = _FRONT_MATTER.match(src)
    if m is None:
        return None
    buf = bytearray(src)
    _blank(buf, 0, m.end())
    return bytes(buf)


def drop_front_matter_regions(
    nodes: Sequence[Any], src: bytes, reparse: Callable[[bytes], Sequence[Any]]
) -> list[Any]:
    """The SCSS recovery nodes still seen when the leading front matter is
    blanked (`reparse` parses the variant and returns its recovery nodes); all of
    `nodes` when the file has none. Blanking can remove candidates, never add one."""
    variant = mask_front_matter(src) if nodes else None
    if variant is None:
        return list(nodes)
    seen = [_rows(n) for n in reparse(variant)]
    return [n for n in nodes if _overlaps(_rows(n), seen)]


def _tag_name(node: Any, src: bytes) -> str:
    # The name is sliced from the source: a tree parsed through a read callback has no
    # text of its own (treesitter_checker.parse).
    for child in node.children:
        if child.type == "tag_name":
            return src[child.start_byte : child.end_byte].decode("utf-8", "replace").lower()
    return ""


def _implicit_close_at_eof(node: Any, src: bytes) -> bool:
    """An ERROR at the end of the file holding only open optional-end-tag elements."""
    if node.end_byte < len(src.rstrip()):
        return False
    for child in node.children:
        if child.type == "start_tag":
            if _tag_name(child, src) not in OPTIONAL_END_TAGS:
                return False
        elif child.type not in {"text", "comment", "doctype", "element", "entity"}:
            return False
    return True


def _missing_optional_end(node: Any, src: bytes) -> bool:
    """A MISSING implicit end tag of an element whose end tag HTML5 lets be left out."""
    if node.type != "element" or not node.children:
        return False
    start = node.children[0]
    return start.type == "start_tag" and _tag_name(start, src) in OPTIONAL_END_TAGS


def _bare_greater_than(node: Any, src: bytes) -> bool:
    """An ERROR that is text starting with `>`: HTML5 allows a bare `>` in text."""
    text = src[node.start_byte : node.end_byte]
    return text.startswith(b">") and b"<" not in text


#: What may follow a `&` that starts a character reference (`&amp;`, `&#38;`, `&#x26;`).
_REFERENCE_START = re.compile(rb"[A-Za-z0-9#]")


def _bare_ampersand(node: Any, src: bytes) -> bool:
    """An ERROR that is text starting with a `&` no character reference can follow
    (space, punctuation, end of text): HTML5 reads such a `&` as text."""
    text = src[node.start_byte : node.end_byte]
    return (
        text.startswith(b"&")
        and not _REFERENCE_START.match(text, 1)
        and b"<" not in text
        and b">" not in text
    )


def drop_html_regions(nodes: Sequence[Any], src: bytes) -> list[Any]:
    """HTML recovery nodes other than omitted optional end tags, a bare `>` in text and
    a bare `&` in text."""
    return [
        n
        for n in nodes
        if not (
            (
                n.is_error
                and (
                    _implicit_close_at_eof(n, src)
                    or _bare_greater_than(n, src)
                    or _bare_ampersand(n, src)
                )
            )
            or (not n.is_error and _missing_optional_end(n, src))
        )
    ]
