"""video_metadata, video_playlist and video_comments: YouTube Data API, no Gemini."""

from __future__ import annotations

from typing import TYPE_CHECKING

from video_research.catalog import feed
from video_research.clients import youtube
from video_research.handlers.context import CallContext
from video_research.knowledge import writethrough
from video_research.support.youtube_urls import parse_playlist_id, parse_video_id

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import (
        VideoCommentsInput,
        VideoCommentsOutput,
        VideoMetadataInput,
        VideoMetadataOutput,
        VideoPlaylistInput,
        VideoPlaylistOutput,
    )


async def video_metadata(args: VideoMetadataInput, ctx: CallContext) -> VideoMetadataOutput:
    metadata = await youtube.get_video(parse_video_id(args["url"]))
    await writethrough.store_video_metadata(metadata)
    await feed.from_youtube([metadata], source_tool="video_metadata")
    return metadata


async def video_playlist(args: VideoPlaylistInput, ctx: CallContext) -> VideoPlaylistOutput:
    playlist = await youtube.get_playlist(parse_playlist_id(args["url"]), args["max_items"])
    available = [item for item in playlist["items"] if item["available"]]
    await feed.from_youtube(available, source_tool="video_playlist")
    return playlist


async def video_comments(args: VideoCommentsInput, ctx: CallContext) -> VideoCommentsOutput:
    return await youtube.get_comments(
        parse_video_id(args["url"]),
        order=args["order"],
        max_results=args["max_results"],
        page_token=args.get("page_token"),
        include_replies=args["include_replies"],
        search_terms=args.get("search_terms"),
    )
