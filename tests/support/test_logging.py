"""Logs go to stderr only, in human or JSON form, with secrets masked."""

from __future__ import annotations

import io
import json
import logging

from video_research.support.logs import setup_logging
from video_research.support.redact import register_secret


def _emit(fmt):
    stream = io.StringIO()
    setup_logging("INFO", fmt, stream=stream)
    register_secret("my-very-secret-key")
    log = logging.getLogger("video_research.test")
    log.info(
        "calling %s with key=%s",
        "https://x/v1?key=AIzaSyZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ",
        "my-very-secret-key",
        extra={"tool": "t1"},
    )
    try:
        raise RuntimeError("boom my-very-secret-key")
    except RuntimeError:
        log.exception("failed")
    return stream.getvalue()


def test_json_lines_with_extras_and_no_secrets():
    out = _emit("json")
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert lines[0]["level"] == "INFO" and lines[0]["tool"] == "t1"
    assert "exc" in lines[1]
    assert "my-very-secret-key" not in out and "AIzaSyZZZ" not in out


def test_human_format_masks_secrets():
    out = _emit("human")
    assert "calling" in out and "[REDACTED]" in out
    assert "my-very-secret-key" not in out


def teardown_module():
    setup_logging("WARNING", "human")
