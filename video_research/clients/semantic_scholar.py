"""The Semantic Scholar client: the one module that talks to api.semanticscholar.org (httpx).

- Base URL `SEMANTIC_SCHOLAR_BASE_URL` (a mirror, or a local stub in the tests); the
  Graph API lives under `/graph/v1`, recommendations under `/recommendations/v1`.
- No key is needed. `SEMANTIC_SCHOLAR_API_KEY` (sent as `x-api-key`) raises the rate
  limit. Requests are paced process-wide to `SEMANTIC_SCHOLAR_RPS` per second, and never
  faster than one a second without a key: the keyless pool is shared by everyone, and
  going faster only earns 429s.
- 429 and 5xx answers, timeouts and dropped connections are retried with tenacity
  (GEMINI_RETRY_* bounds), waiting at least what `Retry-After` asks. 400, 401/403 and
  404 fail at once: retrying cannot fix them.
- Failures leave as ToolFailure: 429 -> rate_limited (retry_after_seconds from
  Retry-After), 404 -> not_found, 400 -> invalid_input with the API's own message,
  401/403 -> unauthorized, 5xx and garbled bodies -> unavailable, transport -> network.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from email.utils import parsedate_to_datetime
from typing import Any

from video_research.config import Settings
from video_research.support.errors import ErrorCategory, ToolFailure
from video_research.support.services import current_settings

logger = logging.getLogger(__name__)

TIMEOUT_SECONDS = 30.0
KEYLESS_MAX_RPS = 1.0
KEY_HINT = (
    "Check SEMANTIC_SCHOLAR_API_KEY (or unset it: the API works without a key, at a lower "
    "rate limit), then restart the server."
)
_RETRY_STATUS = {429, 500, 502, 503, 504}


class _Pacer:
    """Spaces request starts at least `interval` apart, across every event loop and thread.

    Each caller reserves the next free slot under a thread lock and sleeps until it, so
    concurrent tool calls queue fairly instead of racing into 429s.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._next_free = 0.0

    async def wait(self, interval: float) -> None:
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next_free)
            self._next_free = start + interval
        if start > now:
            await asyncio.sleep(start - now)


_pacer = _Pacer()


class ApiError(Exception):
    """A non-2xx answer: the status, the API's own message and any Retry-After."""

    def __init__(self, status: int, message: str, retry_after: float | None) -> None:
        super().__init__(f"Semantic Scholar answered {status}: {message}")
        self.status = status
        self.message = message
        self.retry_after = retry_after


def interval(settings: Settings) -> float:
    """Seconds between request starts for the configured key and rate."""
    rps = settings.semantic_scholar_requests_per_second
    if not settings.semantic_scholar_api_key.get_secret_value():
        rps = min(rps, KEYLESS_MAX_RPS)
    return 1.0 / rps


def _retry_after(value: str | None) -> float | None:
    """Retry-After in seconds: delta-seconds or an HTTP date (RFC 9110)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


def _message(response: Any) -> str:
    """The API's error text: `{"error": ...}` (400/404) or `{"message": ...}` (429, gateway)."""
    try:
        body = response.json()
    except ValueError:
        return (response.text or "").strip()[:300] or response.reason_phrase
    if isinstance(body, dict):
        for key in ("error", "message"):
            if isinstance(body.get(key), str):
                return body[key][:300]
    return str(body)[:300]


def _is_transient(exc: BaseException) -> bool:
    import httpx

    if isinstance(exc, ApiError):
        return exc.status in _RETRY_STATUS
    return isinstance(exc, httpx.TransportError)


async def get(path: str, params: dict[str, Any], what: str) -> dict[str, Any]:
    """GET `path` (under the base URL) with retries and pacing; the JSON object it answers."""
    import httpx
    import tenacity

    settings = current_settings()
    headers = {"accept": "application/json"}
    key = settings.semantic_scholar_api_key.get_secret_value()
    if key:
        headers["x-api-key"] = key
    query = {k: v for k, v in params.items() if v is not None}
    spacing = interval(settings)

    exponential = tenacity.wait_exponential_jitter(
        initial=settings.retry_base_delay, max=settings.retry_max_delay
    )

    def wait(state: tenacity.RetryCallState) -> float:
        delay = exponential(state)
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, ApiError) and exc.retry_after is not None:
            delay = max(delay, exc.retry_after)
        return min(delay, settings.retry_max_delay)

    async with httpx.AsyncClient(
        base_url=settings.semantic_scholar_base_url.rstrip("/"),
        headers=headers,
        timeout=TIMEOUT_SECONDS,
        follow_redirects=False,
    ) as client:

        async def once() -> dict[str, Any]:
            await _pacer.wait(spacing)
            response = await client.get(path, params=query)
            if response.status_code >= 400:
                raise ApiError(
                    response.status_code,
                    _message(response),
                    _retry_after(response.headers.get("retry-after")),
                )
            try:
                body = response.json()
            except ValueError:
                raise ApiError(502, "the answer was not JSON", None) from None
            if not isinstance(body, dict):
                raise ApiError(502, f"the answer was a JSON {type(body).__name__}", None)
            return body

        retrying = tenacity.AsyncRetrying(
            stop=tenacity.stop_after_attempt(settings.retry_max_attempts),
            wait=wait,
            retry=tenacity.retry_if_exception(_is_transient),
            reraise=True,
            before_sleep=lambda state: logger.warning(
                "Semantic Scholar %s attempt %d failed (%s); retrying in %.2f s",
                what,
                state.attempt_number,
                state.outcome.exception() if state.outcome else "?",
                state.upcoming_sleep,
            ),
        )
        try:
            return await retrying(once)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise to_failure(exc, what) from exc


def to_failure(exc: BaseException, what: str) -> ToolFailure:
    """Our category for a failed Semantic Scholar call."""
    if not isinstance(exc, ApiError):
        return ToolFailure(
            ErrorCategory.NETWORK,
            f"Could not reach Semantic Scholar for {what} ({type(exc).__name__}: {exc}).",
            hint="Check connectivity (and SEMANTIC_SCHOLAR_BASE_URL if set), then retry.",
        )
    status, message = exc.status, exc.message
    if status == 429:
        seconds = None if exc.retry_after is None else max(1, round(exc.retry_after))
        return ToolFailure(
            ErrorCategory.RATE_LIMITED,
            f"Semantic Scholar's rate limit was hit while fetching {what}.",
            hint="Wait and retry; set SEMANTIC_SCHOLAR_API_KEY for a higher rate limit "
            "(keys are free: https://www.semanticscholar.org/product/api).",
            retryable=True,
            retry_after_seconds=seconds,
        )
    if status == 404:
        return ToolFailure(ErrorCategory.NOT_FOUND, f"Semantic Scholar has no {what}: {message}")
    if status in (401, 403):
        return ToolFailure(
            ErrorCategory.UNAUTHORIZED,
            f"Semantic Scholar refused the request for {what}: {message}",
            hint=KEY_HINT,
        )
    if status >= 500:
        return ToolFailure(
            ErrorCategory.UNAVAILABLE,
            f"Semantic Scholar is unavailable ({status}: {message}) while fetching {what}.",
            retry_after_seconds=None if exc.retry_after is None else max(1, round(exc.retry_after)),
        )
    return ToolFailure(
        ErrorCategory.INVALID_INPUT,
        f"Semantic Scholar rejected the request for {what}: {message}",
        hint="Check the identifier and filters (year as 2019 or 2016-2020).",
    )
