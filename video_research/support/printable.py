"""Text that every writer can encode: what leaves the process is always valid UTF-8.

A file name that is not UTF-8 (`bad-\\xff.md` on a Linux disk) reaches Python as a str
holding a lone surrogate (os.fsdecode's surrogateescape: the byte 0xff becomes U+DCFF),
and a client can send lone surrogates too (JSON's `"\\ud800"`). Such a str cannot be
encoded as UTF-8: the MCP SDK's stdout writer, the HTTP response body, the audit log file
and SQLite all fail on it, and on stdio that failure kills the server.

This module is the one place that makes such text printable. Every exit of the process
goes through it (tool results in server.tool_result, progress messages, log records in
logs.py, audit entries in catalog/audit.py); paths.printable uses it for file names.
A surrogate that stands for a raw byte is shown as `\\xNN` (the way Python and `ls -b`
show it), any other lone surrogate as `\\udNNN`. Valid text is returned unchanged, and
checking it costs one UTF-8 encode.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    point = ord(match.group())
    if 0xDC80 <= point <= 0xDCFF:  # a raw byte decoded by surrogateescape
        return f"\\x{point - 0xDC00:02x}"
    return f"\\u{point:04x}"


def is_encodable(text: str) -> bool:
    """Whether `text` encodes as UTF-8 as it is (it holds no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def text(value: str) -> str:
    """`value` with every lone surrogate escaped; `value` itself when it has none."""
    if is_encodable(value):
        return value
    return _SURROGATE.sub(_escape, value)


def data(value: Any) -> Any:
    """A JSON-like value (dicts, lists, tuples, strings, numbers) with every string in it,
    keys included, made encodable. Values that need no change are returned as they are."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, dict):
        return {(text(k) if isinstance(k, str) else k): data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [data(item) for item in value]
    return value


_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _control_escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    point = ord(char)
    return f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}"


def one_line(value: str) -> str:
    """`value` encodable and on one line: control characters (newlines, carriage returns,
    escape sequences) shown as `\\n`, `\\r`, `\\xNN`, so a user's string can never forge
    a line of a line-oriented log (tab is kept)."""
    return _CONTROL.sub(_control_escape, text(value))
