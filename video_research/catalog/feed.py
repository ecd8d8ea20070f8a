"""Feeding the catalog from YouTube results: every video that video_metadata or
video_playlist returns becomes (or refreshes) a catalog entry.

`from_youtube` never raises: a catalog failure is logged and the producing tool's result
is still returned. Each video dict carries at least `video_id` and `title`, and where
known `duration_seconds`, `thumbnail_url`, `url`, `channel_title`, `tags`,
`category` / `categories`, `published_at`.

(The catalog issue replaces this no-op body; the signature is the contract.)
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)


async def from_youtube(videos: list[dict[str, Any]], *, source_tool: str) -> int:
    """Upsert videos into the catalog; returns how many were written."""
    return 0
