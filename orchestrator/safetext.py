"""Untrusted text made safe to print for a person: the one escaping of every human view.

File names, tool messages, reasons and config keys come from outside. Printed raw, an
ESC sequence repaints or clears the terminal, a carriage return or a newline forges a
line of our own output, and a bidirectional override reorders what is shown. In a
CI log, the GitHub Actions runner runs a line that starts `::name` (after white space)
or holds `##[name` anywhere as a workflow command (an annotation, `add-mask`,
`stop-commands`, ...). Every human presentation passes such text through `printable`
first; JSON and SARIF carry the exact values, with `json_inert` keeping their text
from holding `##[`.
"""

from __future__ import annotations

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: Surrogate escapes (os.fsdecode) stand for the bytes 0x80..0xFF of a non-UTF-8 name.
_SURROGATE_BYTES = range(0xDC80, 0xDD00)


def _escape(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if code in _SURROGATE_BYTES:
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _not_a_command(s: str) -> str:
    """`s` with `##[` written `#\\x23[` and a leading `::` (after white space) written
    `\\x3a:`: no line it starts or sits in reads as a workflow command."""
    if "##[" in s:
        s = s.replace("##[", "#\\x23[")
    head = len(s) - len(s.lstrip())
    if s.startswith("::", head):
        s = s[:head] + "\\x3a" + s[head + 1 :]
    return s


def json_inert(text: str) -> str:
    """Serialized JSON `text` with every `##[` (only ever inside a string) written
    `#\\u0023[`: the same values, and no line of it reads as a legacy workflow command."""
    return text.replace("##[", "#\\u0023[") if "##[" in text else text


def printable(text: object) -> str:
    r"""`text` as one line of inert characters: every character Python does not call
    printable (controls, ESC, C1 codes, line and paragraph separators, format and
    bidirectional controls, surrogates, unassigned code points) becomes a visible
    escape (``\n``, ``\r``, ``\t``, ``\xNN``, ``\uNNNN``); surrogate escapes of
    non-UTF-8 bytes become ``\xNN``; a ``##[`` is written ``#\x23[`` and a leading
    ``::`` ``\x3a:``, so that no CI runner reads the text as a workflow command.
    Everything else is kept as is, so the function is idempotent. Presenters print the
    result as plain text, never as rich markup.
    """
    s = text if isinstance(text, str) else str(text)
    if not s.isprintable():
        s = "".join(ch if ch.isprintable() else _escape(ch) for ch in s)
    return _not_a_command(s) if ("#" in s or ":" in s) else s


__all__ = ["json_inert", "printable"]
