"""YouTube's oEmbed endpoint: a public video's title and channel without an API key.

Local transcript files name their video by its ID; where no sidecar gives a title, this
asks oEmbed (YOUTUBE_OEMBED_URL) once per video and keeps the answer, "not known"
included, in the result cache. The Data API (`clients.youtube`) needs a key; this does
not, so a folder of yt-dlp captions is titled on a machine that has none.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from video_research.config import Settings
from video_research.support.errors import ToolFailure
from video_research.support.retrying import backoff_policy
from video_research.support.services import current_settings
from video_research.support.youtube_urls import watch_url

logger = logging.getLogger(__name__)

OEMBED_TIMEOUT_SECONDS = 5.0
"""One oEmbed answer is a few hundred bytes: a slow one is not worth waiting for."""
OEMBED_CONCURRENCY = 4
OEMBED_MAX_BYTES = 64 * 1024
_OEMBED_RETRY_STATUS = {429, 500, 502, 503, 504}


class _OEmbedStatus(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status


def _oembed_transient(exc: BaseException) -> bool:
    import httpx

    if isinstance(exc, _OEmbedStatus):
        return exc.status in _OEMBED_RETRY_STATUS
    return isinstance(exc, httpx.TransportError)


def _oembed_fields(body: Any) -> dict[str, str]:
    """Title, channel and channel URL from an oEmbed answer ({} when it has no title)."""
    if not isinstance(body, dict):
        return {}

    def text(key: str, limit: int) -> str:
        value = body.get(key)
        return value.strip()[:limit] if isinstance(value, str) else ""

    if not text("title", 500):
        return {}
    return {
        "title": text("title", 500),
        "channel_title": text("author_name", 300),
        "channel_url": text("author_url", 500),
    }


async def _ask_oembed(client: Any, url: str, video_id: str, settings: Settings) -> Any:
    """The oEmbed answer for one video ({} for one YouTube does not show), retried with
    tenacity on 429, 5xx and dropped connections; raises when every attempt failed."""

    async def once() -> Any:
        response = await client.get(url, params={"url": watch_url(video_id), "format": "json"})
        if response.status_code in (401, 403, 404):
            return {}  # private, not embeddable or gone: known not to be known
        if response.status_code >= 400:
            raise _OEmbedStatus(response.status_code)
        if len(response.content) > OEMBED_MAX_BYTES:
            return {}
        try:
            return response.json()
        except ValueError:
            return {}

    retrying = backoff_policy(settings, _oembed_transient, "YouTube oEmbed", logger)
    return await retrying(once)


async def oembed_many(
    video_ids: list[str], settings: Settings | None = None
) -> dict[str, dict[str, str]]:
    """Titles and channels of public videos from YouTube's oEmbed endpoint, which needs no
    key: {video_id: {title, channel_title, channel_url}} for those it knows.

    Answers, "not known" included, are kept in the result cache (GEMINI_CACHE_DIR,
    CACHE_TTL_DAYS), so a video is asked once. YOUTUBE_OEMBED_URL passes the URL policy
    once per call (as a URL this server fetches); OEMBED_CONCURRENCY videos are asked at a
    time, each waiting OEMBED_TIMEOUT_SECONDS at most per attempt. The first video whose
    every attempt fails stops the rest (offline, blocked): a folder of transcripts is
    never held up by one unreachable endpoint per file.
    """
    import httpx

    from video_research.support import url_policy
    from video_research.support.cache import Cache

    settings = settings or current_settings()
    base = settings.youtube_oembed_url.strip()
    if not base:
        return {}
    cache = Cache(settings.cache_dir, settings.cache_ttl_days)
    found: dict[str, dict[str, str]] = {}
    todo: list[str] = []
    for video_id in dict.fromkeys(video_ids):
        cached = await asyncio.to_thread(cache.load, video_id, "oembed", base)
        if cached is None:
            todo.append(video_id)
        elif fields := _oembed_fields(cached):
            found[video_id] = fields
    if not todo:
        return found
    try:
        checked = await url_policy.check_url(base, settings, fetch=True)
    except ToolFailure as failure:
        logger.info("oEmbed not asked: %s", failure.message)
        return found
    gate = asyncio.Semaphore(OEMBED_CONCURRENCY)
    unreachable = False

    async with httpx.AsyncClient(timeout=OEMBED_TIMEOUT_SECONDS, follow_redirects=False) as client:

        async def one(video_id: str) -> None:
            nonlocal unreachable
            async with gate:
                if unreachable:
                    return
                try:
                    body = await _ask_oembed(client, checked, video_id, settings)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    logger.info("oEmbed for %s failed, not asking for the rest: %s", video_id, exc)
                    unreachable = True
                    return
            fields = _oembed_fields(body)
            await asyncio.to_thread(cache.save, video_id, "oembed", base, fields)
            if fields:
                found[video_id] = fields

        await asyncio.gather(*(one(video_id) for video_id in todo))
    return found
