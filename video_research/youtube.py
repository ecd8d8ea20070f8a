"""The YouTube Data API client: the one module that talks to YouTube (google-api-python-client).

(The YouTube part of the Gemini-pipeline issue fills this module. Its contract for other
modules so far: each function raises ToolFailure on errors, quota errors as
API_QUOTA_EXCEEDED.)
"""

from __future__ import annotations

from typing import Any

from video_research.errors import ErrorCategory, ToolFailure


def _not_built() -> ToolFailure:
    return ToolFailure(ErrorCategory.CONFIG_ERROR, "The YouTube client is not built yet")


async def get_video(video_id: str) -> dict[str, Any]:
    """Metadata of one video (the video_metadata output shape)."""
    raise _not_built()


async def get_videos(video_ids: list[str]) -> list[dict[str, Any]]:
    """Metadata of many videos (batched 50 per request), in the order given; unknown IDs skipped."""
    raise _not_built()


async def get_playlist(playlist_id: str, max_items: int) -> dict[str, Any]:
    """A playlist and up to max_items of its videos (the video_playlist output shape)."""
    raise _not_built()


async def list_channel_videos(channel_id: str, max_videos: int) -> list[dict[str, Any]]:
    """A channel's most recent uploads, newest first, as video metadata dicts."""
    raise _not_built()
