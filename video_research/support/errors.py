"""One error model for every tool: the ToolError.

A tool never crashes the server and never answers with a bare traceback. Whatever goes
wrong becomes a `ToolError` that tells the caller what happened (`error`), what kind of
failure it is (`category`), what to do next (`hint`) and whether trying again can help
(`retryable`, `retry_after_seconds`).

Handlers signal expected failures by raising `ToolFailure` (or one of the small helper
constructors below); anything else they raise is mapped by `categorize_error`.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from video_research.support.redact import redact


class ErrorCategory(StrEnum):
    """Every category a ToolError can carry.

    The upper-case names are the outside services' categories (Gemini, YouTube, files,
    Weaviate), kept as the first clients learnt them. The lower-case ones are the
    project-wide codes: general failures (configuration, connection, timeout, ...) and the
    catalog's (forbidden, conflict, nats_error, ...). A bad argument is always
    `invalid_input`: one model, not two.
    """

    URL_INVALID = "URL_INVALID"
    URL_PARSE_FAILED = "URL_PARSE_FAILED"
    API_PERMISSION_DENIED = "API_PERMISSION_DENIED"
    API_QUOTA_EXCEEDED = "API_QUOTA_EXCEEDED"
    API_INVALID_ARGUMENT = "API_INVALID_ARGUMENT"
    API_NOT_FOUND = "API_NOT_FOUND"
    API_UNAVAILABLE = "API_UNAVAILABLE"
    VIDEO_RESTRICTED = "VIDEO_RESTRICTED"
    VIDEO_PRIVATE = "VIDEO_PRIVATE"
    VIDEO_UNAVAILABLE = "VIDEO_UNAVAILABLE"
    COMMENTS_DISABLED = "COMMENTS_DISABLED"
    NETWORK_ERROR = "NETWORK_ERROR"
    FILE_NOT_FOUND = "FILE_NOT_FOUND"
    FILE_UNSUPPORTED = "FILE_UNSUPPORTED"
    FILE_TOO_LARGE = "FILE_TOO_LARGE"
    WEAVIATE_CONNECTION = "WEAVIATE_CONNECTION"
    WEAVIATE_SCHEMA = "WEAVIATE_SCHEMA"
    WEAVIATE_QUERY = "WEAVIATE_QUERY"
    WEAVIATE_IMPORT = "WEAVIATE_IMPORT"
    UNKNOWN = "UNKNOWN"

    INVALID_INPUT = "invalid_input"
    INTERNAL_ERROR = "internal_error"
    CONFIG_ERROR = "config_error"
    CONNECTION_ERROR = "connection_error"
    TIMEOUT_ERROR = "timeout_error"
    AUTH_ERROR = "auth_error"
    NOT_FOUND = "not_found"
    RATE_LIMITED = "rate_limited"
    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"
    FORBIDDEN_PATH = "forbidden_path"
    CONFLICT = "conflict"
    NATS_ERROR = "nats_error"


C = ErrorCategory

RETRYABLE: frozenset[ErrorCategory] = frozenset(
    {
        C.API_QUOTA_EXCEEDED,
        C.API_UNAVAILABLE,
        C.NETWORK_ERROR,
        C.WEAVIATE_CONNECTION,
        C.CONNECTION_ERROR,
        C.TIMEOUT_ERROR,
        C.RATE_LIMITED,
        C.NATS_ERROR,
    }
)

DEFAULT_HINTS: dict[ErrorCategory, str] = {
    C.URL_INVALID: "Pass a YouTube URL such as https://www.youtube.com/watch?v=VIDEO_ID or https://youtu.be/VIDEO_ID.",
    C.URL_PARSE_FAILED: "Check the URL for typos; the video or playlist ID could not be read from it.",
    C.API_PERMISSION_DENIED: "Check that the API key is valid and that the API is enabled for its project.",
    C.API_QUOTA_EXCEEDED: "The API quota or rate limit was hit. Wait and retry, or switch to a cheaper preset with infra_configure(preset='budget').",
    C.API_INVALID_ARGUMENT: "The API rejected the request. Check the parameters (model name, schema, file type).",
    C.API_NOT_FOUND: "The model or resource does not exist. Check the model ID (infra_configure) or the resource ID.",
    C.API_UNAVAILABLE: "The API is overloaded or briefly unavailable. Retry in a few seconds.",
    C.VIDEO_RESTRICTED: "The video is restricted (age, region or embedding). Try another video or a local file.",
    C.VIDEO_PRIVATE: "The video is private. Use a public or unlisted video, or download it and pass file_path.",
    C.VIDEO_UNAVAILABLE: "The video is unavailable (removed or never existed). Check the URL.",
    C.COMMENTS_DISABLED: "The video's owner turned comments off: there are none to read. Try another video.",
    C.NETWORK_ERROR: "A network call failed or timed out. Check connectivity and retry.",
    C.FILE_NOT_FOUND: "Check the path: the file does not exist or is not readable by the server process.",
    C.FILE_UNSUPPORTED: "Use a supported file type (see the tool description for the accepted extensions).",
    C.FILE_TOO_LARGE: "Use a smaller file, or trim/compress it first.",
    C.WEAVIATE_CONNECTION: "Check WEAVIATE_URL / WEAVIATE_API_KEY and that the Weaviate server is reachable.",
    C.WEAVIATE_SCHEMA: "The Weaviate collection schema does not match; see the server log for the property at fault.",
    C.WEAVIATE_QUERY: "The knowledge query failed; simplify the filters or check the server log.",
    C.WEAVIATE_IMPORT: "Writing to the knowledge store failed; check the object's properties.",
    C.UNKNOWN: "Unexpected error. Check the server log (stderr) for details.",
    C.INVALID_INPUT: "Fix the arguments listed in details.errors and call the tool again.",
    C.INTERNAL_ERROR: "This is a bug in video-research, not in your request. The server log (stderr) has the details.",
    C.CONFIG_ERROR: "Fix the configuration named in the message (environment variable or VIDEO_RESEARCH_CONFIG file), then restart the server.",
    C.CONNECTION_ERROR: "A service could not be reached. Check that it is running and its URL is right, then retry.",
    C.TIMEOUT_ERROR: "The operation timed out. Retry, or narrow the request.",
    C.AUTH_ERROR: "The credentials were rejected. Check the API key or token.",
    C.NOT_FOUND: "Nothing exists with that ID. List the available items first and use one of their IDs.",
    C.RATE_LIMITED: "Too many requests. Wait retry_after_seconds, then retry.",
    C.UNAUTHORIZED: "No valid session was presented. Sign in (or pass a valid session) and retry.",
    C.FORBIDDEN: "Your role does not allow this operation. Ask an admin, or use a read-only tool.",
    C.FORBIDDEN_PATH: "Only files under the configured roots (VIDEO_RESEARCH_FILE_ROOTS) can be read.",
    C.CONFLICT: "Something with that name or ID already exists. Choose another name, or update the existing one.",
    C.NATS_ERROR: "The NATS server could not be reached or refused the operation. Nothing was changed; retry when it is back.",
}


# A bare OverflowError (SQLite's integer range, datetime's year range) is the caller's
# number or date being too large, whichever check let it through.
OUT_OF_RANGE_HINT = (
    "A number or date in the arguments is out of range; use a smaller number or a date "
    "closer to today."
)


class ToolError(BaseModel):
    """What a failed tool call returns, as JSON in the result's single text content.

    `error` and `message` carry the same text: `error` is the field name the first
    clients read, `message` the one generic MCP clients look for.
    """

    error: str
    message: str = ""
    category: str
    hint: str
    retryable: bool = False
    retry_after_seconds: int | None = None
    details: dict[str, Any] | None = Field(default=None)

    def model_post_init(self, _context: Any) -> None:
        if not self.message:
            self.message = self.error

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class ToolFailure(Exception):
    """Raised by a handler for an expected failure with a known category.

    The dispatcher turns it into a ToolError; the message and hint are shown to the
    caller as written, so they must be safe to show (no secrets, no internals).
    """

    def __init__(
        self,
        category: ErrorCategory,
        message: str,
        *,
        hint: str | None = None,
        retryable: bool | None = None,
        retry_after_seconds: int | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.category = ErrorCategory(category)
        self.message = message
        self.hint = hint or DEFAULT_HINTS[self.category]
        self.retryable = self.category in RETRYABLE if retryable is None else retryable
        self.retry_after_seconds = retry_after_seconds
        self.details = details

    def to_tool_error(self) -> ToolError:
        return ToolError(
            error=redact(self.message),
            category=self.category.value,
            hint=redact(self.hint),
            retryable=self.retryable,
            retry_after_seconds=self.retry_after_seconds,
            details=self.details,
        )


def invalid_input(message: str, *, hint: str | None = None, **details: Any) -> ToolFailure:
    return ToolFailure(C.INVALID_INPUT, message, hint=hint, details=details or None)


def not_found(message: str, *, hint: str | None = None) -> ToolFailure:
    return ToolFailure(C.NOT_FOUND, message, hint=hint)


def config_error(message: str, *, hint: str | None = None) -> ToolFailure:
    return ToolFailure(C.CONFIG_ERROR, message, hint=hint)


# (category, compiled pattern) in priority order: most specific first. Matched against
# the lower-cased message when an exception carries no better signal (status codes).
_PATTERNS: list[tuple[ErrorCategory, re.Pattern[str]]] = [
    (
        C.WEAVIATE_CONNECTION,
        re.compile(r"weaviate.*(connect|unreachable|refused|closed)|(connect|refused).*weaviate"),
    ),
    (C.WEAVIATE_SCHEMA, re.compile(r"weaviate.*(schema|collection|property|class)")),
    (C.WEAVIATE_IMPORT, re.compile(r"weaviate.*(import|insert|batch)")),
    (C.WEAVIATE_QUERY, re.compile(r"weaviate")),
    (C.FILE_UNSUPPORTED, re.compile(r"unsupported (video |file )?(extension|type|format)")),
    (C.URL_INVALID, re.compile(r"(invalid|not a|unsupported).*(youtube )?url|url.*invalid")),
    (C.URL_PARSE_FAILED, re.compile(r"(could not|cannot|unable to) (extract|parse).*(id|url)")),
    (
        C.API_PERMISSION_DENIED,
        re.compile(r"permission|api key not valid|api_key_invalid|unauthenticated"),
    ),
    (C.API_QUOTA_EXCEEDED, re.compile(r"\b429\b|quota|resource_exhausted|rate limit")),
    (C.API_UNAVAILABLE, re.compile(r"\b503\b|overloaded|service unavailable|\b502\b|\b504\b")),
    (C.API_INVALID_ARGUMENT, re.compile(r"\b400\b|invalid_argument|invalid argument")),
    (C.API_NOT_FOUND, re.compile(r"\b404\b|not_found")),
    (C.VIDEO_PRIVATE, re.compile(r"\bprivate\b")),
    (C.VIDEO_RESTRICTED, re.compile(r"\b403\b|restricted|age.?restricted")),
    (C.VIDEO_UNAVAILABLE, re.compile(r"unavailable")),
    (
        C.NETWORK_ERROR,
        re.compile(r"timeout|timed out|connection (reset|refused|aborted|error)|network"),
    ),
]

_STATUS_CATEGORIES: dict[int, ErrorCategory] = {
    400: C.API_INVALID_ARGUMENT,
    401: C.API_PERMISSION_DENIED,
    404: C.API_NOT_FOUND,
    408: C.NETWORK_ERROR,
    429: C.API_QUOTA_EXCEEDED,
    500: C.API_UNAVAILABLE,
    502: C.API_UNAVAILABLE,
    503: C.API_UNAVAILABLE,
    504: C.API_UNAVAILABLE,
}


def _status_code(exc: BaseException) -> int | None:
    """HTTP status of an SDK error, read by duck typing so no SDK is imported here.

    google-genai's APIError has `.code`; googleapiclient's HttpError has `.resp.status`;
    httpx's HTTPStatusError has `.response.status_code`.
    """
    for getter in (
        lambda e: e.code,
        lambda e: e.status_code,
        lambda e: e.resp.status,
        lambda e: e.response.status_code,
    ):
        try:
            value = getter(exc)
        except Exception:
            continue
        try:
            status = int(value)
        except (TypeError, ValueError):
            continue
        if 100 <= status <= 599:
            return status
    return None


def _category_for_status(status: int, text: str) -> ErrorCategory:
    if status == 403:
        if "quota" in text or "ratelimit" in text or "rate limit" in text:
            return C.API_QUOTA_EXCEEDED
        if "permission" in text or "api key" in text or "forbidden" in text or "blocked" in text:
            return C.API_PERMISSION_DENIED
        return C.VIDEO_RESTRICTED
    if status in _STATUS_CATEGORIES:
        return _STATUS_CATEGORIES[status]
    if status >= 500:
        return C.API_UNAVAILABLE
    return C.UNKNOWN


def categorize_error(exc: BaseException) -> tuple[ErrorCategory, str]:
    """Map any exception to (category, hint), most specific signal first.

    Order: our own ToolFailure, Python's file, timeout and overflow errors, an HTTP status
    carried by the SDK error, then message patterns.
    """
    if isinstance(exc, ToolFailure):
        return exc.category, exc.hint
    if isinstance(exc, FileNotFoundError | IsADirectoryError | NotADirectoryError):
        return C.FILE_NOT_FOUND, DEFAULT_HINTS[C.FILE_NOT_FOUND]
    if isinstance(exc, TimeoutError):
        return C.NETWORK_ERROR, DEFAULT_HINTS[C.NETWORK_ERROR]
    if isinstance(exc, OverflowError):
        return C.INVALID_INPUT, OUT_OF_RANGE_HINT
    text = str(exc).lower()
    status = _status_code(exc)
    if status is not None:
        category = _category_for_status(status, text)
        if category is not C.UNKNOWN:
            return category, DEFAULT_HINTS[category]
    if isinstance(exc, ConnectionError):
        return C.NETWORK_ERROR, DEFAULT_HINTS[C.NETWORK_ERROR]
    for category, pattern in _PATTERNS:
        if pattern.search(text):
            return category, DEFAULT_HINTS[category]
    return C.UNKNOWN, DEFAULT_HINTS[C.UNKNOWN]


def make_tool_error(exc: BaseException) -> ToolError:
    """The ToolError a caller sees for `exc`, with secrets scrubbed from the text."""
    if isinstance(exc, ToolFailure):
        return exc.to_tool_error()
    category, hint = categorize_error(exc)
    message = str(exc) or type(exc).__name__
    retry_after = getattr(exc, "retry_after_seconds", None)
    if retry_after is None and category is C.API_QUOTA_EXCEEDED:
        retry_after = 60
    return ToolError(
        error=redact(message),
        category=category.value,
        hint=hint,
        retryable=category in RETRYABLE,
        retry_after_seconds=retry_after,
    )
