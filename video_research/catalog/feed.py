"""Feeding the catalog from YouTube results: every video that video_metadata or
video_playlist returns and the catalog lacks becomes a catalog entry.

`from_youtube` never raises: a catalog failure is logged and the producing tool's result
is still returned. Each video dict carries at least `video_id` and `title`, and where
known `duration_seconds`, `thumbnail_url`, `url`, `channel_title`, `tags`,
`category` / `categories` / `category_id`, `published_at`.

A new entry gets YouTube's own category (by name). These tools are open to viewers and
not audited, so an existing entry is never rewritten by a feed: only a duration or
thumbnail it lacks is filled in (`videos.upsert(fill_only=True)`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from video_research.catalog import changes
from video_research.catalog.videos import YOUTUBE_CATEGORIES, VideoRecord
from video_research.support.youtube_urls import watch_url

logger = logging.getLogger(__name__)


def record_from_youtube(video: Mapping[str, Any]) -> VideoRecord:
    """The catalog entry for one YouTube video dict (raises ValidationError when unusable)."""
    categories = list(video.get("categories") or [])
    if video.get("category"):
        categories.append(str(video["category"]))
    named = YOUTUBE_CATEGORIES.get(str(video.get("category_id") or ""))
    if named:
        categories.append(named)
    video_id = str(video.get("video_id") or "")
    return VideoRecord(
        video_id=video_id,
        title=video.get("title") or "",
        manifest_url=video.get("url") or (watch_url(video_id) if video_id else ""),
        manifest_defaulted=True,
        categories=categories,
        duration_seconds=video.get("duration_seconds"),
        thumbnail_url=video.get("thumbnail_url"),
    )


async def from_youtube(videos: Sequence[Mapping[str, Any]], *, source_tool: str) -> int:
    """Add new videos to the catalog (existing ones only gain a missing duration or
    thumbnail); returns how many were processed."""
    from video_research.catalog import db
    from video_research.catalog import videos as catalog

    records = []
    for video in videos:
        try:
            records.append(record_from_youtube(video))
        except ValidationError as exc:
            logger.debug("not cataloguing %r: %s", video.get("video_id"), exc)

    def write(conn: Any) -> int:
        for record in records:
            catalog.upsert(conn, record, source=source_tool, fill_only=True)
        return len(records)

    if not records:
        return 0
    try:
        written = await db.get_db().write(write)
    except Exception as exc:
        logger.warning("catalog feed from %s failed: %s", source_tool, exc)
        return 0
    await changes.entries_changed()
    return written
