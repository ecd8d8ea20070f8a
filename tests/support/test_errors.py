"""The ToolError model and categorize_error (the categories in docs/errors.md)."""

from __future__ import annotations

import pytest

from video_research.support import contracts
from video_research.support.errors import (
    RETRYABLE,
    ErrorCategory,
    ToolError,
    ToolFailure,
    categorize_error,
    make_tool_error,
)
from video_research.support.redact import redact, register_secret


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
    (ValueError("Invalid YouTube URL: https://evil.com"), ErrorCategory.URL_INVALID),
    (ValueError("Could not extract video ID from URL"), ErrorCategory.URL_PARSE_FAILED),
    (
        FakeGenaiError(403, "PERMISSION_DENIED: The caller does not have permission"),
        ErrorCategory.API_PERMISSION_DENIED,
    ),
    (FakeGenaiError(429, "RESOURCE_EXHAUSTED"), ErrorCategory.API_QUOTA_EXCEEDED),
    (FakeGenaiError(400, "INVALID_ARGUMENT: bad schema"), ErrorCategory.API_INVALID_ARGUMENT),
    (FakeGenaiError(404, "models/x is not found"), ErrorCategory.API_NOT_FOUND),
    (
        FakeGenaiError(503, "The model is overloaded. Please try again later."),
        ErrorCategory.API_UNAVAILABLE,
    ),
    (
        FakeHttpError(
            403,
            "quotaExceeded: The request cannot be completed because you have exceeded your quota.",
        ),
        ErrorCategory.API_QUOTA_EXCEEDED,
    ),
    (
        FakeHttpError(403, "Requests to this API youtube method are blocked."),
        ErrorCategory.API_PERMISSION_DENIED,
    ),
    (RuntimeError("403 video is age restricted"), ErrorCategory.VIDEO_RESTRICTED),
    (RuntimeError("This video is private"), ErrorCategory.VIDEO_PRIVATE),
    (RuntimeError("Video unavailable"), ErrorCategory.VIDEO_UNAVAILABLE),
    (RuntimeError("read timed out"), ErrorCategory.NETWORK_ERROR),
    (TimeoutError(), ErrorCategory.NETWORK_ERROR),
    (ConnectionResetError("peer reset"), ErrorCategory.NETWORK_ERROR),
    (FileNotFoundError("/nope.mp4"), ErrorCategory.FILE_NOT_FOUND),
    (ValueError("Unsupported video extension: .txt"), ErrorCategory.FILE_UNSUPPORTED),
    (RuntimeError("Weaviate connection refused"), ErrorCategory.WEAVIATE_CONNECTION),
    (
        RuntimeError("weaviate: collection schema mismatch on property x"),
        ErrorCategory.WEAVIATE_SCHEMA,
    ),
    (RuntimeError("weaviate batch import failed"), ErrorCategory.WEAVIATE_IMPORT),
    (RuntimeError("weaviate query returned error"), ErrorCategory.WEAVIATE_QUERY),
    (RuntimeError("something odd"), ErrorCategory.UNKNOWN),
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


def test_tool_error_message_defaults_to_error():
    assert ToolError(error="e", category="UNKNOWN", hint="h").message == "e"


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
