"""The retry policy of blocking calls to outside services (YouTube Data API, transcripts).

One home for it so every such call backs off the same way, bounded by the GEMINI_RETRY_*
settings. Gemini has its own policy in gemini.py because it honours the server's retryDelay.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from video_research.config import Settings

T = TypeVar("T")


def backoff_policy(
    settings: Settings,
    is_transient: Callable[[BaseException], bool],
    what: str,
    logger: logging.Logger,
) -> Any:
    """The house retry policy as a `tenacity.AsyncRetrying`: jittered exponential backoff
    bounded by the GEMINI_RETRY_* settings, retrying only what `is_transient` accepts, the
    last exception re-raised unchanged so the caller can categorise it."""
    import tenacity

    return tenacity.AsyncRetrying(
        stop=tenacity.stop_after_attempt(settings.retry_max_attempts),
        wait=tenacity.wait_exponential_jitter(
            initial=settings.retry_base_delay, max=settings.retry_max_delay
        ),
        retry=tenacity.retry_if_exception(is_transient),
        reraise=True,
        before_sleep=lambda state: logger.warning(
            "%s attempt %d failed (%s); retrying",
            what,
            state.attempt_number,
            type(state.outcome.exception()).__name__ if state.outcome else "?",
        ),
    )


async def call_with_backoff(
    func: Callable[..., T],
    *args: Any,
    settings: Settings,
    is_transient: Callable[[BaseException], bool],
    what: str,
    logger: logging.Logger,
) -> T:
    """Run a blocking `func(*args)` in a thread, retrying transient failures with jittered backoff.

    The last exception is re-raised unchanged so the caller can categorise it.
    """
    retrying = backoff_policy(settings, is_transient, what, logger)
    return await retrying(asyncio.to_thread, func, *args)
