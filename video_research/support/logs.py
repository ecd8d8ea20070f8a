"""Logging to stderr only, human or JSON lines, with secrets scrubbed from every record.

In stdio mode stdout carries the MCP protocol and nothing else, so no handler here ever
writes to stdout. The redaction runs on the fully formatted message (arguments
included) and on exception text, so an SDK that logs a URL with `?key=...` cannot leak
the key.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any, TextIO

from video_research.support import printable
from video_research.support.redact import redact

_HANDLER_NAME = "video-research-stderr"

_RESERVED = set(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime"}


class RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not kill the log line
            message = str(record.msg)
        record.msg = printable.text(redact(message))
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = printable.text(redact(record.exc_text))
        record.exc_info = None
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, msg, plus any `extra=` fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _RESERVED and not key.startswith("_"):
                entry[key] = value
        if record.exc_text:
            entry["exc"] = record.exc_text
        return redact(json.dumps(entry, default=str, ensure_ascii=False))


class HumanFormatter(logging.Formatter):
    """One line per record: `time level logger: message`.

    The message is shown on one line with its control characters escaped (`\\n`,
    `\\x1b`), so a user's string (a title, a file name) logged inside it can never forge
    a log line or drive the terminal. Only a traceback continues on further lines, each
    indented (and escaped the same way), so no continuation line can pass for a record.
    """

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s: %(message)s", "%H:%M:%S")

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 (logging's name)
        message = record.message
        record.message = printable.one_line(message)
        try:
            return super().formatMessage(record)
        finally:
            record.message = message

    def format(self, record: logging.LogRecord) -> str:
        first, *more = super().format(record).split("\n")
        return redact("\n".join([first, *("  " + printable.one_line(line) for line in more)]))


def setup_logging(level: str = "INFO", fmt: str = "human", stream: TextIO | None = None) -> None:
    """Install the one stderr handler on the root logger (idempotent)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if handler.get_name() == _HANDLER_NAME:
            root.removeHandler(handler)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.addFilter(RedactingFilter())
    handler.setFormatter(JsonFormatter() if fmt == "json" else HumanFormatter())
    root.addHandler(handler)
    root.setLevel(level)
    # Chatty SDK loggers stay at WARNING unless the user asks for DEBUG.
    quiet = logging.WARNING if level != "DEBUG" else logging.DEBUG
    for name in (
        "httpx",
        "httpx2",
        "httpcore",
        "httpcore2",
        "google_genai",
        "googleapiclient",
        "urllib3",
        "mcp",
    ):
        logging.getLogger(name).setLevel(quiet)
    logging.captureWarnings(True)
