"""Gemini context caching: a long video tokenised once, its tokens billed at the cache rate.

A session on a video keeps that video in a `cachedContents` resource (contents: one
user turn holding the video part, clipped and sampled as the session asked). Each turn
sends only the conversation and names the cache; Gemini bills the video's tokens as
`cachedContentTokenCount`, a fraction of the input price. The cache lives
GEMINI_CONTEXT_CACHE_TTL seconds (at most the session's idle timeout), is renewed while
the session is used, and is deleted when the session ends (expiry or eviction). An
analysis of the same video, clip, sampling and model reuses a live cache too.

Caching is an optimisation, never a requirement. Where the model does not support it,
the content is below the model's minimum, or the API refuses for any other reason, the
call falls back to sending the video (logged at INFO) and the session remembers not to
try again; a transient failure (429, 5xx, network) is retried on the next turn.

Every cache this server creates is recorded in gemini_registry, so infra_cache can list
and clear them (`context_list`, `context_clear`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from video_research.clients.gemini.client import call_with_retry, client, user_content
from video_research.clients.gemini.registry import CacheRow, account_of, get_registry
from video_research.config import Settings
from video_research.support import clock
from video_research.support.errors import RETRYABLE, ErrorCategory, ToolFailure
from video_research.support.services import current_settings

if TYPE_CHECKING:
    from video_research.support.schema_types.tools.infra_cache_output import (
        Context as CacheListing,
    )

logger = logging.getLogger(__name__)

MIN_CACHE_TOKENS = 1024
"""No model caches less (Gemini 2.5 Flash's minimum; Pro models need more)."""

TOKENS_PER_FRAME = {"low": 66, "medium": 258, "high": 258, None: 258}
AUDIO_TOKENS_PER_SECOND = 32

REFRESH_MARGIN_SECONDS = 60.0
"""A cache that lives less than this is treated as gone (a turn may take that long)."""


@dataclass(frozen=True)
class ContextCache:
    name: str
    model: str
    expires_at: float
    token_count: int = 0


class CacheUnavailable(Exception):
    """Caching cannot work for this content or model (`permanent`) or failed this time."""

    def __init__(self, reason: str, *, permanent: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.permanent = permanent


def cache_key(
    *,
    video_uri: str,
    video_metadata: dict[str, Any] | None,
    media_resolution: str | None,
    model: str,
) -> str:
    """What a cache holds: the video, its clip and sampling, and the model."""
    text = json.dumps(
        [video_uri, video_metadata or {}, media_resolution or "", model], sort_keys=True
    )
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def estimated_tokens(
    seconds: float | None, fps: float | None, media_resolution: str | None
) -> int | None:
    """Gemini's documented video cost (frames x tokens per frame + 32 audio tokens/s),
    or None when the duration is unknown."""
    if seconds is None:
        return None
    frames = seconds * (fps or 1.0)
    return int(
        frames * TOKENS_PER_FRAME.get(media_resolution, 258) + seconds * AUDIO_TOKENS_PER_SECOND
    )


def ttl_seconds(settings: Settings) -> int:
    """The cache TTL: the setting, but never longer than a session may sit idle."""
    return int(min(settings.context_cache_ttl_seconds, settings.session_timeout_hours * 3600))


def _expiry(cached: Any, ttl: int) -> float:
    expire = getattr(cached, "expire_time", None)
    if expire is not None:
        try:
            return expire.timestamp()
        except (AttributeError, OverflowError, ValueError):
            pass
    return clock.wall() + ttl


def _token_count(cached: Any) -> int:
    usage = getattr(cached, "usage_metadata", None)
    return int(getattr(usage, "total_token_count", None) or 0)


def _unavailable(failure: ToolFailure) -> CacheUnavailable:
    category = failure.category
    return CacheUnavailable(failure.message, permanent=category not in RETRYABLE)


async def create(
    video_part: Any,
    *,
    model: str,
    key: str,
    content_id: str,
    session_id: str | None = None,
    settings: Settings | None = None,
) -> ContextCache:
    """A new cache holding `video_part`; CacheUnavailable when Gemini will not cache it."""
    settings = settings or current_settings()
    from google.genai import types

    sdk = client(settings)
    ttl = ttl_seconds(settings)
    config = types.CreateCachedContentConfig(
        contents=[user_content(video_part)],
        ttl=f"{ttl}s",
        display_name=f"video-research {content_id}"[:120],
    )

    async def call() -> Any:
        return await sdk.aio.caches.create(model=model, config=config)

    try:
        cached = await call_with_retry("caches.create", call, settings)
    except ToolFailure as failure:
        raise _unavailable(failure) from None
    made = ContextCache(
        name=cached.name,
        model=model,
        expires_at=_expiry(cached, ttl),
        token_count=_token_count(cached),
    )
    await asyncio.to_thread(
        get_registry(settings).put_cache,
        account_of(settings),
        CacheRow(
            name=made.name,
            cache_key=key,
            model=model,
            content_id=content_id,
            session_id=session_id,
            token_count=made.token_count,
            expires_at=made.expires_at,
            created_at=clock.wall(),
        ),
    )
    logger.info(
        "context cache %s created for %s (%d tokens, %d s)",
        made.name,
        content_id,
        made.token_count,
        ttl,
    )
    return made


async def refresh(name: str, settings: Settings | None = None) -> float | None:
    """Renew a cache's TTL; its new expiry, or None when it is gone (expired, deleted)."""
    settings = settings or current_settings()
    from google.genai import types

    sdk = client(settings)
    ttl = ttl_seconds(settings)

    async def call() -> Any:
        return await sdk.aio.caches.update(
            name=name, config=types.UpdateCachedContentConfig(ttl=f"{ttl}s")
        )

    try:
        cached = await call_with_retry("caches.update", call, settings)
    except ToolFailure as failure:
        if is_gone(failure):
            await forget(name, settings)
            return None
        raise
    expires_at = _expiry(cached, ttl)
    await asyncio.to_thread(get_registry(settings).touch_cache, name, expires_at)
    return expires_at


async def delete(name: str, settings: Settings | None = None) -> bool:
    """Delete a cache (best effort); True when Gemini deleted it now."""
    settings = settings or current_settings()
    sdk = client(settings)

    async def call() -> Any:
        return await sdk.aio.caches.delete(name=name)

    deleted = True
    try:
        await call_with_retry("caches.delete", call, settings)
    except ToolFailure as failure:
        deleted = False
        if not is_gone(failure):
            logger.warning("deleting context cache %s failed: %s", name, failure.message)
    await forget(name, settings)
    return deleted


async def forget(name: str, settings: Settings | None = None) -> None:
    await asyncio.to_thread(get_registry(settings or current_settings()).drop_cache, name)


async def live(key: str, settings: Settings | None = None) -> CacheRow | None:
    """A live cache of ours holding `key` (for analyses that may reuse a session's cache)."""
    settings = settings or current_settings()
    if not settings.context_cache_enabled or not settings.gemini_api_key.get_secret_value():
        return None
    return await asyncio.to_thread(
        get_registry(settings).live_cache, account_of(settings), key, margin=REFRESH_MARGIN_SECONDS
    )


def is_gone(failure: ToolFailure) -> bool:
    """A failure saying the named cache no longer exists (expired, deleted): 404, or the
    403 "CachedContent not found (or permission denied)" Gemini answers."""
    text = failure.message.lower()
    if failure.category in (ErrorCategory.NOT_FOUND,):
        return True
    if failure.category in (ErrorCategory.UNAUTHORIZED, ErrorCategory.FORBIDDEN):
        return True
    return failure.category is ErrorCategory.INVALID_INPUT and (
        "cachedcontent" in text.replace(" ", "") or "cached content" in text
    )


# ----------------------------------------------------------------------------- infra_cache


async def list_caches(
    settings: Settings | None = None, *, content_id: str | None = None
) -> list[CacheListing]:
    """The caches this server created (with this key), newest first."""
    settings = settings or current_settings()
    rows = await asyncio.to_thread(
        get_registry(settings).caches, account_of(settings), content_id=content_id
    )
    now = clock.wall()
    return [row.to_json(now) for row in rows]


async def clear_caches(settings: Settings | None = None, *, content_id: str | None = None) -> int:
    """Delete the caches this server created (all, or one content's); how many were live."""
    settings = settings or current_settings()
    rows = await asyncio.to_thread(
        get_registry(settings).caches, account_of(settings), content_id=content_id
    )
    now = clock.wall()
    removed = 0
    for row in rows:
        if row.expires_at <= now:
            await forget(row.name, settings)
            continue
        removed += await delete(row.name, settings)
    return removed
