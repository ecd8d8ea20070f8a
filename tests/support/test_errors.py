"""The ToolError model and categorize_error (the categories in docs/errors.md)."""

from __future__ import annotations

import re
import socket

import pytest

from video_research.support import contracts
from video_research.support.errors import (
    OLD_VALUES,
    RETRYABLE,
    ErrorCategory,
    ToolError,
    ToolFailure,
    categorize_error,
    make_tool_error,
)
from video_research.support.redact import redact, register_secret


def _wrapped_dns_failure() -> Exception:
    """What httpx raises for a name that does not resolve: ConnectError from a gaierror."""
    import httpx

    try:
        try:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        except socket.gaierror as exc:
            raise httpx.ConnectError("[Errno -2] Name or service not known") from exc
    except httpx.ConnectError as exc:
        return exc


class FakeGenaiError(Exception):
    """Shaped like google.genai.errors.APIError: a `.code` attribute."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


class FakeResp:
    def __init__(self, status):
        self.status = status


class FakeHttpError(Exception):
    """Shaped like googleapiclient.errors.HttpError: `.resp.status`."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.resp = FakeResp(status)


CASES = [
    (ValueError("Invalid YouTube URL: https://evil.com"), ErrorCategory.INVALID_INPUT),
    (ValueError("Could not extract video ID from URL"), ErrorCategory.INVALID_INPUT),
    (
        FakeGenaiError(403, "PERMISSION_DENIED: The caller does not have permission"),
        ErrorCategory.UNAUTHORIZED,
    ),
    (FakeGenaiError(429, "RESOURCE_EXHAUSTED"), ErrorCategory.RATE_LIMITED),
    (FakeGenaiError(400, "INVALID_ARGUMENT: bad schema"), ErrorCategory.INVALID_INPUT),
    (FakeGenaiError(404, "models/x is not found"), ErrorCategory.NOT_FOUND),
    (
        FakeGenaiError(503, "The model is overloaded. Please try again later."),
        ErrorCategory.UNAVAILABLE,
    ),
    (
        FakeHttpError(
            403,
            "quotaExceeded: The request cannot be completed because you have exceeded your quota.",
        ),
        ErrorCategory.RATE_LIMITED,
    ),
    (
        FakeHttpError(403, "Requests to this API youtube method are blocked."),
        ErrorCategory.UNAUTHORIZED,
    ),
    (RuntimeError("403 video is age restricted"), ErrorCategory.FORBIDDEN),
    (RuntimeError("This video is private"), ErrorCategory.FORBIDDEN),
    (RuntimeError("Video unavailable"), ErrorCategory.NOT_FOUND),
    (RuntimeError("read timed out"), ErrorCategory.TIMEOUT),
    (TimeoutError(), ErrorCategory.TIMEOUT),
    (ConnectionResetError("peer reset"), ErrorCategory.NETWORK),
    (socket.gaierror(socket.EAI_NONAME, "Name or service not known"), ErrorCategory.NETWORK),
    (_wrapped_dns_failure(), ErrorCategory.NETWORK),
    (FileNotFoundError("/nope.mp4"), ErrorCategory.NOT_FOUND),
    (ValueError("Unsupported video extension: .txt"), ErrorCategory.UNSUPPORTED_FORMAT),
    (RuntimeError("Weaviate connection refused"), ErrorCategory.NETWORK),
    (
        RuntimeError("weaviate: collection schema mismatch on property x"),
        ErrorCategory.STORE_ERROR,
    ),
    (RuntimeError("weaviate batch import failed"), ErrorCategory.STORE_ERROR),
    (RuntimeError("weaviate query returned error"), ErrorCategory.STORE_ERROR),
    (RuntimeError("something odd"), ErrorCategory.INTERNAL_ERROR),
    (ToolFailure(ErrorCategory.CONFLICT, "exists"), ErrorCategory.CONFLICT),
]


@pytest.mark.parametrize(
    ("exc", "expected"), CASES, ids=[str(c[1]) + "-" + type(c[0]).__name__ for c in CASES]
)
def test_categorize_error(exc, expected):
    category, hint = categorize_error(exc)
    assert category is expected
    assert hint


@pytest.mark.parametrize(("exc", "expected"), CASES, ids=[str(c[1]) for c in CASES])
def test_tool_error_matches_its_schema(exc, expected):
    error = make_tool_error(exc).to_json_dict()
    assert error["category"] == expected.value
    assert error["message"] == error["error"]
    assert error["retryable"] is (expected in RETRYABLE)
    assert contracts.validation_errors("common/tool_error.json", error) == []


def test_quota_errors_suggest_a_wait():
    error = make_tool_error(FakeGenaiError(429, "quota"))
    assert error.retryable and error.retry_after_seconds == 60


def test_every_category_has_a_hint_and_is_in_the_schema():
    schema = contracts.load_schema("common/tool_error.json")
    assert set(schema["properties"]["category"]["enum"]) == {c.value for c in ErrorCategory}
    for category in ErrorCategory:
        assert ToolFailure(category, "x").hint


def test_secrets_are_scrubbed_from_error_text():
    register_secret("sekrit-value-123456")
    error = make_tool_error(
        RuntimeError(
            "bad call with sekrit-value-123456 and ?key=AIzaSyABCDEFGHIJKLMNOPQRSTUVWXYZ0123456"
        )
    )
    assert "sekrit-value-123456" not in error.error
    assert "AIzaSy" not in error.error
    assert "[REDACTED]" in error.error


@pytest.mark.parametrize(
    "text",
    [
        "GET https://x/v1?key=abcdef123456&alt=json",
        "Authorization: Bearer abcdefghijklmnop",
        "nats://user:hunter2pass@127.0.0.1:4222",
        "x-goog-api-key: AIzaSyABCDEFGHIJKLMNOPQRSTUVWXYZ0123456",
    ],
)
def test_redact_patterns(text):
    out = redact(text)
    assert "[REDACTED]" in out
    for secret in ("abcdef123456", "abcdefghijklmnop", "hunter2pass", "AIzaSyABCDEF"):
        assert secret not in out


@pytest.mark.parametrize(
    "text",
    [
        "x" * 1_000_000,  # one long word: a scheme could start at any of its letters
        "https://" + "u" * 1_000_000,  # a user name without a password or an @
        "a b " * 250_000,
    ],
)
def test_redact_takes_time_in_proportion_to_the_text(text):
    """Every log line and error passes through `redact`; an argument of a megabyte is
    masked in well under a second (a pattern that backtracked took 18 s for 100 kB)."""
    import time

    started = time.process_time()
    assert redact(text) == text
    assert time.process_time() - started < 1.0


def test_tool_error_message_defaults_to_error():
    assert ToolError(error="e", category="internal_error", hint="h").message == "e"


def _real_overflows() -> list[OverflowError]:
    import sqlite3
    from datetime import UTC, datetime, timedelta, timezone

    caught = []
    try:
        sqlite3.connect(":memory:").execute("SELECT ?", (2**63,))
    except OverflowError as exc:
        caught.append(exc)
    try:
        datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14))).astimezone(UTC)
    except OverflowError as exc:
        caught.append(exc)
    return caught


@pytest.mark.parametrize("exc", _real_overflows(), ids=["sqlite-integer", "datetime-year"])
def test_an_overflow_is_invalid_input(exc):
    """A number or date too large for SQLite or datetime is the caller's input, not UNKNOWN."""
    error = make_tool_error(exc)
    assert error.category == "invalid_input" and not error.retryable
    assert "out of range" in error.hint


def test_one_lower_case_vocabulary():
    """One case, one set: every value lower-case snake, and every old value reads as one."""
    values = [c.value for c in ErrorCategory]
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", v) for v in values), values
    assert set(OLD_VALUES.values()) <= set(values)
    for old, new in OLD_VALUES.items():
        assert ErrorCategory(old) is ErrorCategory(new) is ErrorCategory(old.lower())
    assert ToolFailure("FILE_NOT_FOUND", "x").to_tool_error().category == "not_found"


@pytest.mark.parametrize(
    ("old", "new"),
    [("URL_INVALID", "invalid_input"), ("timeout_error", "timeout"), ("nats_error", "unavailable")],
)
def test_an_old_value_reads_as_its_new_category(old, new):
    assert ErrorCategory(old).value == new


def test_retryable_categories_are_the_transient_ones():
    assert {c.value for c in RETRYABLE} == {"rate_limited", "network", "timeout", "unavailable"}
