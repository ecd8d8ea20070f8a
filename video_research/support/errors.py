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
import socket
from enum import StrEnum
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel, Field

from video_research.support.redact import redact

if TYPE_CHECKING:
    from video_research.support.schema_types.common import tool_error


class ErrorCategory(StrEnum):
    """Every category a ToolError can carry: one vocabulary, lower-case snake, for every tool.

    A category says what the caller can do about the failure; the message says what
    happened and the hint what to do next. Fifteen categories, no more:

    - the caller's request: `invalid_input` (a bad argument, URL or ID spelling),
      `unsupported_format` (a file type the tool cannot read), `too_large`,
      `not_found` (no such file, ID, video or model), `conflict` (the name is taken);
    - access: `unauthorized` (credentials missing or rejected), `forbidden` (known, but
      not allowed: a role, the file roots, a private or restricted video);
    - transient, retryable: `rate_limited`, `network` (DNS, connection, reset),
      `timeout`, `unavailable` (a service answered that it is down or overloaded);
    - the server's side: `store_error` (the knowledge store refused a query or write),
      `config_error`, `internal_error` (a bug or an unexpected answer);
    - `cancelled`: recorded in the audit log for a write cancelled before it answered.

    The values of the earlier two vocabularies (`URL_INVALID`, `FILE_NOT_FOUND`,
    `NETWORK_ERROR`, ...) are only read, never written: `ErrorCategory("URL_INVALID")` (an old
    value read back from an old audit row or client) gives the new member (`OLD_VALUES`).
    """

    INVALID_INPUT = "invalid_input"
    UNSUPPORTED_FORMAT = "unsupported_format"
    TOO_LARGE = "too_large"
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"
    UNAUTHORIZED = "unauthorized"
    FORBIDDEN = "forbidden"
    RATE_LIMITED = "rate_limited"
    NETWORK = "network"
    TIMEOUT = "timeout"
    UNAVAILABLE = "unavailable"
    STORE_ERROR = "store_error"
    CONFIG_ERROR = "config_error"
    INTERNAL_ERROR = "internal_error"
    CANCELLED = "cancelled"

    @classmethod
    def _missing_(cls, value: object) -> ErrorCategory | None:
        """An old value (`"URL_INVALID"`, `"timeout_error"`) read as its new member."""
        if isinstance(value, str):
            name = value.upper()
            new = OLD_VALUES.get(name)
            if new is not None:
                return cls(new)
            return cls.__members__.get(name)
        return None


OLD_VALUES: dict[str, str] = {
    "URL_INVALID": "invalid_input",
    "URL_PARSE_FAILED": "invalid_input",
    "API_INVALID_ARGUMENT": "invalid_input",
    "FILE_UNSUPPORTED": "unsupported_format",
    "FILE_TOO_LARGE": "too_large",
    "FILE_NOT_FOUND": "not_found",
    "API_NOT_FOUND": "not_found",
    "VIDEO_UNAVAILABLE": "not_found",
    "API_PERMISSION_DENIED": "unauthorized",
    "AUTH_ERROR": "unauthorized",
    "VIDEO_RESTRICTED": "forbidden",
    "VIDEO_PRIVATE": "forbidden",
    "COMMENTS_DISABLED": "forbidden",
    "FORBIDDEN_PATH": "forbidden",
    "API_QUOTA_EXCEEDED": "rate_limited",
    "NETWORK_ERROR": "network",
    "CONNECTION_ERROR": "network",
    "WEAVIATE_CONNECTION": "network",
    "TIMEOUT_ERROR": "timeout",
    "API_UNAVAILABLE": "unavailable",
    "NATS_ERROR": "unavailable",
    "WEAVIATE_SCHEMA": "store_error",
    "WEAVIATE_QUERY": "store_error",
    "WEAVIATE_IMPORT": "store_error",
    "UNKNOWN": "internal_error",
}
"""The values of the earlier two vocabularies, as stored in old audit rows or sent by old
clients (upper or lower case), and the category each reads as. Only the wire keeps them:
the code names the members above."""


C = ErrorCategory

CATEGORIES: tuple[str, ...] = tuple(member.value for member in ErrorCategory)
"""The documented list, in order (docs/errors.md and schemas/common/tool_error.json)."""

RETRYABLE: frozenset[ErrorCategory] = frozenset(
    {C.RATE_LIMITED, C.NETWORK, C.TIMEOUT, C.UNAVAILABLE}
)

DEFAULT_HINTS: dict[ErrorCategory, str] = {
    C.INVALID_INPUT: "Fix the argument the message names (details.errors lists each one when there are several) and call the tool again.",
    C.UNSUPPORTED_FORMAT: "Use a supported file type (see the tool description for the accepted extensions), or convert the file first.",
    C.TOO_LARGE: "Use a smaller file, or trim/compress it first.",
    C.NOT_FOUND: "Nothing exists under that path, ID or URL. Check it (a path is read on the server's machine), or list what exists and use one of those.",
    C.CONFLICT: "Something with that name or ID already exists. Choose another name, or update the existing one.",
    C.UNAUTHORIZED: "The credentials were missing or rejected. Check the API key or token (or sign in again) and retry.",
    C.FORBIDDEN: "This is not allowed (the message says by whom). Use something you may access, or ask an admin.",
    C.RATE_LIMITED: "A rate limit or quota was hit. Wait retry_after_seconds and retry, or switch to a cheaper preset with infra_configure(preset='budget').",
    C.NETWORK: "A network call failed (name lookup, connection or reset). Check the address and the server's connectivity, then retry.",
    C.TIMEOUT: "The operation timed out. Retry, or narrow the request.",
    C.UNAVAILABLE: "The service is overloaded or briefly unavailable. Retry in a few seconds.",
    C.STORE_ERROR: "The knowledge store refused the query or write; simplify the filters, or see the server log (stderr) for the field at fault.",
    C.CONFIG_ERROR: "Fix the configuration named in the message (environment variable or VIDEO_RESEARCH_CONFIG file), then restart the server.",
    C.INTERNAL_ERROR: "Something unexpected failed inside video-research, not in your request. Retry once; the server log (stderr) has the details.",
    C.CANCELLED: "The call was cancelled before it answered. Check the current state before repeating it.",
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

    def to_contract(self) -> tool_error.ToolError:
        """`to_json_dict` typed as the contract's ToolError (schemas/common/tool_error.json),
        for results that carry an error per item: this model's fields are that schema's
        (tests/support check every error against it), which pydantic's dump cannot say."""
        return cast("tool_error.ToolError", self.to_json_dict())


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


# Hints more precise than their category's default, for the failures the outside
# services (Gemini, YouTube, files, Weaviate) report most.
URL_HINT = "Pass a YouTube URL such as https://www.youtube.com/watch?v=VIDEO_ID or https://youtu.be/VIDEO_ID."
URL_PARSE_HINT = "Check the URL for typos; the video or playlist ID could not be read from it."
API_KEY_HINT = "Check that the API key is valid and that the API is enabled for its project."
API_ARGUMENT_HINT = (
    "The API rejected the request. Check the parameters (model name, schema, file type)."
)
API_NOT_FOUND_HINT = (
    "The model or resource does not exist. Check the model ID (infra_configure) or the resource ID."
)
VIDEO_PRIVATE_HINT = (
    "The video is private. Use a public or unlisted video, or download it and pass file_path."
)
VIDEO_RESTRICTED_HINT = (
    "The video is restricted (age, region or embedding). Try another video or a local file."
)
VIDEO_GONE_HINT = "The video is unavailable (removed or never existed). Check the URL."
COMMENTS_OFF_HINT = (
    "The video's owner turned comments off: there are none to read. Try another video."
)
FILE_MISSING_HINT = (
    "Check the path: the file does not exist or is not readable by the server process."
)
WEAVIATE_CONNECTION_HINT = (
    "Check WEAVIATE_URL / WEAVIATE_API_KEY and that the Weaviate server is reachable."
)
WEAVIATE_SCHEMA_HINT = (
    "The Weaviate collection schema does not match; see the server log for the property at fault."
)
WEAVIATE_QUERY_HINT = "The knowledge query failed; simplify the filters or check the server log."
WEAVIATE_IMPORT_HINT = "Writing to the knowledge store failed; check the object's properties."

# (category, hint, compiled pattern) in priority order: most specific first. Matched
# against the lower-cased message when an exception carries no better signal (a status).
_PATTERNS: list[tuple[ErrorCategory, str, re.Pattern[str]]] = [
    (
        C.NETWORK,
        WEAVIATE_CONNECTION_HINT,
        re.compile(r"weaviate.*(connect|unreachable|refused|closed)|(connect|refused).*weaviate"),
    ),
    (
        C.STORE_ERROR,
        WEAVIATE_SCHEMA_HINT,
        re.compile(r"weaviate.*(schema|collection|property|class)"),
    ),
    (C.STORE_ERROR, WEAVIATE_IMPORT_HINT, re.compile(r"weaviate.*(import|insert|batch)")),
    (C.STORE_ERROR, WEAVIATE_QUERY_HINT, re.compile(r"weaviate")),
    (
        C.UNSUPPORTED_FORMAT,
        DEFAULT_HINTS[C.UNSUPPORTED_FORMAT],
        re.compile(r"unsupported (video |file )?(extension|type|format)"),
    ),
    (
        C.NETWORK,
        DEFAULT_HINTS[C.NETWORK],
        re.compile(
            r"name or service not known|temporary failure in name resolution|nodename nor servname"
            r"|getaddrinfo failed|name resolution|no address associated"
        ),
    ),
    (
        C.INVALID_INPUT,
        URL_HINT,
        re.compile(r"(invalid|not a|unsupported).*(youtube )?url|url.*invalid"),
    ),
    (
        C.INVALID_INPUT,
        URL_PARSE_HINT,
        re.compile(r"(could not|cannot|unable to) (extract|parse).*(id|url)"),
    ),
    (
        C.UNAUTHORIZED,
        API_KEY_HINT,
        re.compile(r"permission|api key not valid|api_key_invalid|unauthenticated"),
    ),
    (
        C.RATE_LIMITED,
        DEFAULT_HINTS[C.RATE_LIMITED],
        re.compile(r"\b429\b|quota|resource_exhausted|rate limit"),
    ),
    (
        C.UNAVAILABLE,
        DEFAULT_HINTS[C.UNAVAILABLE],
        re.compile(r"\b503\b|overloaded|service unavailable|\b502\b|\b504\b"),
    ),
    (C.INVALID_INPUT, API_ARGUMENT_HINT, re.compile(r"\b400\b|invalid_argument|invalid argument")),
    (C.NOT_FOUND, API_NOT_FOUND_HINT, re.compile(r"\b404\b|not_found")),
    (C.FORBIDDEN, VIDEO_PRIVATE_HINT, re.compile(r"\bprivate\b")),
    (C.FORBIDDEN, VIDEO_RESTRICTED_HINT, re.compile(r"\b403\b|restricted|age.?restricted")),
    (C.NOT_FOUND, VIDEO_GONE_HINT, re.compile(r"unavailable")),
    (C.TIMEOUT, DEFAULT_HINTS[C.TIMEOUT], re.compile(r"timeout|timed out")),
    (
        C.NETWORK,
        DEFAULT_HINTS[C.NETWORK],
        re.compile(r"connection (reset|refused|aborted|error)|network"),
    ),
]

_STATUS_CATEGORIES: dict[int, tuple[ErrorCategory, str]] = {
    400: (C.INVALID_INPUT, API_ARGUMENT_HINT),
    401: (C.UNAUTHORIZED, API_KEY_HINT),
    404: (C.NOT_FOUND, API_NOT_FOUND_HINT),
    408: (C.TIMEOUT, DEFAULT_HINTS[C.TIMEOUT]),
    429: (C.RATE_LIMITED, DEFAULT_HINTS[C.RATE_LIMITED]),
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


def _category_for_status(status: int, text: str) -> tuple[ErrorCategory, str] | None:
    if status == 403:
        if "quota" in text or "ratelimit" in text or "rate limit" in text:
            return C.RATE_LIMITED, DEFAULT_HINTS[C.RATE_LIMITED]
        if "permission" in text or "api key" in text or "forbidden" in text or "blocked" in text:
            return C.UNAUTHORIZED, API_KEY_HINT
        return C.FORBIDDEN, VIDEO_RESTRICTED_HINT
    if status in _STATUS_CATEGORIES:
        return _STATUS_CATEGORIES[status]
    if status >= 500:
        return C.UNAVAILABLE, DEFAULT_HINTS[C.UNAVAILABLE]
    return None


def _is_name_lookup_failure(exc: BaseException) -> bool:
    """A DNS failure (socket.gaierror), raised directly or wrapped by httpx/httpcore."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, socket.gaierror):
            return True
        current = current.__cause__ or current.__context__
    return False


def categorize_error(exc: BaseException) -> tuple[ErrorCategory, str]:
    """Map any exception to (category, hint), most specific signal first.

    Order: our own ToolFailure, a failed name lookup, Python's file, timeout and overflow
    errors, an HTTP status carried by the SDK error, then message patterns.
    """
    if isinstance(exc, ToolFailure):
        return exc.category, exc.hint
    if _is_name_lookup_failure(exc):
        return C.NETWORK, DEFAULT_HINTS[C.NETWORK]
    if isinstance(exc, FileNotFoundError | IsADirectoryError | NotADirectoryError):
        return C.NOT_FOUND, FILE_MISSING_HINT
    if isinstance(exc, TimeoutError):
        return C.TIMEOUT, DEFAULT_HINTS[C.TIMEOUT]
    if isinstance(exc, OverflowError):
        return C.INVALID_INPUT, OUT_OF_RANGE_HINT
    text = str(exc).lower()
    status = _status_code(exc)
    if status is not None:
        mapped = _category_for_status(status, text)
        if mapped is not None:
            return mapped
    if isinstance(exc, ConnectionError):
        return C.NETWORK, DEFAULT_HINTS[C.NETWORK]
    for category, hint, pattern in _PATTERNS:
        if pattern.search(text):
            return category, hint
    return C.INTERNAL_ERROR, DEFAULT_HINTS[C.INTERNAL_ERROR]


def make_tool_error(exc: BaseException) -> ToolError:
    """The ToolError a caller sees for `exc`, with secrets scrubbed from the text."""
    if isinstance(exc, ToolFailure):
        return exc.to_tool_error()
    category, hint = categorize_error(exc)
    message = str(exc) or type(exc).__name__
    retry_after = getattr(exc, "retry_after_seconds", None)
    if retry_after is None and category is C.RATE_LIMITED:
        retry_after = 60
    return ToolError(
        error=redact(message),
        category=category.value,
        hint=hint,
        retryable=category in RETRYABLE,
        retry_after_seconds=retry_after,
    )
