"""Untrusted text made safe to print for a person: the one escaping of every human view.

File names, tool messages, reasons and config keys come from outside. Printed raw, an
ESC sequence repaints or clears the terminal, a carriage return or a newline forges a
line of our own output, and a bidirectional override reorders what is shown. Every
human presentation passes such text through `printable` first; JSON and SARIF carry
the exact values.
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


def printable(text: object) -> str:
    r"""`text` as one line of inert characters: every character Python does not call
    printable (controls, ESC, C1 codes, line and paragraph separators, format and
    bidirectional controls, surrogates, unassigned code points) becomes a visible
    escape (``\n``, ``\r``, ``\t``, ``\xNN``, ``\uNNNN``); surrogate escapes of
    non-UTF-8 bytes become ``\xNN``. Everything else is kept as is, so the function
    is idempotent. Presenters print the result as plain text, never as rich markup.
    """
    s = text if isinstance(text, str) else str(text)
    if s.isprintable():
        return s
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in s)


__all__ = ["printable"]
